"""Compound files: SDF (PubChem / ChEBI / ChEMBL name properties) and ChEBI OBO.

SDF records add or enrich compounds (names, description, ids). OBO terms add their
definition as the description of the compound with the same structure (InChIKey, else
SMILES) or, failing that, the same name; terms with neither (ontology classes) are skipped
and counted. Everything is written in one transaction and re-importing changes nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdkit import Chem

from chemground.chem.names import guess_name_format, normalize_name
from chemground.chem.structure import is_inchikey, rdkit_messages
from chemground.errors import ImportFileError
from chemground.kb.importers.base import Progress, RowError, control_character_in, file_sha256
from chemground.kb.importers.textio import (
    GZIP_ERRORS,
    decoding_error,
    first_bad_byte,
    open_utf8_bytes,
    sniff_encoding,
)
from chemground.kb.records import Compound
from chemground.kb.store import KnowledgeBase
from chemground.kb.structures import compute_many

NAME_PROPS = (
    "PUBCHEM_IUPAC_NAME",
    "IUPAC_NAME",
    "IUPAC Names",
    "ChEBI Name",
    "pref_name",
    "chembl_pref_name",
    "NAME",
    "Name",
    "COMMON_NAME",
    "PUBCHEM_IUPAC_TRADITIONAL_NAME",
    "Synonyms",
    "SYNONYMS",
)
DESCRIPTION_PROPS = ("Definition", "DEFINITION", "DESCRIPTION", "Description", "description")
CID_PROPS = ("PUBCHEM_COMPOUND_CID", "CID")
CAS_PROPS = ("CAS", "CAS_NUMBER", "CASRN")


@dataclass
class RawCompound:
    names: list[str]
    smiles: str | None = None
    inchikey: str | None = None
    description: str = ""
    iupac_name: str | None = None
    pubchem_cid: int | None = None
    cas: str | None = None
    external_id: str | None = None
    line: int | None = None


@dataclass
class CompoundImportSummary:
    path: str
    format: str
    records_read: int = 0
    compounds_added: int = 0
    compounds_enriched: int = 0
    descriptions_added: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[tuple[int | None, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "records_read": self.records_read,
            "compounds_added": self.compounds_added,
            "compounds_enriched": self.compounds_enriched,
            "descriptions_added": self.descriptions_added,
            "skipped": dict(self.skipped),
            "errors": [{"line": line, "message": msg} for line, msg in self.errors],
            "seconds": round(self.seconds, 3),
        }


def _split_values(value: str) -> list[str]:
    return [v.strip() for v in value.replace("\r", "").split("\n") if v.strip()]


def read_sdf(path: Path, encoding: str | None = None) -> Iterator[RawCompound | RowError]:
    with open_utf8_bytes(path, encoding) as handle:
        try:
            yield from _read_sdf(handle)
        except UnicodeDecodeError:
            # RDKit decodes property values as UTF-8 while it reads: find where, and say what to do
            raise decoding_error(
                path, sniff_encoding(path, encoding), explicit=encoding is not None
            ) from None
        except (OSError, EOFError, RuntimeError, SystemError) as error:
            # an error raised while RDKit reads the stream comes back as a SystemError around it
            inner = (
                error.__context__ if isinstance(error, SystemError) and error.__context__ else error
            )
            if isinstance(inner, UnicodeDecodeError):
                raise decoding_error(
                    path, sniff_encoding(path, encoding), explicit=encoding is not None
                ) from None
            if isinstance(inner, GZIP_ERRORS):
                raise ImportFileError(
                    f"{path}: truncated or corrupt gzip data ({type(inner).__name__}: {inner})"
                ) from None
            raise ImportFileError(
                f"{path}: truncated or unreadable SDF ({type(inner).__name__}: {inner})"
            ) from None


def _read_sdf(handle) -> Iterator[RawCompound | RowError]:
    supplier = Chem.ForwardSDMolSupplier(handle, sanitize=True, removeHs=True)
    for index, mol in enumerate(_iterate(supplier), start=1):
        if mol is None:
            yield RowError(index, "record could not be parsed as a molecule")
            continue
        props = mol.GetPropsAsDict(includePrivate=True)
        names: list[str] = []
        for prop in NAME_PROPS:
            if prop in props:
                names += _split_values(str(props[prop]))
        title = str(props.get("_Name", "")).strip()
        if title and not title.isdigit():
            names.append(title)
        description = next((str(props[p]).strip() for p in DESCRIPTION_PROPS if p in props), "")
        cid = next((props[p] for p in CID_PROPS if p in props), None)
        cas = next((str(props[p]).strip() for p in CAS_PROPS if p in props), None)
        iupac = next(
            (
                _split_values(str(props[p]))[0]
                for p in ("PUBCHEM_IUPAC_NAME", "IUPAC_NAME", "IUPAC Names")
                if p in props and str(props[p]).strip()
            ),
            None,
        )
        with rdkit_messages():
            smiles = Chem.MolToSmiles(mol)
        yield RawCompound(
            names=list(dict.fromkeys(names)),
            smiles=smiles,
            description=description,
            iupac_name=iupac,
            pubchem_cid=int(cid) if cid not in (None, "") and str(cid).isdigit() else None,
            cas=cas,
            external_id=str(props.get("ChEBI ID") or props.get("chembl_id") or "") or None,
            line=index,
        )


def _iterate(supplier):
    with rdkit_messages():
        yield from supplier


def read_obo(path: Path, encoding: str | None = None) -> Iterator[RawCompound | RowError]:
    import fastobo

    with open_utf8_bytes(path, encoding) as handle:
        try:
            document = fastobo.load(handle)
        except UnicodeDecodeError:
            raise decoding_error(
                path, sniff_encoding(path, encoding), explicit=encoding is not None
            ) from None
        except (SyntaxError, ValueError, OSError, EOFError, TypeError, RuntimeError) as error:
            detail = " ".join(str(error).split())[:300]
            codec = sniff_encoding(path, encoding)
            if "utf-8" in detail.lower() and first_bad_byte(path, codec) is not None:
                raise decoding_error(path, codec, explicit=encoding is not None) from None
            raise ImportFileError(f"{path}: not a readable OBO file: {detail}") from None
    for index, frame in enumerate(document, start=1):
        if type(frame).__name__ != "TermFrame":
            continue
        name, definition, smiles, key, iupac = None, "", None, None, None
        synonyms: list[str] = []
        for clause in frame:
            kind = type(clause).__name__
            if kind == "NameClause":
                name = str(clause.name)
            elif kind == "DefClause":
                definition = str(clause.definition)
            elif kind == "SynonymClause":
                synonym = clause.synonym
                scope_type = str(synonym.type or "")
                if "FORMULA" in scope_type.upper():
                    continue
                synonyms.append(str(synonym.desc))
                if "IUPAC" in scope_type.upper() and iupac is None:
                    iupac = str(synonym.desc)
            elif kind == "PropertyValueClause":
                pv = clause.property_value
                relation = str(getattr(pv, "relation", "")).lower()
                value = str(getattr(pv, "value", "")).strip()
                if relation.endswith(("smiles", "smiles_string")):
                    smiles = value
                elif relation.endswith(("inchikey", "inchi_key_string")) and is_inchikey(value):
                    key = value
        if name or synonyms:
            yield RawCompound(
                names=[n for n in [name, *synonyms] if n],
                smiles=smiles,
                inchikey=key,
                description=definition,
                iupac_name=iupac,
                external_id=str(frame.id),
                line=index,
            )


def _control_character_problem(raw: RawCompound) -> str | None:
    """A record with a control character in a name or identifier is refused (see base)."""
    fields = [("name", n) for n in raw.names] + [
        ("SMILES", raw.smiles),
        ("InChIKey", raw.inchikey),
        ("IUPAC name", raw.iupac_name),
        ("CAS", raw.cas),
        ("id", raw.external_id),
    ]
    for label, value in fields:
        found = control_character_in(value)
        if found:
            return f"control character {found} in {label}: the record is refused, not stored"
    found = control_character_in(raw.description, free_text=True)
    if found:
        return f"control character {found} in description: the record is refused, not stored"
    return None


def run_compound_import(
    kb: KnowledgeBase,
    records: Iterator[RawCompound | RowError],
    *,
    path: Path,
    fmt: str,
    skip_bad_rows: bool = False,
    progress: Progress | None = None,
) -> CompoundImportSummary:
    started = time.perf_counter()
    summary = CompoundImportSummary(path=str(path), format=fmt)
    raws: list[RawCompound] = []
    for record in records:
        summary.records_read += 1
        if not isinstance(record, RowError):
            problem = _control_character_problem(record)
            if problem:
                record = RowError(record.line, problem)
        if isinstance(record, RowError):
            summary.errors.append((record.line, record.message))
        else:
            raws.append(record)
    if summary.records_read == 0:
        what = "SDF records" if fmt == "sdf" else "OBO terms with a name"
        raise ImportFileError(f"{path}: no {what} found, nothing was imported")
    if summary.errors and not skip_bad_rows:
        shown = "; ".join(
            f"record {line}: {msg}" if line else msg for line, msg in summary.errors[:10]
        )
        raise ImportFileError(
            f"{path}: {len(summary.errors)} record(s) could not be read, nothing was imported: "
            f"{shown}. Pass --skip-bad-rows to import the readable records."
        )
    computed = compute_many([r.smiles for r in raws if r.smiles])
    sha = file_sha256(path)
    if progress:
        progress("write", 0, len(raws))
    with kb.transaction():
        for raw in raws:
            result = computed.get(raw.smiles or "")
            structure = result.structure if result else None
            hits = []
            if raw.inchikey:
                hits = kb.lookup_inchikey(raw.inchikey)
            if not hits and structure is not None:
                hits = kb.lookup_structure(structure)
            if not hits and structure is None:
                for name in raw.names[:1]:
                    hits = [h for h in kb.lookup_name(normalize_name(name)) if h.name_rank <= 1]
            primary = raw.names[0] if raw.names else None
            if hits:
                existing = kb.get_compound(hits[0].compound_id, with_reactions=0)
                before = existing.model_copy(deep=True)
                update = Compound(
                    inchikey=existing.inchikey,
                    smiles=existing.smiles,
                    synonyms=raw.names,
                    source=fmt,
                    description=raw.description,
                    pubchem_cid=raw.pubchem_cid,
                    cas=raw.cas,
                )
                if existing.inchikey is None:
                    kb.add_synonyms(existing, raw.names, fmt)
                    if raw.description and not existing.description:
                        kb.set_description(existing.id, raw.description)  # type: ignore[arg-type]
                else:
                    kb.upsert_compound(update)
                after = kb.get_compound(existing.id, with_reactions=0)  # type: ignore[arg-type]
                if after != before:
                    summary.compounds_enriched += 1
                    summary.descriptions_added += int(
                        bool(after.description) and not before.description
                    )
            elif structure is not None:
                fmt_guess = guess_name_format(primary) if primary else None
                compound = Compound.from_structure(
                    structure,
                    inchikey=raw.inchikey or structure.inchikey,
                    iupac_name=raw.iupac_name or (primary if fmt_guess == "iupac" else None),
                    common_name=primary if fmt_guess == "common_name" or raw.iupac_name else None,
                    synonyms=raw.names,
                    description=raw.description,
                    pubchem_cid=raw.pubchem_cid,
                    cas=raw.cas,
                    source=fmt,
                    provenance={"external_id": raw.external_id} if raw.external_id else {},
                )
                kb.upsert_compound(compound, result.fingerprint if result else None)
                summary.compounds_added += 1
                summary.descriptions_added += int(bool(raw.description))
            else:
                reason = (
                    "invalid structure"
                    if raw.smiles
                    else "no structure and no compound of that name"
                )
                summary.skipped[reason] += 1
            if progress:
                progress("write", 1, None)
        summary.seconds = time.perf_counter() - started
        kb.record_import(sha, str(path), fmt, summary.to_dict())
    return summary
