"""Curated one-paragraph descriptions of common compounds ("Describe aspirin", "What is DMF?").

The dictionary gives names and structures but no descriptive text. ``data/descriptions.tsv``
holds short factual descriptions written by the chemground developers (not copied from any
database or encyclopedia): what the compound is, its main uses or roles, and a notable
property or hazard. Rows are ``name<TAB>SMILES<TAB>description``; lines starting with ``#``
are comments. SMILES follow the conventions of the starter reaction set and the
abbreviations file for salts and complexes.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


def read_data_tsv(resource: str, columns: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Rows of a curated TSV in ``chemground.kb.data`` (``#`` lines are comments); a row without
    exactly ``columns`` non-empty fields raises ValueError naming the file and line."""
    text = (resources.files("chemground.kb.data") / resource).read_text(encoding="utf-8")
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != len(columns) or not all(f.strip() for f in fields):
            raise ValueError(
                f"{resource} line {number}: expected {'<TAB>'.join(columns)} "
                f"({len(columns)} non-empty fields), got {len(fields)} field(s)"
            )
        out.append(tuple(f.strip() for f in fields))
    return out


DESCRIPTIONS_RESOURCE = "descriptions.tsv"


@dataclass(frozen=True)
class CompoundDescription:
    name: str
    smiles: str
    description: str


def load_descriptions() -> list[CompoundDescription]:
    """All curated descriptions, in file order; a malformed row raises ValueError naming its
    line."""
    rows = read_data_tsv(DESCRIPTIONS_RESOURCE, ("name", "SMILES", "description"))
    return [CompoundDescription(*fields) for fields in rows]


def add_descriptions(kb) -> int:
    """Give the KB compounds with these structures their curated description (adding missing
    compounds); a description already in the KB is kept. Returns how many were set."""
    return add_curated(
        kb,
        (([e.name], e.smiles, e.description) for e in load_descriptions()),
        source="chemground-descriptions",
        meta_key="descriptions",
    )


def add_curated(kb, entries, source: str, meta_key: str) -> int:
    """Give the KB curated names and descriptions, adding the compounds it lacks.

    Args:
        kb: the knowledge base, writable.
        entries: (names, SMILES, description) triples; the first name is the compound's common
            name when it is added.
        source: the provenance written on added names and compounds.
        meta_key: the KB meta key that records how many descriptions were set.

    Returns:
        How many descriptions were set (a description already in the KB is kept).
    """
    from chemground.chem.fingerprints import fingerprint_to_bytes, morgan_fingerprint
    from chemground.chem.structure import structure_from_smiles
    from chemground.kb.records import Compound

    added = 0
    with kb.transaction():
        for names, smiles, description in entries:
            structure = structure_from_smiles(smiles)
            hits = kb.lookup_structure(structure)
            if hits:
                compound = kb.get_compound(hits[0].compound_id, with_reactions=0)
                kb.add_synonyms(compound, list(names), source)
                if not compound.description:
                    kb.set_description(compound.id, description)
                    added += 1
            else:
                kb.insert_compound(
                    Compound.from_structure(
                        structure,
                        common_name=names[0],
                        synonyms=list(names),
                        description=description,
                        source=source,
                    ),
                    fingerprint_to_bytes(morgan_fingerprint(smiles)),
                )
                added += 1
        kb.set_meta(meta_key, str(added))
    return added
