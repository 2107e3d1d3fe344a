"""Running an agent over benchmark questions and scoring it with the published metrics.

Each question is answered by the chosen agent (chain of thought or HE-MCTS) over the whole
tool pool; its calls are scored against the gold chain (format, tool, parameter, return
P/R/F1) and, with ``judge=True``, the final answer is graded by the LLM against the gold
chain's final return (pass rate). The summary names the model: figures are only ever
reported for the model that actually ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.agent.core import AgentAnswer
from chemground.agent.dataset import BenchItem
from chemground.agent.jsonsafe import fields_json
from chemground.agent.metrics import ItemScore, PredictedCall, aggregate, score_item
from chemground.agent.runner import ToolRunner
from chemground.llm.base import LLM, LLMBadOutput
from chemground.llm.prompts import render


def judge_answer(llm: LLM, question: str, reference: Any, answer: str) -> tuple[bool, str]:
    """LLM judge: does ``answer`` state the reference result?"""
    import json

    prompt = render(
        "agent/judge",
        question=question,
        reference=json.dumps(reference, ensure_ascii=False, default=str),
        answer=answer,
    )

    def check(value: Any) -> tuple[bool, str]:
        if not isinstance(value, dict) or not isinstance(value.get("pass"), bool):
            raise ValueError("expected {'pass': true|false, 'reason': '...'}")
        return value["pass"], str(value.get("reason", ""))

    verdict, _ = llm.chat_json([{"role": "user", "content": prompt}], check=check)
    return verdict


def predicted_calls(answer: AgentAnswer) -> list[PredictedCall]:
    calls = []
    for step in answer.steps:
        result = step.result
        calls.append(
            PredictedCall(
                tool=step.tool,
                params=step.arguments,
                ok=bool(result and result.ok),
                ret=result.value if result and result.ok else None,
                well_formed=bool(result and result.error_kind not in ("arguments", "not_found")),
            )
        )
    return calls


@dataclass
class AgentEvaluation:
    model: str
    agent: str
    scores: list[ItemScore] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        data: dict[str, Any] = {"model": self.model, "agent": self.agent}
        data.update(aggregate(self.scores))
        return data


def make_agent(kind: str, llm: LLM, runner: ToolRunner, **options: Any):
    from chemground.agent.cot import CoTAgent
    from chemground.agent.mcts import HEMCTSAgent, MCTSConfig

    if kind == "cot":
        return CoTAgent(llm, runner, **options)
    if kind == "mcts":
        config = options.pop("config", None) or MCTSConfig()
        return HEMCTSAgent(llm, runner, config=config, **options)
    raise ValueError(f"unknown agent {kind!r}: use cot or mcts")


def evaluate_agent(
    items: Sequence[BenchItem],
    llm: LLM,
    *,
    settings: Any = None,
    agent: str = "cot",
    judge: bool = True,
    runner: ToolRunner | None = None,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> AgentEvaluation:
    import tempfile
    from pathlib import Path

    own_runner = runner is None
    folder = tempfile.TemporaryDirectory(prefix="chemground-agent-") if own_runner else None
    runner = runner or ToolRunner(settings=settings, files_dir=Path(folder.name))
    try:
        solver = make_agent(agent, llm, runner, **options)
        known = set(runner.registry.names())
        names = {m.name: [p.name for p in m.parameters] for m in runner.registry.manifests()}
        evaluation = AgentEvaluation(model=llm.model, agent=agent)
        for item in items:
            answer = solver.run(item.query, item_id=item.id)
            passed = None
            reason = ""
            if judge:
                try:
                    passed, reason = judge_answer(llm, item.query, item.final_return, answer.answer)
                except LLMBadOutput as error:
                    passed, reason = False, f"judge output unusable: {error}"
            score = score_item(
                predicted_calls(answer),
                item.chain,
                known_tools=known,
                parameter_names=names,
                passed=passed,
            )
            evaluation.scores.append(score)
            evaluation.records.append(
                {
                    "id": item.id,
                    "query": item.query,
                    "answer": answer.answer,
                    "status": answer.status,
                    "calls": [s.to_json() for s in answer.steps],
                    "score": fields_json(score),
                    "judge_reason": reason,
                    "usage": answer.usage,
                }
            )
            if progress:
                progress(1)
        return evaluation
    finally:
        if own_runner:
            runner.close()
            folder.cleanup()
