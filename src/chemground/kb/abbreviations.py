"""Laboratory abbreviations (THF, DCM, DIPEA, Pd(PPh3)4 ...) as names in the KB.

Chemists write abbreviations, and the PubChem synonym lists either lack them or give them
other meanings ("EDC" is also ethylene dichloride, "NaH" a synonym of nicotinic acid). Our
curated list (``data/abbreviations.tsv``: abbreviation, name, SMILES) is registered with the
highest name priority, attached to the compound with that structure (added if missing).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    return [Abbreviation(*row) for row in read_data_tsv("abbreviations.tsv", ("abbreviation", "name", "SMILES"))]


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
                compound_id = kb.insert_compound(Compound(
                    smiles=structure.smiles, inchikey=structure.inchikey, formula=structure.formula,
                    molecular_weight=structure.molecular_weight, exact_mass=structure.exact_mass,
                    parent_inchikey=structure.parent_inchikey, common_name=entry.name,
                    synonyms=[entry.name, entry.abbreviation], source="abbreviations",
                ), fingerprint_to_bytes(morgan_fingerprint(entry.smiles)))
                added += 1
            kb.connection.executemany(
                "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
                "DO UPDATE SET rank = min(rank, excluded.rank)",
                [(normalize_name(entry.abbreviation), compound_id, ABBREVIATION_RANK),
                 (normalize_name(entry.name), compound_id, ABBREVIATION_RANK)],
            )
        kb.set_meta("abbreviations", str(len(load_abbreviations())))
    return added
