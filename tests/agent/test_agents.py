"""The CoT agent and HE-MCTS end to end with a scripted LLM and real tool calls in a worker:
a failing call repaired, pruning with soft retention, sibling merge, budgets, the tree in the
trace, evidence from tool results, trajectories exported as chat JSONL."""

from __future__ import annotations

import json

import pytest

from chemground.agent.cot import CoTAgent
from chemground.agent.mcts import FINISH, HEMCTSAgent, MCTSConfig, Node
from chemground.agent.runner import ToolRunner
from chemground.agent.trajectory import export_trajectories, to_chat
from chemground.llm import LLMError, LLMResponse, ScriptedLLM, ToolCall

QUESTION = "What is the topological polar surface area of ethanol (SMILES CCO)?"


@pytest.fixture
def runner(agent_settings, tmp_path):
    with ToolRunner(settings=agent_settings, files_dir=tmp_path / "files") as runner:
        yield runner


def last_user(messages):
    return messages[-1]["content"]


def test_cot_repairs_a_failing_call_and_answers_from_the_tool(runner):
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "thought": "TPSA tool",
                    "tool": "cactus/CalculateTPSA",
                    "arguments": {"smiles": "CCO"},
                }
            ),
            json.dumps(
                {
                    "thought": "fix the parameter name",
                    "tool": "cactus/CalculateTPSA",
                    "arguments": {"compound_SMILES": "CCO"},
                }
            ),
            json.dumps({"thought": "done", "final_answer": "The TPSA of ethanol is 20.23 Å²."}),
        ]
    )
    agent = CoTAgent(
        llm, runner, tools=["cactus/CalculateTPSA", "cactus/CalculateLogP"], max_steps=4
    )
    answer = agent.run(QUESTION)
    assert answer.status == "answered" and "20.23" in answer.answer
    first, second = answer.steps
    assert not first.result.ok and first.result.error_kind == "arguments"
    assert second.result.ok and second.result.value == pytest.approx(20.23)
    # the model saw the error message of its failed call
    assert "unknown parameter 'smiles'" in llm.calls[1]["messages"][-1]["content"]
    assert [e.kind for e in answer.evidence] == ["tool_result"]
    assert answer.value == pytest.approx(20.23)
    data = answer.to_json()
    assert (
        data["reasoner"] == "cot"
        and data["evidence"][0]["record"]["tool"] == "cactus/CalculateTPSA"
    )


def test_cot_uses_native_tool_calls(runner):
    llm = ScriptedLLM(
        [
            LLMResponse(
                text="",
                model="scripted",
                tool_calls=[ToolCall("c1", "cactus__CalculateMolWt", {"compound_SMILES": "O"})],
            ),
            "Water has a monoisotopic mass of 18.011 Da.",
        ]
    )
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateMolWt"]).run("Exact mass of water?")
    assert answer.steps[0].result.value == pytest.approx(18.0106, rel=1e-5)
    assert llm.calls[0]["params"]["tools"][0]["function"]["name"] == "cactus__CalculateMolWt"
    tool_message = llm.calls[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "c1"


class NoToolsLLM(ScriptedLLM):
    """An endpoint that rejects the OpenAI ``tools`` field."""

    def _chat(self, messages, params):
        if params.get("tools"):
            raise LLMError("HTTP 400: tools are not supported")
        return super()._chat(messages, params)


def test_cot_falls_back_to_json_actions_when_tools_are_rejected(runner):
    llm = NoToolsLLM(
        [
            json.dumps({"tool": "cactus/CalculateQED", "arguments": {"compound_SMILES": "CCO"}}),
            json.dumps({"final_answer": "QED 0.41"}),
        ]
    )
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateQED"]).run("QED of ethanol?")
    assert answer.status == "answered" and answer.trace["native_tools"] is False
    assert (
        "JSON object" in llm.calls[0]["messages"][0]["content"]
    )  # the JSON action format was explained


def test_cot_step_budget(runner):
    call = json.dumps({"tool": "cactus/CalculateLogP", "arguments": {"compound_SMILES": "CCO"}})
    answer = CoTAgent(
        ScriptedLLM([call] * 5), runner, tools=["cactus/CalculateLogP"], max_steps=2
    ).run("logP?")
    assert answer.status == "budget_exhausted" and len(answer.steps) == 2


def mcts_llm(scores=None, outcome=1.0, policy=None):
    """Scripted replies routed by prompt: policy, execution (wrong first for TPSA), rewards,
    final."""
    scores = scores or {
        "cactus/CalculateTPSA": 0.9,
        "cactus/CalculateLogP": 0.3,
        "cactus/CalculateMolWt": 0.8,
    }
    policy = policy or ["cactus/CalculateTPSA", "cactus/CalculateLogP", "cactus/CalculateMolWt"]

    def reply(messages):
        prompt = last_user(messages)
        if "propose up to" in prompt:
            if "(none yet)" in prompt:
                return json.dumps({"actions": [{"tool": t, "purpose": "p"} for t in policy]})
            return json.dumps({"actions": [{"tool": FINISH, "purpose": "answer"}]})
        if "fill in the arguments" in prompt:
            if "cactus/CalculateTPSA(" in prompt and "Your previous call failed" not in prompt:
                return json.dumps(
                    {"arguments": {"smiles": "CCO"}}
                )  # wrong name: repaired by reflection
            return json.dumps({"arguments": {"compound_SMILES": "CCO"}})
        if "Candidate steps" in prompt:
            lines = [
                line
                for line in prompt.splitlines()
                if line[:2].rstrip(".").isdigit() and "(" in line
            ]
            return json.dumps(
                {
                    "scores": [
                        next(v for t, v in scores.items() if f" {t}(" in line) for line in lines
                    ]
                }
            )
        if "Answer the chemistry question" in prompt:
            return json.dumps({"final_answer": "20.23 Å²"})
        if "Judge a proposed answer" in prompt:
            return json.dumps({"score": outcome, "reason": "supported"})
        raise AssertionError(f"unexpected prompt: {prompt[:80]}")

    return ScriptedLLM(reply)


def test_mcts_end_to_end_with_repair_pruning_and_tree(runner):
    agent = HEMCTSAgent(
        mcts_llm(),
        runner,
        config=MCTSConfig(k=3, max_iterations=4),
        tools=["cactus/CalculateTPSA", "cactus/CalculateLogP", "cactus/CalculateMolWt"],
    )
    answer = agent.run(QUESTION)
    assert answer.status == "answered" and answer.answer == "20.23 Å²"
    tree = {n["id"]: n for n in answer.trace["tree"]}
    children = [tree[c] for c in tree[0]["children"]]
    assert {c["tool"] for c in children} == {
        "cactus/CalculateTPSA",
        "cactus/CalculateLogP",
        "cactus/CalculateMolWt",
    }
    tpsa = next(c for c in children if c["tool"] == "cactus/CalculateTPSA")
    logp = next(c for c in children if c["tool"] == "cactus/CalculateLogP")
    assert (
        tpsa["attempts"][0]["error_kind"] == "arguments" and tpsa["result"]["ok"]
    )  # repaired after reflection
    assert (
        logp["status"] == "pruned" and logp["process_reward"] == 0.3
    )  # far below its best sibling, kept
    assert any(e["event"] == "pruned" for e in answer.trace["events"])
    best = [tree[i] for i in answer.trace["best_path"]]
    assert [n["tool"] for n in best] == ["cactus/CalculateTPSA", FINISH] and best[-1][
        "outcome_reward"
    ] == 1.0
    assert tree[0]["visits"] >= 1 and answer.trace["stop_reason"] == "perfect answer found"
    assert [s.tool for s in answer.steps] == ["cactus/CalculateTPSA"] and answer.steps[
        0
    ].attempt == 2
    assert answer.evidence[0].record["result"] == pytest.approx(20.23)


def test_mcts_merges_siblings_with_identical_results(runner):
    llm = mcts_llm(
        scores={"cactus/CalculateMolWt": 0.9, "chemcrow/SMILES2Weight": 0.9},
        policy=["cactus/CalculateMolWt", "chemcrow/SMILES2Weight"],
    )
    agent = HEMCTSAgent(
        llm,
        runner,
        config=MCTSConfig(k=2, max_iterations=2),
        tools=["cactus/CalculateMolWt", "chemcrow/SMILES2Weight"],
    )
    answer = agent.run("Exact mass of ethanol (CCO)?")
    root = answer.trace["tree"][0]
    assert len(root["children"]) == 1  # both tools return the same exact mass
    kept = answer.trace["tree"][root["children"][0]]
    assert kept["merged"][0]["tool"] == "chemcrow/SMILES2Weight"


def test_mcts_llm_budget_stops_the_search(runner):
    agent = HEMCTSAgent(
        mcts_llm(outcome=0.5),
        runner,
        config=MCTSConfig(k=3, max_iterations=10, max_llm_calls=6),
        tools=["cactus/CalculateTPSA", "cactus/CalculateLogP", "cactus/CalculateMolWt"],
    )
    answer = agent.run(QUESTION)
    assert answer.trace["llm_calls"] <= 6 and "budget" in answer.trace["stop_reason"]


def test_soft_retention_revives_pruned_branches(runner):
    agent = HEMCTSAgent(ScriptedLLM([]), runner)
    agent._reset("q")
    agent.nodes[0].expanded = True
    for status in ("failed", "pruned"):
        node = agent._add(Node(0, 0, 1, tool="cactus/CalculateLogP", status=status))
    assert agent.select() is None  # nothing open
    assert agent.revive() is True
    assert agent.select() is node and node.revived


def test_depth_limit_forces_an_answer(runner):
    agent = HEMCTSAgent(
        mcts_llm(),
        runner,
        config=MCTSConfig(k=1, max_depth=1, max_iterations=3),
        tools=["cactus/CalculateMolWt"],
    )
    answer = agent.run("Exact mass of ethanol (CCO)?")
    assert max(n["depth"] for n in answer.trace["tree"]) <= 2 and answer.trace["best_path"]
    # the scripted final answer (a TPSA, 20.23) is not what the only tool run (MolWt) returned:
    # flagged
    assert answer.status == "unsupported" and not answer.trace["faithfulness"]["supported"]


def test_trajectories_export_as_chat_jsonl(runner, tmp_path):
    llm = ScriptedLLM(
        [
            json.dumps({"tool": "cactus/CalculateTPSA", "arguments": {"compound_SMILES": "CCO"}}),
            json.dumps({"final_answer": "20.23 Å²"}),
        ]
    )
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateTPSA"]).run(QUESTION)
    record = to_chat(answer)
    roles = [m["role"] for m in record["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = record["messages"][2]["tool_calls"][0]["function"]
    assert call["name"] == "cactus__CalculateTPSA" and json.loads(call["arguments"]) == {
        "compound_SMILES": "CCO"
    }
    assert json.loads(record["messages"][3]["content"]) == pytest.approx(20.23)
    assert record["tools"][0]["function"]["name"] == "cactus__CalculateTPSA"
    path = tmp_path / "traj.jsonl"
    assert export_trajectories([answer], path) == 1
    assert json.loads(path.read_text())["messages"][-1]["content"] == "20.23 Å²"
