"""A bench chemist's notebook readings (issue 13): what a work-up gave ("then 2 M HCl → white
ppt. what is it?", not understood before), and a route from what is on the shelf when the
obvious reagent has run out ("need X but we're out of BnBr - I do have BnOH and Y": no route
was found, the four compounds were read in written order)."""

from __future__ import annotations


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
