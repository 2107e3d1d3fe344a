"""The benchmark: every task type is generated, and every reference query reproduces its gold
answer."""

from __future__ import annotations

import json
import shutil

from chemground.graph.bench.generate import canonical_rows, read_tasks, task_counts, write_tasks
from chemground.graph.bench.run import (
    Prediction,
    all_reaction_ids,
    reference_prediction,
    run_benchmark,
    score_prediction,
)
from chemground.graph.bench.tasks import TASK_TYPES
from chemground.graph.build import build_graph
from chemground.graph.exemplars import load_exemplars, mask_smiles
from chemground.graph.ladybug_backend import LadybugBackend
from chemground.graph.lexer import quote_string
from chemground.settings import GraphSettings


def test_every_task_type_is_generated(starter_tasks):
    counts = task_counts(starter_tasks)
    assert set(counts) == {t.name for t in TASK_TYPES} and len(counts) == 13
    assert all(n == 4 for n in counts.values()), counts
    assert (
        sum(t.level == "single" for t in TASK_TYPES) == 8
        and sum(t.level == "multi" for t in TASK_TYPES) == 5
    )
    for task in starter_tasks:
        assert task["gold"]["rows"], task["id"]
        for anchor in task["anchors"]:
            assert (
                anchor["value"] in task["question"]
                and quote_string(anchor["value"]) in task["reference_cypher"]
            )


def test_reference_queries_reproduce_gold_on_a_fresh_build(starter_tasks, small_kb_path, tmp_path):
    # a separate graph built from scratch: the gold answers are a property of the KB, not of one
    # file
    kb_path = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb_path)
    build_graph(kb_path, settings=GraphSettings(), full=True)
    write_tasks(starter_tasks, tmp_path / "tasks.jsonl")
    tasks = read_tasks(tmp_path / "tasks.jsonl")
    with LadybugBackend(tmp_path / "kb.sqlite.graph" / "graph.lbug") as graph:
        for task in tasks:
            rows = graph.query(task["reference_cypher"], limit=100_000).rows
            path_keys = [task["path_key"]] if task["path_key"] else []
            assert canonical_rows(rows, path_keys) == canonical_rows(
                task["gold"]["rows"], path_keys
            ), task["id"]


def test_reference_run_scores_one_everywhere(graph, starter_tasks):
    _scores, summary = run_benchmark(
        starter_tasks, graph, lambda task: reference_prediction(graph, task)
    )
    overall = summary["all"]
    for metric in (
        "bleu",
        "meteor",
        "rouge_l",
        "precision",
        "recall",
        "f1",
        "path_f1",
        "partial_path_recall",
        "exact_answer",
    ):
        assert overall[metric] > 0.999, (metric, overall[metric])
    assert overall["errors"] == {e: 0 for e in overall["errors"]}
    assert summary["level:multi"]["n"] == 20


def test_wrong_answers_are_scored_and_classified(graph, starter_tasks):
    ids = all_reaction_ids(graph)
    task = next(t for t in starter_tasks if t["task_type"] == "route_2_step")
    # a query that anchors the target on the wrong end returns the wrong rows
    flipped_anchor = task["reference_cypher"].replace(
        "(s:Molecule)", "(s:Molecule {smiles: 'X'})", 1
    )
    empty = Prediction(flipped_anchor, [], True, first_query=flipped_anchor)
    scores = score_prediction(task, empty, ids)
    assert (
        "empty_result" in scores["errors"] and scores["f1"] == 0.0 and scores["path_recall"] == 0.0
    )
    # half the paths: path recall 0.5 when the gold has two paths
    two = next(
        (
            t
            for t in starter_tasks
            if t.get("path_key") and len({json.dumps(r["path"]) for r in t["gold"]["rows"]}) >= 2
        ),
        None,
    )
    if two is not None:
        first_path = two["gold"]["rows"][0]["path"]
        partial = [r for r in two["gold"]["rows"] if r["path"] == first_path]
        s = score_prediction(two, Prediction(two["reference_cypher"], partial, True), ids)
        assert s["path_precision"] == 1.0 and 0 < s["path_recall"] < 1
    invalid = score_prediction(task, Prediction("MATCH (", [], False, error="parse error"), ids)
    assert "invalid_query" in invalid["errors"] and invalid["f1"] == 0.0


def test_the_kg_llm_task_kinds_score_wrong_answers_below_one(graph, starter_tasks):
    """Best yield, counting and routes of at most L steps: the answer the task is about decides
    the score (a wrong count, a non-best yield, a missing route all lose)."""
    ids = all_reaction_ids(graph)
    by_type = {t["task_type"]: t for t in starter_tasks}
    count = by_type["count_reactions_with_agent"]
    gold = count["gold"]["rows"][0]["reaction_count"]
    wrong = Prediction("q", [{"reaction_count": gold + 1}], True)
    assert score_prediction(count, wrong, ids)["f1"] == 0.0
    right = Prediction("q", [{"n": gold}], True)
    assert score_prediction(count, right, ids)["exact_answer"]
    best = by_type["best_yielding_reaction"]
    product = quote_string(best["values"]["product"])
    rows = graph.query(
        f"MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule {{smiles: {product}}}) "
        "WHERE r.yield_percent IS NOT NULL "
        "RETURN r.id AS reaction_id, r.yield_percent AS yield_percent",
        limit=1000,
    ).rows
    assert len(rows) >= 2  # sampled only where there is a choice to make
    everything = score_prediction(best, Prediction("q", rows, True), ids)
    if len(rows) > len(best["gold"]["rows"]):
        assert everything["precision"] < 1.0 and not everything["exact_answer"]
    routes = by_type["routes_up_to_L_steps"]
    assert routes["values"]["max_steps"] == 3 and "UNION" in routes["reference_cypher"]
    none = score_prediction(routes, Prediction("q", [{"path": ["not-a-reaction"]}], True), ids)
    assert none["f1"] == 0.0 and none["path_recall"] == 0.0
    same = score_prediction(routes, Prediction("q", routes["gold"]["rows"], True), ids)
    assert same["f1"] == 1.0 and same["exact_answer"]


def test_example_bank_is_disjoint_from_benchmark_phrasing():
    templates = [tpl for t in TASK_TYPES for tpl in t.templates]

    def ngrams(text, n=5):
        words = mask_smiles(text).lower().split()
        return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}

    bench = set().union(*(ngrams(t.replace("{", " ").replace("}", " ")) for t in templates))
    for exemplar in load_exemplars():
        for question in exemplar.all_questions:
            assert not (ngrams(question) & bench), (exemplar.id, ngrams(question) & bench)


def test_an_anchor_on_the_molecule_key_is_placed_like_one_on_its_smiles():
    """Issue 20: every linked query anchors on InChIKeys, and all were counted as
    endpoint_anchoring errors because only the SMILES literal was looked for."""
    from chemground.chem.structure import structure_from_smiles
    from chemground.graph.bench.run import anchoring_problems

    key = structure_from_smiles("Nc1ccccc1").inchikey
    task = {
        "anchors": [
            {"slot": "product", "value": "Nc1ccccc1", "rel_type": "PRODUCES", "end": "target"}
        ]
    }
    on_product = f"MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule {{key: '{key}'}}) RETURN r.id"
    on_reactant = f"MATCH (p:Molecule {{key: '{key}'}})-[:REACTANT_OF]->(r:Reaction) RETURN r.id"
    assert anchoring_problems(task, on_product) == []
    assert anchoring_problems(task, on_reactant) == ["product is not on the target of PRODUCES"]
