"""What each store provides to the mixins that hold its records' logic.

Both stores (:class:`~chemground.kb.sqlite_store.SQLiteKB`,
:class:`~chemground.kb.pg_store.PostgresKB`) are assembled from mixins. The logic that does
not depend on the SQL dialect (compound and reaction records, look-ups, the ledger) lives
once in the shared mixins; each store supplies the few primitives below, which are all that
differ between SQLite and PostgreSQL. They are declared here once (for type checkers: the
stores define them), so every mixin, shared or SQLite's own, inherits the same declarations
instead of repeating them.

SQL given to the primitives is written SQLite-style, with ``?`` placeholders; PostgreSQL's
store translates it. ``{values}`` in :meth:`StoreDialect._select_in` stands for a list
comparison: ``IN (?, ?, ...)`` in batches on SQLite, ``= ANY(?)`` with one array on
PostgreSQL.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any


class StoreDialect:
    """The primitives a store gives its mixins (see the module docstring), and the one way
    every mixin reads a large table on top of them (:meth:`_pages`)."""

    if TYPE_CHECKING:
        path: Any
        readonly: bool
        _lock: threading.RLock
        _fingerprint_cache: Any

        def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
            """Run one statement; rows are sequences (``?`` placeholders)."""

        def _mappings(self, sql: str, params: Sequence[Any] = ()) -> list[Mapping[str, Any]]:
            """All rows of one query, each readable by column name."""

        def _select_in(
            self, sql: str, values: Sequence[Any], by_name: bool = False
        ) -> Iterator[Any]:
            """The rows of ``sql`` with ``{values}`` compared to ``values`` (none if empty)."""

        def _write_scope(self) -> AbstractContextManager[Any]:
            """What one write runs in: SQLite's writer lock, a PostgreSQL transaction."""

        def transaction(self) -> AbstractContextManager[None]: ...
        def _require_writable(self) -> None: ...
        def table_exists(self, name: str) -> bool: ...
        def export_paper_rows(self, batch_size: int) -> Iterator[tuple[str, Any, int]]: ...
        def paper_counts(self) -> tuple[int, int]: ...

    def _pages(self, sql: str, batch_size: int, key: str) -> Iterator[list[Mapping[str, Any]]]:
        """The rows of ``sql`` (``... WHERE key > ? ORDER BY key LIMIT ?``) in pages of
        ``batch_size``, each starting after the last ``key`` of the one before: a large table
        is read in key order without OFFSET scans, and rows added meanwhile are not skipped."""
        last = 0
        while rows := self._mappings(sql, (last, batch_size)):
            yield rows
            last = rows[-1][key]
