"""What the tool-using agents share: the answer they return, their steps, how tools are shown
to a model and how a model's reply becomes an action.

A model may act through native tool calls (OpenAI ``tool_calls``) or, when the endpoint
has none, through a JSON action in its text: ``{"thought", "tool", "arguments"}`` to call a
tool, ``{"thought", "final_answer"}`` to answer. Both become one :class:`Action`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.agent.manifest import ToolManifest, from_openai_name, openai_name
from chemground.agent.runner import ToolResult
from chemground.evidence import Evidence
from chemground.llm.base import LLMResponse
from chemground.llm.jsonparse import JSONParseError, parse_json
from chemground.reasoning.answer import Answer
from chemground.reasoning.faithfulness import (
    FaithfulnessReport,
    check_faithfulness,
    failed_check,
)


@dataclass
class Action:
    """What the model decided: call a tool, or give the final answer (or nothing usable)."""

    kind: str  # tool | final | invalid
    thought: str = ""
    tool: str | None = None
    arguments: Any = None
    answer: str | None = None
    problem: str | None = None  # why the reply was invalid
    call_id: str | None = None
    mapped_from: str | None = (
        None  # the tool name as the model wrote it, when it was mapped to ``tool``
    )


@dataclass
class AgentStep:
    thought: str
    tool: str
    arguments: Any
    result: ToolResult | None = None
    attempt: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "thought": self.thought,
            "tool": self.tool,
            "arguments": self.arguments,
            "attempt": self.attempt,
            "result": self.result.to_json() if self.result else None,
        }


@dataclass
class AgentAnswer:
    """An agent's answer with its evidence (tool results) and the trace of how it got there."""

    question: str
    answer: str
    reasoner: str
    steps: list[AgentStep] = field(default_factory=list)
    # answered | unsupported (contradicts its tool results) | budget_exhausted | failed
    status: str = "answered"
    trace: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    id: str | None = None

    @property
    def evidence(self) -> list[Evidence]:
        """Each successful call as evidence; a call that returned knowledge-base evidence (the
        ``chemground/`` retrieval tools) contributes those records themselves instead."""
        out: list[Evidence] = []
        for step in self.steps:
            if step.result is None or not step.result.ok:
                continue
            records = _evidence_in(step.result.value)
            out.extend(records if records else [step.result.evidence()])
        return out

    @property
    def value(self) -> Any:
        """The last successful tool result: the typed value the answer rests on."""
        for step in reversed(self.steps):
            if step.result is not None and step.result.ok:
                return step.result.value
        return None

    def to_answer(self) -> Answer:
        """The one ``Answer`` of ``chemground ask``, for ``agent ask --json`` and the API.

        Returns:
            An Answer with method ``agent``; the steps (tool, arguments, result) are in
            ``trace["steps"]`` beside the search's own trace.
        """
        status = {
            "answered": "answered",
            "unsupported": "unsupported",
            "budget_exhausted": "partial",
        }.get(self.status, "error")
        evidence = self.evidence
        return Answer(
            id=self.id,
            question=self.question,
            answer=self.answer,
            value=self.value,
            aspect="tool",
            status=status if evidence or status != "answered" else "no_evidence",
            evidence=evidence,
            citations=[e.id for e in evidence],
            method="agent",
            reasoner=self.reasoner,
            timings_ms=dict(self.timings_ms),
            usage=dict(self.usage),
            notes=([] if self.status == "answered" else [f"agent status: {self.status}"])
            + list(self.trace.get("faithfulness", {}).get("notes") or []),
            trace={
                **self.trace,
                "agent_status": self.status,
                "steps": [s.to_json() for s in self.steps],
            },
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "answer": self.answer,
            "value": self.value,
            "aspect": "tool",
            "evidence": [e.to_json() for e in self.evidence],
            "method": "agent",
            "reasoner": self.reasoner,
            "status": self.status,
            "steps": [s.to_json() for s in self.steps],
            "timings_ms": self.timings_ms,
            "usage": self.usage,
            "trace": self.trace,
        }


def _evidence_in(value: Any) -> list[Evidence]:
    """The Evidence records a tool returned under ``"evidence"`` (empty when it returned none,
    or anything that is not Evidence JSON)."""
    items = value.get("evidence") if isinstance(value, dict) else None
    if not isinstance(items, list) or not items:
        return []
    try:
        return [Evidence.model_validate(item) for item in items]
    except ValueError:  # pydantic's ValidationError: a tool's own "evidence" of another shape
        return []


def describe_tools(manifests: Sequence[ToolManifest]) -> str:
    """Tool list for a prompt: signature, description, parameter details."""
    blocks = []
    for m in manifests:
        lines = [f"- {m.signature()}", f"  {m.full_description()}"]
        for p in m.parameters:
            detail = f"    {p.name}: {p.description}"
            if p.unit:
                detail += f" [{p.unit}]"
            if p.enum:
                detail += f" One of {p.enum}."
            if p.examples:
                detail += f" Example: {json.dumps(p.examples[0], ensure_ascii=False)}"
            lines.append(detail)
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


# -- tool names as a model writes them
# ----------------------------------------------------------------
#
# A model copies what the prompt shows: "cactus/CalculateQED(compound_SMILES: string) -> number",
# "- `cactus/CalculateQED`", "CalculateQED", "cactus__CalculateQED", "Cactus/calculateQed". Each is
# mapped to the registry name when exactly one fits; a fuzzy match needs a clear margin over the
# next.

_FUZZY_MIN = 88.0
_FUZZY_MARGIN = 5.0


def _bare_tool_name(raw: str) -> str:
    text = str(raw).strip().lstrip("-*•").strip().strip("`'\"").strip()
    text = (
        text.split("(", 1)[0].split("->", 1)[0].split(":", 1)[0]
        if "(" in text or "->" in text
        else text
    )
    return from_openai_name(text.strip().strip("`'\".").strip())


def _squash(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def match_tool_name(raw: Any, known: Sequence[str] | set[str]) -> tuple[str | None, str | None]:
    """(the registry name ``raw`` stands for or None, a note when it was not written exactly).

    Tolerates signatures, backticks, case, the OpenAI ``__`` form, the name without its
    ``family/`` prefix and small misspellings (unambiguous fuzzy match)."""
    if not isinstance(raw, str) or not raw.strip():
        return None, None
    names = list(known)
    if raw in names:
        return raw, None
    bare = _bare_tool_name(raw)
    if bare in names:
        return bare, f"tool name {raw!r} read as {bare!r}"
    lower = {n.lower(): n for n in names}
    if bare.lower() in lower:
        return lower[bare.lower()], f"tool name {raw!r} read as {lower[bare.lower()]!r}"
    squashed = {}
    for n in names:
        squashed.setdefault(_squash(n), []).append(n)
    if len(squashed.get(_squash(bare), [])) == 1:
        found = squashed[_squash(bare)][0]
        return found, f"tool name {raw!r} read as {found!r}"
    tails: dict[str, list[str]] = {}
    for n in names:
        tails.setdefault(_squash(n.rsplit("/", 1)[-1]), []).append(n)
    tail = _squash(bare.rsplit("/", 1)[-1])
    if len(tails.get(tail, [])) == 1:
        found = tails[tail][0]
        return (
            found,
            f"tool name {raw!r} read as {found!r} (same tool name, family left out or different)",
        )
    from rapidfuzz import fuzz, process

    choices = {n: _squash(n) for n in names}
    best = process.extract(_squash(bare), choices, scorer=fuzz.ratio, limit=2)
    if (
        best
        and best[0][1] >= _FUZZY_MIN
        and (len(best) == 1 or best[0][1] - best[1][1] >= _FUZZY_MARGIN)
    ):
        found = best[0][2]
        return found, f"tool name {raw!r} matched to {found!r} (similarity {best[0][1]:.0f})"
    return None, None


def parse_action(response: LLMResponse, known: set[str]) -> Action:
    """The model's action from a native tool call or a JSON action in its text."""
    if response.tool_calls:
        call = response.tool_calls[0]
        name = from_openai_name(call.name)
        if (
            call.raw_arguments
            and not call.arguments
            and call.raw_arguments.strip() not in ("{}", "")
        ):
            try:
                parse_json(call.raw_arguments)
            except JSONParseError as error:
                return Action(
                    "invalid",
                    thought=response.text,
                    problem=f"the arguments of {name} are not JSON: {error}",
                )
        matched, note = match_tool_name(name, known)
        if matched is None:
            return Action(
                "invalid", thought=response.text, tool=name, problem=_no_such_tool(name, known)
            )
        return Action(
            "tool",
            thought=response.text or "",
            tool=matched,
            arguments=call.arguments,
            call_id=call.id,
            mapped_from=name if note else None,
        )
    text = response.text or ""
    try:
        data = parse_json(text)
    except JSONParseError:
        if text.strip() and "{" not in text:
            return Action("final", answer=text.strip(), thought="")
        return Action(
            "invalid", thought=text, problem="the reply is neither a tool call nor a JSON action"
        )
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        return Action("invalid", thought=text, problem="the JSON action must be an object")
    thought = str(data.get("thought") or "")
    if data.get("final_answer") is not None:
        answer = data["final_answer"]
        return Action(
            "final",
            thought=thought,
            answer=answer if isinstance(answer, str) else json.dumps(answer),
        )
    tool = data.get("tool") or data.get("action") or data.get("name")
    if not tool:
        return Action(
            "invalid",
            thought=thought,
            problem="the JSON action has neither 'tool' nor 'final_answer'",
        )
    matched, note = match_tool_name(str(tool), known)
    if matched is None:
        return Action(
            "invalid", thought=thought, tool=str(tool), problem=_no_such_tool(str(tool), known)
        )
    arguments = data.get("arguments", data.get("args", data.get("parameters", {})))
    return Action(
        "tool",
        thought=thought,
        tool=matched,
        arguments=arguments,
        mapped_from=str(tool) if note else None,
    )


def _no_such_tool(name: str, known: Sequence[str] | set[str]) -> str:
    listed = sorted(known)
    shown = ", ".join(listed[:12]) + (f" and {len(listed) - 12} more" if len(listed) > 12 else "")
    return f"there is no tool named {name!r}; use the exact name of one of: {shown}"


# -- does the final answer agree with the tool results?
# ------------------------------------------------


def check_agent_answer(
    question: str, answer: str, steps: Sequence[AgentStep], finder: Any = None
) -> FaithfulnessReport:
    """The faithfulness check (:func:`chemground.reasoning.faithfulness.check_faithfulness`) of
    an agent's final ``answer`` against its successful tool results and the knowledge-base
    records the tools returned.

    Args:
        question: the question (its numbers and compounds are given, not claims).
        answer: the agent's final answer text.
        steps: the agent's steps; failed calls are not evidence.
        finder: a ``chem.mentions.MentionFinder`` to check compound names and SMILES too
            (None: numbers and formulas only).

    Returns:
        The report; an agent that called no tool successfully has nothing to contradict, so
        only a garbled answer is unsupported then.
    """
    evidence: list[Evidence] = []
    for step in steps:
        if step.result is None or not step.result.ok:
            continue
        evidence.append(step.result.evidence())
        evidence.extend(_evidence_in(step.result.value))
    try:
        return check_faithfulness(
            answer, evidence, question=question, finder=finder, require_evidence=False
        )
    except Exception as error:  # the check must never lose the agent's answer
        return failed_check(error)


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


__all__ = [
    "Action",
    "AgentAnswer",
    "AgentStep",
    "Stopwatch",
    "check_agent_answer",
    "describe_tools",
    "match_tool_name",
    "openai_name",
    "parse_action",
]
