"""Forms found by round 22 of the user questions (routes asked every way, misspelt names),
each tested here in other words than the benchmark's."""

from __future__ import annotations

import pytest

ACETANILIDE_ROUTE = [["starter:nitro_hydrogenation-01", "starter:amine_acylation-02"]]


@pytest.mark.parametrize(
    "question",
    [
        "coumaxiphene → benzaldehyde route?",  # a made-up start the finder takes for no name
        "how can we go from benzene to plorbaximate with your reactions?",  # a made-up target
        "route from toluene to unobtainol",
    ],
)
def test_a_route_end_nothing_resolves_gives_no_route(ask_json, question):
    """The routes of the end that resolved were answered (forward from benzaldehyde, the
    Friedel-Crafts of toluene); the end nothing resolved is now named."""
    out = ask_json(question)
    assert out["status"] != "answered" and not out["value"]
    assert any(not m["resolved"] for m in out["query"]["mentions"])


def test_an_unresolved_word_beside_a_named_end_leaves_the_route():
    """'5-benzylidene Meldrum's acid (5-benzylidene-2,2-dimethyl-...)': the target is named."""
    from chemground.kb.records import Role
    from chemground.reasoning.query import QueryMention
    from chemground.retrieval.graph import _end_unresolved

    def mention(text, start, resolved, role):
        return QueryMention(
            text=text,
            start=start,
            end=start + len(text),
            input_format="x",
            resolved=resolved,
            role=role,
        )

    q = "make 5-benzylidene X (the dione) from benzyl alcohol"
    named = [
        mention("5-benzylidene", 5, False, Role.PRODUCT),
        mention("the dione", 21, True, Role.PRODUCT),
        mention("benzyl alcohol", 37, True, Role.REACTANT),
    ]
    assert not _end_unresolved(q, named)
    assert _end_unresolved(q, [named[0], named[2]])


@pytest.mark.parametrize(
    "question",
    [
        "is there any pathway in the database from nitrobenzene to acetanilide?",
        "nitrobenzene → ? → acetanilide",
        "C6H5NO2 to PhNHAc in 2 steps?",  # condensed formulas: nitrobenzene, acetanilide
        "the only thing in stock is nitrobenzene – we need acetanilide, how?",
    ],
)
def test_routes_asked_every_way(ask_json, question):
    out = ask_json(question)
    assert out["query"]["aspect"] == "route" and out["status"] == "answered"
    assert out["value"] == ACETANILIDE_ROUTE


def test_a_start_named_by_lab_shorthand():
    """'BocNHBn' was dropped from the question without a word, and the route started from the
    other compound named."""
    from chemground.chem.condensed import condensed_to_smiles

    assert condensed_to_smiles("BnNHBoc") == "CC(C)(C)OC(=O)NCc1ccccc1"
    assert condensed_to_smiles("PhOAc") == "CC(=O)Oc1ccccc1"
    assert condensed_to_smiles("AcOH") is None  # acetic acid is the dictionary's, not an ester


@pytest.mark.parametrize(
    "question, value",
    [
        ("C6H5NO2 SMILES?", "O=[N+]([O-])c1ccccc1"),  # not nicotinic acid, filed under C6H5NO2
        ("SMILES of 4-methoxychalcone", "COc1ccc(/C=C/C(=O)c2ccccc2)cc1"),  # not 4'-methoxy
    ],
)
def test_names_that_fix_one_isomer(ask_json, question, value):
    assert ask_json(question)["value"] == value


def test_two_acids_named_with_one_noun(ask_json):
    out = ask_json("methyl benzoate with nitric and sulfuric acids – product?")
    assert out["status"] == "answered"
    assert out["evidence"][0]["id"] == "starter:aromatic_nitration-02"


def test_two_swapped_letters_are_a_typo_not_another_ending(ask_json):
    """'1,3-pentadeine': the ending looked like '-ine', another class of compound."""
    out = ask_json("MW of 1,3-pentadeine")
    assert out["status"] == "partial" and abs(out["value"] - 68.12) < 0.01


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("Boc protection of piperazine with Boc2O, no base – what temperature?", "temperature"),
        ("which product would I isolate from benzaldehyde + NaBH4 in EtOH?", "product"),
    ],
)
def test_what_the_last_clause_asks(ask_json, question, aspect):
    assert ask_json(question)["query"]["aspect"] == aspect


def test_a_mass_spectrum_to_assign_is_declined(ask_json):
    """'EI-MS ...: base peak m/z 43 – assign the fragments?' was answered with the exact mass."""
    out = ask_json("ESI-MS of caffeine shows 195 – assign the peaks?")
    assert out["status"] != "answered" and out["value"] is None
