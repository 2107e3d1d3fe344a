"""Laboratory abbreviations (THF, DCM, DIPEA, Pd(PPh3)4 ...) as names in the KB.

Chemists write abbreviations, and the PubChem synonym lists either lack them or give them
other meanings ("EDC" is also ethylene dichloride, "NaH" a synonym of nicotinic acid). Our
curated list (``data/abbreviations.tsv``: abbreviation, name, SMILES) is registered with the
highest name priority, attached to the compound with that structure (added if missing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from chemground.chem.fingerprints import fingerprint_to_bytes, morgan_fingerprint
from chemground.chem.names import normalize_name
from chemground.chem.structure import structure_from_smiles
from chemground.kb.descriptions import read_data_tsv
from chemground.kb.records import Compound
from chemground.kb.sqlite_store import SQLiteKB

ABBREVIATION_RANK = -1  # above IUPAC (0), common (1) and synonyms (2): see SQLiteKB.lookup_name


@dataclass(frozen=True)
class Abbreviation:
    abbreviation: str
    name: str
    smiles: str


def load_abbreviations() -> list[Abbreviation]:
    return list(_abbreviations())


@lru_cache(maxsize=1)
def _abbreviations() -> tuple[Abbreviation, ...]:
    return tuple(
        Abbreviation(*row)
        for row in read_data_tsv("abbreviations.tsv", ("abbreviation", "name", "SMILES"))
    )


# A formula-like abbreviation ("Br2", "CO2", "NaBH4", "Co"): its case carries meaning, so it is
# matched as written ("co2" is not CO2, "CO" is not Co).
_FORMULA_LIKE = re.compile(r"^(?:[A-Z][a-z]?\d*|\(|\)\d*)+$")


@lru_cache(maxsize=1)
def _by_text() -> tuple[dict[str, Abbreviation], dict[str, Abbreviation]]:
    exact: dict[str, Abbreviation] = {}
    folded: dict[str, Abbreviation] = {}
    for entry in _abbreviations():
        exact.setdefault(entry.abbreviation, entry)
        if not _FORMULA_LIKE.match(entry.abbreviation) and len(entry.abbreviation) >= 3:
            folded.setdefault(entry.abbreviation.casefold(), entry)
    return exact, folded


def abbreviations_of(inchikey: str) -> list[str]:
    """The curated abbreviations of the structure with this InChIKey, in their own case ("DMF",
    "mCPBA"): the dictionary keeps names case-folded, so an answer listing them takes them
    from here."""
    return list(_by_inchikey().get(inchikey, ()))


@lru_cache(maxsize=1)
def _by_inchikey() -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for entry in _abbreviations():
        key = structure_from_smiles(entry.smiles).inchikey
        index.setdefault(key, []).append(entry.abbreviation)
    return {key: tuple(names) for key, names in index.items()}


# What a group abbreviation carries in the curated reagent that installs it: TBSCl, Boc2O, Tf2O
_LEAVING_PART = ("Cl", "Br", "OTf", "2O", "OH", "H", "-Cl")


def group_abbreviation(token: str) -> Abbreviation | None:
    """The curated reagent whose abbreviation is ``token`` plus a leaving part ("TBS" of TBSCl,
    "Boc" of Boc2O, "Ts" of TsCl): the token then names a protecting or functional group, not a
    compound (the PubChem synonym lists give "TBS" to tribromsalan). None otherwise.

    Args:
        token: a word as written.

    Returns:
        The reagent's entry, or None.
    """
    if not token.isalpha() or len(token) < 2:
        return None
    exact, _ = _by_text()
    if token in exact:
        return None  # a curated abbreviation of its own
    for part in _LEAVING_PART:
        entry = exact.get(token + part)
        if entry is not None:
            return entry
    return None


def ambiguous_abbreviation(token: str) -> tuple[str, ...] | None:
    """What an abbreviation that names several common compounds may mean ("DEA": diethylamine or
    diethanolamine), from ``data/ambiguous_abbreviations.tsv``; None for any other token.

    Args:
        token: a word as written (matched case-sensitively).

    Returns:
        The meanings, or None.
    """
    return _ambiguous().get(token)


@lru_cache(maxsize=1)
def _ambiguous() -> dict[str, tuple[str, ...]]:
    rows = read_data_tsv("ambiguous_abbreviations.tsv", ("abbreviation", "meanings"))
    return {abbreviation: tuple(meanings.split("; ")) for abbreviation, meanings in rows}


def curated_abbreviation(token: str) -> Abbreviation | None:
    """The curated entry a token names, as chemists write it ("Br2", "PhMgBr", "n-BuLi", "mcpba").

    Formula-like abbreviations match only as written; others (three characters or more) also
    match in any case. Works without a KB (the mention finder uses it for any KB, also one built
    before an entry was added)."""
    exact, folded = _by_text()
    return exact.get(token) or folded.get(token.casefold())


@lru_cache(maxsize=512)
def curated_structure(token: str):
    """The Structure of ``curated_abbreviation(token)`` (None when there is none)."""
    entry = curated_abbreviation(token)
    return structure_from_smiles(entry.smiles) if entry is not None else None


def add_abbreviations(kb: SQLiteKB) -> int:
    """Register every abbreviation (and its full name) on the compound with its structure."""
    added = 0
    with kb.transaction():
        for entry in load_abbreviations():
            structure = structure_from_smiles(entry.smiles)
            hits = kb.lookup_structure(structure)
            if hits:
                compound_id = hits[0].compound_id
                compound = kb.get_compound(compound_id, with_reactions=0)
                kb.add_synonyms(compound, [entry.abbreviation, entry.name], "abbreviations")
            else:
                compound_id = kb.insert_compound(
                    Compound.from_structure(
                        structure,
                        common_name=entry.name,
                        synonyms=[entry.name, entry.abbreviation],
                        source="abbreviations",
                    ),
                    fingerprint_to_bytes(morgan_fingerprint(entry.smiles)),
                )
                added += 1
            kb.connection.executemany(
                "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
                "DO UPDATE SET rank = min(rank, excluded.rank)",
                [
                    (normalize_name(entry.abbreviation), compound_id, ABBREVIATION_RANK),
                    (normalize_name(entry.name), compound_id, ABBREVIATION_RANK),
                ],
            )
        kb.set_meta("abbreviations", str(len(load_abbreviations())))
    return added
