"""One formula reader (chemground.chem.formula) for tools, mentions, extraction and the
faithfulness check: each had its own, and they disagreed on brackets, hydrates and charges."""

from __future__ import annotations

import pytest

from chemground.chem.formula import element_counts, element_symbol
from chemground.errors import ChemgroundError
from chemground.extract.resolve import formula_counts
from chemground.reasoning.faithfulness import _formula_counts


@pytest.mark.parametrize(
    "formula, counts",
    [
        ("Ca3(PO4)2", {"Ca": 3, "P": 2, "O": 8}),
        ("CuSO4·5H2O", {"Cu": 1, "S": 1, "O": 9, "H": 10}),
        ("H₂O", {"H": 2, "O": 1}),
        ("C2H4O2.Na", {"C": 2, "H": 4, "O": 2, "Na": 1}),
        ("[Cu(NH3)4]SO4", {"Cu": 1, "N": 4, "H": 12, "S": 1, "O": 4}),
    ],
)
def test_element_counts(formula, counts):
    assert element_counts(formula) == counts


@pytest.mark.parametrize("bad", ["", "C6H12O6!", "Ca3(PO4", "Xy2", "c6h6"])
def test_what_is_no_formula_is_refused_by_name(bad):
    with pytest.raises(ChemgroundError, match=r"formula|element|brackets"):
        element_counts(bad)


def test_a_charge_is_dropped_only_when_asked():
    assert element_counts("SO4-2", charge=True) == {"S": 1, "O": 4}
    with pytest.raises(ChemgroundError):
        element_counts("SO4-2")
    assert element_symbol("fe") == "Fe"


def test_the_gates_of_each_reader_stay_their_own():
    """Extraction reads a reagent's formula only with common elements ("Pd(OAc)2" is no
    formula: Ac would be actinium); the faithfulness check reads what it can and never raises."""
    assert formula_counts("LiOH.H2O") == {"Li": 1, "O": 2, "H": 3}
    assert formula_counts("Pd(OAc)2") is None
    assert _formula_counts("C9H8O4") == {"C": 9, "H": 8, "O": 4}
    assert _formula_counts("Xy2") == {}


def test_a_property_of_a_molecular_formula_names_the_isomer_used(ask_json):
    """'logP of C2H6O' was answered for ethanol as if the formula named one compound (dimethyl
    ether has it too); the molar mass is the same for both and stays answered."""
    out = ask_json("logP of C2H6O")
    assert out["status"] == "partial" and "does not name one compound" in out["answer"]
    weight = ask_json("MW of C2H6O")
    assert weight["status"] == "answered" and abs(weight["value"] - 46.07) < 0.01


def test_a_formula_names_only_a_compound_of_that_formula(ask_json):
    """The dictionary files the text 'C3H8O' under formaldehyde (CH2O): its molar mass was
    given for C3H8O."""
    out = ask_json("MW of C3H8O")
    assert abs(out["value"] - 60.10) < 0.01


@pytest.mark.parametrize(
    "question",
    ["how heavy is one ethanol molecule in grams?", "weight of a single molecule of CO2"],
)
def test_the_mass_of_one_molecule_is_not_the_molar_mass(ask_json, question):
    """'how heavy is a water molecule in grams' was answered with 18.02 (g/mol, not grams)."""
    out = ask_json(question)
    assert out["status"] != "answered" and out["value"] is None
