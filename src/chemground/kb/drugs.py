"""Common drugs the compound dictionary lacks ("MW of sildenafil", "what is Lipitor?").

The dictionary of the ``chemicals`` package is PubChem-derived and built for industrial
chemicals: sildenafil, gabapentin, celecoxib and many other everyday drugs are not in it, so a
chemist's question about them was refused. ``data/drugs.tsv`` holds them with their brand names
and a one-sentence description, written by the chemground developers. Each SMILES carries the
drug's molecular formula and the CIP labels of its stereocentres, recalled independently of the
SMILES, and the tests check that both agree with it: a wrong structure would give confidently
wrong answers, which is worse than no answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from chemground.kb.descriptions import add_curated, read_data_tsv

DRUGS_RESOURCE = "drugs.tsv"
COLUMNS = ("name", "SMILES", "formula", "stereo", "brands", "description")


@dataclass(frozen=True)
class Drug:
    """One curated drug: its structure, the facts that check it, its names and description."""

    name: str
    smiles: str
    formula: str
    stereo: tuple[str, ...]  # CIP labels of the stereocentres, sorted ("R", "S"); () for none
    brands: tuple[str, ...]
    description: str

    @property
    def names(self) -> list[str]:
        """The generic name first, then the brand names."""
        return [self.name, *self.brands]


def _items(text: str) -> tuple[str, ...]:
    return () if text == "-" else tuple(x.strip() for x in text.split(",") if x.strip())


def load_drugs() -> list[Drug]:
    """All curated drugs, in file order.

    Returns:
        The rows of ``data/drugs.tsv``.

    Raises:
        ValueError: a row without its six fields, naming the file and line.
    """
    return [
        Drug(name, smiles, formula, _items(stereo), _items(brands), description)
        for name, smiles, formula, stereo, brands, description in read_data_tsv(
            DRUGS_RESOURCE, COLUMNS
        )
    ]


def add_drugs(kb) -> int:
    """Add the curated drugs to a KB being built (their names to a compound it already holds).

    Args:
        kb: the knowledge base, writable.

    Returns:
        How many descriptions were set.
    """
    return add_curated(
        kb,
        ((drug.names, drug.smiles, drug.description) for drug in load_drugs()),
        source="chemground-drugs",
        meta_key="drugs",
    )
