"""Full-text search (FTS5, BM25) over reaction and compound text.

The words searched are those of :mod:`chemground.kb.text_query`, as on PostgreSQL. A mixin of
:class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

from typing import Any

from chemground.kb.dialect import StoreDialect
from chemground.kb.text_query import fts_query


class SQLiteTextSearch(StoreDialect):
    """Full-text search (FTS5, BM25) over the SQLite KB's reaction and compound text."""

    def _ranked(self, sql: str, query: str, limit: int) -> list[tuple[Any, float]]:
        """(id, score) of the best ``limit`` matches; BM25 is lower for better, the score higher."""
        q = fts_query(query)
        if not q:
            return []
        return [(row[0], -row[1]) for row in self.execute(sql, (q, limit)).fetchall()]

    def search_reaction_text(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        return self._ranked(
            "SELECT r.id, bm25(reactions_fts) AS score FROM reactions_fts JOIN reactions r ON "
            "r.rowid = reactions_fts.rowid WHERE reactions_fts MATCH ? ORDER BY score LIMIT ?",
            query,
            limit,
        )

    def search_compound_text(self, query: str, limit: int = 10) -> list[tuple[int, float]]:
        return self._ranked(
            "SELECT rowid, bm25(compounds_fts) AS score FROM compounds_fts WHERE compounds_fts "
            "MATCH ? ORDER BY score LIMIT ?",
            query,
            limit,
        )
