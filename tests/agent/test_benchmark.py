"""The benchmark pieces as pure functions (comparison, published metrics, dataset format) and the
execution-fidelity run on a small file and on a sample of the real dev split."""

from __future__ import annotations

import json

import pytest

from chemground.agent.compare import compare_return, compare_values, gold_is_error
from chemground.agent.dataset import DatasetError, GoldStep, load_benchmark
from chemground.agent.fidelity import report_markdown, run_fidelity
from chemground.agent.metrics import (
    PredictedCall,
    aggregate,
    param_prf,
    prf,
    retrieval_recall,
    return_prf,
    score_item,
    tool_prf,
)
from chemground.agent.runner import ToolRunner


def test_numbers_compare_within_relative_tolerance():
    assert compare_values(287.0542204, 287.05422035).match
    assert not compare_values(287.05, 287.5).match
    assert compare_values("0.34", 0.34).match  # a number written as a string
    assert not compare_values(True, 1).match  # booleans are not numbers


def test_strings_normalised_and_numbers_inside_them_compared():
    assert compare_values("4N₁H₃ + 5O₂ --> 4N₁O₁ + 6H₂O₁", "4N1H3 + 5O2 --> 4N1O1 + 6H2O1").match
    assert compare_values(
        "The Tanimoto similarity is 0.0833,        indicating x.",
        "The Tanimoto similarity is 0.08330, indicating x",
    ).match
    assert not compare_values("similarity is 0.0833", "similarity is 0.0934").match


def test_structures_compare_by_identity():
    assert compare_values("C1=CC=CC=C1", "c1ccccc1").match
    assert not compare_values("CCO", "CCC").match


def test_lists_and_mappings():
    assert compare_values({"C": 9, "H": 16}, {"H": 16.0, "C": 9}).match
    assert not compare_values({"C": 9}, {"C": 9, "H": 1}).match
    assert not compare_values(["H₂O₁", "S₁O₂"], ["S₁O₂", "H₂O₁"]).match  # order matters
    assert compare_values(
        {"Year": float("nan")}, {"Year": None}
    ).match  # NaN in the gold = our null


def test_errors_agree_only_with_gold_error_messages():
    assert gold_is_error("Error: Not a valid SMILES string")
    assert gold_is_error("Multiple SMILES strings detected, input one molecule at a time.")
    assert not gold_is_error("CAS number 7440-44-0found, but CC has a high similarity")
    assert compare_return(
        "Wrong argument. Please input a valid molecular SMILES.", False, None
    ).match
    assert not compare_return(0.34, False, None).match


def test_prf_and_tool_scores():
    assert prf(0, 0, 0).f1 == 1.0
    score = tool_prf(["a", "b", "b"], ["a", "b", "c"])
    assert score.precision == pytest.approx(2 / 3) and score.recall == pytest.approx(2 / 3)


def test_parameter_and_return_scores_pair_calls_with_gold_steps():
    gold = [GoldStep("t/x", ["CCO", 2], 5.0), GoldStep("t/y", ["CCO"], "ok")]
    calls = [
        PredictedCall("t/x", {"s": "CCO", "n": 3}, True, 5.0),
        PredictedCall("t/z", ["q"], True, 1),
    ]
    names = {"t/x": ["s", "n"]}
    params = param_prf(calls, gold, names)
    assert params.precision == pytest.approx(1 / 3) and params.recall == pytest.approx(1 / 3)
    returns = return_prf(calls, gold)
    assert returns.precision == pytest.approx(0.5) and returns.recall == pytest.approx(0.5)


def test_item_scores_aggregate_with_pass_rate():
    gold = [GoldStep("t/x", ["a"], 1)]
    good = score_item(
        [PredictedCall("t/x", ["a"], True, 1)], gold, known_tools={"t/x"}, passed=True
    )
    bad = score_item(
        [PredictedCall("t/q", ["a"], False, None, well_formed=False)],
        gold,
        known_tools={"t/x"},
        passed=False,
    )
    summary = aggregate([good, bad])
    assert (
        summary["format_validity"] == 0.5
        and summary["tool_f1"] == 0.5
        and summary["pass_rate"] == 0.5
    )
    assert summary["returns_recall"] == 0.5


def test_retrieval_recall():
    result = retrieval_recall([["a", "b"], ["c"]], [["a", "x"], ["c"]])
    assert result["recall"] == pytest.approx(0.75) and result["all_found"] == 0.5


def test_dataset_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"query": "q", "calling_chain": [{"tool": "a/b", "params": ["x"], "return": 1}]})
        + "\n"
        + json.dumps({"query": "q", "calling_chain": []})
        + "\n"
    )
    with pytest.raises(
        DatasetError, match=r"bad\.jsonl:2: 'calling_chain' must be a non-empty list"
    ):
        load_benchmark(path)


def test_fidelity_on_a_small_benchmark(agent_settings, tmp_path):
    rows = [
        {
            "id": "1",
            "query": "q",
            "calling_chain": [{"tool": "cactus/CalculateTPSA", "params": ["CCO"], "return": 20.23}],
        },
        {
            "id": "2",
            "query": "q",
            "calling_chain": [{"tool": "cactus/CalculateTPSA", "params": ["CCO"], "return": 99.0}],
        },
        {
            "id": "3",
            "query": "q",
            "calling_chain": [
                {
                    "tool": "chemcrow/MolSimilarity",
                    "params": ["CC(((", "CCO"],
                    "return": "Error: Not a valid SMILES string",
                },
                {
                    "tool": "chemistrytools/get_compound_MolecularWeight_by_CID",
                    "params": [987654321],
                    "return": 100.0,
                },
            ],
        },
        {
            "id": "4",
            "query": "q",
            "calling_chain": [
                {
                    "tool": "Composition_Handling/get_atomic_fraction",
                    "params": ["composition_x.pkl"],
                    "return": None,
                }
            ],
        },
    ]
    path = tmp_path / "mini.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with ToolRunner(settings=agent_settings, files_dir=tmp_path / "files") as runner:
        report = run_fidelity(load_benchmark(path), runner)
    statuses = [o.status for o in report.outcomes]
    assert statuses == ["match", "mismatch", "match", "mismatch", "no_gold_ran"]
    assert report.outcomes[2].how == "error" and report.outcomes[3].error_kind == "offline"
    assert report.outcomes[4].fixtures == ["composition"]
    summary = report.summary()
    assert summary["fidelity"] == pytest.approx(0.5) and summary["offline_unanswerable"] == 1
    assert summary["fidelity_excluding_offline"] == pytest.approx(2 / 3)
    table = report_markdown(report, "mini")
    assert "| cactus/CalculateTPSA ⚠ | 2 | 1 | 0.500 |" in table


def test_fidelity_on_real_dev_sample(shared_data, agent_settings, tmp_path):
    items = load_benchmark(
        shared_data / "chemtoolbench" / "dataset" / "Chemistry" / "single_dev.jsonl"
    )
    offline_capable = [i for i in items if i.tools[0].startswith(("cactus/", "chem_lib/"))][::10]
    with ToolRunner(settings=agent_settings, files_dir=tmp_path) as runner:
        report = run_fidelity(offline_capable, runner)
    assert len(report.outcomes) >= 40
    assert report.summary()["fidelity"] >= 0.9
