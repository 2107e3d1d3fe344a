"""A stereo descriptor in a name is honoured: the dictionary's structure is set to the isomer the
name asks for, or the name is left unresolved with the reason (chem/stereo_names.py)."""

from __future__ import annotations

import pytest

from chemground.chem.stereo_names import StereoMismatch, reconcile_stereo, stereo_prefix
from chemground.chem.structure import structure_from_smiles

IBUPROFEN = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"  # PubChem files "(S)-ibuprofen" under this racemate


@pytest.mark.parametrize(
    ("name", "smiles", "expected"),
    [
        ("(S)-ibuprofen", IBUPROFEN, "CC(C)Cc1ccc([C@H](C)C(=O)O)cc1"),
        ("(R)-ibuprofen", IBUPROFEN, "CC(C)Cc1ccc([C@@H](C)C(=O)O)cc1"),
        ("S-ibuprofen", IBUPROFEN, "CC(C)Cc1ccc([C@H](C)C(=O)O)cc1"),
        # a typo correction to naproxen gives the (S) drug; the name asks for the other one
        ("(R)-naproxen", "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1", "COc1ccc2cc([C@@H](C)C(=O)O)ccc2c1"),
        ("(R)-2-butanol", "CCC(C)O", "CC[C@@H](C)O"),
        ("(E)-stilbene", "C(=Cc1ccccc1)c1ccccc1", "c1ccc(cc1)/C=C/c1ccccc1"),
        ("(Z)-stilbene", "C(=Cc1ccccc1)c1ccccc1", "c1ccc(cc1)/C=C\\c1ccccc1"),
    ],
)
def test_one_descriptor_sets_the_one_stereo_element(name, smiles, expected):
    got = reconcile_stereo(name, structure_from_smiles(smiles))
    assert got.inchikey == structure_from_smiles(expected).inchikey


@pytest.mark.parametrize(
    ("name", "smiles"),
    [
        ("L-alanine", "C[C@H](N)C(=O)O"),  # defined stereo that cannot be checked: kept
        ("(2R,3S)-threonine", "C[C@@H](O)[C@H](N)C(=O)O"),
        ("(±)-ibuprofen", IBUPROFEN),  # racemic: no configuration asked
        ("rac-ibuprofen", IBUPROFEN),
        ("ibuprofen", IBUPROFEN),
        ("S-methylisothiourea", "CSC(N)=N"),  # S- is the sulfur's locant
        ("S-methyl-L-cysteine", "CSC[C@H](N)C(=O)O"),  # ... even beside one stereocentre
        ("D-glycine", "NCC(=O)O"),
    ],
)
def test_names_that_ask_for_nothing_more_keep_their_structure(name, smiles):
    structure = structure_from_smiles(smiles)
    assert reconcile_stereo(name, structure).inchikey == structure.inchikey


@pytest.mark.parametrize(
    ("name", "smiles"),
    [
        ("(+)-camphor", "CC12CCC(CC1=O)C2(C)C"),  # which enantiomer is (+) cannot be computed
        ("(2S,3R)-threonine", "CC(O)C(N)C(=O)O"),  # locants cannot be placed on a bare structure
        ("(S)-ethanol", "CCO"),  # no stereocentre to be (S)
    ],
)
def test_an_isomer_that_cannot_be_told_is_refused_with_the_reason(name, smiles):
    with pytest.raises(StereoMismatch, match=r"stereo|isomer|\(S\)"):
        reconcile_stereo(name, structure_from_smiles(smiles))


def test_prefixes_are_read_as_written():
    assert stereo_prefix("(S)-(+)-2-butanol").cip == ("S",)
    assert stereo_prefix("(2R,3S)-threonine").located
    assert stereo_prefix("Diethyl ether") is None
    assert stereo_prefix("(CH3)2CO") is None
