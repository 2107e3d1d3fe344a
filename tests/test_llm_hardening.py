"""Hardening of the OpenAI-compatible client (issue 14): wall-clock deadlines, garbage replies,
oversized replies and the response cache, each against a real HTTP server on 127.0.0.1.

Every test is bounded: deadlines are 1-2 s and the servers stop when the client hangs up.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable

import pytest

from chemground.llm import LLMDeadlineExceeded, LLMError
from chemground.llm.base import answer_budget
from chemground.llm.config import llm_from_settings
from chemground.llm.openai_client import OpenAICompatibleLLM, response_cache
from chemground.settings import Settings
from tests.support.fake_openai import FakeOpenAIServer, Step, completion

MESSAGES = [{"role": "user", "content": "x"}]


class RawServer:
    """A TCP server on 127.0.0.1 whose ``handler(conn)`` writes whatever bytes it likes
    (trickled headers, endless bodies...). Handlers stop when the client hangs up."""

    def __init__(self, handler: Callable[[socket.socket], None]) -> None:
        self.connections = 0
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.connections += 1
                conn: socket.socket = self.request
                conn.settimeout(5)
                _read_request(conn)
                try:
                    handler(conn)
                except OSError:
                    pass  # the client hung up: what these tests want

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        rest += chunk


def trickle_body(conn: socket.socket, every_s: float = 0.3, limit_s: float = 30.0) -> None:
    """Headers at once, then the body one byte every ``every_s`` (the issue's repro, faster)."""
    body = json.dumps(completion("x" * 10_000)).encode()
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    end = time.monotonic() + limit_s
    for byte in body:
        if time.monotonic() > end:
            return
        conn.sendall(bytes([byte]))
        time.sleep(every_s)


def trickle_headers(conn: socket.socket, every_s: float = 0.3, limit_s: float = 30.0) -> None:
    """Never finishes the headers: one header byte every ``every_s``."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        conn.sendall(b"X")
        time.sleep(every_s)


def silent(conn: socket.socket) -> None:
    """Accepts, reads the request, never answers."""
    time.sleep(10)


def client(base_url: str, tmp_path=None, **kw) -> OpenAICompatibleLLM:
    kw.setdefault("backoff_base_s", 0.01)
    return OpenAICompatibleLLM(
        base_url, "fake-model", cache_path=(tmp_path / "cache.sqlite") if tmp_path else None, **kw
    )


# -- 1. deadlines ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "handler", [trickle_body, trickle_headers, silent], ids=["body", "headers", "silent"]
)
def test_a_trickling_or_silent_endpoint_is_cut_off_at_the_call_deadline(handler):
    with RawServer(handler) as server:
        llm = client(server.base_url, timeout_s=10.0, max_retries=4, call_deadline_s=1.0)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineExceeded) as caught:
            llm.chat(MESSAGES)
        elapsed = time.monotonic() - started
    assert 0.9 <= elapsed < 2.0, elapsed
    message = str(caught.value)
    assert f"the model at {server.base_url} did not answer within 1 s" in message
    assert "CHEMGROUND_LLM_CALL_DEADLINE_S" in message


def test_retries_and_backoff_stop_when_the_deadline_is_spent():
    with FakeOpenAIServer() as server:
        server.queue(*[Step(status=503, body="busy")] * 10)
        llm = client(server.base_url, max_retries=9, backoff_base_s=5.0, call_deadline_s=1.0)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineExceeded, match=r"within 1 s.*HTTP 503"):
            llm.chat(MESSAGES)
        assert time.monotonic() - started < 0.8  # no 5 s backoff slept into the deadline
    assert len(server.requests) == 1


def test_retry_after_beyond_the_deadline_is_not_waited_for():
    with FakeOpenAIServer() as server:
        server.queue(Step(status=429, body="slow down", headers={"Retry-After": "30"}), "late")
        llm = client(server.base_url, max_retries=3, call_deadline_s=1.0)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineExceeded):
            llm.chat(MESSAGES)
        assert time.monotonic() - started < 0.8
    assert len(server.requests) == 1


def test_retries_within_the_deadline_still_succeed():
    with FakeOpenAIServer() as server:
        server.queue(Step(status=500, body="boom"), Step(text="late", delay_s=1.0), "on time")
        llm = client(server.base_url, timeout_s=0.3, max_retries=4, call_deadline_s=2.0)
        assert llm.chat(MESSAGES).text == "on time"
    assert len(server.requests) == 3


def test_calls_of_one_answer_share_one_budget():
    with FakeOpenAIServer() as server:
        server.queue(*[Step(text="step", delay_s=0.6)] * 5)
        llm = client(server.base_url, call_deadline_s=1.0, answer_deadline_s=1.5)
        started = time.monotonic()
        texts = []
        with pytest.raises(LLMDeadlineExceeded) as caught, llm.answer_budget():
            for _ in range(5):
                texts.append(llm.chat(MESSAGES, cache=False).text)
        elapsed = time.monotonic() - started
    assert texts == ["step", "step"]  # each call fits in 1 s, the third overruns the 1.5 s budget
    assert 1.4 <= elapsed < 2.2, elapsed
    assert "did not answer within the 1.5 s allowed for one answer" in str(caught.value)
    assert "CHEMGROUND_LLM_ANSWER_DEADLINE_S" in str(caught.value)


def test_a_spent_budget_makes_no_request():
    with FakeOpenAIServer() as server:
        server.queue("never")
        llm = client(server.base_url, call_deadline_s=5.0)
        with answer_budget(0.05):
            time.sleep(0.1)
            with pytest.raises(LLMDeadlineExceeded, match="spent before this call"):
                llm.chat(MESSAGES)
    assert server.requests == []


def test_no_budget_outside_an_answer():
    with answer_budget(None) as budget:
        assert budget is None
    with answer_budget(10) as outer, answer_budget(100) as inner:
        assert inner is outer  # a nested budget keeps the tighter one


def test_deadlines_and_caps_come_from_settings_and_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CHEMGROUND_CONFIG", str(tmp_path / "none.toml"))
    settings = Settings(
        kb={"path": tmp_path / "kb.sqlite"},
        llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"},
        cache_dir=tmp_path,
    )
    assert (settings.llm.call_deadline_s, settings.llm.answer_deadline_s) == (60.0, 180.0)
    assert settings.llm.max_response_bytes == 2_000_000
    monkeypatch.setenv("CHEMGROUND_LLM_CALL_DEADLINE_S", "7.5")
    monkeypatch.setenv("CHEMGROUND_LLM_ANSWER_DEADLINE_S", "20")
    monkeypatch.setenv("CHEMGROUND_LLM_MAX_RESPONSE_BYTES", "1000")
    monkeypatch.setenv("CHEMGROUND_LLM_CACHE_MAX_ENTRIES", "10")
    settings = Settings(
        kb={"path": tmp_path / "kb.sqlite"},
        llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"},
        cache_dir=tmp_path,
    )
    llm = llm_from_settings(settings)
    assert (llm.call_deadline_s, llm.answer_deadline_s, llm.max_response_bytes) == (7.5, 20.0, 1000)
    assert llm.cache is not None and llm.cache.max_entries == 10


# -- 2. garbage replies ----------------------------------------------------------------------------

GARBAGE = {
    "choices null": '{"choices": [null]}',
    "choices empty": '{"choices": []}',
    "choices missing": '{"id": "x"}',
    "choices not a list": '{"choices": "yes"}',
    "not an object": "[1, 2, 3]",
    "json null": "null",
    "json string": '"hello"',
    "no message": '{"choices": [{"index": 0, "finish_reason": "stop"}]}',
    "message null": '{"choices": [{"message": null}]}',
    "message a string": '{"choices": [{"message": "hi"}]}',
    "no content": '{"choices": [{"message": {"role": "assistant"}}]}',
    "content null": '{"choices": [{"message": {"role": "assistant", "content": null}}]}',
    "content a number": '{"choices": [{"message": {"content": 42}}]}',
    "content an object": '{"choices": [{"message": {"content": {"text": "hi"}}}]}',
    "content parts not text": '{"choices": [{"message": {"content": [{"type": "image", "url": '
    "1}]}}]}",
    "tool_calls not a list": '{"choices": [{"message": {"content": "x", "tool_calls": "call"}}]}',
    "tool call not an object": '{"choices": [{"message": {"content": null, "tool_calls": [7]}}]}',
    "error object": '{"error": {"message": "model overloaded"}}',
    "refusal": '{"choices": [{"message": {"content": null, "refusal": "I will not"}}]}',
    "not JSON": "this is not json",
    "HTML error page": "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
    "deeply nested": "[" * 100_000 + "]" * 100_000,
    "empty body": "",
}


@pytest.fixture(scope="module")
def shared_server():
    """One server for the many garbage cases (starting and stopping one costs half a second)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.mark.parametrize("body", GARBAGE.values(), ids=GARBAGE.keys())
def test_a_garbage_reply_is_a_clear_error_and_is_not_cached(body, tmp_path, shared_server):
    shared_server.steps.clear()
    shared_server.queue(*[Step(body=body)] * 2)
    llm = client(shared_server.base_url, tmp_path, max_retries=1, call_deadline_s=5.0)
    with pytest.raises(LLMError) as caught:
        llm.chat(MESSAGES)
    message = str(caught.value)
    assert message and "Traceback" not in message and len(message) < 1000
    assert len(llm.cache) == 0  # type: ignore[arg-type]


def test_a_garbage_reply_names_what_is_wrong():
    with FakeOpenAIServer() as server:
        server.queue(
            Step(body='{"choices": [null]}'),
            Step(body='{"choices": [{"message": {"content": 42}}]}'),
            Step(body='{"error": {"message": "model overloaded"}}'),
        )
        llm = client(server.base_url, max_retries=0)
        with pytest.raises(
            LLMError, match=r"the model at http://127\.0\.0\.1:\d+/v1 sent a reply .*choices\[0\]"
        ):
            llm.chat(MESSAGES)
        with pytest.raises(LLMError, match="content is a int, not text"):
            llm.chat(MESSAGES)
        with pytest.raises(LLMError, match="returned an error: model overloaded"):
            llm.chat(MESSAGES)


def test_odd_but_usable_replies_are_read():
    text_parts = [{"type": "text", "text": "ethyl "}, {"type": "text", "text": "acetate"}]
    parts = {
        "choices": [{"message": {"content": text_parts}, "finish_reason": 3}],
        "usage": {"prompt_tokens": "12", "completion_tokens": None},
        "model": ["not", "a", "name"],
    }
    args_object = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"id": 5, "function": {"name": "mw", "arguments": {"smiles": "CCO"}}},
                        {"function": {"name": "bad", "arguments": [1, 2]}},
                    ],
                }
            }
        ]
    }
    with FakeOpenAIServer() as server:
        server.queue(Step(body=json.dumps(parts)), Step(body=json.dumps(args_object)))
        llm = client(server.base_url, max_retries=0)
        first = llm.chat(MESSAGES)
        second = llm.chat(MESSAGES)
    assert (
        first.text == "ethyl acetate"
        and first.model == "fake-model"
        and first.finish_reason is None
    )
    assert first.usage.prompt_tokens == 12 and first.usage.completion_tokens == 0
    assert [c.name for c in second.tool_calls] == ["mw", "bad"]
    assert (
        second.tool_calls[0].arguments == {"smiles": "CCO"} and second.tool_calls[1].arguments == {}
    )


def test_a_lone_surrogate_in_the_reply_is_replaced():
    with FakeOpenAIServer() as server:
        server.queue(Step(body='{"choices": [{"message": {"content": "ethanol \\ud800 here"}}]}'))
        text = client(server.base_url, max_retries=0).chat(MESSAGES).text
    assert text == "ethanol ? here"
    text.encode("utf-8")


def test_a_20_mb_reply_with_a_length_is_refused_unread():
    def huge(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20000000\r\n\r\n"
        )
        chunk = b" " * 65536
        for _ in range(20_000_000 // len(chunk)):
            conn.sendall(chunk)

    with RawServer(huge) as server:
        llm = client(server.base_url, max_retries=3, call_deadline_s=5.0)
        started = time.monotonic()
        with pytest.raises(
            LLMError, match=r"larger than the 2,000,000 bytes allowed \(it announced 20,000,000"
        ):
            llm.chat(MESSAGES)
        assert time.monotonic() - started < 2.0
    assert server.connections == 1  # not retried


def test_a_20_mb_chunked_reply_stops_being_read_at_the_cap():
    sent = []

    def huge_chunked(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
            b"chunked\r\n\r\n"
        )
        chunk = b" " * 65536
        for _ in range(20_000_000 // len(chunk)):
            conn.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            sent.append(len(chunk))
        conn.sendall(b"0\r\n\r\n")

    with RawServer(huge_chunked) as server:
        llm = client(
            server.base_url, max_retries=3, call_deadline_s=5.0, max_response_bytes=1_000_000
        )
        with pytest.raises(
            LLMError, match=r"larger than the 1,000,000 bytes allowed \(stopped reading there\)"
        ):
            llm.chat(MESSAGES)
    assert sum(sent) < 20_000_000  # the client hung up long before the end


def test_cache_never_holds_garbage_and_drops_what_proves_unusable(tmp_path):
    with FakeOpenAIServer() as server:
        server.queue(Step(body='{"choices": [null]}'), "no json here", '{"a": 1}', "")
        llm = client(server.base_url, tmp_path, max_retries=0)
        with pytest.raises(LLMError):
            llm.chat([{"role": "user", "content": "garbage"}])
        value, _ = llm.chat_json([{"role": "user", "content": "json please"}])
        assert value == {"a": 1}
        assert llm.chat([{"role": "user", "content": "empty"}]).text == ""
        assert len(llm.cache) == 1  # only the usable JSON reply  # type: ignore[arg-type]
        server.queue('{"a": 2}', '{"a": 3}')
        fresh = client(server.base_url, tmp_path, max_retries=0)
        again, _ = fresh.chat_json([{"role": "user", "content": "json please"}])
    assert again == {
        "a": 2
    }  # the garbage first reply was not replayed from the cache: the model was asked again


def test_cache_is_bounded(tmp_path):
    with FakeOpenAIServer() as server:
        server.queue(*[f"reply {i}" for i in range(6)])
        llm = client(server.base_url, tmp_path, cache_max_entries=3)
        for i in range(6):
            llm.chat([{"role": "user", "content": f"q{i}"}])
        assert len(llm.cache) == 3  # type: ignore[arg-type]
        assert llm.chat([{"role": "user", "content": "q5"}]).cached  # the newest are kept
        server.queue("fresh")
        assert not llm.chat([{"role": "user", "content": "q0"}]).cached  # the oldest went


def test_a_corrupt_cache_file_is_set_aside_not_fatal(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with FakeOpenAIServer() as server:
        server.queue("fine")
        llm = client(server.base_url, tmp_path)
        assert llm.chat(MESSAGES).text == "fine"
        assert llm.chat(MESSAGES).cached
    assert list(tmp_path.glob("cache.sqlite.corrupt-*"))


def test_a_bad_cache_entry_is_dropped_and_asked_again(tmp_path):
    with FakeOpenAIServer() as server:
        server.queue("first", "second")
        llm = client(server.base_url, tmp_path)
        first = llm.chat(MESSAGES)
        cache = response_cache(tmp_path / "cache.sqlite")
        cache.put_json(
            first.cache_key, {"choices": [None]}
        )  # as an older version might have stored it
        assert llm.chat(MESSAGES).text == "second"
    assert len(server.requests) == 2


def test_every_call_from_settings_carries_a_completion_limit(tmp_path):
    """No path sent max_tokens, so a looping model ran to the end of its context (issue 20):
    the settings' limit applies to every call that sets none, and a call's own limit wins."""
    from chemground.llm.config import llm_from_settings
    from chemground.settings import Settings

    with FakeOpenAIServer() as server:
        server.queue("a", "b")
        settings = Settings(
            llm={"base_url": server.base_url, "model": "fake-model", "cache": False},
            cache_dir=tmp_path,
        )
        llm = llm_from_settings(settings)
        llm.chat(MESSAGES)
        llm.chat(MESSAGES, max_tokens=24)
    assert [r["body"].get("max_tokens") for r in server.requests] == [1024, 24]


def test_structured_calls_send_their_schema_and_fall_back_when_it_is_rejected(tmp_path):
    """Issue 20: schema-constrained JSON where the endpoint takes it (llama.cpp turns the schema
    into a grammar); an endpoint that answers 400 to it gets plain JSON mode from then on."""
    from pydantic import BaseModel

    class Verdict(BaseModel):
        ok: bool

    def rejects_schemas(payload):
        if "schema" in (payload.get("response_format") or {}):
            return Step(status=400, body='{"error": {"message": "unknown field: schema"}}')
        return Step(text='{"ok": true}')

    with FakeOpenAIServer() as server:
        server.queue('{"ok": true}')
        value, _ = client(server.base_url).chat_json(MESSAGES, schema=Verdict)
        assert value.ok and server.requests[0]["body"]["response_format"]["schema"]["properties"]
    with FakeOpenAIServer(rejects_schemas) as server:
        llm = client(server.base_url)
        assert llm.chat_json(MESSAGES, schema=Verdict)[0].ok
        assert llm.chat_json([{"role": "user", "content": "again"}], schema=Verdict)[0].ok
        formats = [r["body"]["response_format"] for r in server.requests]
        assert "schema" in formats[0] and formats[1:] == [{"type": "json_object"}] * 2
