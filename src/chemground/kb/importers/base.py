"""The import engine shared by every reaction file format.

A reader turns a file into :class:`RawReaction` rows (or :class:`RowError` for rows it
cannot read). The engine then: refuses the file on bad rows before writing anything (unless
told to skip them); computes every structure in parallel; resolves name-only participants
(dictionary, then OPSIN); links each participant to the compound table, adding compounds
when needed; and writes everything in ONE transaction, so a bad row or a killed process
leaves the KB exactly as it was. Reaction ids are deterministic, so re-importing a file
changes nothing.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from chemground.chem.names import NameResolver, guess_name_format, normalize_name
from rdkit import Chem

from chemground.chem.structure import Structure, rdkit_messages
from chemground.errors import ChemgroundError, ImportFileError
from chemground.kb.records import Compound, Conditions, Participant, Reaction, Role
from chemground.kb.sqlite_store import SQLiteKB
from chemground.kb.structures import ComputedStructure, compute_many

# OPSIN runs in its own JVM; this thread only feeds it while RDKit works in the process pool.
_OPSIN_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="opsin-names")

Progress = Callable[[str, int, int | None], None]  # (stage, advance, total)


@dataclass
class RawParticipant:
    """A participant as the source gives it: a name and/or a structure string."""

    role: Role
    name: str | None = None
    smiles: str | None = None
    inchi: str | None = None
    amount: str | None = None


@dataclass
class RawReaction:
    participants: list[RawParticipant]
    id: str | None = None
    source: str = ""
    dataset: str = ""
    title: str | None = None
    reaction_class: str | None = None
    description: str = ""
    reaction_smiles: str | None = None
    conditions: Conditions = field(default_factory=Conditions)
    yield_percent: float | None = None
    operations: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)
    line: int | None = None


@dataclass
class RowError:
    """A row the reader could not turn into a reaction."""

    line: int | None
    message: str


@dataclass
class ImportSummary:
    path: str
    format: str
    rows_read: int = 0
    reactions_added: int = 0
    reactions_unchanged: int = 0
    reactions_flagged: int = 0
    reactions_skipped: int = 0
    compounds_added: int = 0
    participants: int = 0
    unresolved: Counter = field(default_factory=Counter)
    errors: list[tuple[int | None, str]] = field(default_factory=list)
    seconds: float = 0.0
    already_imported: bool = False

    @property
    def rate(self) -> float:
        return self.rows_read / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "format": self.format, "rows_read": self.rows_read,
            "reactions_added": self.reactions_added, "reactions_unchanged": self.reactions_unchanged,
            "reactions_flagged": self.reactions_flagged, "reactions_skipped": self.reactions_skipped,
            "compounds_added": self.compounds_added, "participants": self.participants,
            "unresolved_names": dict(self.unresolved.most_common()),
            "errors": [{"line": line, "message": msg} for line, msg in self.errors],
            "seconds": round(self.seconds, 3), "reactions_per_second": round(self.rate, 1),
            "already_imported": self.already_imported,
        }


_APPEARANCE = (
    r"(?:(?:pale|light|dark|bright|deep|slightly|faint|almost)\s+)?"
    r"(?:(?:yellow|white|colou?rless|brown|red|orange|green|blue|purple|violet|tan|beige|off-white|"
    r"black|grey|gray|pink|amber|clear|cream|golden|yellowish|brownish|reddish|greenish|viscous|"
    r"crystalline|amorphous|waxy|sticky|thick|crude|pure|solid|dry|wet)[\s,-]+)*"
)
_GENERIC_NAME = re.compile(
    r"^(?:the\s+|a\s+|an\s+)?(?:"
    r"title\s+(?:compounds?|products?|materials?|substances?)|compounds?(?:\s+\S+)?|"
    r"(?:(?:desired|crude|final|pure|purified|oily|resulting|resultant|expected|main|major|minor|isolated|"
    r"obtained|above|said|dried|recrystallized|solid|target|reaction|intermediate)\s+)*"
    r"(?:products?|materials?|substances?)(?:\s+\S+)?|"
    r"residue|(?:aqueous\s+|organic\s+|saturated\s+)?(?:solution|layer|phase|suspension|slurry|extracts?)|"
    r"(?:reaction\s+)?mixture|filtrate|intermediate(?:\s+\S+)?|example\s+\S+|resin|ice(?:\s+water)?|"
    r"ice-water|precipitate|salt|starting\s+materials?|grignard\s+reagent|reagent|catalyst|solvent|base|acid|"
    r"ester|amine|ketone|aldehyde|alcohol|ether\s+solution|hydrochloride|"
    + _APPEARANCE +
    r"(?:oils?|solids?|crystals?|powders?|foams?|gums?|glass|syrups?|liquids?|needles|prisms|plates|material|mass)|"
    r"[\[(]?\s*\d+[a-z]?\s*[\])]?|[a-z]\d*|[ivx]+"
    r")$",
    re.IGNORECASE,
)


def is_generic_name(name: str) -> bool:
    """Labels that do not name a compound ("title compound", "compound 12", "residue")."""
    text = " ".join(name.split())
    return len(text) < 2 or bool(_GENERIC_NAME.match(text))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def content_id(prefix: str, *parts: Any) -> str:
    """A deterministic reaction id from the row's content (for sources without ids)."""
    digest = hashlib.sha1("\x1f".join("" if p is None else str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}:{digest[:16]}"


class ParticipantLinker:
    """Turns raw participants into linked participants, adding compounds as needed.

    Work is done in bulk: :meth:`prepare` computes every structure and resolves every name
    without writing; :meth:`link` then only looks up or inserts compounds, and names learnt
    from the source for compounds already in the KB are merged once, at :meth:`flush_names`.
    """

    def __init__(self, kb: SQLiteKB, resolver: NameResolver, source: str) -> None:
        self.kb = kb
        self.resolver = resolver
        self.source = source
        self.structures: dict[str, ComputedStructure] = {}
        self.inchi_structures: dict[str, ComputedStructure] = {}
        self.name_structures: dict[str, tuple[Structure | None, int | None, str]] = {}
        self._compound_ids: dict[str, int] = {}
        self._created: set[int] = set()
        self._pending_names: dict[int, dict[str, str]] = {}
        self._prefetched = False
        self._new_compounds: list[tuple[int, Compound, bytes | None]] = []
        self._next_id = 0
        self.compounds_added = 0

    # -- preparation (no writes) -----------------------------------------------------------
    def prepare(self, reactions: list[RawReaction], progress: Progress | None = None) -> None:
        participants = [p for r in reactions for p in r.participants]
        smiles = [p.smiles for p in participants if p.smiles]
        # Names with no structure at all go to OPSIN (its own JVM process) now, so that it
        # works while RDKit computes the structures on the other cores.
        early = list(dict.fromkeys(
            p.name for p in participants if p.name and not p.smiles and not p.inchi and not is_generic_name(p.name)
        ))
        if progress:
            progress("names", 0, len(early))
        early_pending = self._names_from_dictionary(early)
        opsin_job = _OPSIN_THREAD.submit(self._translate, early_pending) if early_pending else None
        # A standard InChI given by the source fixes the InChIKey cheaply (as the dictionary's
        # keys do); RDKit generates InChI only for SMILES-only participants.
        known_keys: dict[str, str] = {}
        for p in participants:
            if p.smiles and p.inchi and p.smiles not in known_keys:
                key = inchikey_from_inchi(p.inchi)
                if key:
                    known_keys[p.smiles] = key
        if progress:
            progress("structures", 0, len(set(smiles)))
        try:
            self.structures = compute_many(
                smiles, known_inchikeys=known_keys,
                progress=(lambda n: progress("structures", n, None)) if progress else None,
            )
            inchis = [
                p.inchi for p in participants
                if p.inchi and not (p.smiles and self.structures.get(p.smiles) and self.structures[p.smiles].structure)
            ]
            self.inchi_structures = compute_many(inchis, kind="inchi")
        finally:
            results = opsin_job.result() if opsin_job is not None else {}
        # names whose SMILES/InChI failed to parse
        late = list(dict.fromkeys(
            p.name for p in participants
            if p.name and self._structure_of(p) is None and not is_generic_name(p.name)
            and p.name not in self.name_structures and p.name not in results
        ))
        results.update(self._translate(self._names_from_dictionary(late)))
        self._apply_translations(results)
        if progress:
            progress("names", len(early) + len(late), None)

    def _names_from_dictionary(self, names: list[str]) -> list[str]:
        """Resolve ``names`` from the KB's dictionary; returns those it does not know."""
        pending = []
        for name in names:
            hits = self.kb.lookup_name(normalize_name(name))
            if hits:
                hit = hits[0]  # the KB orders shared names by preference
                self.name_structures[name] = (hit.structure, hit.compound_id, "")
            else:
                pending.append(name)
        return pending

    def _translate(self, names: list[str]) -> dict[str, object]:
        """OPSIN's results for ``names`` (or the reason there are none: OPSIN off, no Java)."""
        if not names:
            return {}
        if self.resolver.opsin is None:
            return {name: "not in the dictionary (OPSIN disabled)" for name in names}
        try:
            return dict(self.resolver.opsin.translate_many(names))
        except ChemgroundError as error:  # no Java: names stay unresolved, with the reason
            return {name: str(error) for name in names}

    def _apply_translations(self, results: dict[str, object]) -> None:
        computed = compute_many({r.smiles for r in results.values() if not isinstance(r, str) and r.ok})
        for name, result in results.items():
            if isinstance(result, str):
                self.name_structures[name] = (None, None, result)
                continue
            found = computed.get(result.smiles or "")
            if result.ok and found is not None and found.structure is not None:
                self.name_structures[name] = (found.structure, None, "")
                self.structures.setdefault(found.text, found)
            else:
                self.name_structures[name] = (None, None, f"not in the dictionary; OPSIN: {result.message}")

    def _structure_of(self, raw: RawParticipant) -> ComputedStructure | None:
        for table, key in ((self.structures, raw.smiles), (self.inchi_structures, raw.inchi)):
            if key and key in table and table[key].structure is not None:
                return table[key]
        return None

    # -- linking (writes) ------------------------------------------------------------------
    def link(self, raw: RawParticipant) -> Participant:
        computed = self._structure_of(raw)
        structure = computed.structure if computed else None
        fingerprint = computed.fingerprint if computed else None
        compound_id = None
        reason = None
        if structure is None and raw.name and raw.name in self.name_structures:
            structure, compound_id, reason = self.name_structures[raw.name]
            if structure is not None:
                by_smiles = self.structures.get(structure.smiles)
                fingerprint = by_smiles.fingerprint if by_smiles else None
        if structure is None and compound_id is None:
            problems = []
            if raw.smiles:
                bad = self.structures.get(raw.smiles)
                problems.append(bad.error if bad and bad.error else f"invalid SMILES {raw.smiles!r}")
            if raw.name:
                problems.append(reason or ("not a compound name" if is_generic_name(raw.name) else "name not resolved"))
            if not problems:
                problems.append("no name or structure given")
            return Participant(role=raw.role, name=raw.name or raw.smiles, amount=raw.amount,
                               unresolved_reason="; ".join(problems))
        name = raw.name if raw.name and not is_generic_name(raw.name) else None
        if compound_id is None:
            compound_id = self._compound_for(structure, fingerprint, name)  # type: ignore[arg-type]
        elif name:
            self._remember_name(compound_id, name)
        return Participant(
            role=raw.role, name=raw.name or (structure.smiles if structure else None),
            smiles=structure.smiles if structure else None, inchikey=structure.inchikey if structure else None,
            compound_id=compound_id, amount=raw.amount,
        )

    def prefetch(self) -> None:
        """Find, in a few batched queries, which prepared structures the KB already holds."""
        structures = [c.structure for c in self.structures.values() if c.structure is not None]
        structures += [c.structure for c in self.inchi_structures.values() if c.structure is not None]
        structures += [s for s, _, _ in self.name_structures.values() if s is not None]
        self._compound_ids.update(self.kb.compound_ids_for_structures(structures))
        self._next_id = self.kb.next_compound_id()
        self._prefetched = True

    def _compound_for(self, structure: Structure, fingerprint: bytes | None, name: str | None) -> int:
        compound_id = self._compound_ids.get(structure.inchikey)
        if compound_id is None:
            hits = [] if self._prefetched else self.kb.lookup_structure(structure)
            if hits:
                compound_id = hits[0].compound_id
            else:
                fmt = guess_name_format(name) if name else None
                compound = Compound(
                    smiles=structure.smiles, inchikey=structure.inchikey, formula=structure.formula,
                    molecular_weight=structure.molecular_weight, exact_mass=structure.exact_mass,
                    parent_inchikey=structure.parent_inchikey,
                    iupac_name=name if fmt == "iupac" else None,
                    common_name=name if fmt == "common_name" else None,
                    source=self.source,
                )
                if self._prefetched:  # reserve the id now, insert in one batch at flush_compounds()
                    compound_id, created = self._next_id, True
                    self._next_id += 1
                    self._new_compounds.append((compound_id, compound, fingerprint))
                else:
                    compound_id, created = self.kb.upsert_compound(compound, fingerprint)
                if created:
                    self.compounds_added += 1
                    self._created.add(compound_id)
            self._compound_ids[structure.inchikey] = compound_id
        if name:
            self._remember_name(compound_id, name)
        return compound_id

    def _remember_name(self, compound_id: int, name: str) -> None:
        norm = normalize_name(name)
        if norm:
            self._pending_names.setdefault(compound_id, {}).setdefault(norm, name)

    def flush_compounds(self) -> None:
        """Insert the compounds created while linking (before the reactions that refer to them)."""
        if self._new_compounds:
            self.kb.insert_compounds(self._new_compounds)
            self._new_compounds = []

    def flush_names(self) -> None:
        """Add the names the source used to the compounds' synonyms (one update per compound)."""
        ids = list(self._pending_names)
        compounds = self.kb.get_compounds(ids)
        for compound_id in ids:
            compound = compounds.get(compound_id)
            if compound is None:
                continue
            known = {normalize_name(n) for n in compound.all_names()}
            new = [name for norm, name in self._pending_names[compound_id].items() if norm not in known]
            if new:
                self.kb.add_synonyms(compound, new, self.source)
        self._pending_names.clear()


def inchikey_from_inchi(inchi: str) -> str | None:
    """InChIKey of a standard InChI string (cheap: no structure perception)."""
    text = inchi.strip()
    if not text.startswith("InChI=1S/"):
        return None
    with rdkit_messages():
        key = Chem.InchiToInchiKey(text)
    return key or None


def run_import(
    kb: SQLiteKB,
    rows: Iterable[RawReaction | RowError],
    *,
    path: Path,
    fmt: str,
    resolver: NameResolver,
    strict: bool = False,
    skip_bad_rows: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import reactions read from ``path``: all or nothing (see the module docstring)."""
    started = time.perf_counter()
    summary = ImportSummary(path=str(path), format=fmt)
    sha = file_sha256(path)
    reactions: list[RawReaction] = []
    for row in rows:
        summary.rows_read += 1
        if isinstance(row, RowError):
            summary.errors.append((row.line, row.message))
        else:
            reactions.append(row)
    if summary.errors and not skip_bad_rows:
        shown = "; ".join(f"line {line}: {msg}" if line else msg for line, msg in summary.errors[:10])
        more = f" (and {len(summary.errors) - 10} more)" if len(summary.errors) > 10 else ""
        raise ImportFileError(
            f"{path}: {len(summary.errors)} row(s) could not be read, nothing was imported: {shown}{more}. "
            "Fix the file, or pass --skip-bad-rows to import the readable rows."
        )
    if progress:
        progress("read", summary.rows_read, summary.rows_read)
    fresh = [r for r in reactions if not (r.id and kb.has_reaction(r.id))]
    summary.reactions_unchanged = len(reactions) - len(fresh)
    linker = ParticipantLinker(kb, resolver, source=fresh[0].dataset if fresh else fmt)
    linker.prepare(fresh, progress)
    if progress:
        progress("write", 0, len(fresh))
    with kb.transaction():
        linker.prefetch()
        built: list[Reaction] = []
        for raw in fresh:
            linker.source = raw.dataset or linker.source
            participants = [linker.link(p) for p in raw.participants]
            unresolved = [p for p in participants if not p.resolved]
            for p in unresolved:
                summary.unresolved[p.name or "?"] += 1
            if unresolved and strict:
                summary.reactions_skipped += 1
                continue
            built.append(Reaction(
                id=raw.id or content_id(raw.dataset or fmt, raw.reaction_smiles, raw.description,
                                        [(p.role.value, p.name, p.smiles) for p in raw.participants]),
                source=raw.source, dataset=raw.dataset, title=raw.title, reaction_class=raw.reaction_class,
                description=raw.description, reaction_smiles=raw.reaction_smiles, participants=participants,
                operations=raw.operations, conditions=raw.conditions, yield_percent=raw.yield_percent,
                notes=raw.notes, provenance={**raw.provenance, "file": path.name, "line": raw.line},
                flags=[f"unresolved {p.role.value}: {p.name}" for p in unresolved],
            ))
            if progress:
                progress("write", 1, None)
        linker.flush_compounds()
        added = set(kb.add_reactions(built))
        for reaction in built:
            if reaction.id in added:
                summary.reactions_added += 1
                summary.participants += len(reaction.participants)
                summary.reactions_flagged += int(bool(reaction.flags))
            else:
                summary.reactions_unchanged += 1
        linker.flush_names()
        summary.compounds_added = linker.compounds_added
        summary.seconds = time.perf_counter() - started
        summary.already_imported = summary.reactions_added == 0 and kb.import_record(sha) is not None
        kb.record_import(sha, str(path), fmt, summary.to_dict())
    return summary
