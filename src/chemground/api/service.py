"""What the HTTP API answers from: one QA over a read-only workspace, shared by worker threads.

Requests run on a fixed pool of threads (``api_threads``), so a slow question occupies one
thread and the others go on; there is no global lock. What the threads share is safe to
share: the read-only KB gives each thread its own SQLite connection, OPSIN and the fuzzy
name index lock themselves, ``lru_cache`` is thread-safe, and everything built lazily
(the KB, resolver, parser, fuzzy index and fingerprints, OPSIN's singleton, the channels
``--method auto`` routes to) is built here at start-up on one thread; the reaction graph is
opened under a lock. Components built on first use (other retrieval methods, LLM
reasoners) are built under a lock, once. ``/health`` answers from a snapshot of the KB
counts taken at start-up and refreshed by a background thread when the KB file changes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from chemground import __version__
from chemground.errors import ChemgroundError
from chemground.retrieval.graph import GraphAccess
from chemground.settings import Settings

log = logging.getLogger("chemground.api")


class _LockedGraphAccess(GraphAccess):
    """GraphAccess whose first open (or build) of the reaction graph happens once, not once per
    thread."""

    def __init__(self, workspace) -> None:
        super().__init__(workspace)
        self._open_lock = threading.Lock()

    def graph(self):
        if self._graph is None:
            with self._open_lock:
                return super().graph()
        return self._graph


def encode_json(payload: Any) -> bytes:
    """Response body for ``payload`` (encoded on the worker thread, not on the event loop)."""
    try:
        return json.dumps(
            payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        ).encode("utf-8")
    except (
        UnicodeEncodeError
    ):  # a lone surrogate slipped into some text: escape it rather than fail
        return json.dumps(
            payload, ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode("ascii")


class Service:
    """The QA, its worker threads and the health snapshot of one server process."""

    def __init__(self, settings: Settings) -> None:
        from chemground.qa_factory import build_qa
        from chemground.workspace import Workspace

        self.settings = settings
        self.workspace = Workspace(settings, readonly=True)
        self.qa = build_qa(self.workspace)
        # before any retriever holds on to it (QA.graph is a cached_property)
        self.qa.__dict__["graph"] = _LockedGraphAccess(self.workspace)
        self.executor = ThreadPoolExecutor(
            max_workers=max(1, settings.api.threads), thread_name_prefix="chemground-api"
        )
        self._components_lock = threading.Lock()
        self._ready: set[tuple[str, str]] = set()
        self._health = b""
        self._kb_signature: tuple | None = None
        self._stop = threading.Event()
        self._refresher: threading.Thread | None = None

    # -- start-up ------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Build, on this thread, everything that is otherwise built lazily on first use."""
        workspace, qa = self.workspace, self.qa
        workspace.kb  # noqa: B018 - builds the default KB on a first run
        workspace.opsin  # noqa: B018 - the per-process OPSIN singleton (its JVM still starts on first use)
        workspace.resolver  # noqa: B018
        qa.parser  # noqa: B018 - and qa.fuzzy with it
        qa.fuzzy.candidates("warm up", 0)  # loads the name index now, not in the first request
        workspace.kb.fingerprints()  # the similarity search's in-memory fingerprints, likewise
        self.ensure_components("table", "extractive")
        # the channels `--method auto` routes to (QA builds them on first use, without a lock)
        for method in ("auto", "tools", "routes", "lit"):
            try:
                retriever = qa.retriever(method)
            except ChemgroundError:  # not registered in this version
                continue
            getattr(retriever, "runner", None)  # the tool channel's runner is built lazily too
            self._ready.add((method, "extractive"))
        self.refresh_health()

    def start(self) -> None:
        self.warm_up()
        if self.settings.api.health_refresh_s > 0:
            self._refresher = threading.Thread(
                target=self._refresh_loop, name="chemground-api-health", daemon=True
            )
            self._refresher.start()

    def close(self) -> None:
        """Stop the threads and close the KB (the server has stopped taking requests)."""
        self._stop.set()
        self.executor.shutdown(wait=False, cancel_futures=True)
        if self._refresher is not None:
            self._refresher.join(timeout=5)
        self.workspace.close()

    # -- components built on first use ----------------------------------------------------
    def ensure_components(self, method: str, reasoner: str) -> None:
        """Build the retriever and reasoner a request needs, once (ChemgroundError if unknown)."""
        key = (method, reasoner)
        if key in self._ready:
            return
        with self._components_lock:
            if method != "none":
                self.qa.retriever(method)
            self.qa.reasoner(reasoner)
            self._ready.add(key)

    # -- running requests ------------------------------------------------------------------
    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on a worker thread; the event loop stays free meanwhile."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))

    # -- health -----------------------------------------------------------------------------
    @property
    def health_body(self) -> bytes:
        return self._health

    def _signature(self) -> tuple:
        path = Path(self.settings.kb.path)
        out = []
        for file in (path, path.with_name(path.name + "-wal")):
            try:
                stat = file.stat()
                out.append((stat.st_mtime_ns, stat.st_size))
            except OSError:
                out.append(None)
        return tuple(out)

    def refresh_health(self) -> None:
        signature = self._signature()
        stats = self.workspace.kb.stats()
        self._health = encode_json(
            {
                "status": "ok",
                "version": __version__,
                "compounds": stats.compounds,
                "reactions": stats.reactions,
            }
        )
        self._kb_signature = signature

    def _refresh_loop(self) -> None:
        while not self._stop.wait(self.settings.api.health_refresh_s):
            try:
                if self._signature() != self._kb_signature:
                    self.refresh_health()
            except Exception:
                log.warning("could not refresh the KB counts for /health", exc_info=True)
