"""What the tool-using agents share: the answer they return, their steps, how tools are shown
to a model and how a model's reply becomes an action.

A model may act through native tool calls (OpenAI ``tool_calls``) or, when the endpoint
has none, through a JSON action in its text: ``{"thought", "tool", "arguments"}`` to call a
tool, ``{"thought", "final_answer"}`` to answer. Both become one :class:`Action`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from chemground.agent.manifest import ToolManifest, from_openai_name, openai_name
from chemground.agent.runner import ToolResult
from chemground.evidence import Evidence
from chemground.llm.base import LLMResponse
from chemground.llm.jsonparse import JSONParseError, parse_json


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


@dataclass
class AgentStep:
    thought: str
    tool: str
    arguments: Any
    result: ToolResult | None = None
    attempt: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"thought": self.thought, "tool": self.tool, "arguments": self.arguments, "attempt": self.attempt,
                "result": self.result.to_json() if self.result else None}


@dataclass
class AgentAnswer:
    """An agent's answer with its evidence (tool results) and the trace of how it got there."""

    question: str
    answer: str
    reasoner: str
    steps: list[AgentStep] = field(default_factory=list)
    status: str = "answered"  # answered | budget_exhausted | failed
    trace: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    id: str | None = None

    @property
    def evidence(self) -> list[Evidence]:
        return [step.result.evidence() for step in self.steps if step.result is not None and step.result.ok]

    @property
    def value(self) -> Any:
        """The last successful tool result: the typed value the answer rests on."""
        for step in reversed(self.steps):
            if step.result is not None and step.result.ok:
                return step.result.value
        return None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "answer": self.answer, "value": self.value,
                "aspect": "tool", "evidence": [e.to_json() for e in self.evidence], "method": "agent",
                "reasoner": self.reasoner, "status": self.status, "steps": [s.to_json() for s in self.steps],
                "timings_ms": self.timings_ms, "usage": self.usage, "trace": self.trace}


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


def parse_action(response: LLMResponse, known: set[str]) -> Action:
    """The model's action from a native tool call or a JSON action in its text."""
    if response.tool_calls:
        call = response.tool_calls[0]
        name = from_openai_name(call.name)
        if call.raw_arguments and not call.arguments and call.raw_arguments.strip() not in ("{}", ""):
            try:
                parse_json(call.raw_arguments)
            except JSONParseError as error:
                return Action("invalid", thought=response.text, problem=f"the arguments of {name} are not JSON: {error}")
        if name not in known:
            return Action("invalid", thought=response.text, tool=name, problem=f"there is no tool named {name!r}")
        return Action("tool", thought=response.text or "", tool=name, arguments=call.arguments, call_id=call.id)
    text = response.text or ""
    try:
        data = parse_json(text)
    except JSONParseError:
        if text.strip() and "{" not in text:
            return Action("final", answer=text.strip(), thought="")
        return Action("invalid", thought=text, problem="the reply is neither a tool call nor a JSON action")
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        return Action("invalid", thought=text, problem="the JSON action must be an object")
    thought = str(data.get("thought") or "")
    if data.get("final_answer") is not None:
        answer = data["final_answer"]
        return Action("final", thought=thought, answer=answer if isinstance(answer, str) else json.dumps(answer))
    tool = data.get("tool") or data.get("action") or data.get("name")
    if not tool:
        return Action("invalid", thought=thought, problem="the JSON action has neither 'tool' nor 'final_answer'")
    tool = from_openai_name(str(tool))
    if tool not in known:
        return Action("invalid", thought=thought, tool=tool, problem=f"there is no tool named {tool!r}")
    arguments = data.get("arguments", data.get("args", data.get("parameters", {})))
    return Action("tool", thought=thought, tool=tool, arguments=arguments)


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


__all__ = ["Action", "AgentAnswer", "AgentStep", "Stopwatch", "describe_tools", "openai_name", "parse_action"]
