"""The HTTP API answers requests in parallel: no global lock, /health never waits (issue 14).

A deliberately slow fake stands in for the question answering: it blocks on an event the
test sets, so nothing here depends on timings.
"""

from __future__ import annotations

import sqlite3
import threading

import httpx
import pytest

from chemground.api.app import create_app
from chemground.kb.sqlite_store import SQLiteKB
from chemground.settings import Settings
from tests.support.uvicorn_server import serving

WAIT_S = (
    30  # how long a blocked request may wait before the test gives up (a failure, not a timing)
)


@pytest.fixture(scope="module")
def app(small_kb_path, tmp_path_factory):
    return create_app(
        Settings(
            kb={"path": small_kb_path},
            api={"threads": 4},
            cache_dir=tmp_path_factory.mktemp("cache"),
        )
    )


@pytest.fixture(scope="module")
def base_url(app):
    with serving(app) as url:
        yield url


@pytest.fixture
def qa(app):
    """The app's QA object; tests replace its ask() with monkeypatch (undone after each test)."""
    return app.state.service.qa


def _in_background(fn):
    box: dict = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", fn()), daemon=True)
    thread.start()
    return thread, box


def test_a_slow_question_blocks_neither_health_nor_other_requests(base_url, qa, monkeypatch):
    entered, release = threading.Event(), threading.Event()
    real_ask = qa.ask

    def slow_ask(question, **kwargs):
        if question.startswith("slow"):
            entered.set()
            assert release.wait(WAIT_S), "the test never released the slow question"
            question = "What is the molecular weight of benzene?"
        return real_ask(question, **kwargs)

    monkeypatch.setattr(qa, "ask", slow_ask)
    thread, box = _in_background(
        lambda: httpx.post(f"{base_url}/ask", json={"question": "slow one"}, timeout=WAIT_S + 30)
    )
    assert entered.wait(WAIT_S)
    try:
        # the slow question is still in progress: everything else is answered meanwhile
        health = httpx.get(f"{base_url}/health", timeout=WAIT_S)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        record = httpx.get(f"{base_url}/compound", params={"q": "aspirin"}, timeout=WAIT_S)
        assert record.status_code == 200 and record.json()["formula"] == "C9H8O4"
        other = httpx.post(
            f"{base_url}/ask", json={"question": "smiles for aspirin"}, timeout=WAIT_S
        )
        assert other.status_code == 200 and other.json()["value"] == "CC(=O)Oc1ccccc1C(=O)O"
        assert thread.is_alive() and not release.is_set()
    finally:
        release.set()
    thread.join(WAIT_S + 30)
    assert box["result"].status_code == 200 and box["result"].json()["value"] == 78.11


def test_questions_are_answered_in_parallel(base_url, qa, monkeypatch):
    """Two questions meet inside ask() at the same time; with one lock, the barrier would break."""
    barrier = threading.Barrier(2, timeout=WAIT_S)
    real_ask = qa.ask

    def meeting_ask(question, **kwargs):
        barrier.wait()
        return real_ask(question, **kwargs)

    monkeypatch.setattr(qa, "ask", meeting_ask)
    threads = [
        _in_background(
            lambda q=q: httpx.post(f"{base_url}/ask", json={"question": q}, timeout=WAIT_S + 30)
        )
        for q in ("smiles for aspirin", "What is the formula of caffeine?")
    ]
    for thread, _ in threads:
        thread.join(WAIT_S + 30)
    replies = [box["result"] for _, box in threads]
    assert [r.status_code for r in replies] == [200, 200], [r.text[:200] for r in replies]
    assert {r.json()["value"] for r in replies} == {"CC(=O)Oc1ccccc1C(=O)O", "C8H10N4O2"}


def test_health_answers_from_memory(base_url, app, monkeypatch):
    """/health does not touch the KB (it used to count rows under the global lock)."""
    kb = app.state.service.workspace.kb

    def no_stats():
        raise AssertionError("/health queried the KB")

    monkeypatch.setattr(kb, "stats", no_stats)
    reply = httpx.get(f"{base_url}/health", timeout=WAIT_S)
    assert reply.status_code == 200 and reply.json()["reactions"] == 274


def test_many_concurrent_requests_all_succeed(base_url):
    results: list[int] = []
    lock = threading.Lock()

    def client(i: int) -> None:
        with httpx.Client(timeout=60) as c:
            for j in range(3):
                reply = (
                    c.get(f"{base_url}/health")
                    if (i + j) % 3 == 0
                    else c.post(
                        f"{base_url}/ask", json={"question": "What is the molecular weight of CCO?"}
                    )
                    if (i + j) % 3 == 1
                    else c.get(f"{base_url}/compound", params={"q": "benzaldehyde"})
                )
                with lock:
                    results.append(reply.status_code)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [200] * 36


def test_a_readonly_kb_gives_each_thread_its_own_connection(small_kb_path):
    kb = SQLiteKB(small_kb_path, readonly=True)
    mine = kb.connection
    seen: dict[str, object] = {}
    opened, finish = threading.Event(), threading.Event()

    def other_thread() -> None:
        seen["connection"] = kb.connection
        seen["count"] = kb.execute("SELECT COUNT(*) FROM reactions").fetchone()[0]
        opened.set()
        finish.wait(WAIT_S)
        try:
            kb.execute("SELECT 1")
        except sqlite3.ProgrammingError as error:  # closed by kb.close() meanwhile
            seen["after close"] = error

    short_lived = threading.Thread(target=lambda: kb.execute("SELECT 1").fetchone())
    short_lived.start()
    short_lived.join()
    assert len(kb._readers) == 1  # an ended thread's connection went with it
    worker = threading.Thread(target=other_thread)
    worker.start()
    assert opened.wait(WAIT_S)
    assert seen["connection"] is not mine and seen["count"] == 274
    assert kb.connection is mine and len(kb._readers) == 2
    kb.close()  # closes every thread's connection
    finish.set()
    worker.join(WAIT_S)
    assert "after close" in seen
    with pytest.raises(sqlite3.ProgrammingError):
        mine.execute("SELECT 1")


def test_a_writable_kb_keeps_one_connection(kb_copy):
    seen = {}
    worker = threading.Thread(target=lambda: seen.setdefault("connection", kb_copy.connection))
    worker.start()
    worker.join()
    assert seen["connection"] is kb_copy.connection
