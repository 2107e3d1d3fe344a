"""Building a fresh knowledge base: the compound dictionary plus the starter reactions.

A new KB is seeded offline from the dictionary in the ``chemicals`` package (every
compound gets RDKit's canonical SMILES, InChIKey, formula, masses and a fingerprint) and then
receives the curated starter reactions shipped with chemground. ``kb stats`` reports both.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from chemground.chem.names import normalize_name
from chemground.kb.backends import sqlite_files
from chemground.kb.dictionary import (
    DictionaryEntry,
    dictionary_version,
    iter_dictionary,
    read_mixtures,
)
from chemground.kb.sqlite_store import SQLiteKB
from chemground.kb.structures import compute_many
from chemground.progress import Progress

_SOURCE_LABELS = {
    "chemical identifiers pubchem large.tsv": "pubchem-large",
    "chemical identifiers pubchem small.tsv": "pubchem-small",
    "chemical identifiers example user db.tsv": "chemicals-user-db",
    "Cation db.tsv": "chemicals-cations",
    "Anion db.tsv": "chemicals-anions",
    "Inorganic db.tsv": "chemicals-inorganic",
    "chemicals.elements": "chemicals-elements",
}


@dataclass
class SeedSummary:
    rows_read: int
    compounds: int
    without_structure: int
    alias_keys: int
    mixtures: int
    seconds: float


def _merge_into(target: dict, entry: DictionaryEntry, source: str) -> None:
    """Later files win for preferred names and ids (as in ``chemicals``); synonyms are pooled."""
    if entry.iupac_name:
        target["iupac_name"] = entry.iupac_name
    if entry.common_name:
        target["common_name"] = entry.common_name
    target["pubchem_cid"] = entry.pubchem_cid or target.get("pubchem_cid")
    target["cas"] = entry.cas or target.get("cas")
    seen = target.setdefault("_seen", {})
    for rank, names in ((0, [entry.iupac_name]), (1, [entry.common_name]), (2, entry.synonyms)):
        for name in names:
            norm = normalize_name(name) if name else ""
            if not norm:
                continue
            if norm not in seen:
                target.setdefault("synonyms", []).append(name)
                seen[norm] = rank
            elif rank < seen[norm]:
                seen[norm] = rank
    target.setdefault("sources", [])
    if source not in target["sources"]:
        target["sources"].append(source)
    target.setdefault("dictionary_keys", set())
    if entry.inchikey:
        target["dictionary_keys"].add(entry.inchikey)


def seed_dictionary(
    kb: SQLiteKB, progress: Progress | None = None, files: tuple[str, ...] | None = None
) -> SeedSummary:
    """Fill an empty KB with every compound of the ``chemicals`` dictionary (one transaction).

    ``files`` restricts which identifier files are read (default: all of them).
    """
    started = time.perf_counter()
    entries = list(iter_dictionary(files=files))
    if progress:
        progress("structures", 0, len(entries))
    # The dictionary's own InChIKeys are trusted (PubChem computed them from the full record);
    # RDKit's key for the same SMILES differs for a handful of hypervalent oxoacids, which
    # structure look-up covers by also matching canonical SMILES.
    computed = compute_many(
        (e.smiles for e in entries),
        kind="smiles",
        progress=(lambda n: progress("structures", n, None)) if progress else None,
        known_inchikeys={e.smiles: e.inchikey for e in entries if e.smiles and e.inchikey},
    )
    failed_inchi = [
        e.inchi
        for e in entries
        if e.inchi and (e.smiles not in computed or computed[e.smiles].structure is None)
    ]
    computed_inchi = compute_many(failed_inchi, kind="inchi")

    groups: dict[str, dict] = {}
    for entry in entries:
        result = computed.get(entry.smiles)
        if (result is None or result.structure is None) and entry.inchi:
            result = computed_inchi.get(entry.inchi)
        structure = result.structure if result else None
        if structure is not None:
            key = structure.inchikey
        elif entry.inchikey:
            key = entry.inchikey
        else:
            key = "nostructure:" + (
                entry.cas or normalize_name(entry.common_name or entry.iupac_name)
            )
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "inchikey": key if not key.startswith("nostructure:") else None,
                "structure": structure,
                "fingerprint": result.fingerprint if result else None,
                "formula": entry.formula,
                "molecular_weight": entry.molecular_weight,
                "raw_smiles": entry.smiles,
                "inchi": entry.inchi,
            }
        _merge_into(group, entry, _SOURCE_LABELS.get(entry.source_file, entry.source_file))

    rows, name_rows, alias_rows = [], [], []
    without_structure = 0
    for compound_id, group in enumerate(groups.values(), start=1):
        structure = group["structure"]
        if structure is None:
            without_structure += 1
        synonyms = group.get("synonyms", [])
        provenance = {"sources": group["sources"]}
        if structure is None and group["raw_smiles"]:
            provenance["dictionary_smiles"] = group["raw_smiles"]
        rows.append(
            (
                compound_id,
                group["inchikey"],
                structure.parent_inchikey if structure else None,
                structure.smiles if structure else None,
                group["inchi"] or None,
                structure.formula if structure else group["formula"],
                structure.molecular_weight if structure else group["molecular_weight"],
                structure.exact_mass if structure else None,
                group.get("iupac_name"),
                group.get("common_name"),
                json.dumps(synonyms),
                "",
                group.get("pubchem_cid"),
                group.get("cas"),
                "compound" if structure else "substance",
                group["sources"][-1],
                json.dumps(provenance),
                group["fingerprint"],
            )
        )
        name_rows.extend((norm, compound_id, rank) for norm, rank in group["_seen"].items())
        for key in group["dictionary_keys"]:
            if key != group["inchikey"]:
                alias_rows.append((key, compound_id))

    mixtures = _mixture_rows(groups, start_id=len(rows) + 1)
    with kb.transaction():
        conn = kb.connection
        conn.executemany(
            "INSERT INTO compounds (id, inchikey, parent_inchikey, smiles, inchi, formula, "
            "molecular_weight, "
            "exact_mass, iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, "
            "source, "
            "provenance, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?)",
            rows + [m[0] for m in mixtures],
        )
        conn.executemany(
            "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
            "DO UPDATE SET rank = min(rank, excluded.rank)",
            name_rows + [n for m in mixtures for n in m[1]],
        )
        conn.executemany("INSERT OR IGNORE INTO compound_keys VALUES (?, ?)", alias_rows)
        conn.execute("INSERT INTO compounds_fts(compounds_fts) VALUES ('rebuild')")
        label = f"chemicals {dictionary_version()}"
        kb.set_meta(
            "dictionary", label if files is None else f"{label} (subset: {', '.join(files)})"
        )
        kb.set_meta("dictionary_compounds", str(len(rows) + len(mixtures)))
    return SeedSummary(
        rows_read=len(entries),
        compounds=len(rows) + len(mixtures),
        without_structure=without_structure,
        alias_keys=len(alias_rows),
        mixtures=len(mixtures),
        seconds=time.perf_counter() - started,
    )


def _mixture_rows(groups: dict[str, dict], start_id: int) -> list[tuple[tuple, list[tuple]]]:
    """Named mixtures (air, natural gas...) as records of kind 'mixture' with their composition."""
    by_cas = {g.get("cas"): g for g in groups.values() if g.get("cas")}
    out = []
    for offset, mixture in enumerate(read_mixtures()):
        compound_id = start_id + offset
        components = []
        mean_mw = 0.0
        complete = True
        for cas, name, w, z in zip(
            mixture.component_cas,
            mixture.component_names,
            mixture.mass_fractions,
            mixture.mole_fractions,
        ):
            group = by_cas.get(cas)
            smiles = group["structure"].smiles if group and group["structure"] else None
            mw = group["structure"].molecular_weight if group and group["structure"] else None
            components.append(
                {"name": name, "cas": cas, "smiles": smiles, "mass_fraction": w, "mole_fraction": z}
            )
            if mw is None:
                complete = False
            else:
                mean_mw += z * mw
        provenance = {
            "sources": ["chemicals-mixtures"],
            "components": components,
            "reference": mixture.source,
        }
        description = (
            "Mixture of "
            + ", ".join(
                f"{c['name'].lower()} ({100 * c['mole_fraction']:.3g} mol%)" for c in components
            )
            + "."
        )
        synonyms = list(dict.fromkeys([mixture.name, *mixture.synonyms]))
        row = (
            compound_id,
            None,
            None,
            None,
            None,
            None,
            round(mean_mw, 4) if complete else None,
            None,
            None,
            mixture.name,
            json.dumps(synonyms),
            description,
            None,
            None,
            "mixture",
            "chemicals-mixtures",
            json.dumps(provenance),
            None,
        )
        names = [
            (normalize_name(n), compound_id, 1 if n == mixture.name else 2)
            for n in synonyms
            if normalize_name(n)
        ]
        out.append((row, names))
    return out


def build_kb(
    path: Path,
    progress: Progress | None = None,
    with_starter: bool = True,
    dictionary_files: tuple[str, ...] | None = None,
) -> SQLiteKB:
    """Create a KB at ``path`` (which must not exist) with the dictionary and the starter set.

    The KB is built in a temporary file and moved into place at the end, so an interrupted
    build never leaves a half-built KB behind.
    """
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} already exists")
    tmp = path.with_name(path.name + ".building")
    for stale in sqlite_files(tmp):
        stale.unlink(missing_ok=True)
    kb = SQLiteKB(tmp)
    try:
        started = time.perf_counter()
        seed_dictionary(kb, progress, files=dictionary_files)
        from chemground.kb.abbreviations import add_abbreviations

        add_abbreviations(kb)
        from chemground.kb.descriptions import add_descriptions

        add_descriptions(kb)
        from chemground.kb.drugs import add_drugs

        add_drugs(kb)
        if with_starter:
            from chemground.kb.starter_import import import_starter_set

            import_starter_set(kb)
        # substructure pre-screen fingerprints (~7 s for the full dictionary)
        kb.update_structure_index()
        kb.set_meta("built_seconds", f"{time.perf_counter() - started:.1f}")
        kb.checkpoint()  # also ends the background checkpointer and its connection
        kb.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        kb.connection.execute("PRAGMA journal_mode = DELETE")
        kb.close()
        tmp.rename(path)
    except BaseException:
        kb.close()
        for stale in sqlite_files(tmp):
            stale.unlink(missing_ok=True)
        raise
    return SQLiteKB(path)
