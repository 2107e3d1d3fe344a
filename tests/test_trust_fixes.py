"""Confidently wrong answers found on the hand-written user questions (dev split), each made
right or honest: polymers are not their monomers, a stereo-free InChIKey is not the drug's,
"how many violations" is a count, and requests for statistics are out of scope."""

from __future__ import annotations

import pytest

from chemground.chem.names import POLYMER_NAME
from chemground.errors import ChemgroundError


@pytest.mark.parametrize(
    "name",
    [
        "polyethylene",
        "polystyrene",
        "poly(vinyl chloride)",
        "polyethylene glycol",
        "polyphosphoric acid",
        "Poly(methyl methacrylate)",
    ],
)
def test_polymer_names_are_recognised(name):
    assert POLYMER_NAME.match(name)


@pytest.mark.parametrize("name", ["polymyxin B", "ethylene", "styrene", "phosphoric acid"])
def test_small_molecules_are_not_polymers(name):
    assert not POLYMER_NAME.match(name)


def test_a_polymer_is_refused_with_its_reason_not_answered_as_its_monomer(tool_qa):
    with pytest.raises(ChemgroundError, match="polymer"):
        tool_qa.workspace.resolver.resolve("polyethylene")
    answer = tool_qa.ask("SMILES for polyethylene with exactly 1000 units?")
    assert answer.status != "answered" and answer.value is None


def test_an_inchikey_without_stereo_for_a_chiral_structure_is_partial(tool_qa):
    answer = tool_qa.ask("InChIKey of CN1CCCC1c1cccnc1")  # nicotine drawn without (S)
    assert answer.status == "partial" and answer.value.endswith("-UHFFFAOYSA-N")
    assert any("stereocentre unspecified" in note for note in answer.notes)
    defined = tool_qa.ask("InChIKey of CN1CCC[C@H]1c1cccnc1")
    assert defined.status == "answered" and defined.value == "SNICXCGAKADSCV-JTQLQIEISA-N"


def test_how_many_violations_is_answered_with_a_count(tool_qa):
    count = tool_qa.ask(
        "how many rule-of-five violations does CC(C)CCCC(C)C1CCC2C1(C)CCC1C2CC=C2CC(O)CCC12C have?"
    )
    assert count.value == 1 and "7.39" in count.answer and "7.3887" not in count.answer
    verdict = tool_qa.ask("does CC(C)CCCC(C)C1CCC2C1(C)CCC1C2CC=C2CC(O)CCC12C pass Lipinski?")
    assert verdict.value is True


def test_statistics_and_prices_are_out_of_scope(tool_qa):
    answer = tool_qa.ask("Tell me about dihydrogen monoxide poisoning statistics in 2023.")
    assert answer.status == "not_understood" and "statistics" in answer.answer
    assert answer.trace["route"]["rule"] == "data_not_held"


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("aspirin CAS", "cas_number"),
        ("CAS no. of toluene?", "cas_number"),
        ("which compound has CAS number 50-78-2?", "description"),
        ("identify BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "description"),
        ("abbreviation for N,N-dimethylformamide?", "synonyms"),
        ("molecular wieght of aspirin", "molecular_weight"),  # a typo in the aspect word
        ("Give the exact (monoisotopic) mass of naphthalene.", "exact_mass"),
        ("Propose a two-step synthesis of aniline from benzene.", "route"),
        ("benzene -> 1-phenylethanol: steps?", "route"),
        ("How many heavy atoms does caffeine have?", "heavy_atoms"),
        ("what else is acetic acid called?", "synonyms"),
        ("Tell me a bit about aspirin.", "description"),
        (
            "if I couple bromobenzene with morpholine under Buchwald-Hartwig conditions, what "
            "comes out?",
            "product",
        ),
        ("what goes in to make aspirin?", "reactants"),
        ("reductive amination acetophenone benzylamine time", "time"),
        (
            "Identify the azide and the alkyne that give 1,4-diphenyl-1H-1,2,3-triazole.",
            "reactants",
        ),
    ],
)
def test_aspects_of_questions_that_were_refused(tool_qa, question, aspect):
    assert tool_qa.parse(question).aspect.value == aspect


def test_a_cas_number_is_answered_and_never_listed_as_a_name(tool_qa):
    answer = tool_qa.ask("aspirin CAS")
    assert answer.status == "answered" and answer.value == "50-78-2"
    names = tool_qa.ask("synonyms of aspirin").value
    assert names and "50-78-2" not in names


def test_an_abbreviation_question_lists_the_curated_abbreviation_first(tool_qa):
    answer = tool_qa.ask("abbreviation for N,N-dimethylformamide?")
    assert answer.value[0] == "DMF"


def test_make_x_from_y_is_answered_with_a_route(tool_qa):
    """Both ends named: a route, of one step when a single reaction does it (its conditions are
    shown with it), as the user-question benchmark's gold has it."""
    answer = tool_qa.ask("how do I make paracetamol from 4-nitrophenol?")
    assert answer.method == "routes" and answer.status == "answered"
    route = answer.evidence[0].record
    assert route["molecules"][0]["name"] == "4-nitrophenol"  # the start, though named second
    one_step = tool_qa.ask("how do I make aspirin from salicylic acid?")
    assert one_step.method == "routes" and one_step.status == "answered"
    assert "(1 step)" in one_step.answer


def test_heavy_atoms_are_counted_by_a_tool(tool_qa):
    answer = tool_qa.ask("heavy atom count of aspirin")
    assert answer.value == 13 and answer.trace["route"]["channel"] == "tools"


def test_an_unknown_alkyl_halide_name_is_not_answered_as_the_halide_ion(tool_qa):
    answer = tool_qa.ask("Formula of the compound xyzzyl chloride?")
    assert answer.status != "answered" and "xyzzyl chloride" in answer.answer


def test_reactions_by_compound_class_come_from_a_substructure_search(tool_qa):
    """Issue 19: "reactions in the KB that use a boronic acid" (a class, not a compound)."""
    answer = tool_qa.ask("reactions in the KB that use a boronic acid")
    assert answer.method == "structure" and answer.status == "answered"
    assert answer.evidence and all("boronic acid as reactant" in e.why for e in answer.evidence)
    assert all("suzuki" in e.id for e in answer.evidence)
    assert any("reactions in the knowledge base have a boronic acid" in n for n in answer.notes)
    products = tool_qa.ask("Which reactions give an aldehyde?")
    assert products.method == "structure" and "an aldehyde as product" in products.evidence[0].why
