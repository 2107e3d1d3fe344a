"""Full-text search on SQLite: FTS5 with BM25 ranking over reaction and compound text.

The search itself is the shared :class:`~chemground.kb.text_query.TextSearch`; this mixin of
:class:`~chemground.kb.sqlite_store.SQLiteKB` names its FTS5 statements (see that module for
the schema).
"""

from __future__ import annotations

import operator

from chemground.kb.text_query import TextSearch, fts_query


class SQLiteTextSearch(TextSearch):
    """Full-text search (FTS5, BM25) over the SQLite KB's reaction and compound text."""

    _REACTION_TEXT_SQL = (
        "SELECT r.id, bm25(reactions_fts) AS score FROM reactions_fts JOIN reactions r ON "
        "r.rowid = reactions_fts.rowid WHERE reactions_fts MATCH ? ORDER BY score LIMIT ?"
    )
    _COMPOUND_TEXT_SQL = (
        "SELECT rowid, bm25(compounds_fts) AS score FROM compounds_fts WHERE compounds_fts "
        "MATCH ? ORDER BY score LIMIT ?"
    )
    _text_query = staticmethod(fts_query)
    _text_score = staticmethod(operator.neg)  # BM25 is lower for better
