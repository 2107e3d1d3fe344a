"""Full-text search over reaction and compound text, for both stores.

Both stores search the same words of a question (the first 64 of two or more characters) so
that they find the same records, and answer (id, score) pairs, best first; only the engine
differs: SQLite's FTS5 (each word quoted, BM25 lower for better), PostgreSQL's
``websearch_to_tsquery`` (plain words joined by ``or``, ``ts_rank`` higher for better). Any
word matches (OR), and punctuation in a question can never break either syntax.
:class:`TextSearch` is the mixin; each store names its statements and query syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from chemground.kb.dialect import StoreDialect

FTS_TOKEN = re.compile(r"[\w\-]+", re.UNICODE)


def query_words(text: str) -> list[str]:
    """The words a text search looks for: the first 64 of two or more characters."""
    return [t for t in FTS_TOKEN.findall(text) if len(t) > 1][:64]


def fts_query(text: str) -> str:
    """A safe FTS5 query: every word quoted, OR-ed (so punctuation cannot break the syntax)."""
    return " OR ".join('"' + t.replace('"', "") + '"' for t in query_words(text))


def tsquery(text: str) -> str:
    """A safe ``websearch_to_tsquery`` query: the words, each once, without edge hyphens
    (which websearch syntax reads as negation), OR-ed."""
    return " or ".join(dict.fromkeys(t for t in (w.strip("-") for w in query_words(text)) if t))


class TextSearch(StoreDialect):
    """Full-text search (a mixin of both stores): each store sets the statements (``?`` for
    the query, then the limit), how a query is written and how a raw score becomes a score."""

    _REACTION_TEXT_SQL: ClassVar[str]  # (reaction id, raw score), best first
    _COMPOUND_TEXT_SQL: ClassVar[str]  # (compound id, raw score), best first
    _text_query: ClassVar[Callable[[str], str]]  # fts_query or tsquery
    _text_score: ClassVar[Callable[[Any], float]]  # the raw score, higher for better

    def _ranked(self, sql: str, query: str, limit: int) -> list[tuple[Any, float]]:
        q = self._text_query(query)
        if not q:
            return []
        rows = self.execute(sql, (q, limit)).fetchall()
        return [(row[0], self._text_score(row[1])) for row in rows]

    def search_reaction_text(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        return self._ranked(self._REACTION_TEXT_SQL, query, limit)

    def search_compound_text(self, query: str, limit: int = 10) -> list[tuple[int, float]]:
        return self._ranked(self._COMPOUND_TEXT_SQL, query, limit)
