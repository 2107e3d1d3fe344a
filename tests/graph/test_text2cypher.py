"""Text2Cypher with a scripted LLM: the correction loop, the direction fix, refusal, modes,
evidence."""

from __future__ import annotations

import pytest

from chemground.graph.exemplars import ExemplarSelector, mask_smiles
from chemground.graph.readonly import ReadOnlyViolation
from chemground.graph.text2cypher import (
    Text2Cypher,
    extract_cypher,
    graph_evidence,
    result_to_evidence,
)
from chemground.llm import ScriptedLLM

QUESTION = "Which reactants are used to make Nc1ccccc1?"
GOOD = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule {smiles: "
    "'Nc1ccccc1'}) "
    "RETURN r.id AS reaction_id, m.smiles AS reactant_smiles"
)
OK = '{"ok": true, "problems": []}'


def fenced(query: str) -> str:
    return f"Here you go:\n```cypher\n{query}\n```"


def test_bad_query_engine_error_corrected_query(graph):
    bad = GOOD.replace("r.id AS", "r.reaction_number AS")
    llm = ScriptedLLM([fenced(bad), fenced(GOOD), OK])
    result = Text2Cypher(graph, llm, mode="one-shot-static").run(QUESTION)
    assert result.ok and result.corrections == 1
    assert result.first_query == bad and result.query == GOOD
    assert result.rows == [
        {"reaction_id": "starter:nitro_hydrogenation-01", "reactant_smiles": "O=[N+]([O-])c1ccccc1"}
    ]
    steps = [s["step"] for s in result.trace]
    assert steps == ["generate", "engine_error", "fix_error", "executed", "checklist"]
    # the engine's own message went back to the model
    correction_prompt = llm.calls[1]["messages"][-1]["content"]
    assert "Cannot find property reaction_number" in correction_prompt
    assert llm.remaining == 0


def test_direction_flip_is_corrected_without_the_llm(graph):
    flipped = (
        "MATCH (r:Reaction)-[:REACTANT_OF]->(m:Molecule), (p:Molecule {smiles: "
        "'Nc1ccccc1'})-[:PRODUCES]->(r) "
        "RETURN r.id AS reaction_id, m.smiles AS reactant_smiles"
    )
    llm = ScriptedLLM([fenced(flipped)])
    result = Text2Cypher(graph, llm, mode="zero-shot", validate=False).run(QUESTION)
    assert result.ok and result.corrections == 0 and len(result.direction_fixes) == 2
    assert result.rows and result.rows[0]["reaction_id"] == "starter:nitro_hydrogenation-01"


def test_checklist_validator_corrects_missing_components(graph):
    partial = GOOD.replace(", m.smiles AS reactant_smiles", "")
    verdict = (
        '{"ok": false, "problems": [{"check": "missing_components", "detail": "reactants are not '
        'returned"}], '
        '"corrected_query": null}'
    )
    llm = ScriptedLLM([fenced(partial), verdict, fenced(GOOD), OK])
    result = Text2Cypher(graph, llm, mode="zero-shot").run(QUESTION)
    assert result.ok and result.query == GOOD and result.corrections == 1
    assert (
        "missing_components: reactants are not returned" in llm.calls[2]["messages"][-1]["content"]
    )


def test_at_most_three_corrections(graph):
    bad = "MATCH (m:Molecule) RETURN m.nothing"
    llm = ScriptedLLM([fenced(bad)] * 4)
    result = Text2Cypher(graph, llm, mode="zero-shot").run(QUESTION)
    assert not result.ok and result.error_kind == "invalid" and result.corrections == 3
    assert "Cannot find property nothing" in result.error
    assert len(llm.calls) == 4


def test_generated_write_query_is_refused_and_not_run(graph):
    before = graph.counts().molecules
    llm = ScriptedLLM([fenced("MATCH (m:Molecule) DETACH DELETE m")])
    result = Text2Cypher(graph, llm, mode="zero-shot").run("delete everything")
    assert not result.ok and result.error_kind == "refused" and "DETACH DELETE" in result.error
    assert graph.counts().molecules == before
    with pytest.raises(ReadOnlyViolation):
        graph_evidence(
            "delete everything", llm=ScriptedLLM([fenced("MATCH (m) DELETE m")]), graph=graph
        )


def test_prompt_carries_schema_rules_and_the_chosen_example(graph):
    llm = ScriptedLLM([fenced(GOOD), OK])
    result = Text2Cypher(graph, llm, mode="one-shot-static").run(QUESTION)
    system, user = llm.calls[0]["messages"][0]["content"], llm.calls[0]["messages"][1]["content"]
    assert "(:Molecule)-[:REACTANT_OF]->(:Reaction)" in system and "synthesis flow" in system
    assert "LadybugDB" in system
    assert result.exemplar_id == "ex-precursors" and "Example" in user and QUESTION in user
    zero = ScriptedLLM([fenced(GOOD), OK])
    Text2Cypher(graph, zero, mode="zero-shot").run(QUESTION)
    assert "Example" not in zero.calls[0]["messages"][1]["content"]


def test_exemplar_modes():
    selector = ExemplarSelector(seed=1)
    assert selector.select("anything", "zero-shot") is None
    assert selector.select("anything", "one-shot-static").id == "ex-precursors"
    assert selector.select("q1", "one-shot-random") == selector.select("q1", "one-shot-random")
    picked = {selector.select(f"question {i}", "one-shot-random").id for i in range(30)}
    assert len(picked) > 3
    # semantic: intent decides, not the molecule (SMILES are masked)
    assert (
        selector.select(
            "Which solvent was used when Brc1ccc(C)cc1 was turned into Cc1ccc(-c2ccccc2)cc1?",
            "one-shot-semantic",
        ).id
        == "ex-solvent"
    )
    assert selector.select(
        "Give two-step synthesis routes ending at CC(=O)OCC with the reaction ids",
        "one-shot-semantic",
    ).id in ("ex-route-2", "ex-route-3")
    assert (
        mask_smiles("make CC(=O)Oc1ccccc1C(=O)O? and CCO from ethanol")
        == "make [MOL] and [MOL] from ethanol"
    )


def test_evidence_rows_and_paths(graph):
    query = (
        "MATCH (s:Molecule)-[:REACTANT_OF]->(r1:Reaction)-[:PRODUCES]->(i:Molecule)"
        "-[:REACTANT_OF]->(r2:Reaction)-[:PRODUCES]->(t:Molecule {smiles: 'CC(=O)Nc1ccccc1'}) "
        "WHERE r1.main_product = i.key AND r2.main_product = t.key RETURN s.smiles AS "
        "start_smiles, [r1.id, r2.id] AS path"
    )
    result = Text2Cypher(graph, ScriptedLLM([fenced(query)]), mode="zero-shot", validate=False).run(
        "routes to acetanilide"
    )
    evidence = result_to_evidence(result, backend="ladybug")
    assert evidence and all(e.kind == "graph_path" and e.retriever == "graph" for e in evidence)
    assert (
        evidence[0].provenance["cypher"] == query and len(evidence[0].provenance["reactions"]) == 2
    )
    rows = Text2Cypher(graph, ScriptedLLM([fenced(GOOD)]), mode="zero-shot", validate=False).run(
        QUESTION
    )
    assert [e.kind for e in result_to_evidence(rows)] == ["graph_row"]


def test_extract_cypher():
    assert extract_cypher("```cypher\nMATCH (n) RETURN n;\n```") == "MATCH (n) RETURN n"
    assert extract_cypher("MATCH (n) RETURN n") == "MATCH (n) RETURN n"


def test_a_failed_cypher_run_reaches_the_answer_as_a_note(graph_kb_path, opsin, tmp_path):
    from chemground.qa_factory import build_qa
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    settings = Settings(kb={"path": graph_kb_path}, cache_dir=tmp_path / "cache")
    workspace = Workspace(settings, readonly=True, opsin=opsin)
    qa = build_qa(workspace)
    bad = fenced("MATCH (r:Reaction) RETURN r.reaction_number AS n")  # no such property
    qa.llm = ScriptedLLM([bad] * 8)
    answer = qa.ask("Which reactants are used to make aniline?", method="graph")
    assert answer.evidence == [] and answer.status != "answered"
    assert any("generated Cypher failed" in note for note in answer.notes), answer.notes
    assert "reaction_number" in answer.trace["retrieval"]["query"]
