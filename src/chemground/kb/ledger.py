"""Meta values, the imports ledger and statistics, for both stores.

``meta`` (schema version, build settings), ``imports`` (which files were imported, keyed by
their SHA-256, so importing one again does nothing) and the counts ``kb stats`` shows are
read the same way on every engine; only how big the KB is on disk differs
(:meth:`LedgerRecords._size_bytes`). A mixin of both stores.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from chemground.kb.dialect import StoreDialect
from chemground.kb.store import KBStats


class LedgerRecords(StoreDialect):
    """Meta, the imports ledger and statistics (a mixin of both stores)."""

    if TYPE_CHECKING:  # each store's own part

        def _size_bytes(self) -> int:
            """The KB's size on disk (its files; the database's tables)."""

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def all_meta(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.execute("SELECT key, value FROM meta")}

    def _count(self, sql: str) -> int:
        return int(self.execute(sql).fetchone()[0])

    def import_record(self, sha256: str) -> dict[str, Any] | None:
        """What the import of the file with this SHA-256 recorded (None: never imported)."""
        row = self.execute(
            "SELECT path, format, summary FROM imports WHERE sha256 = ?", (sha256,)
        ).fetchone()
        return (
            None
            if row is None
            else {"path": row[0], "format": row[1], "summary": json.loads(row[2])}
        )

    def _count_by(self, column: str, table: str) -> dict[str, int]:
        """Rows per value of ``column`` (a fixed name, never input), most first, ties by value."""
        return {
            r[0] or "(none)": r[1]
            for r in self.execute(
                f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY 2 DESC, 1"
            )
        }

    def stats(self) -> KBStats:
        documents, chunks = self.paper_counts()
        return KBStats(
            path=str(self.path),
            compounds=self._count("SELECT COUNT(*) FROM compounds"),
            compounds_with_structure=self._count(
                "SELECT COUNT(*) FROM compounds WHERE smiles IS NOT NULL"
            ),
            compound_names=self._count("SELECT COUNT(*) FROM compound_names"),
            reactions=self._count("SELECT COUNT(*) FROM reactions"),
            participants=self._count("SELECT COUNT(*) FROM participants"),
            flagged_reactions=self._count("SELECT COUNT(*) FROM reactions WHERE flags != '[]'"),
            reactions_by_source=self._count_by("dataset", "reactions"),
            compounds_by_source=self._count_by("source", "compounds"),
            documents=documents,
            chunks=chunks,
            size_bytes=self._size_bytes(),
            meta=self.all_meta(),
        )
