"""Named look-ups that callers outside ``kb/`` use instead of sending SQL.

The SQL here is portable (the tables and columns are the same on every backend, and
``execute`` takes ``?`` placeholders on PostgreSQL too), so one implementation serves
SQLite and PostgreSQL; :class:`~chemground.kb.store.KnowledgeBase` declares each method.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar


class NamedQueries:
    """Mixin of both stores: needs ``execute``, ``table_exists`` and ``_require_writable``."""

    def execute(self, sql: str, params: Any = ()) -> Any:  # provided by the store
        raise NotImplementedError

    def table_exists(self, name: str) -> bool:  # provided by the store
        raise NotImplementedError

    def _require_writable(self) -> None:  # provided by the store
        raise NotImplementedError

    _REACTION_REQUIREMENTS: ClassVar[dict[str, str]] = {
        "any": "1 = 1",
        "temperature": "temperature_c IS NOT NULL",
        "yield": "yield_percent IS NOT NULL",
        "time": "time_h IS NOT NULL",
        "solvent": "EXISTS (SELECT 1 FROM participants p WHERE p.reaction_rowid = reactions.rowid "
        "AND p.role = 'solvent')",
        "catalyst": "EXISTS (SELECT 1 FROM participants p WHERE p.reaction_rowid = reactions.rowid "
        "AND p.role = 'catalyst')",
    }
    _COMPOUND_REQUIREMENTS: ClassVar[dict[str, str]] = {
        "structure": "smiles IS NOT NULL",
        "description": "description != ''",
        "name_conversion": "smiles IS NOT NULL AND iupac_name IS NOT NULL",
    }

    def reaction_state(self) -> tuple[int, int]:
        """(number of reactions, last reaction rowid): changes whenever reactions are added."""
        row = self.execute("SELECT count(*), coalesce(max(rowid), 0) FROM reactions").fetchone()
        return int(row[0]), int(row[1])

    def records_state(self) -> tuple[int, int, int, int]:
        """(compounds, last compound id, reactions, last reaction rowid): a cache stamp."""
        row = self.execute(
            "SELECT (SELECT count(*) FROM compounds), (SELECT coalesce(max(id), 0) FROM "
            "compounds), "
            "(SELECT count(*) FROM reactions), (SELECT coalesce(max(rowid), 0) FROM reactions)"
        ).fetchone()
        return tuple(int(v) for v in row)  # type: ignore[return-value]

    def reaction_classes(self) -> list[tuple[str, str]]:
        """(reaction id, reaction class) of every reaction with a class, in KB order."""
        return [
            tuple(r)
            for r in self.execute(
                "SELECT id, reaction_class FROM reactions WHERE reaction_class IS NOT NULL AND "
                "reaction_class != '' "
                "ORDER BY rowid"
            )
        ]

    def candidate_reaction_ids(self, require: str = "any") -> list[str]:
        """Ids of unflagged reactions having ``require`` ("any", "temperature", "yield", "time",
        "solvent", "catalyst"), in KB order (benchmark generation)."""
        where = self._REACTION_REQUIREMENTS[require]
        return [
            r[0]
            for r in self.execute(
                f"SELECT id FROM reactions WHERE flags = '[]' AND {where} ORDER BY rowid"
            )
        ]

    def candidate_compound_ids(self, require: str = "structure") -> list[int]:
        """Ids of compounds (kind 'compound') having ``require`` ("structure", "description",
        "name_conversion": a structure and an IUPAC name), in KB order."""
        where = self._COMPOUND_REQUIREMENTS[require]
        return [
            r[0]
            for r in self.execute(
                f"SELECT id FROM compounds WHERE kind = 'compound' AND {where} ORDER BY id"
            )
        ]

    def compound_id_for_pubchem_cid(self, cid: int) -> int | None:
        """The first compound with this PubChem CID, or None."""
        row = self.execute(
            "SELECT id FROM compounds WHERE pubchem_cid = ? ORDER BY id LIMIT 1", (cid,)
        ).fetchone()
        return None if row is None else int(row[0])

    def max_compound_id(self) -> int:
        """The largest compound id (0 for an empty KB)."""
        return int(self.execute("SELECT coalesce(max(id), 0) FROM compounds").fetchone()[0])

    def reaction_flags(self, reaction_id: str) -> list[str]:
        """The flags of a reaction ([] when it has none or does not exist)."""
        row = self.execute("SELECT flags FROM reactions WHERE id = ?", (reaction_id,)).fetchone()
        return json.loads(row[0]) if row else []

    def set_reaction_flags(self, reaction_id: str, flags: list[str]) -> None:
        """Replace a reaction's flags."""
        self._require_writable()
        self.execute(
            "UPDATE reactions SET flags = ? WHERE id = ?", (json.dumps(flags), reaction_id)
        )

    def name_ranks(self, norms: Iterable[str]) -> dict[str, int]:
        """Normalised name -> best rank, for those of ``norms`` the KB knows."""
        todo = list(dict.fromkeys(norms))
        known: dict[str, int] = {}
        for start in range(0, len(todo), 500):
            chunk = todo[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for norm, rank in self.execute(
                f"SELECT norm, min(rank) FROM compound_names WHERE norm IN ({marks}) GROUP BY norm",
                chunk,
            ):
                known[norm] = int(rank)
        return known

    def all_name_norms(self) -> set[str]:
        """Every normalised name the KB knows."""
        return {r[0] for r in self.execute("SELECT DISTINCT norm FROM compound_names")}

    def compound_ids_by_formula(self) -> dict[str, list[int]]:
        """Molecular formula -> ids of the compounds with a structure and that formula."""
        index: dict[str, list[int]] = {}
        for formula, compound_id in self.execute(
            "SELECT formula, id FROM compounds WHERE formula IS NOT NULL AND smiles IS NOT NULL "
            "ORDER BY id"
        ):
            index.setdefault(formula, []).append(compound_id)
        return index

    def compound_names_for_index(
        self, first_sources: Iterable[str] = ()
    ) -> list[tuple[int, str | None, str | None, list[str], str]]:
        """(id, IUPAC name, common name, synonyms, source) of every compound, those from
        ``first_sources`` first, then by id: what a typo index is built from."""
        first = list(first_sources)
        order = "id"
        params: list[Any] = []
        if first:
            marks = ",".join("?" * len(first))
            order = f"CASE WHEN source IN ({marks}) THEN 0 ELSE 1 END, id"
            params = first
        rows = self.execute(
            f"SELECT id, iupac_name, common_name, synonyms, source FROM compounds ORDER BY {order}",
            params,
        )
        return [(r[0], r[1], r[2], json.loads(r[3] or "[]"), r[4]) for r in rows]

    def participant_names(self) -> list[tuple[str, int]]:
        """(name, compound id) of every named reaction participant linked to a compound."""
        return [
            (r[0], r[1])
            for r in self.execute(
                "SELECT DISTINCT name, compound_id FROM participants WHERE compound_id IS NOT "
                "NULL AND name IS NOT NULL"
            )
        ]

    def import_count(self) -> int:
        """How many files were imported (rows of the imports ledger)."""
        return int(self.execute("SELECT COUNT(*) FROM imports").fetchone()[0])

    def has_chunks(self) -> bool:
        """Whether papers were added (the KB holds at least one text chunk)."""
        return (
            self.table_exists("chunks")
            and self.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
        )
