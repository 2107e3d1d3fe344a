"""Reading the PubChem-derived compound dictionary shipped in the PyPI package ``chemicals``.

We read the identifier files the way ``chemicals.identifiers.ChemicalMetadataDB`` loads
them (the large PubChem set, then the small set, the example user db, the cation, anion and
inorganic files, then the periodic table; later files win for the preferred names), plus the
mixture compositions file. Common solvents (water, ethanol, THF, DCM) live in the small and
inorganic files, which is why all of them matter.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DICTIONARY_FILES = (
    "chemical identifiers pubchem large.tsv",
    "chemical identifiers pubchem small.tsv",
    "chemical identifiers example user db.tsv",
    "Cation db.tsv",
    "Anion db.tsv",
    "Inorganic db.tsv",
)
MIXTURES_FILE = "Mixtures Compositions.tsv"


@dataclass
class DictionaryEntry:
    """One row of a dictionary file."""

    pubchem_cid: int | None
    cas: str | None
    formula: str
    molecular_weight: float | None
    smiles: str
    inchi: str
    inchikey: str
    iupac_name: str
    common_name: str
    synonyms: list[str]
    source_file: str


@dataclass
class MixtureEntry:
    name: str
    source: str
    component_cas: list[str]
    component_names: list[str]
    mass_fractions: list[float]
    mole_fractions: list[float]
    synonyms: list[str] = field(default_factory=list)


def identifiers_folder() -> Path:
    """The ``Identifiers`` folder of the installed ``chemicals`` package (without importing it)."""
    spec = importlib.util.find_spec("chemicals")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the 'chemicals' package is not installed; pip install chemicals")
    return Path(next(iter(spec.submodule_search_locations))) / "Identifiers"


@lru_cache(maxsize=1)
def dictionary_version() -> str:
    from importlib.metadata import version

    return version("chemicals")


def _cas_text(raw: str) -> str | None:
    raw = raw.strip()
    if not raw:
        return None
    if "-" in raw:
        return raw
    digits = raw.lstrip("0")
    if len(digits) < 5:
        return None
    return f"{digits[:-3]}-{digits[-3:-1]}-{digits[-1]}"


def read_dictionary_file(path: Path) -> Iterator[DictionaryEntry]:
    """Rows of one identifier TSV (columns: CID, CAS, formula, MW, SMILES, InChI, InChIKey,
    names...)."""
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, 1):
            values = line.rstrip("\n").split("\t")
            if len(values) < 9:
                raise ValueError(
                    f"{path.name}:{line_number}: expected >= 9 tab-separated columns, got "
                    f"{len(values)}"
                )
            cid, cas, formula, mw, smiles, inchi, key, iupac, common = values[:9]
            synonyms = [s for s in values[7:] if s]
            try:
                cid_value = int(cid)
            except ValueError:
                cid_value = None
            yield DictionaryEntry(
                pubchem_cid=cid_value if cid_value and cid_value > 0 else None,
                cas=_cas_text(cas),
                formula=formula,
                molecular_weight=float(mw) if mw else None,
                smiles=smiles,
                inchi=("InChI=1S/" + inchi) if inchi and not inchi.startswith("InChI=") else inchi,
                inchikey=key,
                iupac_name=iupac,
                common_name=common,
                synonyms=list(dict.fromkeys(synonyms)),
                source_file=path.name,
            )


def read_elements() -> Iterator[DictionaryEntry]:
    """The periodic table as ``chemicals`` loads it into its dictionary."""
    from chemicals.elements import homonuclear_elements_CASs_set, periodic_table

    for element in periodic_table:
        if element.CAS in homonuclear_elements_CASs_set or not element.smiles:
            continue
        name = element.name.lower()
        yield DictionaryEntry(
            pubchem_cid=element.PubChem or None,
            cas=element.CAS,
            formula=element.symbol,
            molecular_weight=element.MW,
            smiles=element.smiles,
            inchi=("InChI=1S/" + element.InChI) if element.InChI else "",
            inchikey=element.InChI_key or "",
            iupac_name=name,
            common_name=name,
            synonyms=[name, element.symbol],
            source_file="chemicals.elements",
        )


def iter_dictionary(
    folder: Path | None = None, files: tuple[str, ...] | None = None
) -> Iterator[DictionaryEntry]:
    """All identifier rows in the package's load order, then the elements.

    ``files`` restricts the identifier files read (tests use the small ones only).
    """
    folder = folder or identifiers_folder()
    for name in files if files is not None else DICTIONARY_FILES:
        path = folder / name
        if path.exists():
            yield from read_dictionary_file(path)
    yield from read_elements()


def read_mixtures(folder: Path | None = None) -> list[MixtureEntry]:
    """Named mixtures (air, natural gases, refrigerant blends) with their compositions."""
    path = (folder or identifiers_folder()) / MIXTURES_FILE
    if not path.exists():
        return []
    mixtures = []
    with open(path, encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            values = line.strip("\n").strip("\t").split("\t")
            name, source, n = values[0].strip(), values[1], int(values[2])
            cas = values[3 : 3 + n]
            names = values[3 + n : 3 + 2 * n]
            ws = [float(x) for x in values[3 + 2 * n : 3 + 3 * n]]
            zs = [float(x) for x in values[3 + 3 * n : 3 + 4 * n]]
            synonyms = [s.strip() for s in values[3 + 4 * n :] if s.strip()]
            mixtures.append(MixtureEntry(name, source, cas, names, ws, zs, synonyms))
    return mixtures
