"""Client for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

POST ``{base_url}/chat/completions`` with httpx. Retries with exponential backoff (and
``Retry-After``) on 429, 5xx, timeouts and connection errors; a semaphore caps concurrent
requests; responses are cached on disk keyed by model, messages and parameters; every
response carries token usage, latency and cost. An endpoint that cannot be reached is a
clear :class:`LLMUnavailable`, not a stack trace.

No call can stall: httpx's time-outs are per read, so a server that trickles a byte every few
seconds would never time out. Each call therefore has a wall-clock deadline (connect, every
retry, every backoff and the whole body; the tighter of the call's own deadline and the
budget of the answer it is part of). The body is streamed and the deadline checked between
reads, each read is limited to the time left, and a watchdog shuts the socket down at the
deadline, so even a server that trickles its headers is cut off on time. The body is read up
to a size cap (a 20 MB reply is refused, not buffered), and every field of the reply is
checked: a reply of the wrong shape is a clear :class:`LLMError`, never a traceback, and it
is never cached.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import random
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from chemground.cache import DiskCache
from chemground.llm.base import (
    LLM,
    Deadline,
    LLMDeadlineExceeded,
    LLMError,
    LLMRequestRejected,
    LLMResponse,
    LLMUnavailable,
    Message,
    ToolCall,
    Usage,
)
from chemground.llm.jsonparse import JSONParseError, parse_json

log = logging.getLogger(__name__)

RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}
DEFAULT_MAX_RESPONSE_BYTES = 2_000_000
DEFAULT_CACHE_MAX_ENTRIES = 50_000


def response_cache(path: Path, max_entries: int = DEFAULT_CACHE_MAX_ENTRIES) -> DiskCache:
    """Completed responses on disk, keyed by a hash of the full request (see ``DiskCache``).

    Only replies that parsed into a usable response are stored, and ``delete`` drops one that
    later proved unusable; the table is trimmed to ``max_entries``, oldest first.
    """
    return DiskCache(path, name="LLM response cache", table="responses", max_entries=max_entries)


class _Expired(Exception):
    """The deadline passed while a request was in flight."""


class _TooLarge(Exception):
    def __init__(self, size: int, declared: bool) -> None:
        super().__init__(size)
        self.size = size
        self.declared = declared


class _Watchdog:
    """Shuts the request's socket down when the deadline passes.

    httpx has no overall time-out, and a read that receives a byte now and then never times
    out; the socket is learnt from httpcore's ``trace`` extension as the connection is made
    (connections are not kept alive, so every request makes one) and shut down from a timer
    thread, which ends any read in progress at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.fired = False
        self._done = False

    def trace(self, event: str, info: dict[str, Any]) -> None:
        stream = info.get("return_value") if event.endswith(".complete") else None
        get_extra = getattr(stream, "get_extra_info", None)
        if get_extra is None:
            return
        try:
            sock = get_extra("socket")
        except Exception:
            return
        if isinstance(sock, socket.socket):
            with self._lock:
                self._sockets.append(sock)
                if self.fired:
                    self._shutdown(sock)

    def fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
            for sock in self._sockets:
                self._shutdown(sock)

    def done(self) -> None:
        with self._lock:
            self._done = True
            self._sockets.clear()

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        # the plain socket method, also for a TLS socket (whose own would drop its SSL state
        # mid-read)
        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass


class OpenAICompatibleLLM(LLM):
    """A chat model behind an OpenAI-compatible HTTP API."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        concurrency: int = 4,
        cache_path: Path | None = None,
        cost_per_1k_input: float = 0.0,
        cost_per_1k_output: float = 0.0,
        backoff_base_s: float = 1.0,
        call_deadline_s: float | None = 60.0,
        answer_deadline_s: float | None = 180.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        cache_max_entries: int = DEFAULT_CACHE_MAX_ENTRIES,
    ) -> None:
        super().__init__()
        if not base_url:
            raise LLMUnavailable(
                "no LLM endpoint configured: set CHEMGROUND_LLM_BASE_URL or pass --llm-base-url"
            )
        if not model:
            raise LLMUnavailable(
                "no LLM model configured: set CHEMGROUND_LLM_MODEL or pass --llm-model"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._schema_rejected = False  # the endpoint refused a JSON schema once: not sent again
        self.max_tokens = max_tokens
        self.defaults = {"temperature": temperature, "top_p": top_p}
        if max_tokens:
            self.defaults["max_tokens"] = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.call_deadline_s = call_deadline_s if call_deadline_s and call_deadline_s > 0 else None
        self.answer_deadline_s = (
            answer_deadline_s if answer_deadline_s and answer_deadline_s > 0 else None
        )
        self.max_response_bytes = max_response_bytes
        self.cost_per_1k_input = cost_per_1k_input
        self.cost_per_1k_output = cost_per_1k_output
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self.cache = response_cache(cache_path, cache_max_entries) if cache_path else None
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        # No keep-alive: every request makes its own connection, so the deadline watchdog always
        # knows the socket to cut (a pooled connection is invisible to it). An LLM call takes
        # seconds; a connection more is nothing beside it.
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            headers=headers,
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    def describe(self) -> str:
        return f"the model at {self.base_url}"

    def _request_body(self, messages: list[Message], params: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.defaults}
        body.update({k: v for k, v in params.items() if not k.startswith("_")})
        return body

    def _cache_key(self, body: dict[str, Any], sample: int) -> str:
        payload = json.dumps({"url": self.base_url, "body": body, "sample": sample}, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        fmt = params.get("response_format")
        if self._schema_rejected and isinstance(fmt, dict) and "schema" in fmt:
            params = {**params, "response_format": {"type": "json_object"}}
        try:
            return self._chat_once(messages, params)
        except LLMRequestRejected:
            fmt = params.get("response_format")
            if not (isinstance(fmt, dict) and "schema" in fmt):
                raise
            # an endpoint that does not take a JSON schema (OpenAI's API, older servers): plain
            # JSON mode from now on; the reply is still checked against the schema
            self._schema_rejected = True
            log.info("%s rejected a JSON schema in response_format; using JSON mode", self.base_url)
            return self._chat_once(messages, {**params, "response_format": {"type": "json_object"}})

    def _chat_once(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        body = self._request_body(messages, params)
        use_cache = self.cache is not None and params.get("_cache", True)
        key = self._cache_key(body, params.get("_sample", 0)) if use_cache else ""
        if use_cache:
            cached = self.cache.get_json(key)  # type: ignore[union-attr]
            if cached is not None:
                try:
                    response = self._parse(cached, latency=0.0)
                except LLMError:  # a bad entry (written by an older version): drop it and ask again
                    self.cache.delete(key)  # type: ignore[union-attr]
                else:
                    response.cached = True
                    response.cache_key = key
                    response.usage.cost_usd = 0.0
                    return response
        deadline = _tighter(
            params.get("_deadline"), self._deadline()
        )  # a wrapper may pass none of its own
        started = time.perf_counter()
        data = self._post_with_retries(body, deadline)
        response = self._parse(data, latency=time.perf_counter() - started)
        if use_cache and (
            response.text.strip() or response.tool_calls
        ):  # an empty reply is not worth keeping
            self.cache.put_json(key, data)  # type: ignore[union-attr]
            response.cache_key = key
        return response

    def forget(self, response: LLMResponse) -> None:
        if self.cache is not None and response.cache_key:
            self.cache.delete(response.cache_key)
            response.cache_key = ""

    # -- HTTP ------------------------------------------------------------------------------------
    def _expired(self, deadline: Deadline, last_problem: str = "") -> LLMDeadlineExceeded:
        return LLMDeadlineExceeded(deadline.explain(self.describe(), last_problem))

    def _post_with_retries(
        self, body: dict[str, Any], deadline: Deadline | None = None
    ) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            if deadline is not None and deadline.expired():
                raise self._expired(deadline, last_problem)
            wait: float | None = None  # seconds before the next attempt (None: the usual backoff)
            try:
                status, headers, content = self._send(url, body, deadline)
            except _Expired:
                assert deadline is not None  # only a deadline expires
                raise self._expired(
                    deadline, last_problem or "the reply was still coming"
                ) from None
            except _TooLarge as error:  # not retried: the same request would get the same reply
                raise LLMError(
                    f"the reply from {self.describe()} is larger than the "
                    f"{self.max_response_bytes:,} bytes allowed "
                    + (
                        f"(it announced {error.size:,} bytes)"
                        if error.declared
                        else "(stopped reading there)"
                    )
                    + "; set CHEMGROUND_LLM_MAX_RESPONSE_BYTES to allow more"
                ) from None
            except httpx.TimeoutException as error:
                last_problem = f"timed out ({type(error).__name__})"
            except httpx.ConnectError as error:
                last_problem = f"cannot connect ({error})"
                if attempt == self.max_retries:
                    raise LLMUnavailable(
                        f"cannot reach the LLM endpoint {self.base_url}: {error}. Is the server "
                        "running? "
                        "Set CHEMGROUND_LLM_BASE_URL or pass --llm-base-url."
                    ) from error
            except httpx.HTTPError as error:
                last_problem = f"HTTP error ({type(error).__name__}: {error})"
            else:
                if status == 200:
                    try:
                        return json.loads(content)
                    except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
                        last_problem = (
                            "the endpoint returned a body that is not JSON: "
                            f"{_snippet(content, 120)!r}"
                        )
                elif status in RETRY_STATUSES:
                    last_problem = f"HTTP {status}: {_snippet(content, 200)}"
                    retry_after = headers.get("retry-after")
                    if retry_after:
                        try:
                            asked = float(retry_after)
                            wait = min(max(asked, 0.0), 60.0) if math.isfinite(asked) else None
                        except ValueError:  # an HTTP date: the usual backoff
                            wait = None
                elif status in (400, 422):
                    raise LLMRequestRejected(self._explain(status, content))
                else:
                    raise LLMError(self._explain(status, content))
            if attempt < self.max_retries:
                if wait is None:
                    wait = self.backoff_base_s * (2**attempt) * (0.5 + random.random() / 2)
                if deadline is not None and deadline.remaining() <= wait:
                    # no time for another attempt: stop now instead of sleeping into the deadline
                    raise self._expired(deadline, last_problem)
                time.sleep(wait)
        raise LLMError(
            f"the LLM endpoint {self.base_url} failed after {self.max_retries + 1} attempts: "
            f"{last_problem}"
        )

    def _send(
        self, url: str, body: dict[str, Any], deadline: Deadline | None
    ) -> tuple[int, httpx.Headers, bytes]:
        """POST and read the whole body, within the deadline and the size cap."""
        if deadline is None:
            self._slots.acquire()
        elif not self._slots.acquire(timeout=max(0.0, deadline.remaining())):
            raise _Expired()  # waited for a free slot the whole time
        read_s = self.timeout_s
        if deadline is not None:
            read_s = min(read_s, deadline.remaining())
            if read_s <= 0:
                self._slots.release()
                raise _Expired()
        timeout = httpx.Timeout(read_s, connect=min(10.0, read_s))
        cap = self.max_response_bytes
        watchdog = _Watchdog()
        timer = (
            threading.Timer(deadline.remaining(), watchdog.fire) if deadline is not None else None
        )
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            with self._http.stream(
                "POST", url, json=body, timeout=timeout, extensions={"trace": watchdog.trace}
            ) as reply:
                declared = reply.headers.get("content-length", "")
                if cap and declared.isdigit() and int(declared) > cap:
                    raise _TooLarge(int(declared), declared=True)
                chunks: list[bytes] = []
                size = 0
                for chunk in reply.iter_bytes():
                    size += len(chunk)
                    if cap and (size > cap or reply.num_bytes_downloaded > cap):
                        raise _TooLarge(size, declared=False)
                    chunks.append(chunk)
                    if deadline is not None and deadline.expired():
                        raise _Expired()
                return reply.status_code, reply.headers, b"".join(chunks)
        except httpx.HTTPError:
            if watchdog.fired or (deadline is not None and deadline.expired()):
                raise _Expired() from None
            raise
        finally:
            watchdog.done()
            if timer is not None:
                timer.cancel()
            self._slots.release()

    def _explain(self, status: int, content: bytes) -> str:
        detail = _snippet(content, 300)
        try:
            data = json.loads(content)
            message = data.get("error", {}).get("message") if isinstance(data, dict) else None
            if isinstance(data, dict) and isinstance(data.get("error"), str):
                message = data["error"]
            if isinstance(message, str) and message:
                detail = message[:300]
        except (ValueError, RecursionError, AttributeError):
            pass
        if status in (401, 403):
            return (
                f"the LLM endpoint refused the request (HTTP {status}): {detail}. Check "
                "CHEMGROUND_LLM_API_KEY."
            )
        if status == 404:
            return (
                f"the LLM endpoint has no {self.base_url}/chat/completions or no model "
                f"{self.model!r} "
                f"(HTTP 404): {detail}"
            )
        return f"the LLM endpoint rejected the request (HTTP {status}): {detail}"

    # -- the reply -------------------------------------------------------------------------------
    def _bad_reply(self, what: str, data: Any) -> LLMError:
        return LLMError(
            f"{self.describe()} sent a reply chemground cannot use: {what} "
            f"(reply began: {_snippet(json.dumps(data, default=str).encode(), 200)!r})"
        )

    def _parse(self, data: Any, latency: float) -> LLMResponse:
        """The response in ``data``, every field checked (a wrong shape is an LLMError)."""
        if not isinstance(data, dict):
            raise self._bad_reply(f"a JSON {type(data).__name__}, not an object", data)
        if data.get("error") and not data.get("choices"):
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise LLMError(f"{self.describe()} returned an error: {str(message)[:300]}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise self._bad_reply("no choices", data)
        choice = choices[0]
        if not isinstance(choice, dict):
            raise self._bad_reply("choices[0] is not an object", data)
        message = choice.get("message")
        if not isinstance(message, dict):
            raise self._bad_reply(
                "choices[0] has no message"
                if message is None
                else "choices[0].message is not an object",
                data,
            )
        raw_calls = message.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise self._bad_reply("tool_calls is not a list", data)
        if message.get("content") is None and not raw_calls:
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal.strip():
                raise LLMError(f"{self.describe()} refused: {refusal[:300]}")
            finish = choice.get("finish_reason")
            raise self._bad_reply(
                "the message has no content and no tool calls"
                + (f" (finish_reason {finish!r})" if isinstance(finish, str) else ""),
                data,
            )
        text = _content_text(message.get("content"))
        if text is None:
            raise self._bad_reply(
                f"the message content is a {type(message.get('content')).__name__}, not text", data
            )
        calls = []
        for raw in raw_calls:
            if not isinstance(raw, dict):
                raise self._bad_reply("a tool call is not an object", data)
            function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
            arguments_text = function.get("arguments")
            if arguments_text is None:
                arguments_text = "{}"
            arguments: Any = {}
            if isinstance(arguments_text, str):
                arguments_text = _valid_text(arguments_text)
                try:
                    arguments = parse_json(arguments_text)
                except JSONParseError:
                    arguments = {}
                raw_arguments = arguments_text
            else:
                arguments = arguments_text
                raw_arguments = json.dumps(arguments_text, default=str)
            calls.append(
                ToolCall(
                    id=str(raw.get("id") or ""),
                    name=str(function.get("name") or ""),
                    arguments=arguments if isinstance(arguments, dict) else {},
                    raw_arguments=raw_arguments,
                )
            )
        usage_data = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt = _count(usage_data.get("prompt_tokens"))
        completion = _count(usage_data.get("completion_tokens"))
        estimated = not usage_data
        if estimated:
            completion = max(1, len(text) // 4)
        usage = Usage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            latency_s=latency,
            estimated=estimated,
        )
        usage.cost_usd = (
            prompt / 1000 * self.cost_per_1k_input + completion / 1000 * self.cost_per_1k_output
        )
        model = (
            data.get("model")
            if isinstance(data.get("model"), str) and data.get("model")
            else self.model
        )
        finish = (
            choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
        )
        return LLMResponse(
            text=text, model=model, usage=usage, tool_calls=calls, finish_reason=finish, raw=data
        )

    def close(self) -> None:
        self._http.close()
        if self.cache is not None:
            self.cache.close()


def _tighter(a: Deadline | None, b: Deadline | None) -> Deadline | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a.at <= b.at else b


def _content_text(content: Any) -> str | None:
    """The message content as text: a string, None (no text, e.g. only tool calls: "") or a list
    with ``{"type": "text", "text": ...}`` parts. Anything else gives None (not text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return _valid_text(content)
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        parts = [p.get("text") for p in content if p.get("type") in (None, "text")]
        if parts and all(isinstance(p, str) for p in parts):
            return _valid_text("".join(parts))  # type: ignore[arg-type]
    return None


def _valid_text(text: str) -> str:
    """``text`` with lone surrogates (valid in JSON escapes, not in UTF-8) replaced, so that
    printing or serving the answer cannot fail on them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")


def _count(value: Any) -> int:
    """A token count from the reply's usage (0 when it is missing or not a number)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)) and value == value and 0 <= value < 1e12:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _snippet(content: bytes, limit: int) -> str:
    return content[: limit * 4].decode("utf-8", errors="replace")[:limit]
