"""A fake OpenAI-compatible chat server on 127.0.0.1 for tests (real HTTP, scripted replies).

Each queued step says what the next POST /v1/chat/completions gets: a reply text (wrapped in
the OpenAI response shape), a raw status/body, a delay (to provoke client time-outs), or
native tool calls. Requests are recorded for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    text: str | None = None
    status: int = 200
    body: str | None = None  # raw body (overrides text), e.g. invalid JSON
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None


def completion(
    text: str | None, model: str = "fake-model", tool_calls=None, usage=None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for i, c in enumerate(tool_calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": usage or {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as server:``; ``server.base_url`` ends in /v1."""

    def __init__(self, responder: Callable[[dict[str, Any]], Step] | None = None) -> None:
        self.steps: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.responder = responder
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "body": payload, "headers": dict(self.headers)}
                    )
                    if server.responder is not None:
                        step = server.responder(payload)
                    elif server.steps:
                        step = server.steps.pop(0)
                    else:
                        step = Step(
                            status=500, body='{"error": {"message": "no scripted reply left"}}'
                        )
                if step.delay_s:
                    time.sleep(step.delay_s)
                body = (
                    step.body
                    if step.body is not None
                    else json.dumps(
                        completion(
                            step.text,
                            payload.get("model", "fake-model"),
                            step.tool_calls,
                            step.usage,
                        )
                    )
                )
                data = body.encode("utf-8")
                try:
                    self.send_response(step.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (time-out test)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *steps: Step | str) -> None:
        with self._lock:
            self.steps.extend(Step(text=s) if isinstance(s, str) else s for s in steps)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
