"""Compounds and their names on SQLite: finding a stored record, batched inserts, the FTS5
rows that follow each compound's text, and the queries SQLite words its own way.

What does not depend on SQLite (look-ups, merging, reading) is the shared
:class:`~chemground.kb.compound_records.CompoundRecords`. A mixin of
:class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from chemground.chem.structure import Structure
from chemground.kb.compound_records import CompoundRecords
from chemground.kb.records import Compound
from chemground.kb.rows import (
    C_COLUMNS,
    COMPOUND_COLUMNS,
    COMPOUND_INSERT,
    compound_row,
    json_text,
    name_rows,
)


def _text_row(compound_id: int, compound: Compound) -> tuple:
    """The compound's ``compounds_fts`` row (rowid, IUPAC name, common name, synonyms,
    description)."""
    return (
        compound_id,
        compound.iupac_name,
        compound.common_name,
        json_text(compound.synonyms),
        compound.description,
    )


class SQLiteCompounds(CompoundRecords):
    """Compounds and their names in the SQLite KB."""

    _conn: sqlite3.Connection

    def _first_reaction_ids(self, compound_id: int, limit: int) -> list[str]:
        rows = self.execute(
            "SELECT DISTINCT r.id FROM participants p JOIN reactions r ON r.rowid = "
            "p.reaction_rowid "
            "WHERE p.compound_id = ? ORDER BY r.rowid LIMIT ?",
            (compound_id, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def known_names(self, pairs: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
        """Those (normalised name, compound id) pairs the KB already has (primary-key look-ups)."""
        todo = list(dict.fromkeys(pairs))
        found: set[tuple[str, int]] = set()
        for start in range(0, len(todo), 400):
            chunk = todo[start : start + 400]
            values = ",".join("(?, ?)" for _ in chunk)
            found.update(
                (norm, compound_id)
                for norm, compound_id in self.execute(
                    f"WITH p(norm, compound_id) AS (VALUES {values}) SELECT n.norm, "
                    "n.compound_id FROM p "
                    "JOIN compound_names n ON n.norm = p.norm AND n.compound_id = p.compound_id",
                    [v for pair in chunk for v in pair],
                )
            )
        return found

    def _find_existing(self, compound: Compound) -> sqlite3.Row | None:
        """The stored record of ``compound``: by InChIKey (then its structure, or an alias key),
        else by kind and primary name."""
        if compound.inchikey and compound.smiles:
            row = self.execute(
                f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ?",
                (compound.inchikey,),
            ).fetchone()
            if row is not None:
                return row
            hits = self.lookup_structure(
                Structure(compound.smiles, compound.inchikey, "", 0.0, 0.0, compound.inchikey)
            )
            if hits:
                return self.execute(
                    f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE id = ?",
                    (hits[0].compound_id,),
                ).fetchone()
            return None
        if compound.inchikey:
            row = self.execute(
                f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ?",
                (compound.inchikey,),
            ).fetchone()
            if row is None:
                row = self.execute(
                    f"SELECT {C_COLUMNS} "
                    "FROM compound_keys k "
                    "JOIN compounds c ON c.id = k.compound_id WHERE k.inchikey = ?",
                    (compound.inchikey,),
                ).fetchone()
            return row
        return self._find_by_primary_name(compound)  # type: ignore[return-value]

    def _insert_names(self, rows: list[tuple[str, int, int]]) -> None:
        self._conn.executemany(
            "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
            "DO UPDATE SET rank = min(rank, excluded.rank)",
            rows,
        )

    def _compound_text_changed(self, compound_id: int, new: Compound, old: Compound) -> None:
        """FTS5 keeps no copy of an external-content row: delete the old text, add the new."""
        self._conn.execute(
            "INSERT INTO compounds_fts(compounds_fts, rowid, iupac_name, common_name, "
            "synonyms, description) VALUES ('delete', ?, ?, ?, ?, ?)",
            _text_row(compound_id, old),
        )
        self._conn.execute(
            "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, description) "
            "VALUES (?, ?, ?, ?, ?)",
            _text_row(compound_id, new),
        )

    def _insert_compound(self, compound: Compound, fingerprint: bytes | None) -> int:
        """Insert one new compound (SQLite numbers it); returns its id."""
        cursor = self._conn.execute(COMPOUND_INSERT, compound_row(None, compound, fingerprint))
        compound_id = int(cursor.lastrowid)  # type: ignore[arg-type]
        self._write_compound_extras([(compound_id, compound)])
        return compound_id

    def _write_compound_extras(self, compounds: list[tuple[int, Compound]]) -> None:
        """The name and FTS5 rows of newly inserted compounds."""
        self._insert_names([row for i, compound in compounds for row in name_rows(i, compound)])
        self._conn.executemany(
            "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, "
            "description) VALUES (?, ?, ?, ?, ?)",
            [_text_row(i, compound) for i, compound in compounds],
        )
        self._fingerprint_cache = None

    def add_alias_key(self, inchikey: str, compound_id: int) -> None:
        self.execute("INSERT OR IGNORE INTO compound_keys VALUES (?, ?)", (inchikey, compound_id))

    def set_description(self, compound_id: int, description: str) -> None:
        self._require_writable()
        with self._lock:
            existing = self.get_compound(compound_id, with_reactions=0)
            if existing.description == description:
                return
            updated = existing.model_copy(update={"description": description})
            self._conn.execute(
                "UPDATE compounds SET description = ? WHERE id = ?", (description, compound_id)
            )
            self._compound_text_changed(compound_id, updated, existing)

    def insert_compounds(self, items: list[tuple[int, Compound, bytes | None]]) -> None:
        """Insert new compounds with ids the caller reserved (from ``next_compound_id``) at once."""
        self._require_writable()
        with self._lock:
            self._conn.executemany(
                COMPOUND_INSERT, [compound_row(i, compound, fp) for i, compound, fp in items]
            )
            self._write_compound_extras([(i, compound) for i, compound, _ in items])
