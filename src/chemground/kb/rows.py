"""Conversions between the KB's table rows and its records, for both stores.

SQLite and PostgreSQL keep the same tables and columns (a KB migrates row for row), so a
compound or reaction is read from, and written to, a row in one way: here. The stores differ
only in how they send SQL; what a row means is decided once, so the two cannot drift apart.
A row read back is any mapping by column name (``sqlite3.Row`` or psycopg's ``dict_row``);
a row written is a tuple in the column order of :data:`COMPOUND_INSERT` / :data:`REACTION_INSERT`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chemground.chem.names import DictionaryHit, normalize_name
from chemground.chem.structure import Structure
from chemground.kb.records import Compound, Conditions, Participant, Reaction, Role

COMPOUND_COLUMNS = (
    "id, inchikey, parent_inchikey, smiles, inchi, formula, molecular_weight, exact_mass, "
    "iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, provenance"
)
# the columns read as they are stored (the others hold JSON text)
_COMPOUND_PLAIN = [
    c.strip() for c in COMPOUND_COLUMNS.split(",") if c.strip() not in ("synonyms", "provenance")
]
# the same columns of a compound joined as ``c`` (name and key look-ups join compounds)
C_COLUMNS = ", ".join("c." + c.strip() for c in COMPOUND_COLUMNS.split(","))
REACTION_COLUMNS = (
    "rowid, id, source, dataset, title, reaction_class, description, reaction_smiles, "
    "temperature_c, "
    "temperature_text, time_h, ph, pressure_bar, atmosphere, yield_percent, operations, notes, "
    "flags, provenance"
)
_CONDITIONS = ("temperature_c", "temperature_text", "time_h", "ph", "pressure_bar", "atmosphere")
# the reaction's own columns read as they are stored (not its row number, conditions or JSON)
_REACTION_PLAIN = [
    c.strip()
    for c in REACTION_COLUMNS.split(",")
    if c.strip() not in ("rowid", "operations", "flags", "provenance", *_CONDITIONS)
]
# a participant's fields after its role, in the order reactions_from_rows reads them
_PARTICIPANT_FIELDS = ("compound_id", "name", "smiles", "inchikey", "amount", "unresolved_reason")
PARTICIPANT_COLUMNS = (
    "reaction_rowid, position, role, compound_id, name, smiles, inchikey, amount, unresolved_reason"
)
# the statements that write :func:`compound_row` / :func:`reaction_row` tuples (``?`` style)
COMPOUND_INSERT = (
    f"INSERT INTO compounds ({COMPOUND_COLUMNS}, fingerprint) VALUES (" + ", ".join("?" * 18) + ")"
)
REACTION_INSERT = f"INSERT INTO reactions ({REACTION_COLUMNS}) VALUES (" + ", ".join("?" * 19) + ")"

# Which compound wins a shared name: the curated dictionary files beat the large PubChem
# file (as in ``chemicals``, where later files override), and any dictionary record beats a
# compound first seen in an imported dataset.
CURATED_DICTIONARY_SOURCES = (
    "pubchem-small",
    "chemicals-user-db",
    "chemicals-cations",
    "chemicals-anions",
    "chemicals-inorganic",
    "chemicals-elements",
    "chemicals-mixtures",
    "abbreviations",
    "chemground-descriptions",
)
SOURCE_PRIORITY_SQL = (
    "CASE WHEN c.source IN ("
    + ", ".join(f"'{s}'" for s in CURATED_DICTIONARY_SOURCES)
    + ") THEN 2 "
    "WHEN c.source = 'pubchem-large' THEN 1 ELSE 0 END"
)


def json_text(value: list | dict) -> str:
    """JSON text of a list/dict column; empty ones (most flags and synonyms) without the encoder."""
    if not value:
        return "[]" if isinstance(value, list) else "{}"
    return json.dumps(value)


# -- compounds ---------------------------------------------------------------------------
def structure_from_row(row: Mapping[str, Any]) -> Structure | None:
    if not row["smiles"] or not row["inchikey"]:
        return None
    return Structure(
        smiles=row["smiles"],
        inchikey=row["inchikey"],
        formula=row["formula"] or "",
        molecular_weight=row["molecular_weight"] or 0.0,
        exact_mass=row["exact_mass"] or 0.0,
        parent_inchikey=row["parent_inchikey"] or row["inchikey"],
    )


def compound_from_row(row: Mapping[str, Any]) -> Compound:
    return Compound(
        **{column: row[column] for column in _COMPOUND_PLAIN},
        synonyms=json.loads(row["synonyms"]),
        provenance=json.loads(row["provenance"]),
    )


def matched_name(row: Mapping[str, Any], normalized: str) -> str:
    """The compound's name as written that normalises to ``normalized`` (else ``normalized``)."""
    for name in [row["iupac_name"], row["common_name"], *json.loads(row["synonyms"])]:
        if name and normalize_name(name) == normalized:
            return name
    return normalized


def hit_from_row(row: Mapping[str, Any], normalized: str | None = None) -> DictionaryHit:
    """A look-up hit: the name that matched (or the compound's own), and the name's rank."""
    name = (
        matched_name(row, normalized)
        if normalized
        else (row["common_name"] or row["iupac_name"] or "")
    )
    rank = row["rank"] if "rank" in row.keys() else 0  # noqa: SIM118 (a sqlite3.Row has no "in")
    return DictionaryHit(row["id"], structure_from_row(row), name, rank)


def compound_row(
    compound_id: int | None, compound: Compound, fingerprint: bytes | None
) -> tuple[Any, ...]:
    """The row :data:`COMPOUND_INSERT` writes (``compound_id`` None: the store numbers it).

    The compound's source opens its provenance's list of sources, which merges extend.
    """
    provenance = dict(compound.provenance)
    if compound.source and "sources" not in provenance:
        provenance["sources"] = [compound.source]
    return (
        compound_id,
        compound.inchikey,
        compound.parent_inchikey,
        compound.smiles,
        compound.inchi,
        compound.formula,
        compound.molecular_weight,
        compound.exact_mass,
        compound.iupac_name,
        compound.common_name,
        json_text(compound.synonyms),
        compound.description,
        compound.pubchem_cid,
        compound.cas,
        compound.kind,
        compound.source,
        json_text(provenance),
        fingerprint,
    )


def name_rows(compound_id: int, compound: Compound) -> list[tuple[str, int, int]]:
    """``compound_names`` rows (normalised name, compound id, rank): the IUPAC name ranks 0,
    the common name 1, synonyms 2."""
    rows = []
    for rank, names in (
        (0, [compound.iupac_name]),
        (1, [compound.common_name]),
        (2, compound.synonyms),
    ):
        for name in names:
            norm = normalize_name(name) if name else ""
            if norm:
                rows.append((norm, compound_id, rank))
    return rows


def name_table_rows(rows: Iterable[Sequence[Any]]) -> list[tuple[str, int, int]]:
    """(name as written, compound id, rank) from (id, IUPAC name, common name, synonyms) rows,
    each name once per compound."""
    out: list[tuple[str, int, int]] = []
    for row in rows:
        seen = set()
        for rank, names in ((0, [row[1]]), (1, [row[2]]), (2, json.loads(row[3]))):
            for name in names:
                if name and name not in seen:
                    seen.add(name)
                    out.append((name, row[0], rank))
    return out


# -- reactions ---------------------------------------------------------------------------
def reaction_row(rowid: int, reaction: Reaction) -> tuple[Any, ...]:
    """The row :data:`REACTION_INSERT` writes."""
    c = reaction.conditions
    return (
        rowid,
        reaction.id,
        reaction.source,
        reaction.dataset,
        reaction.title,
        reaction.reaction_class,
        reaction.description,
        reaction.reaction_smiles,
        c.temperature_c,
        c.temperature_text,
        c.time_h,
        c.ph,
        c.pressure_bar,
        c.atmosphere,
        reaction.yield_percent,
        json_text(reaction.operations),
        reaction.notes,
        json_text(reaction.flags),
        json_text(reaction.provenance),
    )


def participant_rows(rowid: int, reaction: Reaction) -> list[tuple[Any, ...]]:
    """The reaction's ``participants`` rows (:data:`PARTICIPANT_COLUMNS`), in order."""
    return [
        (
            rowid,
            i,
            Role(p.role).value,
            p.compound_id,
            p.name,
            p.smiles,
            p.inchikey,
            p.amount,
            p.unresolved_reason,
        )
        for i, p in enumerate(reaction.participants)
    ]


def reactions_from_rows(
    rows: Sequence[Mapping[str, Any]], participants: Iterable[Sequence[Any]]
) -> list[Reaction]:
    """Reactions from their rows (in that order) and their participants' rows.

    Args:
        rows: reaction rows (:data:`REACTION_COLUMNS`).
        participants: (reaction rowid, role, compound id, name, SMILES, InChIKey, amount,
            unresolved reason) rows, each reaction's in position order.
    """
    by_rowid = {row["rowid"]: row for row in rows}
    linked: dict[int, list[Participant]] = {rowid: [] for rowid in by_rowid}
    for p in participants:
        linked[p[0]].append(Participant(role=Role(p[1]), **dict(zip(_PARTICIPANT_FIELDS, p[2:]))))
    return [
        Reaction(
            **{column: row[column] for column in _REACTION_PLAIN},
            participants=linked[rowid],
            operations=json.loads(row["operations"]),
            conditions=Conditions(**{column: row[column] for column in _CONDITIONS}),
            flags=json.loads(row["flags"]),
            provenance=json.loads(row["provenance"]),
        )
        for rowid, row in by_rowid.items()
    ]
