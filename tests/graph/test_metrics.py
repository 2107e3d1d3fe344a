"""Metrics on hand-made cases: equivalent queries score 1.0 on retrieval; text metrics see the
difference."""

from __future__ import annotations

import pytest

from chemground.graph.bench.metrics import (
    extract_paths,
    match_keys,
    meteor,
    normalize_key,
    path_scores,
    retrieval_score,
    text_metrics,
)

REFERENCE = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule {smiles: "
    "'Nc1ccccc1'}) "
    "RETURN DISTINCT r.id AS reaction_id, m.smiles AS reactant_smiles, m.name AS reactant_name"
)
EQUIVALENT = (
    "MATCH (target:Molecule {smiles: "
    "'Nc1ccccc1'})<-[:PRODUCES]-(rxn:Reaction)<-[:REACTANT_OF]-(x:Molecule)\n"
    "RETURN rxn.id AS reactionId, x.smiles AS reactantSmiles, x.name AS reactantNames"
)


def test_equivalent_queries_with_different_text_score_one_on_retrieval(graph):
    gold = graph.query(REFERENCE)
    other = graph.query(EQUIVALENT)
    assert gold.rows and other.columns != gold.columns
    score = retrieval_score(other.rows, gold.rows, gold.columns)
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)
    assert {v["stage"] for v in score.per_key.values()} == {"exact"}
    text = text_metrics(EQUIVALENT, REFERENCE)
    assert all(0.0 < v < 0.95 for v in text.values()), text
    assert text_metrics(REFERENCE, REFERENCE) == pytest.approx(
        {"bleu": 1.0, "meteor": 1.0, "rouge_l": 1.0}, abs=1e-4
    )


def test_key_normalisation():
    assert normalize_key("productNames") == "product"
    assert normalize_key(" Reaction_ID ") == "reaction_id"
    assert normalize_key("p.smiles") == "smiles"
    assert normalize_key("reactant_name") == "reactant"
    assert normalize_key("name") == "name"


def test_three_stage_key_matching():
    matches = {
        m.gold: (m.predicted, m.stage)
        for m in match_keys(
            ["reaction_id", "solvents", "yield_percent"], ["reactionId", "solvent", "percent_yield"]
        )
    }
    assert matches["reaction_id"] == ("reactionId", "exact")
    assert matches["solvents"] == ("solvent", "stem")
    assert matches["yield_percent"] == ("percent_yield", "embedding")
    unmatched = match_keys(["temperature_c"], ["product_smiles"])
    assert unmatched[0].predicted is None


def test_partial_answers_lower_precision_and_recall():
    gold = [{"product_smiles": "CCO"}, {"product_smiles": "CC=O"}]
    half = retrieval_score([{"productSmiles": "CCO"}], gold)
    assert half.precision == 1.0 and half.recall == 0.5
    noisy = retrieval_score([{"product_smiles": s} for s in ("CCO", "CC=O", "C", "N")], gold)
    assert noisy.recall == 1.0 and noisy.precision == 0.5
    missing = retrieval_score([{"other": "x"}], [{"yield_percent": 80.0}])
    assert missing.f1 == 0.0 and missing.unmatched_gold_keys == ["yield_percent"]


def test_path_metrics():
    ids = {"r1", "r2", "r3", "r4"}
    gold = extract_paths([{"path": ["r1", "r2"]}, {"path": ["r3", "r2"]}], ids)
    assert gold == {("r1", "r2"), ("r3", "r2")}
    # id columns in order count as a path too; so does a path value with Reaction nodes
    predicted = extract_paths(
        [
            {"a": "r1", "b": "r2"},
            {
                "p": {
                    "nodes": [{"label": "Molecule", "key": "x"}, {"label": "Reaction", "id": "r4"}],
                    "relationships": [],
                }
            },
        ],
        ids,
    )
    assert predicted == {("r1", "r2"), ("r4",)}
    scores = path_scores(predicted, gold)
    assert scores["path_precision"] == 0.5 and scores["path_recall"] == 0.5
    assert scores["partial_path_recall"] == pytest.approx(
        (1.0 + 0.5) / 2
    )  # (r3, r2) shares r2 with (r1, r2)
    assert path_scores({("r2", "r1")}, {("r1", "r2")})["path_f1"] == 0.0  # order matters
    assert path_scores({("r1",)}, {("r1", "r2")})["partial_path_recall"] == 0.5


def test_meteor_runs_offline_with_stemming():
    # 'reactants' and 'reactant' match through the Porter stem stage; no WordNet download is needed
    assert meteor("MATCH reactants", "MATCH reactant") > meteor("MATCH products", "MATCH reactant")
