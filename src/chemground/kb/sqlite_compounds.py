"""Compounds and their names: look-ups by name, InChIKey, structure and CAS; merging by
structure; batched inserts.

A mixin of :class:`~chemground.kb.sqlite_store.SQLiteKB`; see that module for the schema.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chemground.chem.names import DictionaryHit, normalize_name
from chemground.chem.structure import Structure
from chemground.errors import NotFoundError
from chemground.kb.records import Compound
from chemground.kb.sqlite_schema import (
    _COMPOUND_COLUMNS,
    _SOURCE_PRIORITY_SQL,
    _compound_from_row,
    _json,
    _matched_name,
    _structure_from_row,
)

_C_COLUMNS = ", ".join("c." + c.strip() for c in _COMPOUND_COLUMNS.split(","))


class SQLiteCompounds:
    """Compounds and their names in the SQLite KB."""

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

    def get_compound(self, compound_id: int, with_reactions: int = 50) -> Compound:
        row = self.execute(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE id = ?", (compound_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no compound with id {compound_id}")
        compound = _compound_from_row(row)
        if with_reactions:
            rows = self.execute(
                "SELECT DISTINCT r.id FROM participants p JOIN reactions r ON r.rowid = "
                "p.reaction_rowid "
                "WHERE p.compound_id = ? ORDER BY r.rowid LIMIT ?",
                (compound_id, with_reactions),
            ).fetchall()
            compound.reaction_ids = [r[0] for r in rows]
        return compound

    def count_reactions_of(self, compound_id: int) -> int:
        row = self.execute(
            "SELECT COUNT(DISTINCT reaction_rowid) FROM participants WHERE compound_id = ?",
            (compound_id,),
        ).fetchone()
        return int(row[0])

    def get_compounds(self, compound_ids: Sequence[int]) -> dict[int, Compound]:
        ids = list(dict.fromkeys(compound_ids))
        out: dict[int, Compound] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.execute(
                f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE id IN ({marks})", chunk
            ):
                out[row["id"]] = _compound_from_row(row)
        return out

    def _hits(
        self, sql: str, params: Sequence[Any], normalized: str | None = None
    ) -> list[DictionaryHit]:
        hits = []
        for row in self.execute(sql, params):
            name = (
                _matched_name(row, normalized)
                if normalized
                else (row["common_name"] or row["iupac_name"] or "")
            )
            rank = row["rank"] if "rank" in row.keys() else 0  # noqa: SIM118 (a sqlite3.Row)
            hits.append(DictionaryHit(row["id"], _structure_from_row(row), name, rank))
        return hits

    def lookup_name(self, normalized: str) -> list[DictionaryHit]:
        """Compounds known by this (normalised) name, best first.

        Many names are shared (PubChem synonym lists are noisy: "methanol" is also listed for
        the hydroxymethyl radical). Order: curated abbreviations (rank < 0), then the curated
        dictionary files over the large PubChem file (later files win, as in ``chemicals``),
        then IUPAC before common name before synonym, then the oldest record.
        """
        if not normalized:
            return []
        return self._hits(
            f"SELECT n.rank AS rank, {_C_COLUMNS} "
            "FROM compound_names n JOIN compounds c ON c.id = n.compound_id WHERE n.norm = ? "
            f"ORDER BY n.rank < 0 DESC, {_SOURCE_PRIORITY_SQL} DESC, n.rank, c.id",
            (normalized,),
            normalized,
        )

    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ? "
            f"UNION SELECT {_C_COLUMNS} "
            "FROM compound_keys k JOIN compounds c ON c.id = k.compound_id WHERE k.inchikey = ?",
            (inchikey, inchikey),
        )

    def compound_ids_for_structures(self, structures: Iterable[Structure]) -> dict[str, int]:
        """InChIKey -> compound id for those of ``structures`` already in the KB (batched)."""
        todo = {s.inchikey: s for s in structures}
        found: dict[str, int] = {}
        for sql, key_of in (
            ("SELECT inchikey, id FROM compounds WHERE inchikey IN ({})", lambda s: s.inchikey),
            (
                "SELECT inchikey, compound_id FROM compound_keys WHERE inchikey IN ({})",
                lambda s: s.inchikey,
            ),
            ("SELECT smiles, id FROM compounds WHERE smiles IN ({})", lambda s: s.smiles),
        ):
            pending = [s for key, s in todo.items() if key not in found]
            by_value = {key_of(s): s.inchikey for s in pending}
            values = list(by_value)
            for start in range(0, len(values), 500):
                chunk = values[start : start + 500]
                for value, compound_id in self.execute(
                    sql.format(",".join("?" * len(chunk))), chunk
                ):
                    found.setdefault(by_value[value], compound_id)
        return found

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

    def compounds_for_inchikeys(
        self, inchikeys: Iterable[str]
    ) -> dict[str, tuple[int, str | None]]:
        """InChIKey -> (compound id, canonical SMILES) for the keys the KB knows (aliases too)."""
        todo = list(dict.fromkeys(inchikeys))
        found: dict[str, tuple[int, str | None]] = {}
        for sql in (
            "SELECT inchikey, id, smiles FROM compounds WHERE inchikey IN ({})",
            (
                "SELECT k.inchikey, c.id, c.smiles FROM compound_keys k JOIN compounds c ON c.id "
                "= k.compound_id "
                "WHERE k.inchikey IN ({})"
            ),
        ):
            pending = [key for key in todo if key not in found]
            for start in range(0, len(pending), 500):
                chunk = pending[start : start + 500]
                for key, compound_id, smiles in self.execute(
                    sql.format(",".join("?" * len(chunk))), chunk
                ):
                    found.setdefault(key, (compound_id, smiles))
        return found

    def lookup_connectivity(self, connectivity_key: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE substr(inchikey, 1, 14) = ? ORDER "
            "BY id LIMIT 50",
            (connectivity_key[:14],),
        )

    def lookup_parent(self, parent_inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE parent_inchikey = ? OR inchikey = "
            "? ORDER BY id LIMIT 50",
            (parent_inchikey, parent_inchikey),
        )

    def lookup_cas(self, cas: str) -> list[DictionaryHit]:
        """Compounds with this CAS registry number (the dictionary's CAS column, then synonyms)."""
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE cas = ? ORDER BY id", (cas.strip(),)
        ) or self.lookup_name(normalize_name(cas))

    def lookup_smiles(self, canonical: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE smiles = ?", (canonical,)
        )

    def lookup_structure(self, structure: Structure) -> list[DictionaryHit]:
        """Compounds with this structure: by InChIKey, else by canonical SMILES.

        The SMILES fallback covers the few dictionary compounds whose stored (PubChem)
        InChIKey differs from the one RDKit computes for the same SMILES.
        """
        return self.lookup_inchikey(structure.inchikey) or self.lookup_smiles(structure.smiles)

    def iter_compounds(self, batch_size: int = 5000) -> Iterator[Compound]:
        last = 0
        while True:
            rows = self.execute(
                f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE id > ? ORDER BY id LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _compound_from_row(row)
            last = rows[-1]["id"]

    def fingerprints(self) -> tuple[list[int], list[Any]]:
        if self._fingerprint_cache is None:
            from rdkit import DataStructs

            ids, fps = [], []
            for compound_id, blob in self.execute(
                "SELECT id, fingerprint FROM compounds WHERE fingerprint IS NOT NULL ORDER BY id"
            ):
                ids.append(compound_id)
                fps.append(DataStructs.ExplicitBitVect(blob))
            self._fingerprint_cache = (ids, fps)
        return self._fingerprint_cache

    def name_table(self) -> list[tuple[str, int, int]]:
        out: list[tuple[str, int, int]] = []
        for row in self.execute("SELECT id, iupac_name, common_name, synonyms FROM compounds"):
            seen = set()
            for rank, names in ((0, [row[1]]), (1, [row[2]]), (2, json.loads(row[3]))):
                for name in names:
                    if name and name not in seen:
                        seen.add(name)
                        out.append((name, row[0], rank))
        return out

    def _find_existing(self, compound: Compound) -> sqlite3.Row | None:
        if compound.inchikey and compound.smiles:
            row = self.execute(
                f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ?",
                (compound.inchikey,),
            ).fetchone()
            if row is not None:
                return row
            hits = self.lookup_structure(
                Structure(compound.smiles, compound.inchikey, "", 0.0, 0.0, compound.inchikey)
            )
            if hits:
                return self.execute(
                    f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE id = ?",
                    (hits[0].compound_id,),
                ).fetchone()
            return None
        if compound.inchikey:
            row = self.execute(
                f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ?",
                (compound.inchikey,),
            ).fetchone()
            if row is None:
                row = self.execute(
                    f"SELECT {_C_COLUMNS} "
                    "FROM compound_keys k "
                    "JOIN compounds c ON c.id = k.compound_id WHERE k.inchikey = ?",
                    (compound.inchikey,),
                ).fetchone()
            return row
        # no structure: the same kind under the same primary name is the same record
        primary = normalize_name(compound.name)
        if not primary:
            return None
        return self.execute(
            f"SELECT {_C_COLUMNS} FROM "
            "compound_names n "
            "JOIN compounds c ON c.id = n.compound_id WHERE n.norm = ? AND c.inchikey IS NULL "
            "AND c.kind = ? "
            "AND n.rank <= 1 LIMIT 1",
            (primary, compound.kind),
        ).fetchone()

    def _insert_names(self, compound_id: int, compound: Compound) -> None:
        rows = []
        for rank, names in (
            (0, [compound.iupac_name]),
            (1, [compound.common_name]),
            (2, compound.synonyms),
        ):
            for name in names:
                norm = normalize_name(name) if name else ""
                if norm:
                    rows.append((norm, compound_id, rank))
        self._conn.executemany(
            "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
            "DO UPDATE SET rank = min(rank, excluded.rank)",
            rows,
        )

    def _fts_compound(
        self, compound_id: int, compound: Compound, delete: Compound | None = None
    ) -> None:
        if delete is not None:
            self._conn.execute(
                "INSERT INTO compounds_fts(compounds_fts, rowid, iupac_name, common_name, "
                "synonyms, description) "
                "VALUES ('delete', ?, ?, ?, ?, ?)",
                (
                    compound_id,
                    delete.iupac_name,
                    delete.common_name,
                    json.dumps(delete.synonyms),
                    delete.description,
                ),
            )
        self._conn.execute(
            "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, description) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                compound_id,
                compound.iupac_name,
                compound.common_name,
                json.dumps(compound.synonyms),
                compound.description,
            ),
        )

    def insert_compound(self, compound: Compound, fingerprint: bytes | None = None) -> int:
        """Insert a compound the caller knows is new (no look-up); returns its id."""
        self._require_writable()
        with self._lock:
            return self._insert_compound(compound, fingerprint)

    def upsert_compound(
        self, compound: Compound, fingerprint: bytes | None = None
    ) -> tuple[int, bool]:
        self._require_writable()
        with self._lock:
            row = self._find_existing(compound)
            if row is None:
                return self._insert_compound(compound, fingerprint), True
            existing = _compound_from_row(row)
            merged = self._merge(existing, compound)
            if merged != existing:
                self._conn.execute(
                    "UPDATE compounds SET iupac_name=?, common_name=?, synonyms=?, "
                    "description=?, pubchem_cid=?, "
                    "cas=?, inchi=?, provenance=? WHERE id=?",
                    (
                        merged.iupac_name,
                        merged.common_name,
                        json.dumps(merged.synonyms),
                        merged.description,
                        merged.pubchem_cid,
                        merged.cas,
                        merged.inchi,
                        json.dumps(merged.provenance),
                        existing.id,
                    ),
                )
                self._insert_names(existing.id, merged)
                self._fts_compound(existing.id, merged, delete=existing)
            return existing.id, False  # type: ignore[return-value]

    @staticmethod
    def _merge(existing: Compound, new: Compound) -> Compound:
        merged = existing.model_copy(deep=True)
        merged.iupac_name = existing.iupac_name or new.iupac_name
        merged.common_name = existing.common_name or new.common_name
        known = {normalize_name(n) for n in existing.all_names()}
        for name in new.all_names():
            norm = normalize_name(name)
            if norm and norm not in known:
                merged.synonyms.append(name)
                known.add(norm)
        merged.description = existing.description or new.description
        merged.pubchem_cid = existing.pubchem_cid or new.pubchem_cid
        merged.cas = existing.cas or new.cas
        merged.inchi = existing.inchi or new.inchi
        sources = list(
            existing.provenance.get("sources", [existing.source] if existing.source else [])
        )
        if new.source and new.source not in sources:
            sources.append(new.source)
            merged.provenance = {**existing.provenance, "sources": sources}
        return merged

    def _insert_compound(self, compound: Compound, fingerprint: bytes | None) -> int:
        provenance = dict(compound.provenance)
        if compound.source and "sources" not in provenance:
            provenance["sources"] = [compound.source]
        cursor = self._conn.execute(
            "INSERT INTO compounds (inchikey, parent_inchikey, smiles, inchi, formula, "
            "molecular_weight, exact_mass, "
            "iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, "
            "provenance, fingerprint) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                compound.inchikey,
                compound.parent_inchikey,
                compound.smiles,
                compound.inchi,
                compound.formula,
                compound.molecular_weight,
                compound.exact_mass,
                compound.iupac_name,
                compound.common_name,
                json.dumps(compound.synonyms),
                compound.description,
                compound.pubchem_cid,
                compound.cas,
                compound.kind,
                compound.source,
                json.dumps(provenance),
                fingerprint,
            ),
        )
        compound_id = int(cursor.lastrowid)  # type: ignore[arg-type]
        self._insert_names(compound_id, compound)
        self._fts_compound(compound_id, compound)
        self._fingerprint_cache = None
        return compound_id

    def add_synonyms(self, compound: Compound, names: list[str], source: str) -> None:
        """Append names (as written by a source) to a stored compound's synonyms."""
        self._require_writable()
        with self._lock:
            updated = self._merge(compound, Compound(synonyms=names, source=source))
            if updated == compound:
                return
            self._conn.execute(
                "UPDATE compounds SET synonyms = ?, provenance = ? WHERE id = ?",
                (json.dumps(updated.synonyms), json.dumps(updated.provenance), compound.id),
            )
            self._insert_names(compound.id, Compound(synonyms=names))  # type: ignore[arg-type]
            self._fts_compound(compound.id, updated, delete=compound)  # type: ignore[arg-type]

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
            self._fts_compound(compound_id, updated, delete=existing)

    def next_compound_id(self) -> int:
        return (self.execute("SELECT max(id) FROM compounds").fetchone()[0] or 0) + 1

    def insert_compounds(self, items: list[tuple[int, Compound, bytes | None]]) -> None:
        """Insert new compounds with ids the caller reserved (from ``next_compound_id``) at once."""
        self._require_writable()
        with self._lock:
            rows, names, fts = [], [], []
            for compound_id, compound, fingerprint in items:
                provenance = dict(compound.provenance)
                if compound.source and "sources" not in provenance:
                    provenance["sources"] = [compound.source]
                synonyms = _json(compound.synonyms)
                rows.append(
                    (
                        compound_id,
                        compound.inchikey,
                        compound.parent_inchikey,
                        compound.smiles,
                        compound.inchi,
                        compound.formula,
                        compound.molecular_weight,
                        compound.exact_mass,
                        compound.iupac_name,
                        compound.common_name,
                        synonyms,
                        compound.description,
                        compound.pubchem_cid,
                        compound.cas,
                        compound.kind,
                        compound.source,
                        _json(provenance),
                        fingerprint,
                    )
                )
                for rank, group in (
                    (0, [compound.iupac_name]),
                    (1, [compound.common_name]),
                    (2, compound.synonyms),
                ):
                    for name in group:
                        norm = normalize_name(name) if name else ""
                        if norm:
                            names.append((norm, compound_id, rank))
                fts.append(
                    (
                        compound_id,
                        compound.iupac_name,
                        compound.common_name,
                        synonyms,
                        compound.description,
                    )
                )
            self._conn.executemany(
                "INSERT INTO compounds (id, inchikey, parent_inchikey, smiles, inchi, formula, "
                "molecular_weight, "
                "exact_mass, iupac_name, common_name, synonyms, description, pubchem_cid, cas, "
                "kind, source, "
                "provenance, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?)",
                rows,
            )
            self._conn.executemany(
                "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
                "DO UPDATE SET rank = min(rank, excluded.rank)",
                names,
            )
            self._conn.executemany(
                "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, "
                "description) VALUES (?, ?, ?, ?, ?)",
                fts,
            )
            self._fingerprint_cache = None
