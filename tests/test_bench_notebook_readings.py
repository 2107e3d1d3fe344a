"""A bench chemist's notebook readings (issue 13): what a work-up gave ("then 2 M HCl → white
ppt. what is it?", not understood before), and a route from what is on the shelf when the
obvious reagent has run out ("need X but we're out of BnBr - I do have BnOH and Y": no route
was found, the four compounds were read in written order)."""

from __future__ import annotations

import pytest


def test_the_solid_a_work_up_gave_is_the_product(ask_json):
    data = ask_json(
        "ethyl benzoate + NaOH in water, reflux, then acidified with HCl - a white solid formed. "
        "what is it?"
    )
    assert data["status"] == "answered", data["answer"]
    assert data["value"][0] == "O=C(O)c1ccccc1"


def test_a_white_solid_with_no_reaction_is_not_a_product(ask_json):
    data = ask_json("what is the white solid in my aspirin bottle?")
    assert data["status"] != "answered"


def test_a_route_from_what_is_in_stock_when_a_reagent_ran_out(ask_json):
    data = ask_json(
        "I need 1-benzyl-4-phenylpiperazine but we ran out of benzyl bromide. we do have "
        "benzyl alcohol and 1-phenylpiperazine - how do I get there?"
    )
    assert data["status"] == "answered", data["answer"]
    assert data["value"][0] == ["starter:appel_reaction-01", "starter:sn2_alkylation-09"]


def test_an_abbreviation_written_with_its_acid_is_the_salt(rules_qa):
    # "NH2OH.HCl" was dropped from the question without a word
    query = rules_qa.parse("cyclohexanone + NH2OH.HCl, NaOAc -> ?")
    salt = next(m for m in query.mentions if m.text == "NH2OH.HCl")
    assert salt.smiles in ("Cl.NO", "NO.Cl")


def test_does_it_need_heating_asks_the_temperature(ask_json):
    data = ask_json("swern of cyclohexanol - does it need cooling?")
    # was answered with the product
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == -78.0


@pytest.mark.parametrize(
    ("question", "value"),
    [
        # the class word after "which" is the reagent asked, not phosphine (PH3) required
        ("cyclohexanol + CBr4, DCM, 0 °C – which phosphine?", ["triphenylphosphine"]),
        # "stoichiometric" names which base, not an amount the records do not hold
        ("benzyl alcohol + acetyl chloride, DMAP (cat.), DCM – stoichiometric base?", None),
    ],
)
def test_a_class_or_amount_word_before_the_role_asked(ask_json, question, value):
    data = ask_json(question)
    assert data["status"] in ("answered", "partial"), data["answer"]
    if value is not None:
        assert data["value"] == value
    assert "amount" not in data["answer"][:60]


def test_a_role_label_in_brackets_is_given_not_asked(rules_qa):
    query = rules_qa.parse(
        "PhCO2H + MeOH (solvent), cat. H2SO4, reflux → methyl benzoate. typical yield?"
    )
    assert query.aspect.value == "yield"  # was the solvent and the yield
    roles = {m.text: m.role for m in query.mentions}
    assert roles["MeOH"].value == "solvent"
    assert roles["H2SO4"].value in ("reagent", "catalyst")


def test_a_proton_in_an_nmr_queue_is_no_compound(ask_json):
    data = ask_json("the 400 MHz queue is full - any way to jump it for one quick proton?")
    assert data["status"] != "answered"  # was the SMILES of H+


@pytest.mark.parametrize(
    "question",
    [
        "can your reactions take us from cyclohexanol all the way to 1-phenylcyclohexan-1-ol?",
        "all I've got is benzyl alcohol - can I get to benzalacetone with your reactions?",
    ],
)
def test_route_phrasings_of_a_teaching_lab(rules_qa, question):
    assert rules_qa.parse(question).aspect.value == "route"


@pytest.mark.parametrize(
    "question",
    [
        "what's the workup for the NaBH4 reduction of benzaldehyde",  # was the product
        "Rf of benzaldehyde in 20% EtOAc/hexane",  # Rf read as rutherfordium; a yield answered
        "what's the yield if I use 2 eq of NaBH4?",  # a record's yield, as if nothing changed
    ],
)
def test_what_the_records_do_not_hold_is_declined(ask_json, question):
    data = ask_json(question)
    assert data["status"] == "not_understood", data["answer"]
    assert data["value"] is None


def test_a_target_named_without_stereo_is_reached_through_its_stereoisomer(ask_json):
    data = ask_json("make ethyl cinnamate from benzaldehyde")  # the records make the (E) ester
    assert data["status"] == "answered", data["answer"]
    assert ["starter:wittig_olefination-01"] in data["value"]


def test_a_target_nothing_resolves_gives_no_routes_elsewhere(ask_json):
    data = ask_json("route from benzaldehyde to unobtainol")
    # what benzaldehyde can become was answered
    assert data["status"] == "no_evidence"
    assert "'unobtainol' (not resolved to a structure)" in data["answer"]
