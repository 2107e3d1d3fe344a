"""Running tools with a time limit, in a worker process that can be stopped.

A tool call that hangs (a symmetry search on a huge cell, an oxidation-state guess with
millions of combinations) must not hang chemground, and a thread cannot be killed. So
calls run in one long-lived worker process, ``python -m chemground.agent.worker`` (started
on first use, reused after), speaking JSON lines over its stdin/stdout; when a call passes
its time limit the worker is terminated and the next call starts a fresh one. The worker's
address space is capped (``memory_mb``, default 3 GiB, or CHEMGROUND_TOOL_MEMORY_MB): a call
that passes it ends as "ran out of memory" and the next call starts a fresh worker.
Arguments are validated here, before the worker sees them, so bad input fails fast with a
message naming the parameter. Results come back as plain JSON.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chemground.agent.registry import ToolContext, ToolRegistry, default_registry, run_function
from chemground.agent.validation import ToolArgumentError, ToolError
from chemground.evidence import Evidence
from chemground.forking import SPAWN_LOCK


class ToolTimeout(ToolError):
    """The call passed its time limit and was stopped."""


class ToolOffline(ToolError):
    """The answer needs an online service and the offline sources do not have it."""


@dataclass
class ToolResult:
    """One call: what was asked, what came back (or why not), how long it took."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    value: Any = None
    error: str | None = None
    error_kind: str | None = (
        None  # arguments | not_found | tool | offline | timeout | memory | crashed
    )
    elapsed_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data = {
            "tool": self.tool,
            "arguments": self.arguments,
            "ok": self.ok,
            "elapsed_ms": round(self.elapsed_ms, 2),
        }
        if self.ok:
            data["result"] = self.value
        else:
            data["error"] = self.error
            data["error_kind"] = self.error_kind
        return data

    def observation(self, limit: int = 4000) -> str:
        """What a model is shown after the call."""
        if not self.ok:
            return f"ERROR ({self.error_kind}): {self.error}"
        text = json.dumps(self.value, ensure_ascii=False, default=str)
        return (
            text
            if len(text) <= limit
            else text[:limit] + f"... [{len(text) - limit} more characters]"
        )

    def evidence(self) -> Evidence:
        """The call as evidence an answer can cite."""
        digest = hashlib.sha1(
            json.dumps([self.tool, self.arguments], sort_keys=True, default=str).encode()
        ).hexdigest()[:10]
        why = f"computed by {self.tool}" if self.ok else f"{self.tool} failed: {self.error}"
        return Evidence(
            kind="tool_result",
            id=f"{self.tool}#{digest}",
            score=1.0 if self.ok else 0.0,
            match="exact",
            record=self.to_json(),
            why=why,
            retriever="tool",
            provenance={"tool": self.tool, "elapsed_ms": round(self.elapsed_ms, 2)},
        )


DEFAULT_MEMORY_MB = 3072  # the default of the tools.memory_mb setting
# What a worker that died of memory leaves on its stderr (Python, C++ and C libraries).
_MEMORY_SIGNS = (
    "MemoryError",
    "bad_alloc",
    "Cannot allocate memory",
    "out of memory",
    "Out of memory",
    "failed to allocate",
    "Failed to allocate",
    "mmap failed",
)


def default_memory_mb(settings: Any = None) -> int:
    """The tool worker's address-space limit in MiB (0: none).

    Args:
        settings: the settings to read (default: the process-wide ones).

    Returns:
        The ``tools.memory_mb`` setting (env CHEMGROUND_TOOL_MEMORY_MB; default 3072).
    """
    from chemground.settings import get_settings

    return (settings or get_settings()).tools.memory_mb


class ToolRunner:
    """Validates and runs tool calls with a per-call time limit and a memory limit.

    ``isolate=False`` runs calls in this process (no time or memory limit): for tests of tool
    logic and for callers that already run in a sandbox. ``memory_mb`` caps the worker's
    address space (0 for none; default :func:`default_memory_mb`).
    """

    def __init__(
        self,
        registry: ToolRegistry | None = None,
        settings: Any = None,
        files_dir: Path | None = None,
        timeout_s: float | None = None,
        isolate: bool = True,
        kb_progress: Any = None,
        memory_mb: int | None = None,
    ) -> None:
        from chemground.settings import get_settings

        self.registry = registry or default_registry()
        self.settings = settings or get_settings()
        self.files_dir = Path(files_dir) if files_dir else self.settings.cache_dir / "tool-files"
        self.timeout_s = timeout_s
        self.isolate = isolate
        self.memory_mb = (
            default_memory_mb(self.settings) if memory_mb is None else max(0, int(memory_mb))
        )
        self._process: subprocess.Popen | None = None
        self._stderr: Any = None
        self._lock = threading.Lock()
        self._kb_ready = False
        self._kb_progress = kb_progress
        self.calls: list[ToolResult] = []
        self._context = ToolContext(settings=self.settings, files_dir=self.files_dir)
        atexit.register(self.close)

    # -- worker management ------------------------------------------------------------------
    def _extra_modules(self) -> list[str]:
        from chemground.agent.registry import TOOL_MODULES

        modules = {m.implementation.split(":")[0] for m in self.registry.manifests()}
        return sorted(modules - set(TOOL_MODULES))

    def _start(self) -> None:
        """Start ``python -m chemground.agent.worker`` and send it its settings (one JSON line)."""
        env = dict(os.environ)
        env.setdefault("PYTHONWARNINGS", "ignore")
        if self.memory_mb:
            # Under an address-space limit, per-thread malloc arenas and BLAS thread buffers reserve
            # address space they never use; tools are small computations, one thread each is plenty.
            for name in (
                "MALLOC_ARENA_MAX",
                "OPENBLAS_NUM_THREADS",
                "OMP_NUM_THREADS",
                "MKL_NUM_THREADS",
            ):
                env.setdefault(name, "2" if name == "MALLOC_ARENA_MAX" else "1")
        self._stderr = (
            tempfile.TemporaryFile()  # noqa: SIM115 - closed when the worker ends
        )  # read back when the worker dies: did it run out of memory?
        with SPAWN_LOCK:  # see chemground.forking
            process = subprocess.Popen(
                [sys.executable, "-m", "chemground.agent.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        setup = {
            "settings": self.settings.model_dump(mode="json"),
            "files_dir": str(self.files_dir),
            "modules": self._extra_modules(),
            "memory_mb": self.memory_mb,
        }
        process.stdin.write(json.dumps(setup) + "\n")
        process.stdin.flush()
        self._process = process

    def _stop(self) -> None:
        process = self._process
        self._process = None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(2)
        for stream in (process.stdin, process.stdout, self._stderr):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        self._stderr = None

    def _trim_stderr(self) -> None:
        """Keep the worker's stderr file small (the worker writes through the same file offset)."""
        try:
            if self._stderr is not None and os.fstat(self._stderr.fileno()).st_size > 1_000_000:
                self._stderr.seek(0)
                self._stderr.truncate()
        except (OSError, ValueError):
            pass

    def _died_of_memory(self) -> bool:
        """After the worker died: does its stderr say it ran out of memory?"""
        if not self.memory_mb or self._stderr is None:
            return False
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 16384))
            tail = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return False
        return any(sign in tail for sign in _MEMORY_SIGNS)

    def _memory_message(self, name: str) -> str:
        return (
            f"tool {name} ran out of memory (limit {self.memory_mb} MB) and was stopped; "
            "try a smaller input"
        )

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __enter__(self) -> ToolRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def warm_up(self) -> None:
        """Start the worker now (its imports take a second or two) rather than on the first call."""
        if self.isolate:
            with self._lock:
                if self._process is None:
                    self._start()

    # -- calls ------------------------------------------------------------------------------
    def call(self, name: str, args: Any = None, timeout_s: float | None = None) -> ToolResult:
        """Validate and run one call; never raises for a tool's own failure (see
        ``ToolResult.ok``)."""
        started = time.perf_counter()
        try:
            manifest, kwargs = self.registry.validate(name, args)
        except ToolArgumentError as error:
            return self._record(
                ToolResult(
                    name,
                    _as_dict(args),
                    False,
                    error=error.reason,
                    error_kind="arguments",
                    elapsed_ms=_ms(started),
                )
            )
        except ToolError as error:
            return self._record(
                ToolResult(
                    name,
                    _as_dict(args),
                    False,
                    error=error.reason,
                    error_kind="not_found",
                    elapsed_ms=_ms(started),
                )
            )
        if manifest.needs_kb and not self._kb_ready:
            from chemground.workspace import ensure_kb

            ensure_kb(self.settings.kb.path, self._kb_progress)
            self._kb_ready = True
        limit = timeout_s or self.timeout_s or manifest.timeout_s
        if not self.isolate:
            try:
                value = run_function(
                    self.registry.function(manifest.name), manifest, kwargs, self._context
                )
                return self._record(
                    ToolResult(manifest.name, kwargs, True, value=value, elapsed_ms=_ms(started))
                )
            except ToolOffline as error:
                return self._record(
                    ToolResult(
                        manifest.name,
                        kwargs,
                        False,
                        error=error.reason,
                        error_kind="offline",
                        elapsed_ms=_ms(started),
                    )
                )
            except ToolError as error:
                return self._record(
                    ToolResult(
                        manifest.name,
                        kwargs,
                        False,
                        error=error.reason,
                        error_kind="tool",
                        elapsed_ms=_ms(started),
                    )
                )
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._stop()
                self._start()
            process = self._process
            self._trim_stderr()
            try:
                process.stdin.write(json.dumps({"tool": manifest.name, "arguments": kwargs}) + "\n")
                process.stdin.flush()
                ready, _, _ = select.select([process.stdout], [], [], limit)
                if not ready:
                    self._stop()
                    return self._record(
                        ToolResult(
                            manifest.name,
                            kwargs,
                            False,
                            error_kind="timeout",
                            elapsed_ms=_ms(started),
                            error=f"did not finish within {limit:g} s and was stopped",
                        )
                    )
                line = process.stdout.readline()
                if not line:
                    raise EOFError
                reply = json.loads(line)
            except (EOFError, OSError, ValueError):
                try:
                    process.wait(2)
                except subprocess.TimeoutExpired:
                    pass
                memory = self._died_of_memory()
                self._stop()
                if memory:
                    return self._record(
                        ToolResult(
                            manifest.name,
                            kwargs,
                            False,
                            error_kind="memory",
                            elapsed_ms=_ms(started),
                            error=self._memory_message(manifest.name),
                        )
                    )
                return self._record(
                    ToolResult(
                        manifest.name,
                        kwargs,
                        False,
                        error_kind="crashed",
                        elapsed_ms=_ms(started),
                        error="the tool worker process died during the call",
                    )
                )
            if not reply["ok"] and reply.get("kind") == "memory":
                self._stop()  # a fresh worker for the next call: this one's heap may be in pieces
                return self._record(
                    ToolResult(
                        manifest.name,
                        kwargs,
                        False,
                        error_kind="memory",
                        elapsed_ms=_ms(started),
                        error=self._memory_message(manifest.name),
                    )
                )
        if reply["ok"]:
            return self._record(
                ToolResult(
                    manifest.name, kwargs, True, value=reply["value"], elapsed_ms=_ms(started)
                )
            )
        return self._record(
            ToolResult(
                manifest.name,
                kwargs,
                False,
                error=reply["error"],
                error_kind=reply["kind"],
                elapsed_ms=_ms(started),
            )
        )

    def _record(self, result: ToolResult) -> ToolResult:
        self.calls.append(result)
        if len(self.calls) > 10000:
            del self.calls[:5000]
        return result


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _as_dict(args: Any) -> dict[str, Any]:
    if isinstance(args, dict):
        return dict(args)
    if isinstance(args, (list, tuple)):
        return {f"arg{i}": v for i, v in enumerate(args)}
    return {} if args is None else {"value": args}
