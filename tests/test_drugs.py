"""The curated drugs the dictionary lacks: each structure agrees with the facts that check it,
and a built KB answers for the drug and its brand names."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.Chem.rdMolDescriptors import CalcMolFormula

from chemground.kb.descriptions import load_descriptions
from chemground.kb.drugs import load_drugs

DRUGS = load_drugs()


def test_at_least_fifty_drugs_with_unique_names_and_structures():
    assert len(DRUGS) >= 50
    names = [n.lower() for d in DRUGS for n in d.names]
    assert len(names) == len(set(names))
    keys = [Chem.MolToInchiKey(Chem.MolFromSmiles(d.smiles)) for d in DRUGS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("drug", DRUGS, ids=lambda d: d.name)
def test_structure_agrees_with_formula_and_stereocentres(drug):
    """The SMILES is checked against two facts recalled independently of it."""
    mol = Chem.MolFromSmiles(drug.smiles)
    assert mol is not None
    assert CalcMolFormula(mol) == drug.formula
    centres = Chem.FindMolChiralCenters(mol, includeUnassigned=False, useLegacyImplementation=False)
    assert tuple(sorted(label for _, label in centres)) == drug.stereo


def test_no_drug_repeats_a_described_compound():
    described = {Chem.MolToInchiKey(Chem.MolFromSmiles(e.smiles)) for e in load_descriptions()}
    assert not [
        d.name for d in DRUGS if Chem.MolToInchiKey(Chem.MolFromSmiles(d.smiles)) in described
    ]


def test_a_built_kb_answers_for_a_drug_and_its_brand_name(tmp_path):
    from chemground.kb.build import build_kb
    from chemground.qa import QA
    from chemground.settings import Settings
    from chemground.workspace import Workspace
    from tests.conftest import SMALL_DICTIONARY

    path = tmp_path / "kb.sqlite"
    build_kb(path, dictionary_files=SMALL_DICTIONARY, with_starter=False).close()
    qa = QA(Workspace(Settings(kb={"path": path}, cache_dir=tmp_path / "cache"), readonly=True))
    weight = qa.ask("How heavy is one mole of gabapentin?").to_json()
    assert weight["status"] == "answered" and abs(weight["value"] - 171.24) < 0.01
    brand = qa.ask("What is Viagra?").to_json()
    assert brand["status"] == "answered" and "phosphodiesterase" in brand["answer"]
