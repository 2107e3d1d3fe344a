"""Running Cypher written by a user or an LLM in a separate process with memory and time limits.

The embedded engine runs inside the process that calls it, and its own caps do not bound a
query: ``UNWIND range(1, 2e8) AS x RETURN collect(x)`` reached 5.8 GB, and with a 256 MB
buffer pool still 2.4 GB over 20 s. So a read-only graph runs such queries in one long-lived
worker, ``python -m chemground.graph.sandbox``, whose address space is capped
(``RLIMIT_AS``) at the configured memory plus the engine's reservation for the graph file.
A query that passes the cap fails there with "out of memory" (the worker is then replaced),
one that passes its time limit is interrupted by the engine (or the worker is killed), and
the calling process never grows. Protocol, one JSON object per line: first
``{"path", "memory_mb", "threads"}`` answered by ``{"ok": true}``, then
``{"cypher", "params", "limit", "timeout_ms"}`` answered by
``{"ok": true, "columns", "rows", "truncated"}`` or ``{"ok": false, "kind", "error"}``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from chemground.forking import limit_memory

DEFAULT_MEMORY_MB = 2048
MAX_REPLY_CHARS = (
    32_000_000  # one reply line: a larger result is refused, not shipped to the caller
)
_MEMORY_SIGNS = (
    "bad_alloc",
    "Unable to allocate memory",
    "MemoryError",
    "Cannot allocate memory",
    "out of memory",
    "Out of memory",
    "Mmap for size",
    "failed to map",
)


def _power_of_two_at_least(value: int) -> int:
    size = 1
    while size < value:
        size *= 2
    return size


def file_reservation(path: Path) -> int:
    """The engine's address-space reservation for a read-only graph file (a power of two, >= 64
    MiB)."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = 0
    return _power_of_two_at_least(max(2 * size, 64 * 2**20))


def is_memory_message(message: str) -> bool:
    return any(sign in message for sign in _MEMORY_SIGNS)


def _json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)


# --- values -------------------------------------------------------------------------------------


def _clean_node(value: dict[str, Any]) -> dict[str, Any]:
    out = {"label": value.get("_LABEL")}
    out.update({k: v for k, v in value.items() if not k.startswith("_") and v is not None})
    return out


def to_plain(value: Any) -> Any:
    """LadybugDB values -> plain JSON-able values (nodes, relationships, paths, NaN -> None)."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        if "_NODES" in value and "_RELS" in value:
            nodes = [_clean_node(n) for n in value["_NODES"]]
            by_id = {
                (n["_ID"]["table"], n["_ID"]["offset"]): i for i, n in enumerate(value["_NODES"])
            }
            rels = []
            for rel in value["_RELS"]:
                src = by_id.get((rel["_SRC"]["table"], rel["_SRC"]["offset"]))
                dst = by_id.get((rel["_DST"]["table"], rel["_DST"]["offset"]))
                item = {"type": rel.get("_LABEL"), "start": src, "end": dst}
                item.update(
                    {
                        k: to_plain(v)
                        for k, v in rel.items()
                        if not k.startswith("_") and v is not None
                    }
                )
                rels.append(item)
            return {"nodes": nodes, "relationships": rels}
        if "_LABEL" in value and "_SRC" in value:
            item = {"type": value["_LABEL"]}
            item.update(
                {
                    k: to_plain(v)
                    for k, v in value.items()
                    if not k.startswith("_") and v is not None
                }
            )
            return item
        if "_LABEL" in value and "_ID" in value:
            return _clean_node(value)
        return {k: to_plain(v) for k, v in value.items()}
    return value


# --- the worker ----------------------------------------------------------------------------------


def _answer(conn, request: dict[str, Any]) -> dict[str, Any]:
    conn.set_query_timeout(max(1, int(request.get("timeout_ms") or 30000)))
    limit = int(request.get("limit") or 1000)
    try:
        result = conn.execute(request["cypher"], request.get("params") or {})
        columns, rows, truncated = read_rows(result, limit)
    except RuntimeError as error:  # from the query or from reading its rows
        message = str(error)
        kind = (
            "memory"
            if is_memory_message(message)
            else "timeout"
            if "Interrupted" in message
            else "engine"
        )
        return {"ok": False, "kind": kind, "error": message}
    return {"ok": True, "columns": columns, "rows": rows, "truncated": truncated}


def read_rows(result, limit: int) -> tuple[list[str], list[dict[str, Any]], bool]:
    """(columns, at most ``limit`` rows as plain values, whether more were left) of a LadybugDB
    query result, which is closed afterwards; shared by the in-process backend and the sandbox.

    Raises:
        RuntimeError: the engine failed while producing rows (out of memory, interrupted).
    """
    try:
        columns = result.get_column_names()
        rows: list[dict[str, Any]] = []
        truncated = False
        while result.has_next():
            values = result.get_next()
            if len(rows) >= limit:
                truncated = True
                break
            rows.append({c: to_plain(v) for c, v in zip(columns, values)})
    finally:
        result.close()
    return columns, rows, truncated


def main() -> int:
    """The worker: open the graph read-only under the memory cap, then answer queries until stdin
    ends."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the sandbox's lifetime

    def send(reply: dict[str, Any]) -> None:
        try:
            text = json.dumps(reply, ensure_ascii=False, default=_json_default)
        except MemoryError:
            text = json.dumps(
                {"ok": False, "kind": "memory", "error": "the result is too large to send back"}
            )
        if len(text) > MAX_REPLY_CHARS:
            text = json.dumps(
                {
                    "ok": False,
                    "kind": "size",
                    "error": f"the result is too large ({len(text) / 1e6:.0f} "
                    f"MB of JSON; the limit is {MAX_REPLY_CHARS / 1e6:.0f} MB): return fewer or "
                    "smaller rows",
                }
            )
        protocol.write(text + "\n")
        protocol.flush()

    setup = json.loads(sys.stdin.readline())
    path = Path(setup["path"])
    reservation = file_reservation(path)
    memory_mb = int(setup.get("memory_mb") or 0)
    limit_memory(memory_mb, reservation)
    try:
        import ladybug

        options: dict[str, Any] = {
            "read_only": True,
            "max_num_threads": int(setup.get("threads") or 2),
        }
        if memory_mb > 0:
            options.update(
                buffer_pool_size=max(64, memory_mb // 4) * 2**20, max_db_size=reservation
            )
        database = ladybug.Database(str(path), **options)
        conn = ladybug.Connection(database, num_threads=options["max_num_threads"])
    except Exception as error:  # reported to the caller, which raises GraphError
        send({"ok": False, "kind": "open", "error": f"{type(error).__name__}: {error}"})
        return 1
    send({"ok": True})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = _answer(conn, json.loads(line))
        except MemoryError:
            reply = {"ok": False, "kind": "memory", "error": "MemoryError"}
        except Exception as error:  # the query's failure, reported to the caller
            message = f"{type(error).__name__}: {error}"
            reply = {
                "ok": False,
                "kind": "memory" if is_memory_message(message) else "engine",
                "error": message,
            }
        send(reply)
        reply = None
    return 0


# --- the caller's side ---------------------------------------------------------------------------


class QuerySandbox:
    """One worker process answering queries on one read-only graph file; restarted after a
    failure."""

    def __init__(
        self,
        path: Path,
        memory_mb: int = DEFAULT_MEMORY_MB,
        threads: int = 2,
        start_timeout_s: float = 60.0,
    ) -> None:
        self.path = Path(path)
        self.memory_mb = memory_mb
        self.threads = threads
        self.start_timeout_s = start_timeout_s
        self._process: subprocess.Popen | None = None
        self._stderr: Any = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        from chemground.forking import SPAWN_LOCK
        from chemground.graph.backend import GraphError

        env = dict(os.environ)
        env.setdefault("MALLOC_ARENA_MAX", "2")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the sandbox
        with SPAWN_LOCK:  # see chemground.forking
            process = subprocess.Popen(
                [sys.executable, "-m", "chemground.graph.sandbox"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        self._process = process
        try:
            process.stdin.write(
                json.dumps(
                    {"path": str(self.path), "memory_mb": self.memory_mb, "threads": self.threads}
                )
                + "\n"
            )
            process.stdin.flush()
            reply = self._reply(process, self.start_timeout_s)
        except (EOFError, OSError, ValueError, TimeoutError) as error:
            self._stop()
            raise GraphError(
                f"cannot start the graph query process for {self.path}: {error}"
            ) from None
        if not reply.get("ok"):
            self._stop()
            raise GraphError(f"cannot open the reaction graph at {self.path}: {reply.get('error')}")

    @staticmethod
    def _reply(process: subprocess.Popen, timeout_s: float) -> dict[str, Any]:
        ready, _, _ = select.select([process.stdout], [], [], timeout_s)
        if not ready:
            raise TimeoutError(f"no answer within {timeout_s:g} s")
        line = process.stdout.readline()
        if not line:
            raise EOFError("the graph query process ended")
        return json.loads(line)

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.kill()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a kill is not refused
                pass
            for stream in (process.stdin, process.stdout):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        if self._stderr is not None:
            try:
                self._stderr.close()
            except OSError:
                pass
            self._stderr = None

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 16384))
            return self._stderr.read().decode("utf-8", "replace")
        except (AttributeError, OSError, ValueError):
            return ""

    def memory_message(self) -> str:
        return (
            f"the graph query ran out of memory (limit {self.memory_mb} MB) and was stopped; "
            "return less (add LIMIT, aggregate with count(), avoid collect() over large sets)"
        )

    def run(self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float):
        """(columns, rows, truncated) of a read-only query; GraphQueryError on any failure."""
        from chemground.graph.backend import GraphLimitError, GraphQueryError

        request = json.dumps(
            {
                "cypher": cypher,
                "params": params,
                "limit": limit,
                "timeout_ms": int(timeout_s * 1000),
            },
            default=_json_default,
        )
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._stop()
                self._start()
            process = self._process
            try:
                process.stdin.write(request + "\n")
                process.stdin.flush()
                reply = self._reply(process, timeout_s + 5.0)
            except TimeoutError:
                self._stop()
                message = f"the graph query did not finish within {timeout_s:g} s and was stopped"
                raise GraphLimitError(message, cypher, message) from None
            except (EOFError, OSError, ValueError):
                try:
                    process.wait(2)
                except subprocess.TimeoutExpired:
                    pass
                memory = is_memory_message(self._stderr_tail())
                self._stop()
                message = (
                    self.memory_message()
                    if memory
                    else "the graph query process died during the query"
                )
                raise GraphLimitError(message, cypher, message) from None
            if reply.get("ok"):
                return reply["columns"], reply["rows"], reply["truncated"]
            kind, error = reply.get("kind"), str(reply.get("error"))
            if kind == "memory":
                self._stop()  # a fresh process for the next query
                message = self.memory_message()
                raise GraphLimitError(message, cypher, message)
            if kind == "timeout":
                message = f"the graph query did not finish within {timeout_s:g} s and was stopped"
                raise GraphLimitError(message, cypher, message)
            if kind == "size":
                raise GraphLimitError(error, cypher, error)
            raise GraphQueryError(f"the graph engine rejected the query: {error}", cypher, error)

    def close(self) -> None:
        with self._lock:
            self._stop()


if __name__ == "__main__":
    sys.exit(main())
