"""The embedded default backend: LadybugDB (PyPI ``ladybug``), a Kuzu-derived Cypher database.

The graph is one file; tables are declared up front and filled with ``COPY ... FROM`` over
Arrow tables (no per-row CREATE), which is what makes a 50k-reaction rebuild take seconds.
Readers open the file read-only, so even a query that slipped past the guard cannot write.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from chemground.graph.backend import GraphBackend, GraphCounts, GraphError, GraphQueryError, QueryResult
from chemground.graph.export import GraphTables
from chemground.graph.schema import MOLECULE, NODES, REACTION, RELATIONSHIPS, ladybug_ddl

try:
    import ladybug
except ImportError as _error:  # pragma: no cover - a core dependency
    ladybug = None
    _IMPORT_ERROR = _error


def _clean_node(value: dict[str, Any]) -> dict[str, Any]:
    out = {"label": value.get("_LABEL")}
    out.update({k: v for k, v in value.items() if not k.startswith("_") and v is not None})
    return out


def _convert(value: Any) -> Any:
    """LadybugDB values -> plain JSON-able values (nodes, relationships, paths, NaN -> None)."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return [_convert(v) for v in value]
    if isinstance(value, dict):
        if "_NODES" in value and "_RELS" in value:
            nodes = [_clean_node(n) for n in value["_NODES"]]
            by_id = {(n["_ID"]["table"], n["_ID"]["offset"]): i for i, n in enumerate(value["_NODES"])}
            rels = []
            for rel in value["_RELS"]:
                src = by_id.get((rel["_SRC"]["table"], rel["_SRC"]["offset"]))
                dst = by_id.get((rel["_DST"]["table"], rel["_DST"]["offset"]))
                item = {"type": rel.get("_LABEL"), "start": src, "end": dst}
                item.update({k: _convert(v) for k, v in rel.items() if not k.startswith("_") and v is not None})
                rels.append(item)
            return {"nodes": nodes, "relationships": rels}
        if "_LABEL" in value and "_SRC" in value:
            item = {"type": value["_LABEL"]}
            item.update({k: _convert(v) for k, v in value.items() if not k.startswith("_") and v is not None})
            return item
        if "_LABEL" in value and "_ID" in value:
            return _clean_node(value)
        return {k: _convert(v) for k, v in value.items()}
    return value


class LadybugBackend(GraphBackend):
    name = "ladybug"
    dialect = "ladybug"

    def __init__(self, path: str | Path, readonly: bool = True, threads: int = 2) -> None:
        if ladybug is None:  # pragma: no cover
            raise GraphError(f"the embedded graph needs the 'ladybug' package: {_IMPORT_ERROR}")
        self.path = Path(path)
        self.readonly = readonly
        if readonly and not self.path.exists():
            raise GraphError(f"no reaction graph at {self.path}; build it with `chemground graph build`")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = ladybug.Database(str(self.path), read_only=readonly, max_num_threads=threads)
            self._conn = ladybug.Connection(self._db, num_threads=threads)
        except RuntimeError as error:
            raise GraphError(f"cannot open the reaction graph at {self.path}: {error}") from error
        self._lock = threading.Lock()

    # -- reading -------------------------------------------------------------------------
    def _read(self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float) -> QueryResult:
        with self._lock:
            self._conn.set_query_timeout(int(timeout_s * 1000))
            try:
                result = self._conn.execute(cypher, params)
            except RuntimeError as error:
                raise GraphQueryError(f"the graph engine rejected the query: {error}", cypher, str(error)) from error
            try:
                columns = result.get_column_names()
                rows: list[dict[str, Any]] = []
                truncated = False
                while result.has_next():
                    values = result.get_next()
                    if len(rows) >= limit:
                        truncated = True
                        break
                    rows.append({c: _convert(v) for c, v in zip(columns, values)})
            finally:
                result.close()
        return QueryResult(columns, rows, truncated)

    def _explain(self, cypher: str) -> None:
        with self._lock:
            try:
                self._conn.execute("EXPLAIN " + cypher).close()
            except RuntimeError as error:
                raise GraphQueryError(f"the graph engine rejected the query: {error}", cypher, str(error)) from error

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
        steps = [(MOLECULE.label, tables.molecules), (REACTION.label, tables.reactions),
                 *((rel.type, tables.edges[rel.type]) for rel in RELATIONSHIPS)]
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
            edges={rel.type: self._scalar(f"MATCH ()-[e:{rel.type}]->() RETURN count(e)") for rel in RELATIONSHIPS},
        )

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            finally:
                self._db.close()
