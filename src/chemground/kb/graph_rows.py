"""Rows the reaction graph is built from, read in bulk (columns, not records).

Building the graph from 1M reactions as :class:`~chemground.kb.records.Reaction` models
only to flatten them again would cost most of the build, so the KB hands out these rows
instead (:meth:`~chemground.kb.store.KnowledgeBase.reaction_rows_after` and its siblings).
The SQL is portable, so :class:`GraphRowQueries` serves both stores.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple


class ReactionRow(NamedTuple):
    """A reaction's graph columns; ``rowid`` is its place in import order."""

    rowid: int
    id: str
    source: str
    dataset: str
    title: str | None
    reaction_class: str | None
    reaction_smiles: str | None
    yield_percent: float | None
    temperature_c: float | None
    temperature_text: str | None
    time_h: float | None
    pressure_bar: float | None
    ph: float | None
    atmosphere: str | None


class ParticipantRow(NamedTuple):
    """A participant with its linked compound's InChIKey and weight (None when unlinked)."""

    reaction_rowid: int
    position: int
    role: str
    compound_id: int | None
    inchikey: str | None
    smiles: str | None
    name: str | None
    amount: str | None
    compound_inchikey: str | None
    compound_weight: float | None


class MoleculeRow(NamedTuple):
    """A compound's graph columns."""

    id: int
    inchikey: str | None
    smiles: str | None
    common_name: str | None
    iupac_name: str | None
    synonyms: list[str]
    formula: str | None
    molecular_weight: float | None


_BATCH = 900  # ids per IN (...) list (SQLite allows 999 parameters by default)


class GraphRowQueries:
    """Mixin of both stores: needs ``execute`` (``?`` placeholders)."""

    def execute(self, sql: str, params: Any = ()) -> Any:  # provided by the store
        raise NotImplementedError

    def reaction_rows_after(self, rowid: int) -> list[ReactionRow]:
        """The graph columns of every reaction stored after ``rowid``, in import order.

        Args:
            rowid: the last reaction already in the graph (0: all).

        Returns:
            One row per reaction.
        """
        rows = self.execute(
            "SELECT rowid, id, source, dataset, title, reaction_class, reaction_smiles, "
            "yield_percent, temperature_c, temperature_text, time_h, pressure_bar, ph, "
            "atmosphere FROM reactions WHERE rowid > ? ORDER BY rowid",
            (rowid,),
        )
        return [ReactionRow._make(r) for r in rows]

    def participant_rows_after(self, rowid: int) -> list[ParticipantRow]:
        """The participants of the reactions stored after ``rowid``.

        Args:
            rowid: as for :meth:`reaction_rows_after`.

        Returns:
            One row per participant, by reaction (import order) then position.
        """
        rows = self.execute(
            "SELECT p.reaction_rowid, p.position, p.role, p.compound_id, p.inchikey, p.smiles, "
            "p.name, p.amount, c.inchikey, c.molecular_weight FROM participants p "
            "LEFT JOIN compounds c ON c.id = p.compound_id WHERE p.reaction_rowid > ? "
            "ORDER BY p.reaction_rowid, p.position",
            (rowid,),
        )
        return [ParticipantRow._make(r) for r in rows]

    def molecule_rows(self, compound_ids: Iterable[int]) -> list[MoleculeRow]:
        """The graph columns of these compounds.

        Args:
            compound_ids: compound ids (repeats and unknown ids are fine).

        Returns:
            One row per stored compound, by id.
        """
        ids = sorted(set(compound_ids))
        out: list[MoleculeRow] = []
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            rows = self.execute(
                "SELECT id, inchikey, smiles, common_name, iupac_name, synonyms, formula, "
                f"molecular_weight FROM compounds WHERE id IN ({','.join('?' * len(part))}) "
                "ORDER BY id",
                part,
            )
            out.extend(
                MoleculeRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5] or "[]"), *r[6:])
                for r in rows
            )
        return out
