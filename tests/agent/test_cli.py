"""The command line: tools list/show/call, agent ask over real HTTP (fake OpenAI server), and
bench tools-run (fidelity without an LLM; agent metrics with one)."""

from __future__ import annotations

import json

import pytest

from chemground.cli import main
from tests.support.fake_openai import FakeOpenAIServer, Step


@pytest.fixture
def kb_env(monkeypatch, small_kb_path):
    monkeypatch.setenv("CHEMGROUND_KB", str(small_kb_path))


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tools_list_json_has_every_manifest(capsys):
    code, out, _ = run_cli(capsys, "tools", "list", "--json")
    tools = json.loads(out)
    assert code == 0 and len(tools) >= 137
    assert {"name", "namespace", "description", "parameters", "returns", "signature"} <= set(
        tools[0]
    )


def test_tools_list_table_and_namespace_filter(capsys):
    code, out, _ = run_cli(capsys, "tools", "list", "--namespace", "cactus")
    assert code == 0 and "10 tools" in out
    code, _, err = run_cli(capsys, "tools", "list", "--namespace", "nope")
    assert code == 2 and "no namespace 'nope'" in err


def test_tools_show_includes_the_openai_schema(capsys):
    _code, out, _ = run_cli(capsys, "tools", "show", "chem_lib/acidity_calculation")
    data = json.loads(out)
    assert data["openai_schema"]["function"]["parameters"]["required"] == ["pH"]


def test_tools_call_named_and_positional(capsys, kb_env, tmp_path):
    code, out, _ = run_cli(
        capsys,
        "tools",
        "call",
        "cactus/CalculateTPSA",
        "--args",
        '{"compound_SMILES": "CCO"}',
        "--json",
        "--files-dir",
        str(tmp_path),
    )
    assert code == 0 and json.loads(out)["result"] == pytest.approx(20.23)
    code, out, _ = run_cli(
        capsys,
        "tools",
        "call",
        "chem_lib/balance_the_reaction",
        "--args",
        '["H2 + O2 --> H2O"]',
        "--files-dir",
        str(tmp_path),
    )
    assert code == 0 and "2H₂ + 1O₂ --> 2H₂O₁" in out


def test_tools_call_bad_arguments_exit_with_a_clear_error(capsys, tmp_path):
    code, _, err = run_cli(
        capsys,
        "tools",
        "call",
        "cactus/CalculateTPSA",
        "--args",
        '{"smiles": "CCO"}',
        "--files-dir",
        str(tmp_path),
    )
    assert code == 2 and "unknown parameter 'smiles'" in err
    code, _, err = run_cli(
        capsys,
        "tools",
        "call",
        "cactus/CalculateTPSA",
        "--args",
        "{not json",
        "--files-dir",
        str(tmp_path),
    )
    assert code == 2 and "--args is not valid JSON" in err


def test_tools_call_files_dir_must_be_an_existing_folder(capsys, tmp_path):
    """A missing --files-dir was created by a call that then failed; a regular file or an
    uncreatable path gave a raw FileExistsError / FileNotFoundError."""
    missing = tmp_path / "nonexistent"
    regular = tmp_path / "file.txt"
    regular.write_text("x")
    for files_dir, problem in (
        (missing, "does not exist"),
        (regular, "is a file"),
        ("/proc/nope", "does not exist"),
    ):
        code, _, err = run_cli(
            capsys,
            "tools",
            "call",
            "Basic_Functionality/read_structure_from_file",
            "-a",
            '["x.cif", "o.json"]',
            "--files-dir",
            str(files_dir),
        )
        assert code == 2 and "'--files-dir'" in err and problem in " ".join(err.split())
    assert not missing.exists()


@pytest.mark.parametrize(
    ("option", "value"), [("--timeout", "-1"), ("--timeout", "0"), ("--memory-mb", "-1")]
)
def test_tools_call_refuses_a_non_positive_limit(capsys, tmp_path, option, value):
    """--timeout -1 reached the worker, which reported 'the tool worker process died'."""
    code, _, err = run_cli(
        capsys, "tools", "call", "cactus/CalculateTPSA", "-a", '["CCO"]', option, value
    )
    assert code == 2 and f"Invalid value for '{option}'" in err


def test_agent_ask_over_http(capsys, kb_env, tmp_path):
    with FakeOpenAIServer() as server:
        server.queue(
            Step(
                text=None,
                tool_calls=[
                    {"name": "cactus__CalculateTPSA", "arguments": {"compound_SMILES": "CCO"}}
                ],
            ),
            "The TPSA of ethanol is 20.23 Å².",
        )
        code, out, err = run_cli(
            capsys,
            "agent",
            "ask",
            "TPSA of ethanol (CCO)?",
            "--tools",
            "cactus/CalculateTPSA",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "fake",
            "--json",
            "--export",
            str(tmp_path / "traj.jsonl"),
        )
    assert code == 0, err
    answer = json.loads(out)
    assert answer["answer"] == "The TPSA of ethanol is 20.23 Å²." and answer["reasoner"] == "cot"
    assert answer["evidence"][0]["kind"] == "tool_result" and answer["value"] == pytest.approx(
        20.23
    )
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "cactus__CalculateTPSA"
    assert json.loads((tmp_path / "traj.jsonl").read_text())["messages"][2]["tool_calls"]


def test_agent_ask_without_an_llm_says_what_to_set(capsys):
    code, _, err = run_cli(capsys, "agent", "ask", "anything")
    assert code == 2 and "CHEMGROUND_LLM_BASE_URL" in err


@pytest.fixture
def mini_benchmark(tmp_path):
    path = tmp_path / "mini.jsonl"
    rows = [
        {
            "id": "a",
            "query": "TPSA of CCO?",
            "calling_chain": [{"tool": "cactus/CalculateTPSA", "params": ["CCO"], "return": 20.23}],
        },
        {
            "id": "b",
            "query": "Balance H2 + O2 --> H2O",
            "calling_chain": [
                {
                    "tool": "chem_lib/balance_the_reaction",
                    "params": ["H2 + O2 --> H2O"],
                    "return": "2H₂ + 1O₂ --> 2H₂O₁",
                }
            ],
        },
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
    return path


def test_bench_tools_run_fidelity(capsys, kb_env, mini_benchmark, tmp_path):
    code, out, _ = run_cli(
        capsys,
        "bench",
        "tools-run",
        str(mini_benchmark),
        "--json",
        "--out",
        str(tmp_path / "steps.jsonl"),
    )
    summary = json.loads(out)[str(mini_benchmark)]
    assert code == 0 and summary["matched"] == 2 and summary["fidelity"] == 1.0
    assert len((tmp_path / "steps.jsonl").read_text().splitlines()) == 2


def test_bench_tools_run_with_an_llm_scores_the_agent(capsys, kb_env, mini_benchmark):
    def responder(body):
        prompt = body["messages"][-1]["content"] if body["messages"][-1]["role"] == "user" else ""
        if "You grade an answer" in prompt:
            return Step(
                text=json.dumps(
                    {"pass": "20.23" in prompt or "2H" in prompt, "reason": "same value"}
                )
            )
        if body["messages"][-1]["role"] == "tool":
            return Step(text="The answer is " + body["messages"][-1]["content"])
        question = body["messages"][1]["content"]
        if "TPSA" in question:
            return Step(
                text=None,
                tool_calls=[
                    {"name": "cactus__CalculateTPSA", "arguments": {"compound_SMILES": "CCO"}}
                ],
            )
        return Step(
            text=None,
            tool_calls=[
                {
                    "name": "chem_lib__balance_the_reaction",
                    "arguments": {"reaction_formula": "H2 + O2 --> H2O"},
                }
            ],
        )

    with FakeOpenAIServer(responder) as server:
        code, out, err = run_cli(
            capsys,
            "bench",
            "tools-run",
            str(mini_benchmark),
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "fake",
            "--json",
        )
    assert code == 0, err
    summary = json.loads(out)[str(mini_benchmark)]
    assert summary["model"] == "fake" and summary["questions"] == 2.0
    assert (
        summary["tool_f1"] == 1.0
        and summary["returns_f1"] == 1.0
        and summary["format_validity"] == 1.0
    )
    assert summary["pass_rate"] == 1.0


def test_bench_tools_retrieval(capsys, mini_benchmark):
    code, out, _ = run_cli(
        capsys, "bench", "tools-retrieval", str(mini_benchmark), "--methods", "bm25", "--json"
    )
    result = json.loads(out)
    assert code == 0 and result["mini.jsonl:bm25"]["recall"] == 1.0


def test_agent_ask_mcts_mode_over_http(capsys, kb_env):
    def responder(body):
        prompt = body["messages"][-1]["content"]
        if "propose up to" in prompt:
            tool = "cactus/CalculateTPSA" if "(none yet)" in prompt else "FINISH"
            return Step(text=json.dumps({"actions": [{"tool": tool, "purpose": "p"}]}))
        if "fill in the arguments" in prompt:
            return Step(text=json.dumps({"arguments": {"compound_SMILES": "CCO"}}))
        if "Candidate steps" in prompt:
            return Step(text=json.dumps({"scores": [0.9]}))
        if "Answer the chemistry question" in prompt:
            return Step(text=json.dumps({"final_answer": "20.23 Å²"}))
        return Step(text=json.dumps({"score": 1.0, "reason": "ok"}))

    with FakeOpenAIServer(responder) as server:
        code, out, err = run_cli(
            capsys,
            "agent",
            "ask",
            "TPSA of ethanol (CCO)?",
            "--mode",
            "mcts",
            "--tools",
            "cactus/CalculateTPSA",
            "-k",
            "1",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "fake",
            "--json",
        )
    assert code == 0, err
    answer = json.loads(out)
    assert answer["reasoner"] == "mcts" and answer["answer"] == "20.23 Å²"
    assert answer["trace"]["tree"][0]["children"] and answer["trace"]["best_path"]
