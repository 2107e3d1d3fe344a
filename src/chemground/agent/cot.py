"""The chain-of-thought tool-calling agent: think, call a tool, read the result, repeat.

Native tool calls are used where the endpoint supports them; if the endpoint rejects the
``tools`` field, the agent switches to the JSON action format for the rest of the run.
Failed calls are shown to the model (it may correct itself); a reply that is neither a
call nor an answer gets one correction message. The step budget bounds the tool calls.
"""

from __future__ import annotations

import json
from typing import Any

from chemground.agent.core import Action, AgentAnswer, AgentStep, Stopwatch, describe_tools, parse_action
from chemground.agent.manifest import ToolManifest
from chemground.agent.retriever import ToolRetriever
from chemground.agent.runner import ToolRunner
from chemground.llm.base import LLM, LLMError, LLMUnavailable
from chemground.llm.prompts import render

CORRECTION = ("Your reply could not be used: {problem}. Reply with one JSON action as described "
              "(a tool call or a final answer).")


class CoTAgent:
    """Chain-of-thought agent over the tool pool."""

    name = "cot"

    def __init__(self, llm: LLM, runner: ToolRunner, retriever: ToolRetriever | None = None, *, k_tools: int = 8,
                 max_steps: int = 6, native_tools: bool = True, tools: list[str] | None = None) -> None:
        self.llm = llm
        self.runner = runner
        self.retriever = retriever
        self.k_tools = k_tools
        self.max_steps = max_steps
        self.native_tools = native_tools
        self.fixed_tools = tools

    def select_tools(self, question: str) -> list[ToolManifest]:
        registry = self.runner.registry
        if self.fixed_tools is not None:
            return [registry.get(name) for name in self.fixed_tools]
        retriever = self.retriever or ToolRetriever(registry)
        return [registry.get(name) for name, _ in retriever.search(question, k=self.k_tools)]

    def _messages(self, question: str, manifests: list[ToolManifest], native: bool) -> list[dict[str, Any]]:
        action_format = render("agent/cot_native_format") if native else render("agent/cot_json_format")
        system = render("agent/cot_system", tools=describe_tools(manifests), action_format=action_format,
                        max_steps=self.max_steps)
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]

    def run(self, question: str, item_id: str | None = None) -> AgentAnswer:
        clock = Stopwatch()
        before = self.llm.ledger.snapshot()
        manifests = self.select_tools(question)
        known = {m.name for m in manifests}
        native = self.native_tools
        messages = self._messages(question, manifests, native)
        steps: list[AgentStep] = []
        events: list[dict[str, Any]] = []
        answer, status = "", "budget_exhausted"
        corrections = 0
        while len(steps) < self.max_steps:
            try:
                response = self.llm.chat(messages, tools=[m.openai_tool() for m in manifests] if native else None)
            except LLMUnavailable:
                raise
            except LLMError as error:
                if not native:
                    raise
                native = False  # the endpoint does not take tools: use JSON actions from here on
                events.append({"event": "native_tools_rejected", "error": str(error)[:200]})
                messages = self._messages(question, manifests, native) + messages[2:]
                continue
            action = parse_action(response, known)
            events.append({"event": "action", "kind": action.kind, "tool": action.tool, "problem": action.problem})
            if action.kind == "final":
                answer, status = action.answer or "", "answered"
                break
            if action.kind == "invalid":
                corrections += 1
                if corrections > 2:
                    status = "failed"
                    answer = "The model did not produce a usable action."
                    break
                messages += [{"role": "assistant", "content": response.text or ""},
                             {"role": "user", "content": CORRECTION.format(problem=action.problem)}]
                continue
            result = self.runner.call(action.tool, action.arguments)
            steps.append(AgentStep(action.thought, action.tool, action.arguments, result))
            messages += self._observation_messages(action, response.text or "", result.observation(), native)
        if status == "budget_exhausted":
            answer = answer or f"No answer within the budget of {self.max_steps} tool calls."
        return AgentAnswer(question=question, answer=answer, reasoner=self.name, steps=steps, status=status,
                           trace={"tools_offered": sorted(known), "events": events, "native_tools": native},
                           usage=self.llm.ledger.since(before).to_dict(), timings_ms={"total": clock.ms()}, id=item_id)

    @staticmethod
    def _observation_messages(action: Action, text: str, observation: str, native: bool) -> list[dict[str, Any]]:
        if native and action.call_id is not None:
            from chemground.agent.manifest import openai_name

            call = {"id": action.call_id, "type": "function",
                    "function": {"name": openai_name(action.tool or ""), "arguments": json.dumps(action.arguments)}}
            return [{"role": "assistant", "content": text or None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": action.call_id, "content": observation}]
        return [{"role": "assistant", "content": text}, {"role": "user", "content": f"Observation: {observation}"}]
