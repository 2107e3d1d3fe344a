"""The embedded default backend: LadybugDB (PyPI ``ladybug``), a Kuzu-derived Cypher database.

The graph is one file; tables are declared up front and filled with ``COPY ... FROM`` over
Arrow tables (no per-row CREATE), which is what makes a 50k-reaction rebuild take seconds.
Readers open the file read-only, so even a query that slipped past the guard cannot write.
Queries from a user or an LLM on a read-only graph run in a separate process with memory and
time limits (``chemground.graph.sandbox``); chemground's own queries run here. Under an
address-space limit (the tool worker's) the engine's reservations (buffer pool, database
size) are sized to fit, since its defaults reserve most of the machine's memory and 8 TB.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from chemground.graph.backend import (
    GraphBackend,
    GraphCounts,
    GraphError,
    GraphQueryError,
    QueryResult,
)
from chemground.graph.export import GraphTables
from chemground.graph.sandbox import QuerySandbox, file_reservation, read_rows
from chemground.graph.schema import MOLECULE, NODES, REACTION, RELATIONSHIPS, ladybug_ddl

try:
    import ladybug
except ImportError as _error:  # pragma: no cover - a core dependency
    ladybug = None
    _IMPORT_ERROR = _error


def engine_options(path: Path, readonly: bool) -> dict[str, int]:
    """Buffer-pool and database-size options that fit under this process's address-space limit.

    Without a limit the engine's defaults stand. With one (e.g. inside the tool worker) the
    buffer pool gets a quarter of it (at most 1 GiB) and the database-size reservation the
    smallest power of two that holds the file (read-only) or a quarter of the limit (writing).
    """
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return {}
    except ImportError:  # pragma: no cover - not POSIX
        return {}
    pool = max(64 * 2**20, min(soft // 4, 2**30))
    if readonly:
        return {"buffer_pool_size": pool, "max_db_size": file_reservation(path)}
    size = 2**26
    while size * 2 <= soft // 4:
        size *= 2
    return {"buffer_pool_size": pool, "max_db_size": max(size, file_reservation(path))}


class LadybugBackend(GraphBackend):
    name = "ladybug"
    dialect = "ladybug"

    def __init__(
        self,
        path: str | Path,
        readonly: bool = True,
        threads: int = 2,
        query_memory_mb: int | None = None,
    ) -> None:
        if ladybug is None:  # pragma: no cover
            raise GraphError(f"the embedded graph needs the 'ladybug' package: {_IMPORT_ERROR}")
        self.path = Path(path)
        self.readonly = readonly
        self.threads = threads
        if query_memory_mb is None:
            from chemground.settings import get_settings

            query_memory_mb = get_settings().graph.query_memory_mb
        self.query_memory_mb = query_memory_mb
        if readonly and not self.path.exists():
            raise GraphError(
                f"no reaction graph at {self.path}; build it with `chemground graph build`"
            )
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = ladybug.Database(
                str(self.path),
                read_only=readonly,
                max_num_threads=threads,
                **engine_options(self.path, readonly),
            )
            self._conn = ladybug.Connection(self._db, num_threads=threads)
        except RuntimeError as error:
            raise GraphError(f"cannot open the reaction graph at {self.path}: {error}") from error
        self._lock = threading.Lock()
        self._sandbox: QuerySandbox | None = None

    def _read_untrusted(
        self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float
    ) -> QueryResult:
        """A user's or an LLM's query: in the sandbox process (read-only graphs with a memory
        limit)."""
        if not self.readonly or self.query_memory_mb <= 0:
            return self._read(cypher, params, limit, timeout_s)
        with self._lock:
            if self._sandbox is None:
                self._sandbox = QuerySandbox(
                    self.path, memory_mb=self.query_memory_mb, threads=self.threads
                )
            sandbox = self._sandbox
        columns, rows, truncated = sandbox.run(cypher, params, limit, timeout_s)
        return QueryResult(columns, rows, truncated)

    # -- reading -------------------------------------------------------------------------
    def _read(
        self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float
    ) -> QueryResult:
        with self._lock:
            self._conn.set_query_timeout(int(timeout_s * 1000))
            try:
                result = self._conn.execute(cypher, params)
            except RuntimeError as error:
                raise GraphQueryError(
                    f"the graph engine rejected the query: {error}", cypher, str(error)
                ) from error
            columns, rows, truncated = read_rows(result, limit)
        return QueryResult(columns, rows, truncated)

    def _explain(self, cypher: str) -> None:
        with self._lock:
            try:
                self._conn.execute("EXPLAIN " + cypher).close()
            except RuntimeError as error:
                raise GraphQueryError(
                    f"the graph engine rejected the query: {error}", cypher, str(error)
                ) from error

    # -- building ------------------------------------------------------------------------
    def _write(self, statement: str, params: dict[str, Any] | None = None) -> None:
        if self.readonly:
            raise GraphError("the graph is open read-only")
        with self._lock:
            self._conn.execute(statement, params or {}).close()

    def create_schema(self) -> None:
        for statement in ladybug_ddl():
            self._write(statement)

    def clear(self) -> None:
        for rel in RELATIONSHIPS:
            self._write(f"MATCH ()-[e:{rel.type}]->() DELETE e")
        for node in NODES:
            self._write(f"MATCH (n:{node.label}) DELETE n")

    def load(self, tables: GraphTables, progress=None) -> None:
        steps = [
            (MOLECULE.label, tables.molecules),
            (REACTION.label, tables.reactions),
            *((rel.type, tables.edges[rel.type]) for rel in RELATIONSHIPS),
        ]
        for table_name, table in steps:
            if table.num_rows:
                self._write(f"COPY {table_name} FROM $rows", {"rows": table})
            if progress:
                progress("load", table.num_rows, None)

    def _scalar(self, cypher: str) -> Any:
        with self._lock:
            result = self._conn.execute(cypher)
            try:
                return result.get_next()[0]
            finally:
                result.close()

    def molecule_keys(self) -> set[str]:
        with self._lock:
            result = self._conn.execute("MATCH (m:Molecule) RETURN m.key")
            try:
                keys = set()
                while result.has_next():
                    keys.add(result.get_next()[0])
                return keys
            finally:
                result.close()

    def counts(self) -> GraphCounts:
        return GraphCounts(
            molecules=self._scalar("MATCH (m:Molecule) RETURN count(m)"),
            reactions=self._scalar("MATCH (r:Reaction) RETURN count(r)"),
            edges={
                rel.type: self._scalar(f"MATCH ()-[e:{rel.type}]->() RETURN count(e)")
                for rel in RELATIONSHIPS
            },
        )

    def close(self) -> None:
        with self._lock:
            sandbox, self._sandbox = self._sandbox, None
            try:
                if sandbox is not None:
                    sandbox.close()
                self._conn.close()
            finally:
                self._db.close()
