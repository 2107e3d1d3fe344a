"""Reactions and their participants, for both stores: reading and numbering new ones.

A reaction is a ``reactions`` row plus its ``participants`` rows in position order, numbered
by ``rowid`` in import order (the KB order searches report ties in). Reading them back and
deciding which of a batch are new, and which row numbers they get, is the same on every
engine, so it is done here once (a mixin of both stores); each store writes the rows its own
way (SQLite's batched inserts and FTS5 rows, PostgreSQL's ``COPY``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chemground.errors import NotFoundError
from chemground.kb.dialect import StoreDialect
from chemground.kb.records import Reaction, Role
from chemground.kb.rows import REACTION_COLUMNS, reactions_from_rows
from chemground.kb.store import ReactionLink


class ReactionRecords(StoreDialect):
    """Reaction reading and numbering (a mixin of both stores)."""

    if TYPE_CHECKING:  # each store's own part

        def _write_reactions(self, numbered: list[tuple[int, Reaction]]) -> None:
            """Store the rows of reactions :meth:`_number_new_reactions` numbered."""

        def _link_rows(
            self, compound_ids: list[int], roles: list[str] | None
        ) -> Iterable[Sequence[Any]]:
            """(reaction id, compound id, role) of the compounds' participations."""

    def _reactions_from_rows(self, rows: Sequence[Mapping[str, Any]]) -> list[Reaction]:
        if not rows:
            return []
        participants = self._select_in(
            "SELECT reaction_rowid, role, compound_id, name, smiles, inchikey, amount, "
            "unresolved_reason FROM participants WHERE reaction_rowid {values} "
            "ORDER BY reaction_rowid, position",
            [row["rowid"] for row in rows],
        )
        return reactions_from_rows(rows, participants)

    def _reactions_with_ids(self, ids: Sequence[str]) -> list[Reaction]:
        """The stored reactions among ``ids``, in the order the store returns them."""
        rows = list(
            self._select_in(
                f"SELECT {REACTION_COLUMNS} FROM reactions WHERE id {{values}}", ids, by_name=True
            )
        )
        return self._reactions_from_rows(rows)

    def get_reactions(self, reaction_ids: Sequence[str]) -> dict[str, Reaction]:
        return {r.id: r for r in self._reactions_with_ids(list(dict.fromkeys(reaction_ids)))}

    def get_reaction(self, reaction_id: str) -> Reaction:
        found = self.get_reactions([reaction_id])
        if reaction_id not in found:
            raise NotFoundError(f"no reaction with id {reaction_id!r}")
        return found[reaction_id]

    def has_reaction(self, reaction_id: str) -> bool:
        return (
            self.execute("SELECT 1 FROM reactions WHERE id = ?", (reaction_id,)).fetchone()
            is not None
        )

    def iter_reactions(self, batch_size: int = 2000) -> Iterator[Reaction]:
        for rows in self._pages(
            f"SELECT {REACTION_COLUMNS} FROM reactions WHERE rowid > ? ORDER BY rowid LIMIT ?",
            batch_size,
            "rowid",
        ):
            yield from self._reactions_from_rows(rows)

    def reaction_links(
        self, compound_ids: Iterable[int], roles: Iterable[Role] | None = None
    ) -> list[ReactionLink]:
        """The links of these compounds (in ``roles``; None: any), in the store's link order."""
        ids = list(dict.fromkeys(compound_ids))
        if not ids:
            return []
        role_values = [Role(r).value for r in roles] if roles else None
        return [ReactionLink(r[0], r[1], Role(r[2])) for r in self._link_rows(ids, role_values)]

    def existing_reaction_ids(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` the KB already holds."""
        return {
            row[0]
            for row in self._select_in("SELECT id FROM reactions WHERE id {values}", list(ids))
        }

    def _number_new_reactions(self, reactions: list[Reaction]) -> list[tuple[int, Reaction]]:
        """(rowid, reaction) for those of ``reactions`` not stored yet (the first of a repeated
        id), numbered on from the last stored row. Call inside the write that stores them."""
        existing = self.existing_reaction_ids([r.id for r in reactions])
        next_rowid = (self.execute("SELECT max(rowid) FROM reactions").fetchone()[0] or 0) + 1
        numbered = []
        for reaction in reactions:
            if reaction.id in existing:
                continue
            existing.add(reaction.id)
            numbered.append((next_rowid, reaction))
            next_rowid += 1
        return numbered

    def add_reactions(self, reactions: list[Reaction]) -> list[str]:
        """Insert many reactions at once (ids already present, or repeated, are skipped).

        Returns the ids actually added, in order. Imports of tens of thousands of reactions
        spend their time in chemistry, not in SQL round trips: the store writes the new rows
        in batches (:meth:`_write_reactions`).
        """
        self._require_writable()
        with self._write_scope():
            numbered = self._number_new_reactions(reactions)
            self._write_reactions(numbered)
        return [reaction.id for _, reaction in numbered]

    def add_reaction(self, reaction: Reaction) -> bool:
        """Insert one reaction; False if the KB already holds its id."""
        return bool(self.add_reactions([reaction]))
