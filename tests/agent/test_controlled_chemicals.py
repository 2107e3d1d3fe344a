"""Our list of controlled chemicals (CWC schedules + Australia Group): the file is well formed,
every
structure is distinct and parses, every name resolves (OPSIN, else the PubChem-derived dictionary)
to
the structure given, CAS numbers agree with the dictionary where it has them, and the two chemcrow
safety tools use the list."""

from __future__ import annotations

import re
import warnings
from importlib import resources

import pytest

from chemground.agent.tools.chemcrow import controlled_chemicals
from chemground.chem.names import is_valid_cas

RESOURCE = "data/controlled_chemicals.tsv"

# CAS numbers the dictionary files under another structure; the list gives the real compound.
CAS_DICTIONARY_DISAGREES = {
    "753-59-3": "PubChem also files this CAS under trimethyldifluorophosphorane; the Australia "
    "Group lists it as "
    "methylphosphonous difluoride",
    "868-85-9": "PubChem writes dimethyl phosphite without its P-H hydrogen (CO[P+](=O)OC)",
    "762-04-9": "PubChem writes diethyl phosphite without its P-H hydrogen (CCO[P+](=O)OCC)",
    "1314-80-3": "PubChem records the P2S5 formula unit; the molecule is P4S10",
}


def _inchikey(smiles: str) -> str | None:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToInchiKey(mol) if mol is not None else None


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return controlled_chemicals()


def test_file_has_four_non_empty_fields_per_row_and_a_provenance_header():
    text = resources.files("chemground.agent").joinpath(RESOURCE).read_text(encoding="utf-8")
    header = " ".join(line for line in text.splitlines() if line.startswith("#"))
    assert "chemground developers" in header and "Chemical Weapons Convention" in header
    assert "Australia Group" in header
    data = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    for line in data:
        fields = line.split("\t")
        assert len(fields) == 4 and all(f.strip() for f in fields), line
    assert len(data) == len(controlled_chemicals())


def test_at_least_100_rows_with_valid_cas_numbers_and_lists(rows):
    assert len(rows) >= 100
    bad = [row["cas"] for row in rows if not is_valid_cas(row["cas"])]
    assert not bad, f"CAS numbers with a bad format or check digit: {bad}"
    assert len({row["cas"] for row in rows}) == len(rows)
    for row in rows:
        for entry in row["lists"].split("; "):
            assert re.fullmatch(r"CWC Schedule [123][AB]|Australia Group", entry), row


def test_every_smiles_parses_and_structures_are_distinct(rows):
    keys: dict[str, str] = {}
    for row in rows:
        key = _inchikey(row["smiles"])
        assert key is not None, f"RDKit cannot parse {row['smiles']!r} ({row['name']})"
        assert key not in keys, f"{row['name']} has the same structure as {keys[key]}"
        keys[key] = row["name"]


def test_every_name_and_cas_number_resolve_to_the_given_structure(rows):
    import py2opsin
    from chemicals.identifiers import pubchem_db

    names = [row["name"] for row in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # OPSIN warns about each name it cannot parse
        from_opsin = py2opsin.py2opsin(names, output_format="StdInChIKey")
    assert len(from_opsin) == len(rows)
    problems = []
    for row, opsin_key in zip(rows, from_opsin):
        key = _inchikey(row["smiles"])
        if opsin_key:
            name_key, source = opsin_key, "OPSIN"
        else:
            hit = pubchem_db.search_name(row["name"])
            name_key, source = (hit.InChI_key if hit else None), "dictionary"
        if name_key != key:
            problems.append(f"{row['name']!r}: {source} gives {name_key}, the SMILES {key}")
        hit = pubchem_db.search_CAS(row["cas"])
        if hit and hit.InChI_key != key and row["cas"] not in CAS_DICTIONARY_DISAGREES:
            problems.append(f"CAS {row['cas']} ({row['name']}) is {hit.smiles} in the dictionary")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("query", ["CC(C)OP(C)(=O)F", "107-44-8", "OCCSCCO", "111-48-8"])
def test_control_chem_check_finds_sarin_and_thiodiglycol(run_tool, query):
    assert (
        run_tool("chemcrow/ControlChemCheck", [query])
        == f"The molecule {query} appears in a list of controlled chemicals."
    )


def test_ethanol_is_not_controlled(run_tool):
    result = run_tool("chemcrow/ControlChemCheck", ["CCO"])
    assert "low similarity" in result and "appears in a list" not in result
    assert "low similarity" in run_tool("chemcrow/SimilarControlChemCheck", ["CCO"])


def test_a_close_analogue_of_sarin_is_flagged_as_similar(run_tool):
    # n-propyl instead of isopropyl: not on the list, but highly similar to sarin
    assert "high similarity" in run_tool("chemcrow/SimilarControlChemCheck", ["CCCOP(C)(=O)F"])
