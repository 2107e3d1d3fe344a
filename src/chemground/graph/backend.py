"""The interface every graph backend implements (embedded LadybugDB, Neo4j over Bolt).

Callers get query results as plain JSON-able rows: nodes become ``{"label", ...properties}``,
relationships ``{"type", ...}`` and paths ``{"nodes": [...], "relationships": [...]}``, so
evidence, benchmarks and the CLI never see an engine's own value types. ``query`` is the one
door for Cypher that comes from outside (a user, an LLM): it refuses write and admin
clauses before the engine sees them, and (embedded engine) runs the query in a separate
process with memory and time limits unless the caller marks it ``trusted`` (chemground's own
bounded queries). Loading the graph goes through the backend's own bulk path instead.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from chemground.errors import ChemgroundError
from chemground.graph.export import GraphTables
from chemground.graph.readonly import ensure_read_only


class GraphError(ChemgroundError):
    """The reaction graph is missing, stale or cannot be opened."""


class GraphQueryError(ChemgroundError):
    """The engine rejected a Cypher query; ``engine_message`` is its own words (fed back to the
    LLM)."""

    def __init__(self, message: str, query: str = "", engine_message: str = "") -> None:
        super().__init__(message)
        self.query = query
        self.engine_message = engine_message or message


class GraphLimitError(GraphQueryError):
    """A query passed its memory or time limit (or its result was too large) and was stopped."""


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool = False
    elapsed_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "truncated": self.truncated,
            "elapsed_ms": round(self.elapsed_ms, 2),
        }


def is_path(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"nodes", "relationships"}


@dataclass
class GraphCounts:
    molecules: int
    reactions: int
    edges: dict[str, int] = field(default_factory=dict)

    @property
    def edge_total(self) -> int:
        return sum(self.edges.values())


class GraphBackend(ABC):
    """One reaction graph in one engine."""

    name: str = "graph"
    dialect: str = "cypher"
    default_row_limit = 1000

    # -- reading (guarded) ---------------------------------------------------------------
    def query(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        limit: int | None = None,
        timeout_s: float = 30.0,
        trusted: bool = False,
    ) -> QueryResult:
        """Run read-only Cypher; refuses write/admin clauses before execution (ReadOnlyViolation).

        Untrusted queries (the default: a user's or an LLM's) run under the backend's memory and
        time limits (GraphLimitError when passed); ``trusted=True`` is for chemground's own queries.
        """
        ensure_read_only(cypher)
        started = time.perf_counter()
        read = self._read if trusted else self._read_untrusted
        result = read(cypher, params or {}, limit or self.default_row_limit, timeout_s)
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        return result

    def explain(self, cypher: str) -> None:
        """Compile ``cypher`` without running it; raises GraphQueryError with the engine's
        message."""
        ensure_read_only(cypher)
        self._explain(cypher)

    @abstractmethod
    def _read(
        self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float
    ) -> QueryResult: ...

    def _read_untrusted(
        self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float
    ) -> QueryResult:
        """A query from outside; backends that can confine it further override this."""
        return self._read(cypher, params, limit, timeout_s)

    @abstractmethod
    def _explain(self, cypher: str) -> None: ...

    # -- building ------------------------------------------------------------------------
    @abstractmethod
    def create_schema(self) -> None:
        """Declare node/relationship tables (or constraints) on an empty graph."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every Molecule and Reaction (used before a full reload in place)."""

    @abstractmethod
    def load(self, tables: GraphTables, progress=None) -> None:
        """Bulk-load new nodes and edges (nodes must not exist yet)."""

    @abstractmethod
    def molecule_keys(self) -> set[str]: ...

    @abstractmethod
    def counts(self) -> GraphCounts: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> GraphBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
