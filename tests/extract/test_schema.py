"""The extraction schemas reject malformed LLM output with a reason the model (and a user) can act
on."""

import json

import pytest
from pydantic import ValidationError

from chemground.extract.schema import CheckResult, ExtractedReaction, Extraction, name_problem
from chemground.llm import LLMBadOutput, ScriptedLLM

GOOD = {
    "reactants": ["2-chloropyridine", "morpholine"],
    "products": ["4-(pyridin-2-yl)morpholine"],
    "solvents": ["DMSO"],
    "catalysts": [],
    "operations": ["stir", "filter"],
    "conditions": {"temperature_c": 90, "time_h": 0.5, "ph": None},
    "yield_percent": 38,
    "remark": "",
}


def reason(payload, model=Extraction) -> str:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(payload)
    return str(caught.value)


def test_a_well_formed_extraction_parses():
    extraction = Extraction.model_validate({"reactions": [GOOD]})
    reaction = extraction.reactions[0]
    assert reaction.reactants == ["2-chloropyridine", "morpholine"]
    assert reaction.conditions.temperature_c == 90.0 and reaction.yield_percent == 38.0
    assert Extraction.model_validate([GOOD]).reactions[0] == reaction  # bare list accepted
    assert Extraction.model_validate({"reactions": []}).reactions == []


@pytest.mark.parametrize(
    "name, expected",
    [
        ("compound 3", "label"),
        ("Compound A", "label"),
        ("title compound", "label"),
        ("Example 12", "label"),
        ("intermediate B", "label"),
        ("NaOH (aq)", "state of matter"),
        ("saturated NaHCO3", "concentration"),
        ("brine", "work-up"),
        ("column chromatography", "work-up"),
        ("aqueous sodium hydroxide", "state or a form"),
        ("hydrogen gas", "state or a form"),
        ("", "empty"),
    ],
)
def test_labels_states_and_concentrations_are_refused(name, expected):
    assert expected in name_problem(name)
    message = reason({"reactions": [{**GOOD, "reactants": ["morpholine", name]}]})
    assert "reactants[1]" in message and expected in message


@pytest.mark.parametrize(
    "name",
    [
        "2-chloropyridine",
        "THF",
        "K2CO3",
        "Pd(PPh3)4",
        "10% Pd/C",
        "sodium hydroxide",
        "(S)-2-amino-3-phenylpropanoic acid",
        "N,N-diisopropylethylamine",
    ],
)
def test_real_names_pass(name):
    assert name_problem(name) is None


def test_amounts_are_taken_off_names_before_resolution():
    """A model copies amounts from the text ("4-bromoanisole (1.0 g, 5.35 mmol)", "methanol
    (50 mL)"); left on, no name resolved and no reaction was stored (issue 20)."""
    reaction = ExtractedReaction.model_validate(
        {
            **GOOD,
            "reactants": ["4-bromoanisole (1.0 g, 5.35 mmol)", "2 M HCl", "1N sodium hydroxide"],
            "solvents": ["methanol (50 mL)", "50 mL of THF", "CH2Cl2 (2 x 20 mL)"],
            "catalysts": ["Pd(PPh3)4 (3 mol%)", "10% Pd/C"],
        }
    )
    assert reaction.reactants == ["4-bromoanisole", "HCl", "sodium hydroxide"]
    assert reaction.solvents == ["methanol", "THF", "CH2Cl2"]
    assert reaction.catalysts == ["Pd(PPh3)4", "10% Pd/C"]  # a loading names the grade


def test_numbers_with_units_or_words_are_refused():
    assert "plain number in °C" in reason(
        {"reactions": [{**GOOD, "conditions": {"temperature_c": "80 °C"}}]}
    )
    assert "plain number in hours" in reason(
        {"reactions": [{**GOOD, "conditions": {"time_h": "overnight"}}]}
    )
    reaction = ExtractedReaction.model_validate(
        {**GOOD, "conditions": {"temperature_c": "80", "time_h": 2}}
    )
    assert reaction.conditions.temperature_c == 80.0  # a numeric string is a number


def test_impossible_values_are_refused():
    assert "between 0 and 100" in reason({"reactions": [{**GOOD, "yield_percent": 150}]})
    assert "below" not in reason({"reactions": [{**GOOD, "conditions": {"temperature_c": -300}}]})
    assert "outside what a reaction can run at" in reason(
        {"reactions": [{**GOOD, "conditions": {"temperature_c": -300}}]}
    )
    assert "outside 0-14" in reason({"reactions": [{**GOOD, "conditions": {"ph": 19}}]})
    assert "not a reaction time" in reason({"reactions": [{**GOOD, "conditions": {"time_h": 0}}]})


def test_unknown_keys_and_wrong_types_are_refused():
    assert "reagents" in reason({"reactions": [{**GOOD, "reagents": ["NaH"]}]})
    assert "must be a compound name" in reason(
        {"reactions": [{**GOOD, "products": [{"name": "x"}]}]}
    )
    assert "reactions" in reason({"reaktions": []})


def test_check_results_must_be_consistent():
    assert "needs the (corrected) reaction" in reason(
        {"verdict": "ok", "reaction": None}, CheckResult
    )
    assert "must come with reaction null" in reason(
        {"verdict": "rejected", "reaction": GOOD, "issues": ["x"]}, CheckResult
    )
    assert "at least one entry in issues" in reason(
        {"verdict": "rejected", "reaction": None}, CheckResult
    )
    rejected = CheckResult.model_validate(
        {"verdict": "rejected", "reaction": None, "issues": ["no product"]}
    )
    assert rejected.reaction is None
    corrected = CheckResult.model_validate(
        {"verdict": "corrected", "reaction": GOOD, "issues": ["role fixed"]}
    )
    assert corrected.reaction.products == ["4-(pyridin-2-yl)morpholine"]


def test_the_reason_goes_back_to_the_model_and_a_second_failure_is_a_clear_error():
    bad = json.dumps({"reactions": [{**GOOD, "reactants": ["compound 3"]}]})
    llm = ScriptedLLM([bad, json.dumps({"reactions": [GOOD]})])
    value, _ = llm.chat_json([{"role": "user", "content": "extract"}], schema=Extraction)
    assert value.reactions[0].reactants == GOOD["reactants"]
    reask = llm.calls[1]["messages"][-1]["content"]
    assert "reactants[0]" in reask and "label" in reask
    with pytest.raises(LLMBadOutput, match="label"):
        ScriptedLLM([bad, bad]).chat_json(
            [{"role": "user", "content": "extract"}], schema=Extraction
        )
