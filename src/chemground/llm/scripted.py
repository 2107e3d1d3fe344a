"""A scripted LLM for tests: replies come from a list (or a function of the messages).

Its responses are labelled ``model="scripted"`` and ``is_real_model = False`` so no report
can mistake them for a model's output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chemground.llm.base import LLM, LLMError, LLMResponse, Message, Usage

Reply = str | LLMResponse | Callable[[list[Message]], "str | LLMResponse"]


class ScriptedLLM(LLM):
    model = "scripted"
    is_real_model = False

    def __init__(
        self, replies: Sequence[Reply] | Callable[[list[Message]], str | LLMResponse]
    ) -> None:
        super().__init__()
        self._replies = replies
        self._index = 0
        self.calls: list[dict[str, Any]] = []

    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        self.calls.append({"messages": [dict(m) for m in messages], "params": dict(params)})
        if callable(self._replies):
            reply = self._replies(messages)
        else:
            if self._index >= len(self._replies):
                raise LLMError(f"scripted LLM has no reply left for call {self._index + 1}")
            reply = self._replies[self._index]
            self._index += 1
            if callable(reply):
                reply = reply(messages)
        if isinstance(reply, LLMResponse):
            return reply
        prompt_chars = sum(len(str(m.get("content") or "")) for m in messages)
        return LLMResponse(
            text=reply,
            model=self.model,
            usage=Usage(
                prompt_tokens=prompt_chars // 4, completion_tokens=len(reply) // 4, estimated=True
            ),
        )

    @property
    def remaining(self) -> int:
        return 0 if callable(self._replies) else len(self._replies) - self._index
