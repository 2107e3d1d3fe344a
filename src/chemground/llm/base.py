"""What every LLM in chemground looks like, whatever serves it.

``chat`` returns an :class:`LLMResponse` carrying the text, any native tool calls, token
usage, latency and cost; ``chat_json`` adds JSON parsing that repairs common breakage and
re-asks once, with the parse error, before failing with a clear :class:`LLMBadOutput`.
A :class:`UsageLedger` on every LLM sums what was spent, for traces and cost reports.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from chemground.errors import ChemgroundError
from chemground.llm.jsonparse import JSONParseError, parse_json

Message = dict[str, Any]


class LLMError(ChemgroundError):
    """The endpoint failed (after retries) or refused the request."""


class LLMRequestRejected(LLMError):
    """The endpoint answered 400/422: it will not accept this request as written."""


class LLMUnavailable(LLMError):
    """No endpoint is configured, or it cannot be reached."""


class LLMBadOutput(LLMError):
    """The model's reply could not be used (not JSON, wrong shape), even after one re-ask."""


class LLMDeadlineExceeded(LLMError):
    """The model did not answer within the wall-clock deadline of one call or of one answer."""


CALL_DEADLINE_SETTING = "CHEMGROUND_LLM_CALL_DEADLINE_S"
ANSWER_DEADLINE_SETTING = "CHEMGROUND_LLM_ANSWER_DEADLINE_S"


@dataclass(frozen=True)
class Deadline:
    """A wall-clock limit: ``at`` on the monotonic clock, ``seconds`` as configured, and
    whether it is the limit of one call or the budget of one answer (for the message)."""

    at: float
    seconds: float
    scope: str = "call"  # "call" | "answer"

    @classmethod
    def after(cls, seconds: float, scope: str = "call") -> Deadline:
        return cls(time.monotonic() + seconds, seconds, scope)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def expired(self) -> bool:
        return self.remaining() <= 0

    def explain(self, who: str, detail: str = "") -> str:
        """``who`` did not answer within N s (with the setting that changes N)."""
        if self.scope == "answer":
            limit = (
                f"the {self.seconds:g} s allowed for one answer (set {ANSWER_DEADLINE_SETTING} "
                "to change it)"
            )
        else:
            limit = f"{self.seconds:g} s (set {CALL_DEADLINE_SETTING} to change it)"
        return f"{who} did not answer within {limit}" + (
            f"; last problem: {detail}" if detail else ""
        )


_ANSWER_BUDGET: ContextVar[Deadline | None] = ContextVar(
    "chemground_llm_answer_budget", default=None
)


@contextmanager
def answer_budget(seconds: float | None):
    """Every LLM call inside shares one wall-clock budget of ``seconds`` (one answer's worth:
    all the calls of one reasoner run). None or <= 0: no budget. Nested budgets keep the
    tighter one. Per thread / per async task (a context variable)."""
    if not seconds or seconds <= 0:
        yield None
        return
    budget = Deadline.after(seconds, "answer")
    outer = _ANSWER_BUDGET.get()
    if outer is not None and outer.at <= budget.at:
        budget = outer
    token = _ANSWER_BUDGET.set(budget)
    try:
        yield budget
    finally:
        _ANSWER_BUDGET.reset(token)


def current_answer_budget() -> Deadline | None:
    return _ANSWER_BUDGET.get()


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    estimated: bool = False  # token counts estimated (the endpoint reported none)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.cost_usd += other.cost_usd
        self.latency_s += other.latency_s
        self.estimated = self.estimated or other.estimated

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "cost_usd": round(self.cost_usd, 6),
            "latency_s": round(self.latency_s, 3),
            "estimated": self.estimated,
        }


@dataclass
class LLMResponse:
    text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    cached: bool = False
    raw: dict[str, Any] = field(default_factory=dict)
    cache_key: str = (
        ""  # where the response cache holds it ("" when not cached), for ``LLM.forget``
    )


class UsageLedger:
    """Thread-safe running total of usage, with a way to measure one span of work."""

    def __init__(self) -> None:
        self.total = Usage()
        self._lock = threading.Lock()

    def record(self, usage: Usage) -> None:
        with self._lock:
            self.total.add(usage)

    def snapshot(self) -> Usage:
        with self._lock:
            copy = Usage()
            copy.add(self.total)
            return copy

    def since(self, before: Usage) -> Usage:
        now = self.snapshot()
        return Usage(
            prompt_tokens=now.prompt_tokens - before.prompt_tokens,
            completion_tokens=now.completion_tokens - before.completion_tokens,
            calls=now.calls - before.calls,
            cached_calls=now.cached_calls - before.cached_calls,
            cost_usd=now.cost_usd - before.cost_usd,
            latency_s=now.latency_s - before.latency_s,
            estimated=now.estimated,
        )


REASK = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the JSON requested, no explanation and no code fences."
)


class LLM(ABC):
    """A chat model. Subclasses implement ``_chat``; callers use ``chat`` / ``chat_json``."""

    model: str = "unknown"
    is_real_model: bool = True  # False for the scripted test double
    call_deadline_s: float | None = None  # wall clock for one call, retries included (None: none)
    # the model's context window in tokens, when known: prompts are sized to fit it (None: unknown)
    context_tokens: int | None = None
    max_tokens: int | None = None  # the default reply limit in tokens (None: the model's own)
    answer_deadline_s: float | None = (
        None  # wall clock shared by all calls of one answer (see answer_budget)
    )

    def __init__(self) -> None:
        self.ledger = UsageLedger()

    @abstractmethod
    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        """One completion. ``params["_deadline"]`` (a :class:`Deadline` or None) is the
        wall-clock limit the implementation must respect, retries and reading included."""

    def describe(self) -> str:
        """How error messages name this model ("the model at http://...")."""
        return f"the model {self.model}"

    def forget(self, response: LLMResponse) -> None:  # noqa: B027 - optional hook
        """Drop ``response`` from the response cache (it proved unusable). No cache: nothing to
        do."""

    def answer_budget(self):
        """Context manager: the calls inside share this LLM's per-answer budget."""
        return answer_budget(self.answer_deadline_s)

    def _deadline(self) -> Deadline | None:
        """The tighter of this call's deadline and the current answer's budget."""
        seconds = self.call_deadline_s
        call = Deadline.after(seconds, "call") if seconds and seconds > 0 else None
        budget = current_answer_budget()
        if budget is None:
            return call
        if call is None or budget.at < call.at:
            return budget
        return call

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict | None = None,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
        stop: list[str] | None = None,
        cache: bool = True,
        sample: int = 0,
    ) -> LLMResponse:
        """One completion. ``sample`` distinguishes repeated samples of the same prompt
        (so the response cache does not return the same answer for each)."""
        params = {
            k: v
            for k, v in {
                "temperature": temperature,
                "top_p": top_p,
                "max_tokens": max_tokens,
                "tools": tools,
                "tool_choice": tool_choice,
                "stop": stop,
            }.items()
            if v is not None
        }
        if json_schema is not None:  # llama.cpp constrains decoding to it with a grammar
            params["response_format"] = {"type": "json_object", "schema": json_schema}
        elif json_mode:
            params["response_format"] = {"type": "json_object"}
        params["_cache"] = cache
        params["_sample"] = sample
        deadline = self._deadline()
        if deadline is not None and deadline.expired():
            raise LLMDeadlineExceeded(
                deadline.explain(self.describe(), "the time was spent before this call")
            )
        params["_deadline"] = deadline
        started = time.perf_counter()
        response = self._chat(messages, params)
        if not response.usage.latency_s:
            response.usage.latency_s = time.perf_counter() - started
        response.usage.calls = 1
        response.usage.cached_calls = int(response.cached)
        self.ledger.record(response.usage)
        return response

    def chat_json(
        self,
        messages: list[Message],
        *,
        schema: type[BaseModel] | None = None,
        check: Callable[[Any], Any] | None = None,
        **params: Any,
    ) -> tuple[Any, LLMResponse]:
        """Parsed JSON (validated against ``schema`` and/or ``check``), re-asking once on failure.

        ``check`` may transform the value and must raise ``ValueError`` with a reason when it
        is unusable. Raises :class:`LLMBadOutput` when the second reply is unusable too.
        """
        history = list(messages)
        last_error = ""
        response: LLMResponse | None = None
        if schema is not None and params.get("json_mode", True) is not False:
            # schema-constrained output where the endpoint supports it (an endpoint that rejects
            # it is asked again without: see OpenAICompatibleLLM); the checks below stay
            params.setdefault("json_schema", schema.model_json_schema())
        for _attempt in range(2):
            response = self.chat(history, **params)
            try:
                value = parse_json(response.text)
                if schema is not None:
                    value = schema.model_validate(value)
                if check is not None:
                    value = check(value)
                return value, response
            except (
                JSONParseError,
                ValidationError,
                ValueError,
                TypeError,
                KeyError,
                IndexError,
                AttributeError,
            ) as error:
                # (a ``check`` that trips over an odd shape - a list for an object, a missing key -
                # is
                # an unusable reply too, not a traceback)
                self.forget(response)  # an unusable reply is not worth replaying from the cache
                last_error = _short(error)
                history = [
                    *history,
                    {"role": "assistant", "content": response.text},
                    {"role": "user", "content": REASK.format(error=last_error)},
                ]
        snippet = (response.text if response else "")[:200].replace("\n", " ")
        raise LLMBadOutput(
            f"the model ({self.model}) returned unusable output twice: {last_error}; "
            f"last reply began: {snippet!r}"
        )


def _short(error: Exception) -> str:
    text = str(error)
    if isinstance(error, (TypeError, KeyError, IndexError, AttributeError)):
        text = f"unexpected shape ({type(error).__name__}: {error})"
    if isinstance(error, ValidationError):
        text = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()[:5]
        )
    return text[:400]
