"""Structures: parsing with RDKit's reasons, identity, masses, salts, fingerprints."""

from __future__ import annotations

import pytest

from chemground.chem.fingerprints import morgan_fingerprint, tanimoto
from chemground.chem.structure import (
    Structure,
    is_inchikey,
    looks_like_smiles,
    mol_from_inchi,
    structure_from_inchi,
    structure_from_smiles,
)
from chemground.errors import StructureError


def test_canonical_identity_does_not_depend_on_how_smiles_is_written():
    a = structure_from_smiles("Clc1ncc(Cl)cn1")
    b = structure_from_smiles("c1(Cl)ncc(Cl)cn1")
    assert a.smiles == b.smiles == "Clc1cnc(Cl)nc1"
    assert a.inchikey == b.inchikey == "CEJAHXLRNZJPQH-UHFFFAOYSA-N"
    assert a.formula == "C4H2Cl2N2"
    assert a.molecular_weight == pytest.approx(148.98, abs=0.01)
    assert a.exact_mass == pytest.approx(147.9595, abs=1e-4)


def test_paracetamol_numbers():
    s = structure_from_smiles("CC(=O)Nc1ccc(O)cc1")
    assert (s.formula, round(s.molecular_weight, 2)) == ("C8H9NO2", 151.16)


@pytest.mark.parametrize(
    "smiles, reason",
    [
        ("C1CC", "unclosed ring"),
        ("CC(C)(C)(C)C", "valence"),
        ("c1cccc1", "kekulize"),
        ("C(C", "parse error"),
    ],
)
def test_invalid_smiles_error_says_why(smiles, reason):
    with pytest.raises(StructureError) as error:
        structure_from_smiles(smiles)
    assert smiles in str(error.value)
    assert reason.lower() in str(error.value).lower()


def test_empty_smiles_is_an_error():
    with pytest.raises(StructureError, match="empty"):
        structure_from_smiles("  ")


def test_inchi_round_trip_and_bad_inchi():
    s = structure_from_inchi("InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3")
    assert s.smiles == "CCO" and s.inchikey == "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"
    with pytest.raises(StructureError, match="invalid InChI"):
        mol_from_inchi("InChI=1S/not-a-real-layer")


def test_atom_maps_do_not_change_identity():
    mapped = structure_from_smiles("[CH3:1][CH2:2][OH:3]")
    assert mapped.smiles == "CCO"
    assert mapped.inchikey == structure_from_smiles("OCC").inchikey


def test_salt_keeps_its_identity_but_shares_the_parent_with_the_free_base():
    salt = structure_from_smiles("CC(=O)Nc1ccc(O)cc1.Cl")
    free = structure_from_smiles("CC(=O)Nc1ccc(O)cc1")
    assert salt.inchikey != free.inchikey
    assert salt.parent_inchikey == free.inchikey
    acetate = structure_from_smiles("CC(=O)[O-].[Na+]")
    assert acetate.parent_inchikey == structure_from_smiles("CC(=O)O").inchikey


def test_r_group_structures_get_a_stable_stand_in_key():
    a = structure_from_smiles("*CC(*)C")
    assert (
        a.inchikey.startswith("NOINCHI-")
        and a.inchikey == structure_from_smiles("CC(*)C*").inchikey
    )


def test_tanimoto():
    assert tanimoto("CCO", "OCC") == pytest.approx(1.0)
    toluene_vs_benzene = tanimoto("Cc1ccccc1", "c1ccccc1")
    assert 0.2 < toluene_vs_benzene < 1.0
    assert tanimoto("CCO", "c1ccccc1") < toluene_vs_benzene
    assert morgan_fingerprint("CCO").GetNumBits() == 2048


@pytest.mark.parametrize(
    "token, expected",
    [
        ("CCO", True),
        ("Clc1ncc(Cl)cn1", True),
        ("O=C=O", True),
        ("[Na+].[Cl-]", True),
        ("c1ccccc1", True),
        ("ethanol", False),
        ("Benzene", False),
        ("THF", False),
        ("NaCl", False),
        ("HCl", False),
        ("2,5-dichloropyrimidine", False),
        ("BSYNRYMUTXBXSQ-UHFFFAOYSA-N", False),
    ],
)
def test_looks_like_smiles(token, expected):
    assert looks_like_smiles(token) is expected


def test_inchikey_pattern():
    assert is_inchikey("BSYNRYMUTXBXSQ-UHFFFAOYSA-N")
    assert not is_inchikey("BSYNRYMUTXBXSQ-UHFFFAOYSA")


def test_structure_is_immutable():
    s = structure_from_smiles("CCO")
    assert isinstance(s, Structure)
    with pytest.raises(AttributeError):
        s.smiles = "C"  # type: ignore[misc]


@pytest.mark.parametrize(
    "complex_smiles",
    [
        "[Pd].c1ccc(P(c2ccccc2)c2ccccc2)cc1.c1ccc(P(c2ccccc2)c2ccccc2)cc1"
        ".c1ccc(P(c2ccccc2)c2ccccc2)cc1.c1ccc(P(c2ccccc2)c2ccccc2)cc1",  # Pd(PPh3)4
        "CC(=O)[O-].CC(=O)[O-].[Pd+2]",  # Pd(OAc)2
    ],
)
def test_a_metal_complex_written_as_fragments_is_its_own_parent(complex_smiles):
    """'which reactions use Pd(PPh3)4' listed the Appel reactions: the complex's parent had
    been its largest fragment, triphenylphosphine (and Pd(OAc)2's acetic acid)."""
    complex_ = structure_from_smiles(complex_smiles)
    assert complex_.parent_inchikey == complex_.inchikey
