"""Roles of the compounds a notebook line or a "using" list names (issue 13): after reactants
joined by "+", the listed compounds are agents; "using A, B and C" lists agents throughout;
an acid that is also a solvent may be either; a metal after a product is the catalyst. Before,
"NaBH(OAc)3" and "BINAP" were read as reactants and "Pd/C" beside a reaction SMILES too, so no
record matched in full and the right answer came hedged."""

from __future__ import annotations

import pytest

from chemground.kb.records import Role


def _roles(rules_qa, question: str) -> dict[str, Role | None]:
    return {m.text: m.role for m in rules_qa.parse(question).mentions}


def test_agents_listed_after_reactants_joined_by_plus(rules_qa):
    roles = _roles(rules_qa, "4-anisaldehyde + morpholine (1.2 eq), NaBH(OAc)3, AcOH, DCE → ?")
    assert roles["morpholine"] == Role.REACTANT
    assert roles["NaBH(OAc)3"] == Role.REAGENT
    assert roles["AcOH"] is None  # solvent or catalyst, as records file it
    assert roles["DCE"] == Role.SOLVENT


def test_a_using_list_is_agents_throughout(rules_qa):
    roles = _roles(
        rules_qa, "bromobenzene is coupled with morpholine using Pd2(dba)3, XPhos and NaOtBu"
    )
    assert roles["Pd2(dba)3"] == Role.CATALYST
    assert roles["XPhos"] in (Role.REAGENT, Role.CATALYST)
    assert roles["NaOtBu"] in (Role.REAGENT, Role.CATALYST)


def test_a_metal_after_the_product_is_the_catalyst(rules_qa):
    roles = _roles(rules_qa, "C=Cc1ccccc1>>CCc1ccccc1, H2, Pd/C – solvent?")
    assert roles["Pd/C"] == Role.CATALYST


@pytest.mark.parametrize(
    ("question", "value"),
    [
        (
            "COc1ccc(C=O)cc1 + Nc1ccccc1, NaBH(OAc)3, AcOH, DCE → ?",
            ["COc1ccc(CNc2ccccc2)cc1"],
        ),
        (
            # EDC·HCl is the record's EDC: a reagent's salt form is the same reagent
            "CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)O + benzylamine, EDC·HCl, HOBt, DIPEA, DCM "
            "– yield?",
            90.0,
        ),
    ],
)
def test_notebook_lines_match_their_record_in_full(ask_json, question, value):
    data = ask_json(question)
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == value
