"""Agent trajectories as chat-format JSONL for fine-tuning (OpenAI ``messages`` + ``tools``).

Each answered run becomes one record: the system instruction, the question, and for each
tool call an assistant message with ``tool_calls`` followed by the ``tool`` message with
its result, then the final answer. Only the calls on the answer's path are exported (for
HE-MCTS, the best trajectory); failed attempts that the agent repaired are left out by
default, so the model learns the corrected call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chemground.agent.core import AgentAnswer
from chemground.agent.dataset import write_jsonl
from chemground.agent.manifest import openai_name
from chemground.agent.registry import ToolRegistry, default_registry

SYSTEM = (
    "You are a chemistry assistant. Call the provided tools to compute or look up what the "
    "question needs, "
    "then answer briefly with units, based only on the tool results."
)


def to_chat(
    answer: AgentAnswer, registry: ToolRegistry | None = None, include_failed_calls: bool = False
) -> dict[str, Any]:
    registry = registry or default_registry()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": answer.question},
    ]
    used: list[str] = []
    for number, step in enumerate(answer.steps, 1):
        if step.result is None or (not step.result.ok and not include_failed_calls):
            continue
        call_id = f"call_{number}"
        messages.append(
            {
                "role": "assistant",
                "content": step.thought or None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": openai_name(step.tool),
                            "arguments": json.dumps(step.result.arguments, ensure_ascii=False),
                        },
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": step.result.observation(limit=20000),
            }
        )
        if step.tool not in used:
            used.append(step.tool)
    messages.append({"role": "assistant", "content": answer.answer})
    return {
        "messages": messages,
        "tools": [registry.get(name).openai_tool() for name in used],
        "metadata": {"id": answer.id, "reasoner": answer.reasoner, "status": answer.status},
    }


def export_trajectories(
    answers: Iterable[AgentAnswer],
    path: Path,
    only_answered: bool = True,
    registry: ToolRegistry | None = None,
) -> int:
    """Write answered runs as chat-format JSONL; returns how many were written."""
    rows = (to_chat(a, registry) for a in answers if a.status == "answered" or not only_answered)
    return write_jsonl(rows, path)
