"""The routing table (chemground.routing): which channel answers a parsed question, and why."""

from __future__ import annotations

import pytest

from chemground.reasoning.query import Aspect
from chemground.routing import ROUTING_TABLE, TOOL_ASPECTS, refine, route


@pytest.fixture(scope="module")
def qa(tool_qa):
    return tool_qa


@pytest.mark.parametrize(
    "question, channel, rule",
    [
        ("What is the logP of caffeine?", "tools", "tool_aspect"),
        ("how lipophilic is caffeine", "tools", "tool_aspect"),
        ("TPSA of morphine", "tools", "tool_aspect"),  # "TPSA" is also a chemical's abbreviation
        ("how many moles in 5 g of NaCl", "tools", "tool_aspect"),
        ("balance H2 + O2 = H2O", "tools", "tool_aspect"),
        ("bp of toluene", "tools", "tool_aspect"),
        ("which is heavier, benzene or toluene?", "tools", "comparison"),
        ("Fe2O3 molar mass", "tools", "bare_formula"),
        ("exact mass of C8H10N4O2", "tools", "bare_formula"),  # was not understood
        ("What is the molecular weight of aspirin?", "table", "table_fact"),
        ("What forms when benzaldehyde reacts with benzohydrazide?", "table", "table_fact"),
        (
            "Which solvent is used for the Suzuki coupling of bromobenzene with phenylboronic "
            "acid?",
            "table",
            "table_fact",
        ),
        ("route from benzaldehyde to benzoic acid", "routes", "route"),
        ("What is the boiling point of the moon?", "out_of_scope", "no_compound"),
        (
            "Why is the sky blue?",
            "out_of_scope",
            "explanation_not_held",
        ),  # no papers channel registered on a bare QA: a why-question is declined as such
    ],
)
def test_routing_decisions(qa, question, channel, rule):
    _query, decision = qa.route(qa.parse(question))
    assert (decision.channel, decision.rule) == (channel, rule), decision
    assert decision.why


def test_papers_when_a_literature_channel_exists(qa):
    query = qa.parse("Why is the sky blue?")
    assert route(query, has_papers=True).channel == "papers"
    assert route(query, has_papers=False).channel == "out_of_scope"


def test_the_table_ends_with_a_catch_all_and_every_tool_aspect_routes_to_tools():
    assert ROUTING_TABLE[-1].name == "out_of_scope"
    assert {Aspect.LOGP, Aspect.BALANCE, Aspect.BOILING_POINT, Aspect.AMOUNT} <= TOOL_ASPECTS


def test_refine_drops_property_words_taken_for_compounds(qa):
    query = refine(qa.parse("serotonin: # of H bond donors"))
    assert query.aspect == Aspect.HBD and all(m.text != "H" for m in query.mentions)
    # "octanol/water" names the partition system of logP, not two compounds to compare
    query = refine(qa.parse("Estimate the octanol/water logP of pyridine."))
    assert query.aspect == Aspect.LOGP and [m.text for m in query.mentions] == ["pyridine"]
    query = refine(qa.parse("compare the logP of octanol and water"))
    assert [m.text for m in query.mentions] == ["octanol", "water"]


def test_trace_records_the_route_and_method_override(qa):
    answer = qa.ask("What is the logP of caffeine?")
    assert answer.trace["route"]["channel"] == "tools" and "logp" in answer.trace["route"]["why"]
    assert answer.method == "tools"
    forced = qa.ask("What is the molecular weight of aspirin?", method="table")
    assert forced.trace["route"]["rule"] == "override" and forced.method == "table"


def test_table_questions_still_answer_from_the_table(qa):
    answer = qa.ask("What is the molecular weight of CC(=O)Nc1ccc(O)cc1?")
    assert answer.method == "table" and answer.value == 151.16
    assert answer.trace["route"]["channel"] == "table"


@pytest.mark.parametrize("method", ["structure", "lit"])
def test_a_forced_method_that_finds_nothing_says_so_not_that_the_kb_lacks_it(rules_qa, method):
    """'how to make aspirin' with --method structure or lit said 'The knowledge base holds no
    reaction involving aspirin', which the starter set disproves; --method lit also searched
    the records instead of the papers."""
    from chemground.qa_factory import build_qa

    qa = build_qa(rules_qa.workspace)  # with every method ('lit' among them)
    out = qa.ask("how to make aspirin", method=method).to_json()
    assert out["status"] == "no_evidence" and out["method"] == method
    assert out["answer"].startswith(f"The {method!r} method found no evidence")
    assert "holds no reaction" not in out["answer"]
    assert rules_qa.ask("how to make aspirin").to_json()["status"] == "answered"
