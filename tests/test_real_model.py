"""Issue 20: the LLM paths against a real model server (skipped unless one is reachable).

Run them with a local model, e.g. the packaged Qwen2.5-Coder-1.5B-Instruct GGUF::

    chemground llm serve --model /opt/models/qwen2.5-coder-1.5b-instruct.gguf --port 8080 \\
        --python /opt/llm-venv/bin/python --detach
    CHEMGROUND_TEST_LLM_URL=http://127.0.0.1:8080/v1 pytest tests/test_real_model.py -v

``CHEMGROUND_TEST_LLM_MODEL`` names the model (default: the first the server lists). These tests
check what must hold whatever a small model writes: no crash, citations that are ids we gave,
tools that are really called, answers checked against the tool results. They do not demand a
right answer of a 1.5B model. Each is bounded (deadlines below); CI never sets the URL.
"""

from __future__ import annotations

import os

import httpx
import pytest

from chemground.llm.local import server_reachable

URL = os.environ.get("CHEMGROUND_TEST_LLM_URL", "").rstrip("/")


def _skip_reason() -> str | None:
    if not URL:
        return (
            "CHEMGROUND_TEST_LLM_URL is not set (see the module docstring to run these against "
            "a model)"
        )
    if not server_reachable(URL):
        return f"no model server answers at {URL}/models"
    return None


pytestmark = [
    pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or ""),
    pytest.mark.timeout(900),
]


@pytest.fixture(scope="module")
def llm():
    from chemground.llm.openai_client import OpenAICompatibleLLM

    model = os.environ.get("CHEMGROUND_TEST_LLM_MODEL")
    if not model:
        model = httpx.get(f"{URL}/models", timeout=10).json()["data"][0]["id"]
    client = OpenAICompatibleLLM(
        URL,
        model,
        call_deadline_s=240.0,
        answer_deadline_s=600.0,
        max_retries=1,
        concurrency=1,
        cache_path=None,
    )
    yield client
    client.close()


@pytest.fixture
def runner(small_kb_path, tmp_path):
    from chemground.agent.runner import ToolRunner
    from chemground.settings import Settings

    with ToolRunner(
        settings=Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache"),
        files_dir=tmp_path / "files",
    ) as runner:
        yield runner


def test_lit_answer_cites_only_given_ids(llm):
    from chemground.lit.answer import answer_with_llm
    from tests.test_local_llm import IDS, lit_result

    answer = answer_with_llm("What is aspirin made from?", lit_result(), llm)
    assert answer.answer.strip()
    assert set(answer.citations) <= set(IDS)
    if answer.method == "llm" and answer.supported:
        assert answer.citations and all(f"[{c}]" in answer.answer for c in answer.citations)
    assert answer.usage.get("calls", 0) >= 1


def test_cot_agent_calls_the_tool_and_is_checked(llm, runner):
    from chemground.agent.cot import CoTAgent

    agent = CoTAgent(
        llm, runner, tools=["cactus/CalculateQED", "cactus/CalculateMolWt"], max_steps=3
    )
    answer = agent.run("What is the QED drug-likeness of aspirin (SMILES CC(=O)Oc1ccccc1C(=O)O)?")
    assert answer.status in ("answered", "unsupported", "failed", "budget_exhausted")
    assert answer.steps, "the model called no tool"
    if answer.status in ("answered", "unsupported"):  # the final text was checked
        from chemground.reasoning.faithfulness import KINDS

        report = answer.trace["faithfulness"]
        assert report["supported"] == (answer.status == "answered")
        assert all(c["problem"] in KINDS for c in report["claims"] if not c["supported"])
    repeats = [e for e in answer.trace["events"] if e["event"] == "repeated_failed_call"]
    assert len(repeats) <= 2


def test_mcts_calls_a_tool(llm, runner):
    from chemground.agent.mcts import HEMCTSAgent, MCTSConfig

    agent = HEMCTSAgent(
        llm,
        runner,
        config=MCTSConfig(k=2, max_iterations=2, max_depth=2, max_llm_calls=14),
        tools=["cactus/CalculateQED", "cactus/CalculateMolWt"],
    )
    answer = agent.run("What is the QED drug-likeness of aspirin (SMILES CC(=O)Oc1ccccc1C(=O)O)?")
    ran = [n for n in answer.trace["tree"] if n["result"] is not None]
    assert ran, (
        f"no tool was run; stop reason: {answer.trace['stop_reason']}; events: "
        f"{answer.trace['events'][:5]}"
    )
