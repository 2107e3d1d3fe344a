"""The chain-of-thought tool-calling agent: think, call a tool, read the result, repeat.

Native tool calls are used where the endpoint supports them; if the endpoint rejects the
``tools`` field, the agent switches to the JSON action format for the rest of the run.
Failed calls are shown to the model (it may correct itself); a reply that is neither a
call nor an answer gets one correction message. The step budget bounds the tool calls.
A call identical (same tool, same arguments) to one that already failed is not run again: the
model is told so once, and a second repeat ends the run. All the calls of one run share one
wall-clock budget, each reply is capped at ``max_tokens``, and a final answer whose numbers,
structures or names are not in the tool results is returned with status ``unsupported`` (the
faithfulness report is ``trace["faithfulness"]``, see ``chemground.reasoning.faithfulness``).
"""

from __future__ import annotations

import json
from typing import Any

from chemground.agent.core import (
    Action,
    AgentAnswer,
    AgentStep,
    Stopwatch,
    check_agent_answer,
    describe_tools,
    parse_action,
)
from chemground.agent.manifest import ToolManifest
from chemground.agent.retriever import ToolRetriever
from chemground.agent.runner import ToolRunner
from chemground.chem.mentions import MentionFinder
from chemground.llm.base import LLM, LLMDeadlineExceeded, LLMError, LLMUnavailable
from chemground.llm.prompts import render

CORRECTION = (
    "Your reply could not be used: {problem}. Reply with one JSON action as described "
    "(a tool call or a final answer)."
)
REPEATED = (
    "NOT RUN: you already called {tool} with exactly these arguments and it failed: {error}. "
    "Repeating it gives the same error. Change the arguments (check what each parameter expects, "
    "e.g. a "
    "formula tool needs a formula, not a SMILES), use another tool, or give the final answer from "
    "the "
    "results you have."
)


def _call_key(tool: str | None, arguments: Any) -> str:
    return json.dumps([tool, arguments], sort_keys=True, default=str, ensure_ascii=False)


class CoTAgent:
    """Chain-of-thought agent over the tool pool."""

    name = "cot"

    def __init__(
        self,
        llm: LLM,
        runner: ToolRunner,
        retriever: ToolRetriever | None = None,
        *,
        k_tools: int = 8,
        max_steps: int = 6,
        native_tools: bool = True,
        tools: list[str] | None = None,
        max_tokens: int = 512,
        finder: MentionFinder | None = None,
    ) -> None:
        self.llm = llm
        self.finder = finder  # names and SMILES of the final answer are checked with it
        self.runner = runner
        self.retriever = retriever
        self.k_tools = k_tools
        self.max_steps = max_steps
        self.native_tools = native_tools
        self.fixed_tools = tools
        self.max_tokens = (
            max_tokens  # per reply: a looping small model stops here, not at the end of its context
        )

    def select_tools(self, question: str) -> list[ToolManifest]:
        registry = self.runner.registry
        if self.fixed_tools is not None:
            return [registry.get(name) for name in self.fixed_tools]
        retriever = self.retriever or ToolRetriever(registry)
        return [registry.get(name) for name, _ in retriever.search(question, k=self.k_tools)]

    def _messages(
        self, question: str, manifests: list[ToolManifest], native: bool
    ) -> list[dict[str, Any]]:
        action_format = (
            render("agent/cot_native_format") if native else render("agent/cot_json_format")
        )
        system = render(
            "agent/cot_system",
            tools=describe_tools(manifests),
            action_format=action_format,
            max_steps=self.max_steps,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]

    def run(self, question: str, item_id: str | None = None) -> AgentAnswer:
        clock = Stopwatch()
        before = self.llm.ledger.snapshot()
        manifests = self.select_tools(question)
        with self.llm.answer_budget():  # all the calls of this answer share one wall-clock budget
            answer, status, steps, events, native = self._loop(question, manifests)
        trace: dict[str, Any] = {
            "tools_offered": sorted(m.name for m in manifests),
            "events": events,
            "native_tools": native,
        }
        if status == "answered":
            report = check_agent_answer(question, answer, steps, self.finder)
            trace["faithfulness"] = report.to_json()
            if not report.supported:
                status = "unsupported"
        return AgentAnswer(
            question=question,
            answer=answer,
            reasoner=self.name,
            steps=steps,
            status=status,
            trace=trace,
            usage=self.llm.ledger.since(before).to_dict(),
            timings_ms={"total": clock.ms()},
            id=item_id,
        )

    def _loop(self, question: str, manifests: list[ToolManifest]):
        known = {m.name for m in manifests}
        native = self.native_tools
        messages = self._messages(question, manifests, native)
        steps: list[AgentStep] = []
        events: list[dict[str, Any]] = []
        failed_calls: dict[
            str, str
        ] = {}  # identical (tool, arguments) that already failed -> its error
        answer, status = "", "budget_exhausted"
        corrections = repeats = 0
        while len(steps) < self.max_steps:
            try:
                response = self.llm.chat(
                    messages,
                    tools=[m.openai_tool() for m in manifests] if native else None,
                    max_tokens=self.max_tokens,
                )
            except (LLMUnavailable, LLMDeadlineExceeded) as error:
                if isinstance(error, LLMUnavailable):
                    raise
                events.append({"event": "deadline", "error": str(error)[:300]})
                answer = f"No answer within the time allowed for one answer ({error})."
                break
            except LLMError as error:
                if not native:
                    raise
                native = False  # the endpoint does not take tools: use JSON actions from here on
                events.append({"event": "native_tools_rejected", "error": str(error)[:200]})
                messages = self._messages(question, manifests, native) + messages[2:]
                continue
            action = parse_action(response, known)
            event = {
                "event": "action",
                "kind": action.kind,
                "tool": action.tool,
                "problem": action.problem,
            }
            if action.mapped_from:
                event["mapped_from"] = action.mapped_from  # the name as the model wrote it
            events.append(event)
            if action.kind == "final":
                answer, status = action.answer or "", "answered"
                break
            if action.kind == "invalid":
                corrections += 1
                if corrections > 2:
                    status = "failed"
                    answer = "The model did not produce a usable action."
                    break
                messages += [
                    {"role": "assistant", "content": response.text or ""},
                    {"role": "user", "content": CORRECTION.format(problem=action.problem)},
                ]
                continue
            key = _call_key(action.tool, action.arguments)
            if key in failed_calls:
                # the same call failed before: running it again cannot help (a small model otherwise
                # repeats it until the budget is gone)
                repeats += 1
                events.append(
                    {
                        "event": "repeated_failed_call",
                        "tool": action.tool,
                        "arguments": action.arguments,
                        "error": failed_calls[key][:200],
                    }
                )
                if repeats > 1:
                    status = "failed"
                    answer = (
                        "Stopped: the model repeated a call that had already failed "
                        f"({action.tool} with the "
                        f"same arguments: {failed_calls[key][:160]})."
                    )
                    break
                note = REPEATED.format(tool=action.tool, error=failed_calls[key][:300])
                messages += self._observation_messages(action, response.text or "", note, native)
                continue
            result = self.runner.call(action.tool, action.arguments)
            steps.append(AgentStep(action.thought, action.tool, action.arguments, result))
            if not result.ok:
                failed_calls[key] = result.error or result.error_kind or "failed"
            messages += self._observation_messages(
                action, response.text or "", result.observation(), native
            )
        if status == "budget_exhausted":
            answer = answer or f"No answer within the budget of {self.max_steps} tool calls."
        return answer, status, steps, events, native

    @staticmethod
    def _observation_messages(
        action: Action, text: str, observation: str, native: bool
    ) -> list[dict[str, Any]]:
        if native and action.call_id is not None:
            from chemground.agent.manifest import openai_name

            call = {
                "id": action.call_id,
                "type": "function",
                "function": {
                    "name": openai_name(action.tool or ""),
                    "arguments": json.dumps(action.arguments),
                },
            }
            return [
                {"role": "assistant", "content": text or None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": action.call_id, "content": observation},
            ]
        return [
            {"role": "assistant", "content": text},
            {"role": "user", "content": f"Observation: {observation}"},
        ]
