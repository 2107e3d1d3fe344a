"""Yes/no and either/or checks of a reaction's participants and conditions (issue 13): "did it
use Cs2CO3 or K2CO3?", "was the Grignard ... done in THF?", "is it run at 90 °C?", and a
product asked beside a condition ("what forms, and at what temperature?"). Before, the first
three were answered with the product (or not understood), and the last kept only one fact."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("question", "value", "verdict"),
    [
        (
            "Suzuki of bromobenzene with phenylboronic acid - did it use Cs2CO3 or K2CO3?",
            ["potassium carbonate"],
            "'Cs2CO3': not in this record; 'K2CO3': yes, as the reagent",
        ),
        (
            "bromobenzene + PhB(OH)2 Suzuki: was the base Cs2CO3?",
            ["potassium carbonate"],
            "No ('Cs2CO3': not in this record)",
        ),
        (
            "was the Grignard of PhMgBr with benzophenone done in THF?",
            ["diethyl ether"],
            "No ('THF': not in this record)",
        ),
        (
            # phenylboronic acid names no acid asked: the check is of the catalyst
            "did the Suzuki of bromobenzene with phenylboronic acid use Pd(PPh3)4?",
            ["tetrakis(triphenylphosphine)palladium(0)"],
            "Yes ('Pd(PPh3)4': yes, as the catalyst)",
        ),
        (
            "was Et3N used in the Boc protection of benzylamine?",
            ["triethylamine"],
            "Yes ('Et3N': yes, as the reagent)",
        ),
        (
            # methanol is reactant and solvent: the role asked is said
            "is the Fischer esterification of benzoic acid with methanol done in methanol?",
            ["methanol"],
            "Yes ('methanol': yes, as the solvent)",
        ),
        (
            # the clause after the break is the choice alone: no verb, no role word
            "Wittig of benzaldehyde with ethyl (triphenylphosphoranylidene)acetate: DCM or "
            "toluene?",
            ["dichloromethane"],
            "'DCM': yes, as the solvent; 'toluene': not in this record",
        ),
        (
            # a solvent mixture checked as one
            "Suzuki of bromobenzene with phenylboronic acid, Pd(PPh3)4 – was it run in "
            "toluene/ethanol?",
            ["1,4-dioxane", "water"],
            "'toluene': not in this record; 'ethanol': not in this record",
        ),
        (
            # the check is the clause after the comma, and "in your procedure" closes it
            "the Boc protection of benzylamine with Boc2O, was that done in DCM or THF in your "
            "procedure?",
            ["dichloromethane"],
            "'DCM': yes, as the solvent; 'THF': not in this record",
        ),
        (
            # the role word after the compound checked
            "Suzuki of bromobenzene with phenylboronic acid – did it use Cs2CO3 as the base?",
            ["potassium carbonate"],
            "No ('Cs2CO3': not in this record)",
        ),
        # a tagged claim is checked the same way, not required of the reaction
        (
            "The Swern oxidation of cyclohexanol is run in THF, isn't it? What temperature?",
            -78.0,
            "No ('THF': not in this record)",
        ),
        (
            "benzaldehyde + NaBH4 gives benzyl alcohol in water, right? which solvent?",
            ["ethanol"],
            "'benzyl alcohol': yes, as the product; 'water': not in this record",
        ),
    ],
)
def test_a_checked_compound_asks_its_role_and_gets_a_verdict(ask_json, question, value, verdict):
    data = ask_json(question)
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == value
    assert verdict in data["answer"]
    assert any(
        "checked by the question" in n or "put forward by the question to confirm" in n
        for n in data["notes"]
    )


def test_a_checked_condition_is_the_fact_asked(ask_json):
    data = ask_json("is the Suzuki of 4-bromoanisole and phenylboronic acid run at 90 °C?")
    assert data["status"] == "answered"
    assert data["value"] == 90.0  # was the product
    data = ask_json("is the Swern oxidation of cyclohexanol run at -78 °C?")
    assert data["value"] == -78.0


@pytest.mark.parametrize(
    "question",
    [
        "does benzaldehyde react with acetone?",  # no compound checked: a product question
        "is caffeine soluble in water?",  # a compound's property, no reaction
    ],
)
def test_questions_that_check_nothing_are_not_read_as_checks(rules_qa, question):
    query = rules_qa.parse(question)
    from chemground.reasoning.options import read_offered

    assert not read_offered(query).offered


def test_room_temperature_named_is_no_temperature_asked(ask_json):
    data = ask_json("is aspirin stable at room temperature?")
    assert data["status"] != "answered"  # was answered with 85 °C from a reaction record


@pytest.mark.parametrize(
    ("question", "value"),
    [
        (
            "benzaldehyde + ethyl (triphenylphosphoranylidene)acetate: what forms, and at what "
            "temperature?",
            {
                "products": ["CCOC(=O)/C=C/c1ccccc1", "O=P(c1ccccc1)(c1ccccc1)c1ccccc1"],
                "temperature_c": 25.0,
            },
        ),
        (
            "thiophenol + MeI: product and solvent?",
            {"products": ["CSc1ccccc1"], "solvents": ["acetone"]},
        ),
    ],
)
def test_a_product_asked_beside_a_condition_keeps_both(ask_json, question, value):
    data = ask_json(question)
    assert data["status"] == "answered"
    assert data["value"] == value


def test_a_choice_of_catalyst_after_catalysed_by(ask_json):
    data = ask_json(
        "is the Knoevenagel of benzaldehyde with malononitrile catalysed by piperidine or pyridine?"
    )
    assert data["status"] == "answered", data["answer"]  # was: no record holds both
    assert data["value"] == ["piperidine"]
    assert "'pyridine': not in this record" in data["answer"]


def test_how_much_do_i_get_asks_the_yield(ask_json):
    data = ask_json("what forms from PhMgBr + benzophenone and how much do I get?")
    # was declined as an amount the records do not hold
    assert data["value"] == {
        "products": ["OC(c1ccccc1)(c1ccccc1)c1ccccc1"],
        "yield_percent": 75.0,
    }


def test_a_closing_ligand_asks_the_catalyst(rules_qa):
    from chemground.reasoning.query import Aspect

    assert rules_qa.parse("Suzuki of 2-bromopyridine - ligand?").aspect == Aspect.CATALYST


def test_cat_before_a_compound_is_its_amount_not_the_aspect(rules_qa):
    from chemground.reasoning.query import Aspect

    # "cat. HCl" is catalytic HCl; the closing word asks the reagent (it was read as catalyst)
    query = rules_qa.parse("PhCHO + aniline, EtOH; cat. AcOH is the additive, right? reagent?")
    assert query.aspect == Aspect.REAGENT
    assert rules_qa.parse("which cat. is used for the Suzuki of 4-bromoanisole?").aspect == (
        Aspect.CATALYST
    )


@pytest.mark.parametrize(
    "question",
    [
        # the options are systems: a reagent with its solvent
        "to take the Boc off tert-butyl 4-(hydroxymethyl)piperidine-1-carboxylate, is TFA or HCl "
        "in dioxane used?",
        "Boc removal from N-Boc-4-bromoaniline - TFA/DCM or 4 M HCl in dioxane, which one does "
        "your record use?",
    ],
)
def test_a_choice_between_reagent_systems(ask_json, question):
    data = ask_json(question)
    # both were not understood: "4 M" broke the run of options, and "in dioxane used" closed it
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == ["trifluoroacetic acid"]
    assert "'TFA': yes, as the reagent" in data["answer"]
    assert "'HCl': not in this record" in data["answer"]


def test_a_tagged_claim_alone_asks_the_role_it_claims(ask_json):
    data = ask_json("the Boc protection of benzylamine with Boc2O – that's done in THF, right?")
    # nothing else is asked, so the claim's solvent is (it was answered with the product)
    assert data["status"] == "answered", data["answer"]
    assert data["value"] == ["dichloromethane"]
    assert "No ('THF': not in this record)" in data["answer"]
