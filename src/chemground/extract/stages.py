"""The two LLM stages: extract reactions from a snippet, then check and correct each record.

Both replies are validated against the pydantic schemas in :mod:`chemground.extract.schema`;
``LLM.chat_json`` sends a reply that fails validation back once with the reason. The prompts
are text files under ``chemground/llm/prompts/extract/``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from chemground.extract.schema import CheckResult, ExtractedReaction, Extraction
from chemground.extract.snippets import Snippet
from chemground.llm.base import LLM, LLMResponse, Message, Usage
from chemground.llm.prompts import load_prompt, render

PROMPTS = (
    "extract/extract_system",
    "extract/extract_user",
    "extract/check_system",
    "extract/check_user",
)


def prompts_text() -> str:
    """All extraction prompts, concatenated (part of the run journal's key)."""
    return "\n".join(load_prompt(name) for name in PROMPTS)


def _title_block(snippet: Snippet) -> str:
    return f"Heading of the snippet: {snippet.title}\n\n" if snippet.title else ""


def extraction_messages(snippet: Snippet) -> list[Message]:
    return [
        {"role": "system", "content": render("extract/extract_system")},
        {
            "role": "user",
            "content": render(
                "extract/extract_user", snippet=snippet.text, title_block=_title_block(snippet)
            ),
        },
    ]


def check_messages(snippet: Snippet, record: ExtractedReaction) -> list[Message]:
    return [
        {"role": "system", "content": render("extract/check_system")},
        {
            "role": "user",
            "content": render(
                "extract/check_user",
                snippet=snippet.text,
                title_block=_title_block(snippet),
                record=json.dumps(record.model_dump(), ensure_ascii=False),
            ),
        },
    ]


def extract_reactions(
    llm: LLM, snippet: Snippet, **params: Any
) -> tuple[list[ExtractedReaction], LLMResponse]:
    """Stage 1: every reaction the snippet carries out (raises LLMBadOutput on unusable replies)."""
    value, response = llm.chat_json(extraction_messages(snippet), schema=Extraction, **params)
    return value.reactions, response


def check_reaction(
    llm: LLM, snippet: Snippet, record: ExtractedReaction, **params: Any
) -> tuple[CheckResult, LLMResponse]:
    """Stage 2: the record kept, corrected, or rejected (``reaction`` None: the record is
    emptied)."""
    return llm.chat_json(check_messages(snippet, record), schema=CheckResult, **params)


class MeteredLLM(LLM):
    """Wraps an LLM so that the tokens one thread spends can be measured (per snippet).

    The run's totals come from this wrapper's ledger; ``measure`` gives the spend of the
    calls made inside the block by the calling thread only, so concurrent snippets do not mix.
    """

    def __init__(self, inner: LLM) -> None:
        super().__init__()
        self.inner = inner
        self.model = inner.model
        self.is_real_model = inner.is_real_model
        self._local = threading.local()

    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        response = self.inner._chat(messages, params)
        spent = getattr(self._local, "usage", None)
        if spent is not None:
            spent.add(
                Usage(
                    prompt_tokens=response.usage.prompt_tokens,
                    completion_tokens=response.usage.completion_tokens,
                    calls=1,
                    cached_calls=int(response.cached),
                    cost_usd=response.usage.cost_usd,
                    latency_s=response.usage.latency_s,
                    estimated=response.usage.estimated,
                )
            )
        return response

    @contextmanager
    def measure(self) -> Iterator[Usage]:
        usage = Usage()
        previous = getattr(self._local, "usage", None)
        self._local.usage = usage
        try:
            yield usage
        finally:
            self._local.usage = previous
