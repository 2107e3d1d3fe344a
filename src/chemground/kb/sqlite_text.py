"""Full-text search (FTS5, BM25) over reaction and compound text.

A mixin of :class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chemground.kb.sqlite_schema import (
    fts_query,
)


class SQLiteTextSearch:
    """Full-text search (FTS5, BM25) over the SQLite KB's reaction and compound text."""

    if TYPE_CHECKING:  # provided by SQLiteKB (sqlite_store.py)
        path: Path
        readonly: bool
        _conn: sqlite3.Connection
        _lock: threading.RLock
        _fingerprint_cache: Any
        _screen_cache: Any

        def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor: ...
        def transaction(self) -> Any: ...
        def _require_writable(self) -> None: ...
        def _count(self, sql: str) -> int: ...
        def table_exists(self, name: str) -> bool: ...
        def all_meta(self) -> dict[str, str]: ...

    def search_reaction_text(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        q = fts_query(query)
        if not q:
            return []
        rows = self.execute(
            "SELECT r.id, bm25(reactions_fts) AS score FROM reactions_fts JOIN reactions r ON "
            "r.rowid = reactions_fts.rowid "
            "WHERE reactions_fts MATCH ? ORDER BY score LIMIT ?",
            (q, limit),
        ).fetchall()
        return [(row[0], -row[1]) for row in rows]

    def search_compound_text(self, query: str, limit: int = 10) -> list[tuple[int, float]]:
        q = fts_query(query)
        if not q:
            return []
        rows = self.execute(
            "SELECT rowid, bm25(compounds_fts) AS score FROM compounds_fts WHERE compounds_fts "
            "MATCH ? "
            "ORDER BY score LIMIT ?",
            (q, limit),
        ).fetchall()
        return [(row[0], -row[1]) for row in rows]
