"""The imports ledger (idempotent imports), record removal, export for ``kb migrate``, statistics.

A mixin of :class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chemground.kb.sqlite_schema import (
    _COMPOUND_COLUMNS,
    _REACTION_COLUMNS,
)
from chemground.kb.store import KBStats


class SQLiteLedger:
    """The imports ledger, record removal, export and statistics of the SQLite KB."""

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
        def export_paper_rows(self, batch_size: int) -> Iterator[tuple[str, Any, int]]: ...
        def paper_counts(self) -> tuple[int, int]: ...

    def import_record(self, sha256: str) -> dict[str, Any] | None:
        row = self.execute(
            "SELECT path, format, summary FROM imports WHERE sha256 = ?", (sha256,)
        ).fetchone()
        return (
            None
            if row is None
            else {"path": row[0], "format": row[1], "summary": json.loads(row[2])}
        )

    def record_import(self, sha256: str, path: str, fmt: str, summary: dict[str, Any]) -> None:
        self.execute(
            "INSERT OR IGNORE INTO imports VALUES (?, ?, ?, ?)",
            (sha256, path, fmt, json.dumps(summary)),
        )

    def remove_records(self, reaction_ids: Sequence[str], compound_ids: Sequence[int]) -> None:
        self._require_writable()
        reactions, compounds = list(reaction_ids), list(compound_ids)
        with self.transaction():
            conn = self._conn
            for start in range(0, len(reactions), 500):
                chunk = reactions[start : start + 500]
                rows = conn.execute(
                    "SELECT rowid, title, description, notes FROM reactions WHERE id IN "
                    f"({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                if not rows:
                    continue
                conn.executemany(
                    "INSERT INTO reactions_fts(reactions_fts, rowid, title, description, notes) "
                    "VALUES ('delete', ?, ?, ?, ?)",
                    [tuple(r) for r in rows],
                )
                rowids = [r[0] for r in rows]
                marks = ",".join("?" * len(rowids))
                conn.execute(f"DELETE FROM participants WHERE reaction_rowid IN ({marks})", rowids)
                conn.execute(f"DELETE FROM reactions WHERE rowid IN ({marks})", rowids)
            for start in range(0, len(compounds), 500):
                chunk = compounds[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT id, iupac_name, common_name, synonyms, description FROM compounds "
                    f"WHERE id IN ({marks})",
                    chunk,
                ).fetchall()
                conn.executemany(
                    "INSERT INTO compounds_fts(compounds_fts, rowid, iupac_name, common_name, "
                    "synonyms, "
                    "description) VALUES ('delete', ?, ?, ?, ?, ?)",
                    [tuple(r) for r in rows],
                )
                conn.execute(
                    f"UPDATE participants SET compound_id = NULL WHERE compound_id IN ({marks})",
                    chunk,
                )
                for table in ("compound_names", "compound_keys", "compound_screens"):
                    conn.execute(f"DELETE FROM {table} WHERE compound_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM compounds WHERE id IN ({marks})", chunk)
        self._fingerprint_cache = None
        self._screen_cache = None

    def export_tables(self, batch_size: int = 20_000) -> Iterator[tuple[str, Any, int]]:
        """Every stored record, table by table in batches, for copying into another backend.

        Yields (table, rows, total rows of the table). Compounds come before the tables that
        refer to them; a reactions batch is a pair (reaction rows, their participant rows).
        Meta rows that a new KB writes itself (schema version, backend) are left out.
        """
        total = self._count(
            "SELECT COUNT(*) FROM meta WHERE key NOT IN ('schema_version', 'backend')"
        )
        yield (
            "meta",
            [
                tuple(r)
                for r in self.execute(
                    "SELECT key, value FROM meta WHERE key NOT IN ('schema_version', 'backend') "
                    "ORDER BY key"
                )
            ],
            total,
        )
        total = self._count("SELECT COUNT(*) FROM compounds")
        last = 0
        while True:
            rows = [
                tuple(r)
                for r in self.execute(
                    f"SELECT {_COMPOUND_COLUMNS}, fingerprint FROM compounds WHERE id > ? ORDER "
                    "BY id LIMIT ?",
                    (last, batch_size),
                )
            ]
            if not rows:
                break
            yield "compounds", rows, total
            last = rows[-1][0]
        for table, order in (
            ("compound_keys", "inchikey"),
            ("compound_names", "norm, compound_id"),
            ("imports", "sha256"),
        ):
            total = self._count(f"SELECT COUNT(*) FROM {table}")
            cursor = self.execute(f"SELECT * FROM {table} ORDER BY {order}")
            while rows := [tuple(r) for r in cursor.fetchmany(batch_size)]:
                yield table, rows, total
        total = self._count("SELECT COUNT(*) FROM reactions")
        last = 0
        while True:
            rows = [
                tuple(r)
                for r in self.execute(
                    f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE rowid > ? ORDER BY rowid "
                    "LIMIT ?",
                    (last, batch_size),
                )
            ]
            if not rows:
                break
            participants = [
                tuple(r)
                for r in self.execute(
                    "SELECT reaction_rowid, position, role, compound_id, name, smiles, inchikey, "
                    "amount, unresolved_reason "
                    "FROM participants WHERE reaction_rowid > ? AND reaction_rowid <= ? ORDER BY "
                    "reaction_rowid, position",
                    (last, rows[-1][0]),
                )
            ]
            yield "reactions", (rows, participants), total
            last = rows[-1][0]
        yield from self.export_paper_rows(batch_size)

    def stats(self) -> KBStats:
        size = sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )
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
            reactions_by_source={
                r[0] or "(none)": r[1]
                for r in self.execute(
                    "SELECT dataset, COUNT(*) FROM reactions GROUP BY dataset ORDER BY 2 DESC"
                )
            },
            compounds_by_source={
                r[0] or "(none)": r[1]
                for r in self.execute(
                    "SELECT source, COUNT(*) FROM compounds GROUP BY source ORDER BY 2 DESC"
                )
            },
            documents=documents,
            chunks=chunks,
            size_bytes=size,
            meta=self.all_meta(),
        )
