"""A GGUF model run inside this process (``--llm-base-url local:PATH.gguf``), with no server.

For one user on one machine a server is a process to start, a port to pick and a socket per
call; running the model in-process with llama-cpp-python (the optional extra ``local-llm``)
removes all three. It speaks the same :class:`~chemground.llm.base.LLM` interface as the HTTP
client, so every path (parser, reasoners, Text2Cypher, literature answers, agent) works
unchanged, including schema-constrained JSON: llama.cpp turns ``response_format``'s JSON
schema into a grammar.

Why the model is loaded lazily and guarded by a lock: loading takes seconds and hundreds of MB,
which a command that never calls the model should not pay, and a ``llama_cpp.Llama`` object
is not safe to call from two threads at once.

Deadlines: llama.cpp has no wall-clock limit, so a call with a deadline streams the reply and
checks the clock between tokens; when it passes, generation stops and the call raises
:class:`~chemground.llm.base.LLMDeadlineExceeded`, as the HTTP client does. (An exception raised
in a logits processor would not do: llama.cpp calls it through ctypes, which swallows it.) A
streamed reply carries no usage, so its token counts are counted here and marked estimated.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from chemground.llm.base import (
    LLM,
    Deadline,
    LLMDeadlineExceeded,
    LLMRequestRejected,
    LLMResponse,
    LLMUnavailable,
    Message,
    Usage,
)

LOCAL_PREFIX = "local:"


def local_model_path(base_url: str | None) -> Path | None:
    """The GGUF path of a ``local:PATH`` endpoint setting, or None for an HTTP endpoint.

    Args:
        base_url: the configured LLM endpoint (``http://...`` or ``local:PATH.gguf``).

    Returns:
        The model file's path (``~`` expanded), or None when ``base_url`` is not ``local:``.
    """
    if not base_url or not base_url.startswith(LOCAL_PREFIX):
        return None
    return Path(base_url[len(LOCAL_PREFIX) :].strip()).expanduser()


class InProcessLLM(LLM):
    """A chat model from a GGUF file, run by llama-cpp-python in this process."""

    def __init__(
        self,
        path: str | Path,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int | None = None,
        call_deadline_s: float | None = None,
        answer_deadline_s: float | None = None,
        seed: int = 0,
    ) -> None:
        """Check the model file and the engine now; load the weights on the first call.

        Args:
            path: the GGUF model file.
            n_ctx: context window in tokens (prompt plus reply).
            n_threads: CPU threads for llama.cpp; default half the cores (at least 1), because
                llama.cpp slows down sharply when its threads compete for busy cores.
            temperature: default sampling temperature.
            top_p: default nucleus sampling.
            max_tokens: default reply limit (None: up to the context window).
            call_deadline_s: wall-clock limit for one call (None or <= 0: none).
            answer_deadline_s: wall-clock budget shared by the calls of one answer (None or
                <= 0: none).
            seed: sampling seed, for repeatable replies.

        Raises:
            LocalModelError: the file is missing or not a GGUF model.
            LLMUnavailable: llama-cpp-python is not installed.
        """
        from chemground.llm.local import EXTRA_HINT, read_gguf_info  # httpx: not needed before

        super().__init__()
        self.info = read_gguf_info(path)
        self.path = self.info.path
        try:
            import llama_cpp  # noqa: F401 - only checked here; loaded on first use
        except ImportError as error:
            raise LLMUnavailable(
                f"running {self.path} in-process needs llama-cpp-python: {EXTRA_HINT}"
            ) from error
        self.model = str(self.info.metadata.get("general.name") or self.path.stem)
        self.context_tokens = n_ctx
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
        self.temperature = temperature
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.call_deadline_s = call_deadline_s if call_deadline_s and call_deadline_s > 0 else None
        self.answer_deadline_s = (
            answer_deadline_s if answer_deadline_s and answer_deadline_s > 0 else None
        )
        self.seed = seed
        self._llama = None
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"the local model {self.path}"

    def _load(self):
        if self._llama is None:
            from llama_cpp import Llama

            self._llama = Llama(
                model_path=str(self.path),
                n_ctx=self.context_tokens,
                n_threads=self.n_threads,
                seed=self.seed,
                verbose=False,
            )
        return self._llama

    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        deadline: Deadline | None = params.get("_deadline")
        kwargs: dict[str, Any] = {
            "temperature": params.get("temperature", self.temperature),
            "top_p": params.get("top_p", self.top_p),
            "seed": self.seed,
        }
        max_tokens = params.get("max_tokens", self.max_tokens)
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        for key in ("stop", "response_format"):
            if params.get(key) is not None:
                kwargs[key] = params[key]
        if params.get("tools"):
            raise LLMRequestRejected(
                f"{self.describe()} is run without a tool-calling chat format; describe the tools "
                "in the prompt instead"
            )
        with self._lock:
            llama = self._load()
            try:
                if deadline is None:
                    out = llama.create_chat_completion(messages=messages, **kwargs)
                    return self._response(out)
                return self._streamed(llama, messages, kwargs, deadline)
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise LLMRequestRejected(
                    f"{self.describe()} refused the request: {error}"
                ) from None

    def _response(self, out: dict[str, Any]) -> LLMResponse:
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMResponse(
            text=choice["message"].get("content") or "",
            model=self.model,
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
            ),
            finish_reason=choice.get("finish_reason"),
            raw=out,
        )

    def _streamed(
        self, llama, messages: list[Message], kwargs: dict[str, Any], deadline: Deadline
    ) -> LLMResponse:
        parts: list[str] = []
        finish_reason = None
        chunks = 0
        stream = llama.create_chat_completion(messages=messages, stream=True, **kwargs)
        try:
            for chunk in stream:
                if deadline.expired():
                    raise LLMDeadlineExceeded(
                        deadline.explain(
                            self.describe(), f"generation stopped after {chunks} tokens"
                        )
                    )
                choice = chunk["choices"][0]
                text = choice.get("delta", {}).get("content")
                if text:
                    parts.append(text)
                    chunks += 1
                finish_reason = choice.get("finish_reason") or finish_reason
        finally:
            stream.close()
        prompt = "\n".join(str(m.get("content") or "") for m in messages)
        return LLMResponse(
            text="".join(parts),
            model=self.model,
            usage=Usage(
                prompt_tokens=len(llama.tokenize(prompt.encode("utf-8"), add_bos=False)),
                completion_tokens=chunks,
                estimated=True,
            ),
            finish_reason=finish_reason,
        )
