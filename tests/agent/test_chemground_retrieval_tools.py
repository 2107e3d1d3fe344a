"""chemground's own retrieval channels as tools: real calls on the starter KB."""

from __future__ import annotations

import pytest

from chemground.agent.registry import ToolContext, default_registry, run_function
from chemground.errors import ChemgroundError
from chemground.settings import Settings
from tests.conftest import copy_kb


@pytest.fixture
def context(small_kb_path, tmp_path):
    return ToolContext(
        settings=Settings(
            kb={"path": copy_kb(small_kb_path, tmp_path)}, cache_dir=tmp_path / "cache"
        )
    )


def call(context, name, **arguments):
    registry = default_registry()
    manifest = registry.get(name)
    return run_function(registry.function(manifest.name), manifest, arguments, context)


def test_ask_knowledge_base_tool(context):
    result = call(
        context,
        "chemground/ask_knowledge_base",
        question="What forms when benzaldehyde reacts with benzohydrazide?",
    )
    assert result["status"] == "answered" and result["value"][0] == "O=C(NN=Cc1ccccc1)c1ccccc1"
    assert result["evidence"][0]["id"] == "starter:imine_formation-01"
    assert result["evidence"][0]["record"]["products"]  # the KB row itself, not a summary
    again = call(context, "chemground/ask_knowledge_base", question="formula of caffeine?")
    assert "C8H10N4O2" in again["answer"] and "qa" in context.__dict__  # one QA, reused


def test_an_agent_answer_cites_the_kb_rows_a_tool_returned(context):
    from chemground.agent.core import AgentAnswer, AgentStep
    from chemground.agent.runner import ToolResult

    question = "What forms when benzaldehyde reacts with benzohydrazide?"
    value = call(context, "chemground/ask_knowledge_base", question=question)
    tpsa = ToolResult("cactus/CalculateTPSA", {"compound_SMILES": "CCO"}, True, 20.23)
    steps = [
        AgentStep(
            "",
            "chemground/ask_knowledge_base",
            {"question": question},
            ToolResult("chemground/ask_knowledge_base", {"question": question}, True, value),
        ),
        AgentStep("", "cactus/CalculateTPSA", {"compound_SMILES": "CCO"}, tpsa),
    ]
    answer = AgentAnswer(question, "N'-benzylidenebenzohydrazide", "cot", steps).to_answer()
    kinds = [e.kind for e in answer.evidence]
    assert kinds[-1] == "tool_result" and set(kinds[:-1]) == {"reaction"}
    assert len(kinds) - 1 == len(value["evidence"])
    assert answer.evidence[0].id == "starter:imine_formation-01"
    assert answer.citations[0] == "starter:imine_formation-01" and answer.status == "answered"


def test_route_tool_and_graph_query_tool(context):
    routes = call(
        context, "chemground/find_routes", start="4-nitrophenol", target="paracetamol", max_depth=3
    )
    assert ["starter:nitro_hydrogenation-04", "starter:amine_acylation-01"] in [
        r["reaction_ids"] for r in routes
    ]
    rows = call(
        context, "chemground/query_reaction_graph", cypher="MATCH (r:Reaction) RETURN count(r) AS n"
    )
    assert rows[0]["n"] == 274
    with pytest.raises(ChemgroundError, match="CREATE"):
        call(context, "chemground/query_reaction_graph", cypher="CREATE (m:Molecule {key: 'x'})")


def test_literature_tool_without_papers_returns_nothing(context):
    assert call(context, "chemground/search_literature", question="anything") == []
