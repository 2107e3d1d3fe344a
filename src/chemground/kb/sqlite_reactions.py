"""Reactions and their participants (the link table): reading, links by compound and role,
batched inserts.

A mixin of :class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chemground.errors import NotFoundError
from chemground.kb.records import Conditions, Participant, Reaction, Role
from chemground.kb.sqlite_schema import (
    _REACTION_COLUMNS,
    _json,
)
from chemground.kb.store import ReactionLink


class SQLiteReactions:
    """Reactions and their participants (the link table) of the SQLite KB."""

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

    def _reactions_from_rows(self, rows: list[sqlite3.Row]) -> list[Reaction]:
        if not rows:
            return []
        by_rowid = {row["rowid"]: row for row in rows}
        participants: dict[int, list[Participant]] = {rowid: [] for rowid in by_rowid}
        marks = ",".join("?" * len(by_rowid))
        for p in self.execute(
            "SELECT reaction_rowid, role, compound_id, name, smiles, inchikey, amount, "
            "unresolved_reason "
            f"FROM participants WHERE reaction_rowid IN ({marks}) ORDER BY reaction_rowid, "
            "position",
            list(by_rowid),
        ):
            participants[p[0]].append(
                Participant(
                    role=Role(p[1]),
                    compound_id=p[2],
                    name=p[3],
                    smiles=p[4],
                    inchikey=p[5],
                    amount=p[6],
                    unresolved_reason=p[7],
                )
            )
        reactions = []
        for rowid, row in by_rowid.items():
            reactions.append(
                Reaction(
                    id=row["id"],
                    source=row["source"],
                    dataset=row["dataset"],
                    title=row["title"],
                    reaction_class=row["reaction_class"],
                    description=row["description"],
                    reaction_smiles=row["reaction_smiles"],
                    participants=participants[rowid],
                    operations=json.loads(row["operations"]),
                    conditions=Conditions(
                        temperature_c=row["temperature_c"],
                        temperature_text=row["temperature_text"],
                        time_h=row["time_h"],
                        ph=row["ph"],
                        pressure_bar=row["pressure_bar"],
                        atmosphere=row["atmosphere"],
                    ),
                    yield_percent=row["yield_percent"],
                    notes=row["notes"],
                    flags=json.loads(row["flags"]),
                    provenance=json.loads(row["provenance"]),
                )
            )
        return reactions

    def get_reaction(self, reaction_id: str) -> Reaction:
        found = self.get_reactions([reaction_id])
        if reaction_id not in found:
            raise NotFoundError(f"no reaction with id {reaction_id!r}")
        return found[reaction_id]

    def get_reactions(self, reaction_ids: Sequence[str]) -> dict[str, Reaction]:
        ids = list(dict.fromkeys(reaction_ids))
        out: dict[str, Reaction] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.execute(
                f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE id IN ({marks})", chunk
            ).fetchall()
            for reaction in self._reactions_from_rows(rows):
                out[reaction.id] = reaction
        return out

    def has_reaction(self, reaction_id: str) -> bool:
        return (
            self.execute("SELECT 1 FROM reactions WHERE id = ?", (reaction_id,)).fetchone()
            is not None
        )

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

    def iter_reactions(self, batch_size: int = 2000) -> Iterator[Reaction]:
        last = 0
        while True:
            rows = self.execute(
                f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            yield from self._reactions_from_rows(rows)
            last = rows[-1]["rowid"]

    def add_reaction(self, reaction: Reaction) -> bool:
        self._require_writable()
        with self._lock:
            c = reaction.conditions
            cursor = self._conn.execute(
                "INSERT OR IGNORE INTO reactions (id, source, dataset, title, reaction_class, "
                "description, "
                "reaction_smiles, temperature_c, temperature_text, time_h, ph, pressure_bar, "
                "atmosphere, yield_percent, "
                "operations, notes, flags, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?)",
                (
                    reaction.id,
                    reaction.source,
                    reaction.dataset,
                    reaction.title,
                    reaction.reaction_class,
                    reaction.description,
                    reaction.reaction_smiles,
                    c.temperature_c,
                    c.temperature_text,
                    c.time_h,
                    c.ph,
                    c.pressure_bar,
                    c.atmosphere,
                    reaction.yield_percent,
                    json.dumps(reaction.operations),
                    reaction.notes,
                    json.dumps(reaction.flags),
                    json.dumps(reaction.provenance),
                ),
            )
            if cursor.rowcount == 0:
                return False
            rowid = cursor.lastrowid
            self._conn.executemany(
                "INSERT INTO participants VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        rowid,
                        i,
                        p.role.value,
                        p.compound_id,
                        p.name,
                        p.smiles,
                        p.inchikey,
                        p.amount,
                        p.unresolved_reason,
                    )
                    for i, p in enumerate(reaction.participants)
                ],
            )
            self._conn.execute(
                "INSERT INTO reactions_fts(rowid, title, description, notes) VALUES (?, ?, ?, ?)",
                (rowid, reaction.title, reaction.description, reaction.notes),
            )
            return True

    def existing_reaction_ids(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` the KB already holds (batched)."""
        existing: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            existing.update(
                row[0]
                for row in self.execute(
                    f"SELECT id FROM reactions WHERE id IN ({','.join('?' * len(chunk))})", chunk
                )
            )
        return existing

    def add_reactions(self, reactions: list[Reaction]) -> list[str]:
        """Insert many reactions at once (ids already present, or repeated, are skipped).

        Returns the ids actually added. Same effect as ``add_reaction`` in a loop, with batched
        statements: imports of tens of thousands of reactions spend their time in chemistry,
        not in SQL round trips.
        """
        self._require_writable()
        with self._lock:
            existing = self.existing_reaction_ids([r.id for r in reactions])
            next_rowid = (
                self._conn.execute("SELECT max(rowid) FROM reactions").fetchone()[0] or 0
            ) + 1
            rows, participants, fts, added = [], [], [], []
            for reaction in reactions:
                if reaction.id in existing:
                    continue
                existing.add(reaction.id)
                c = reaction.conditions
                rows.append(
                    (
                        next_rowid,
                        reaction.id,
                        reaction.source,
                        reaction.dataset,
                        reaction.title,
                        reaction.reaction_class,
                        reaction.description,
                        reaction.reaction_smiles,
                        c.temperature_c,
                        c.temperature_text,
                        c.time_h,
                        c.ph,
                        c.pressure_bar,
                        c.atmosphere,
                        reaction.yield_percent,
                        _json(reaction.operations),
                        reaction.notes,
                        _json(reaction.flags),
                        _json(reaction.provenance),
                    )
                )
                participants.extend(  # a Role is a str: SQLite stores its value
                    (
                        next_rowid,
                        i,
                        p.role,
                        p.compound_id,
                        p.name,
                        p.smiles,
                        p.inchikey,
                        p.amount,
                        p.unresolved_reason,
                    )
                    for i, p in enumerate(reaction.participants)
                )
                fts.append((next_rowid, reaction.title, reaction.description, reaction.notes))
                added.append(reaction.id)
                next_rowid += 1
            self._conn.executemany(
                "INSERT INTO reactions (rowid, id, source, dataset, title, reaction_class, "
                "description, "
                "reaction_smiles, temperature_c, temperature_text, time_h, ph, pressure_bar, "
                "atmosphere, yield_percent, "
                "operations, notes, flags, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self._conn.executemany(
                "INSERT INTO participants VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", participants
            )
            self._conn.executemany(
                "INSERT INTO reactions_fts(rowid, title, description, notes) VALUES (?, ?, ?, ?)",
                fts,
            )
            return added
