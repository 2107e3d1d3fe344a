"""Client for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

POST ``{base_url}/chat/completions`` with httpx. Retries with exponential backoff (and
``Retry-After``) on 429, 5xx, timeouts and connection errors; a semaphore caps concurrent
requests; responses are cached on disk keyed by model, messages and parameters; every
response carries token usage, latency and cost. An endpoint that cannot be reached is a
clear :class:`LLMUnavailable`, not a stack trace.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from chemground.llm.base import LLM, LLMError, LLMResponse, LLMUnavailable, Message, ToolCall, Usage
from chemground.llm.jsonparse import JSONParseError, parse_json

RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}


class ResponseCache:
    """Completed responses on disk, keyed by a hash of the full request."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)")

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, body: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, json.dumps(body)))
            self._db.commit()


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
    ) -> None:
        super().__init__()
        if not base_url:
            raise LLMUnavailable("no LLM endpoint configured: set CHEMGROUND_LLM_BASE_URL or pass --llm-base-url")
        if not model:
            raise LLMUnavailable("no LLM model configured: set CHEMGROUND_LLM_MODEL or pass --llm-model")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.defaults = {"temperature": temperature, "top_p": top_p}
        if max_tokens:
            self.defaults["max_tokens"] = max_tokens
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.cost_per_1k_input = cost_per_1k_input
        self.cost_per_1k_output = cost_per_1k_output
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self.cache = ResponseCache(cache_path) if cache_path else None
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)), headers=headers)

    def _request_body(self, messages: list[Message], params: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.defaults}
        body.update({k: v for k, v in params.items() if not k.startswith("_")})
        return body

    def _cache_key(self, body: dict[str, Any], sample: int) -> str:
        payload = json.dumps({"url": self.base_url, "body": body, "sample": sample}, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def _chat(self, messages: list[Message], params: dict[str, Any]) -> LLMResponse:
        body = self._request_body(messages, params)
        use_cache = self.cache is not None and params.get("_cache", True)
        key = self._cache_key(body, params.get("_sample", 0)) if use_cache else ""
        if use_cache:
            cached = self.cache.get(key)  # type: ignore[union-attr]
            if cached is not None:
                response = self._parse(cached, latency=0.0)
                response.cached = True
                response.usage.cost_usd = 0.0
                return response
        started = time.perf_counter()
        data = self._post_with_retries(body)
        response = self._parse(data, latency=time.perf_counter() - started)
        if use_cache:
            self.cache.put(key, data)  # type: ignore[union-attr]
        return response

    def _post_with_retries(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            try:
                with self._slots:
                    reply = self._http.post(url, json=body)
            except httpx.TimeoutException as error:
                last_problem = f"timed out ({type(error).__name__})"
            except httpx.ConnectError as error:
                last_problem = f"cannot connect ({error})"
                if attempt == self.max_retries:
                    raise LLMUnavailable(
                        f"cannot reach the LLM endpoint {self.base_url}: {error}. Is the server running? "
                        "Set CHEMGROUND_LLM_BASE_URL or pass --llm-base-url."
                    ) from error
            except httpx.HTTPError as error:
                last_problem = f"HTTP error ({type(error).__name__}: {error})"
            else:
                if reply.status_code == 200:
                    try:
                        return reply.json()
                    except json.JSONDecodeError:
                        last_problem = f"the endpoint returned a body that is not JSON: {reply.text[:120]!r}"
                elif reply.status_code in RETRY_STATUSES:
                    last_problem = f"HTTP {reply.status_code}: {reply.text[:200]}"
                    retry_after = reply.headers.get("retry-after")
                    if retry_after and attempt < self.max_retries:
                        try:
                            time.sleep(min(float(retry_after), 60.0))
                            continue
                        except ValueError:
                            pass
                else:
                    raise LLMError(self._explain(reply))
            if attempt < self.max_retries:
                time.sleep(self.backoff_base_s * (2 ** attempt) * (0.5 + random.random() / 2))
        raise LLMError(f"the LLM endpoint {self.base_url} failed after {self.max_retries + 1} attempts: {last_problem}")

    def _explain(self, reply: httpx.Response) -> str:
        detail = reply.text[:300]
        try:
            detail = reply.json().get("error", {}).get("message", detail)
        except (json.JSONDecodeError, AttributeError):
            pass
        if reply.status_code in (401, 403):
            return f"the LLM endpoint refused the request (HTTP {reply.status_code}): {detail}. Check CHEMGROUND_LLM_API_KEY."
        if reply.status_code == 404:
            return (f"the LLM endpoint has no {self.base_url}/chat/completions or no model {self.model!r} "
                    f"(HTTP 404): {detail}")
        return f"the LLM endpoint rejected the request (HTTP {reply.status_code}): {detail}"

    def _parse(self, data: dict[str, Any], latency: float) -> LLMResponse:
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError) as error:
            raise LLMError(f"the endpoint's reply has no choices[0].message: {str(data)[:200]}") from error
        text = message.get("content") or ""
        calls = []
        for raw in message.get("tool_calls") or []:
            function = raw.get("function") or {}
            arguments_text = function.get("arguments") or "{}"
            try:
                arguments = parse_json(arguments_text) if isinstance(arguments_text, str) else dict(arguments_text)
            except JSONParseError:
                arguments = {}
            calls.append(ToolCall(id=raw.get("id", ""), name=function.get("name", ""),
                                  arguments=arguments if isinstance(arguments, dict) else {},
                                  raw_arguments=arguments_text if isinstance(arguments_text, str) else json.dumps(arguments_text)))
        usage_data = data.get("usage") or {}
        prompt = int(usage_data.get("prompt_tokens") or 0)
        completion = int(usage_data.get("completion_tokens") or 0)
        estimated = not usage_data
        if estimated:
            completion = max(1, len(text) // 4)
        usage = Usage(prompt_tokens=prompt, completion_tokens=completion, latency_s=latency, estimated=estimated)
        usage.cost_usd = prompt / 1000 * self.cost_per_1k_input + completion / 1000 * self.cost_per_1k_output
        return LLMResponse(text=text, model=data.get("model") or self.model, usage=usage, tool_calls=calls,
                           finish_reason=choice.get("finish_reason"), raw=data)

    def close(self) -> None:
        self._http.close()
