"""The words of a full-text query, and how each store's text engine is asked for them.

Both stores search the same words of a question (the first 64 of two or more characters) so
that they find the same records; only the query syntax differs: SQLite's FTS5 wants each word
quoted, PostgreSQL's ``websearch_to_tsquery`` plain words joined by ``or``. Any word matches
(OR), and punctuation in a question can never break either syntax.
"""

from __future__ import annotations

import re

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
