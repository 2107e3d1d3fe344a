"""The imports ledger's writes (idempotent imports), record removal, export for ``kb migrate``
and the KB's size on SQLite.

Reading the ledger, meta and statistics is the shared :class:`~chemground.kb.ledger.LedgerRecords`.
A mixin of :class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from chemground.kb.ledger import LedgerRecords
from chemground.kb.rows import COMPOUND_COLUMNS, PARTICIPANT_COLUMNS, REACTION_COLUMNS


class SQLiteLedger(LedgerRecords):
    """The imports ledger, record removal, export and size of the SQLite KB."""

    _conn: sqlite3.Connection
    _screen_cache: Any

    def _size_bytes(self) -> int:
        """The database file and its companions (WAL, shared memory)."""
        return sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
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
        for rows in self._pages(
            f"SELECT {COMPOUND_COLUMNS}, fingerprint FROM compounds WHERE id > ? ORDER BY id "
            "LIMIT ?",
            batch_size,
            "id",
        ):
            yield "compounds", [tuple(r) for r in rows], total
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
        for rows in self._pages(
            f"SELECT {REACTION_COLUMNS} FROM reactions WHERE rowid > ? ORDER BY rowid LIMIT ?",
            batch_size,
            "rowid",
        ):
            participants = [
                tuple(r)
                for r in self.execute(
                    f"SELECT {PARTICIPANT_COLUMNS} FROM participants WHERE reaction_rowid > ? "
                    "AND reaction_rowid <= ? ORDER BY reaction_rowid, position",
                    (last, rows[-1]["rowid"]),
                )
            ]
            yield "reactions", ([tuple(r) for r in rows], participants), total
            last = rows[-1]["rowid"]
        yield from self.export_paper_rows(batch_size)
