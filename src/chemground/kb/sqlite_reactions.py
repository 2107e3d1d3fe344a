"""Reactions and their participants on SQLite: links by compound and role in batches, and
batched inserts with the FTS5 rows that follow each reaction's text.

Reading reactions and numbering new ones is the shared
:class:`~chemground.kb.reaction_records.ReactionRecords`. A mixin of
:class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from chemground.kb.reaction_records import ReactionRecords
from chemground.kb.records import Reaction
from chemground.kb.rows import REACTION_INSERT, participant_rows, reaction_row


class SQLiteReactions(ReactionRecords):
    """Reactions and their participants (the link table) of the SQLite KB."""

    _conn: sqlite3.Connection

    def _link_rows(self, compound_ids: list[int], roles: list[str] | None) -> Iterator[Any]:
        """In batches of 500 compounds; each batch in the order of the (compound, role) index."""
        role_sql = f" AND p.role IN ({','.join('?' * len(roles))})" if roles else ""
        for start in range(0, len(compound_ids), 500):
            chunk = compound_ids[start : start + 500]
            yield from self.execute(
                "SELECT r.id, p.compound_id, p.role FROM participants p JOIN reactions r ON "
                f"r.rowid = p.reaction_rowid WHERE p.compound_id IN ({','.join('?' * len(chunk))})"
                f"{role_sql}",
                [*chunk, *(roles or ())],
            )

    def _write_reactions(self, numbered: list[tuple[int, Reaction]]) -> None:
        """The reaction, participant and FTS5 rows, one batched statement each."""
        self._conn.executemany(REACTION_INSERT, [reaction_row(i, r) for i, r in numbered])
        self._conn.executemany(
            "INSERT INTO participants VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [row for i, r in numbered for row in participant_rows(i, r)],
        )
        self._conn.executemany(
            "INSERT INTO reactions_fts(rowid, title, description, notes) VALUES (?, ?, ?, ?)",
            [(i, r.title, r.description, r.notes) for i, r in numbered],
        )
