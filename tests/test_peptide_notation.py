"""Protected amino acids and short peptides in three-letter notation (issue 13): "Boc-Gly-NHBn"
was dropped from the question without a word, and the Boc removal it asked about was answered
for another substrate."""

from __future__ import annotations

import pytest
from rdkit import Chem

from chemground.chem.peptide_notation import peptide_to_smiles


def _cip(smiles: str) -> list[str]:
    mol = Chem.MolFromSmiles(smiles)
    return [label for _, label in Chem.FindMolChiralCenters(mol, useLegacyImplementation=False)]


@pytest.mark.parametrize(
    ("notation", "smiles"),
    [
        ("Boc-Gly-NHBn", "CC(C)(C)OC(=O)NCC(=O)NCc1ccccc1"),
        ("Boc-Phe-OH", "CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)O"),
        ("Cbz-Ala-OMe", "COC(=O)[C@H](C)NC(=O)OCc1ccccc1"),
        ("Ac-Gly-Gly-OEt", "CCOC(=O)CNC(=O)CNC(C)=O"),
    ],
)
def test_a_notation_is_its_structure(notation, smiles):
    assert peptide_to_smiles(notation) == Chem.CanonSmiles(smiles)


@pytest.mark.parametrize(
    ("notation", "labels"),
    [("Fmoc-Pro-OH", ["S"]), ("H-Cys-OH", ["R"]), ("Boc-Thr-OMe", ["S", "R"])],
)
def test_residues_are_l(notation, labels):
    # L-cysteine is (R) and L-threonine (2S,3R) by the CIP rules
    assert sorted(_cip(peptide_to_smiles(notation))) == sorted(labels)


@pytest.mark.parametrize("text", ["Gly-OH", "Boc-Xyz-OH", "Boc-Gly", "benzyl-Gly-OH"])
def test_what_is_no_such_notation_is_not_read(text):
    assert peptide_to_smiles(text) is None


def test_a_protected_dipeptide_in_a_question_is_its_compound(rules_qa):
    query = rules_qa.parse("Boc-Gly-NHBn, TFA in DCM - what do I end up with?")
    assert query.mentions[0].text == "Boc-Gly-NHBn"
    assert query.mentions[0].smiles == "CC(C)(C)OC(=O)NCC(=O)NCc1ccccc1"
