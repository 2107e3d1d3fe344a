"""Reactions and their participants on SQLite: links by compound and role, and batched
inserts with the FTS5 rows that follow each reaction's text.

Reading reactions and numbering new ones is the shared
:class:`~chemground.kb.reaction_records.ReactionRecords`. A mixin of
:class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from chemground.kb.reaction_records import ReactionRecords
from chemground.kb.records import Reaction, Role
from chemground.kb.rows import REACTION_INSERT, participant_rows, reaction_row
from chemground.kb.store import ReactionLink


class SQLiteReactions(ReactionRecords):
    """Reactions and their participants (the link table) of the SQLite KB."""

    _conn: sqlite3.Connection

    def reaction_links(
        self, compound_ids: Iterable[int], roles: Iterable[Role] | None = None
    ) -> list[ReactionLink]:
        ids = list(dict.fromkeys(compound_ids))
        if not ids:
            return []
        role_values = [Role(r).value for r in roles] if roles else None
        links = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            sql = (
                "SELECT r.id, p.compound_id, p.role FROM participants p JOIN reactions r ON "
                "r.rowid = p.reaction_rowid "
                f"WHERE p.compound_id IN ({','.join('?' * len(chunk))})"
            )
            params: list[Any] = list(chunk)
            if role_values:
                sql += f" AND p.role IN ({','.join('?' * len(role_values))})"
                params += role_values
            links.extend(ReactionLink(r[0], r[1], Role(r[2])) for r in self.execute(sql, params))
        return links

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
