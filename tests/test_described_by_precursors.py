"""A compound described by what it was made from, and a reagent named after a person (issue
13). "logP of X? the ester we made from A + B" was answered with A's and B's logP; "the MW of
the amide made from A and B" with both precursors' weights; "Krasnov's borate" (no such
reagent) with the borate ion's mass. Each was a confident answer to a question not asked."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "question",
    [
        "how many Ro5 violations does blarfenib have? (the urea from aniline and phenyl "
        "isocyanate)",
        "clogP of blarfyl acetate? the ester we made from menthol + Ac2O",
        "logP of the ester from benzoic acid and methanol?",
    ],
)
def test_precursors_are_not_the_compound_asked(ask_json, question):
    data = ask_json(question)
    assert data["status"] != "answered", data["answer"]
    assert data["value"] is None


def test_precursors_are_named_as_such(rules_qa):
    query = rules_qa.parse("what is the logP of the amide we made from benzoic acid and aniline?")
    assert not query.mentions
    assert any("as what the compound asked about was made from" in p for p in query.problems)


def test_the_subject_named_beside_its_precursors_is_kept(ask_json):
    data = ask_json("logP of aspirin, the drug made from salicylic acid")
    assert data["status"] == "answered"
    assert data["value"] == pytest.approx(1.31, abs=0.01)


def test_a_fact_of_the_compound_made_from_two_is_the_products(ask_json):
    data = ask_json("formula of the ester we made from benzoic acid and methanol")
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == "C8H8O2"  # methyl benzoate, not benzoic acid and methanol


def test_a_reagent_named_after_a_person_is_not_its_ion(ask_json):
    data = ask_json("we were told to use Krasnov's borate - what's its molecular weight?")
    assert data["status"] != "answered"
    assert "names a reagent after a person" in data["answer"]


def test_what_the_compound_is_used_to_make_is_not_the_compound_asked(rules_qa):
    query = rules_qa.parse("2,6-xylidine cas number? (the lidocaine starting material)")
    # lidocaine's CAS number was answered
    assert [m.text for m in query.mentions] == ["2,6-xylidine"]
    assert any(
        "'lidocaine' as what the compound asked about is used to make" in p for p in query.problems
    )


def test_amino_acid_as_a_class_word_is_no_compound(rules_qa):
    query = rules_qa.parse("amino-acid standards on the Orbitrap - monoisotopic mass of caffeine?")
    assert "amino-acid" not in [m.text for m in query.mentions]
    assert not any("amino-acid" in p for p in query.problems)  # it was named unresolved
