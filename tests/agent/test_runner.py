"""The runner: calls run in a worker process with a time limit; results are JSON; failures are
reported."""

from __future__ import annotations

import time

import pytest

from chemground.agent.registry import ToolRegistry, default_registry
from chemground.agent.runner import ToolRunner


@pytest.fixture
def registry():
    registry = ToolRegistry()
    for module in [
        "chemground.agent.tools.cactus",
        "chemground.agent.tools.chemistrytools",
        "tests.agent.slow_tools",
    ]:
        registry.register_module(module)
    return registry


@pytest.fixture
def runner(registry, agent_settings, tmp_path):
    with ToolRunner(
        registry=registry, settings=agent_settings, files_dir=tmp_path / "files"
    ) as runner:
        yield runner


def test_call_runs_in_the_worker_and_returns_json(runner):
    result = runner.call("cactus/CalculateTPSA", ["CCO"])
    assert result.ok and result.value == pytest.approx(20.23)
    assert runner._process is not None and runner._process.pid > 0


def test_hanging_call_is_stopped_and_the_next_call_works(runner):
    started = time.perf_counter()
    result = runner.call("testing/sleep", [30], timeout_s=1.5)
    assert not result.ok and result.error_kind == "timeout" and "1.5 s" in result.error
    assert time.perf_counter() - started < 10
    after = runner.call("testing/sleep", [0.01])
    assert after.ok and after.value == 0.01


def test_library_output_cannot_corrupt_the_protocol(runner):
    result = runner.call("testing/chatty", ["payload"])
    assert result.ok and result.value == "payload"


def test_a_crashing_worker_is_reported_and_replaced(runner):
    result = runner.call("testing/crash", [3])
    assert not result.ok and result.error_kind == "crashed"
    assert runner.call("cactus/CalculateMolWt", ["O"]).ok


def test_bad_arguments_fail_before_the_worker_starts(runner):
    result = runner.call("cactus/CalculateTPSA", {"smiles": "CCO"})
    assert (
        not result.ok
        and result.error_kind == "arguments"
        and "unknown parameter 'smiles'" in result.error
    )
    assert runner._process is None


def test_unknown_tool_is_reported(runner):
    result = runner.call("cactus/NoSuchTool", [])
    assert not result.ok and result.error_kind == "not_found"


def test_tool_failure_and_offline_answers_come_back_as_results(agent_settings, tmp_path):
    with ToolRunner(settings=agent_settings, files_dir=tmp_path) as runner:
        bad = runner.call("cactus/CalculateLogP", ["C1CC(("])
        assert not bad.ok and bad.error_kind == "tool" and "invalid SMILES" in bad.error
        offline = runner.call("chemistrytools/convert_compound_CID_to_IUPAC", [999999999])
        assert not offline.ok and offline.error_kind == "offline"
        found = runner.call(
            "chemistrytools/convert_compound_CID_to_IUPAC", [2519]
        )  # caffeine, in the small KB
        assert found.ok and found.value == "1,3,7-trimethylpurine-2,6-dione"


def test_results_become_evidence(runner):
    result = runner.call("cactus/CalculateTPSA", ["CCO"])
    evidence = result.evidence()
    assert evidence.kind == "tool_result" and evidence.match == "exact"
    assert evidence.record["result"] == pytest.approx(20.23) and evidence.id.startswith(
        "cactus/CalculateTPSA#"
    )


def test_in_process_mode_for_callers_that_need_no_isolation(agent_settings, tmp_path):
    runner = ToolRunner(
        registry=default_registry(), settings=agent_settings, files_dir=tmp_path, isolate=False
    )
    assert runner.call("cactus/CalculateMolWt", ["O"]).value == pytest.approx(18.0106, rel=1e-5)
    assert runner._process is None
