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
    bad = [f"MATCH (m:Molecule) RETURN m.nothing{i}" for i in range(4)]
    llm = ScriptedLLM([fenced(q) for q in bad])
    result = Text2Cypher(graph, llm, mode="zero-shot").run(QUESTION)
    assert not result.ok and result.error_kind == "invalid" and result.corrections == 3
    assert "Cannot find property nothing3" in result.error
    assert len(llm.calls) == 4


def test_the_same_failing_query_again_ends_the_corrections(graph):
    """The real model, told 'Variable m is not in scope', wrote the same query three times."""
    bad = "MATCH (a:Molecule) RETURN m.name AS name"
    llm = ScriptedLLM([fenced(bad)] * 4)
    result = Text2Cypher(graph, llm, mode="zero-shot").run(QUESTION)
    assert not result.ok and result.error_kind == "invalid" and result.corrections == 1
    assert "not in scope" in result.error and len(llm.calls) == 2


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
    assert "(:Molecule)-[:REACTANT_OF|REAGENT_OF|SOLVENT_OF|CATALYST_OF]->(:Reaction)" in system
    assert "synthesis flow" in system
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


# -- issue 20: what the real qwen2.5-coder-1.5b did with the reviewer and corrections -------------
FORWARD = (
    "MATCH (a:Molecule {smiles: 'Nc1ccccc1'})-[:REACTANT_OF]->(r1:Reaction)-[:PRODUCES]->"
    "(out:Molecule)\nWHERE r1.main_product = out.key\n"
    "RETURN DISTINCT out.smiles AS product_smiles, [r1.id] AS path"
)
WRONG_DIRECTION = (
    '{"ok": false, "problems": [{"check": "direction", "detail": "the query does not follow the '
    'synthesis flow"}], "corrected_query": null}'
)


def test_a_reviewer_doubting_directions_the_schema_confirms_is_overruled(graph):
    """The reviewer said "direction: the query does not follow the synthesis flow" of a correct
    two-step query; the model's "fix" added ORDER BY path, which the engine rejects."""
    llm = ScriptedLLM([fenced(FORWARD), WRONG_DIRECTION])
    result = Text2Cypher(graph, llm, mode="zero-shot").run("What is Nc1ccccc1 turned into?")
    assert result.ok and result.query == FORWARD and result.corrections == 0 and result.rows
    assert [s["step"] for s in result.trace][-1] == "checklist_overruled"
    assert llm.remaining == 0


def test_a_correction_that_breaks_a_query_keeps_the_last_answer(graph):
    broken = FORWARD + " ORDER BY path DESC"  # Kuzu: Order by STRING[] is not supported
    missing = (
        '{"ok": false, "problems": [{"check": "missing_components", "detail": "sort the paths"}],'
        ' "corrected_query": null}'
    )
    llm = ScriptedLLM([fenced(FORWARD), missing, fenced(broken), fenced(broken)])
    result = Text2Cypher(graph, llm, mode="zero-shot").run("What is Nc1ccccc1 turned into?")
    assert result.ok and result.query == FORWARD and result.rows and result.error is None
    steps = [s["step"] for s in result.trace]
    assert "engine_error" in steps and steps[-1] == "kept_last_answer"


def test_an_empty_answer_is_tried_with_the_compound_where_the_example_anchors_it(graph):
    """'starting materials of every reaction that yields $c1': the model anchored $c1 on the
    reactant side of the example's pattern, which anchors it on the product."""
    from chemground.chem.structure import structure_from_smiles
    from chemground.graph.linking import LinkedCompound

    made = structure_from_smiles("N#CC(C#N)=Cc1ccccc1")  # a product only, never a reactant
    compound = LinkedCompound("N#CC(C#N)=Cc1ccccc1", "", made.smiles, made.inchikey)
    wrong_end = (
        "MATCH (m:Molecule {key: $c1})-[:REACTANT_OF]->(rxn:Reaction)-[:PRODUCES]->(:Molecule)\n"
        "RETURN DISTINCT rxn.id AS reaction_id, m.smiles AS reactant_smiles"
    )
    llm = ScriptedLLM([fenced(wrong_end), OK])
    result = Text2Cypher(graph, llm, mode="one-shot-static", max_corrections=0).run(
        "List the starting materials of every reaction that yields N#CC(C#N)=Cc1ccccc1.",
        [compound],
    )
    assert result.exemplar_id == "ex-precursors"
    assert result.anchor_fixes == ["moved $c1 from m to an unnamed node"]
    assert sorted(r["reactant_smiles"] for r in result.rows) == ["N#CCC#N", "O=Cc1ccccc1"]


def test_semantic_selection_sees_the_number_of_compounds_and_of_steps():
    """A sentence embedding put "exactly three steps" next to the two-step example and
    "two steps, one compound" next to routes between two compounds."""
    selector = ExemplarSelector()
    pick = lambda q: selector.select(q, "one-shot-semantic").id  # noqa: E731
    assert pick("Show me 3-step preparations of CCOC(C)=O, with the reactions in order.") == (
        "ex-route-3"
    )
    assert pick("Give 2-step preparations of CCOC(C)=O, with the reactions in order.") == (
        "ex-route-2"
    )
    assert pick("List every route from CCO to CCOC(C)=O of at most two reactions.") == (
        "ex-routes-up-to"
    )
