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
