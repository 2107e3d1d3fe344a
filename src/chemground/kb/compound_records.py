"""Compounds and their names, for both stores: reading, look-ups and merging by structure.

Which compound a name, key or structure finds, in which order, and how a record seen again
is merged into the stored one are decisions about the KB, not about its engine, so they are
made here once (a mixin of both stores). Each store adds what its engine does differently:
batched name inserts, finding an existing record, its text index
(:class:`~chemground.kb.sqlite_compounds.SQLiteCompounds`, :mod:`chemground.kb.pg_store`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chemground.chem.names import DictionaryHit, normalize_name
from chemground.chem.structure import Structure
from chemground.errors import NotFoundError
from chemground.kb.dialect import StoreDialect
from chemground.kb.records import Compound
from chemground.kb.rows import (
    C_COLUMNS,
    COMPOUND_COLUMNS,
    SOURCE_PRIORITY_SQL,
    compound_from_row,
    hit_from_row,
    json_text,
    name_rows,
    name_table_rows,
)


def merge_compounds(existing: Compound, new: Compound) -> Compound:
    """The stored compound completed by a new record of it: what it lacks is filled in, new
    names become synonyms, and the new source joins the provenance's sources."""
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
    sources = list(existing.provenance.get("sources", [existing.source] if existing.source else []))
    if new.source and new.source not in sources:
        sources.append(new.source)
        merged.provenance = {**existing.provenance, "sources": sources}
    return merged


class CompoundRecords(StoreDialect):
    """Compound reading, look-ups and merging (a mixin of both stores)."""

    if TYPE_CHECKING:  # each store's own part

        def _first_reaction_ids(self, compound_id: int, limit: int) -> list[str]: ...
        def _find_existing(self, compound: Compound) -> Mapping[str, Any] | None: ...
        def _insert_compound(self, compound: Compound, fingerprint: bytes | None) -> int: ...
        def _insert_names(self, rows: list[tuple[str, int, int]]) -> None: ...

    # -- reading ---------------------------------------------------------------------------
    def get_compound(self, compound_id: int, with_reactions: int = 50) -> Compound:
        rows = self._mappings(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE id = ?", (compound_id,)
        )
        if not rows:
            raise NotFoundError(f"no compound with id {compound_id}")
        compound = compound_from_row(rows[0])
        if with_reactions:
            compound.reaction_ids = self._first_reaction_ids(compound_id, with_reactions)
        return compound

    def count_reactions_of(self, compound_id: int) -> int:
        row = self.execute(
            "SELECT COUNT(DISTINCT reaction_rowid) FROM participants WHERE compound_id = ?",
            (compound_id,),
        ).fetchone()
        return int(row[0])

    def get_compounds(self, compound_ids: Sequence[int]) -> dict[int, Compound]:
        rows = self._select_in(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE id {{values}}",
            list(dict.fromkeys(compound_ids)),
            by_name=True,
        )
        return {row["id"]: compound_from_row(row) for row in rows}

    def iter_compounds(self, batch_size: int = 5000) -> Iterator[Compound]:
        for rows in self._pages(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE id > ? ORDER BY id LIMIT ?",
            batch_size,
            "id",
        ):
            yield from map(compound_from_row, rows)

    def fingerprints(self) -> tuple[list[int], list[Any]]:
        if self._fingerprint_cache is None:
            from rdkit import DataStructs

            ids, fps = [], []
            for compound_id, blob in self.execute(
                "SELECT id, fingerprint FROM compounds WHERE fingerprint IS NOT NULL ORDER BY id"
            ):
                ids.append(compound_id)
                fps.append(DataStructs.ExplicitBitVect(bytes(blob)))
            self._fingerprint_cache = (ids, fps)
        return self._fingerprint_cache

    def name_table(self) -> list[tuple[str, int, int]]:
        return name_table_rows(
            self.execute("SELECT id, iupac_name, common_name, synonyms FROM compounds ORDER BY id")
        )

    def next_compound_id(self) -> int:
        return (self.execute("SELECT max(id) FROM compounds").fetchone()[0] or 0) + 1

    # -- look-ups --------------------------------------------------------------------------
    def _hits(
        self, sql: str, params: Sequence[Any], normalized: str | None = None
    ) -> list[DictionaryHit]:
        return [hit_from_row(row, normalized) for row in self._mappings(sql, params)]

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
            f"SELECT n.rank AS rank, {C_COLUMNS} "
            "FROM compound_names n JOIN compounds c ON c.id = n.compound_id WHERE n.norm = ? "
            f"ORDER BY n.rank < 0 DESC, {SOURCE_PRIORITY_SQL} DESC, n.rank, c.id",
            (normalized,),
            normalized,
        )

    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ? "
            f"UNION SELECT {C_COLUMNS} FROM compound_keys k JOIN compounds c ON c.id = "
            "k.compound_id WHERE k.inchikey = ? ORDER BY id",
            (inchikey, inchikey),
        )

    def lookup_connectivity(self, connectivity_key: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE substr(inchikey, 1, 14) = ? ORDER "
            "BY id LIMIT 50",
            (connectivity_key[:14],),
        )

    def lookup_parent(self, parent_inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE parent_inchikey = ? OR inchikey = "
            "? ORDER BY id LIMIT 50",
            (parent_inchikey, parent_inchikey),
        )

    def lookup_cas(self, cas: str) -> list[DictionaryHit]:
        """Compounds with this CAS registry number (the dictionary's CAS column, then synonyms)."""
        return self._hits(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE cas = ? ORDER BY id", (cas.strip(),)
        ) or self.lookup_name(normalize_name(cas))

    def lookup_smiles(self, canonical: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE smiles = ? ORDER BY id", (canonical,)
        )

    def lookup_structure(self, structure: Structure) -> list[DictionaryHit]:
        """Compounds with this structure: by InChIKey, else by canonical SMILES.

        The SMILES fallback covers the few dictionary compounds whose stored (PubChem)
        InChIKey differs from the one RDKit computes for the same SMILES.
        """
        return self.lookup_inchikey(structure.inchikey) or self.lookup_smiles(structure.smiles)

    def compound_ids_for_structures(self, structures: Iterable[Structure]) -> dict[str, int]:
        """InChIKey -> compound id for those of ``structures`` already in the KB (batched):
        by InChIKey, then alias key, then canonical SMILES (the oldest record)."""
        todo = {s.inchikey: s for s in structures}
        found: dict[str, int] = {}
        for sql, key_of in (
            ("SELECT inchikey, id FROM compounds WHERE inchikey {values}", lambda s: s.inchikey),
            (
                "SELECT inchikey, compound_id FROM compound_keys WHERE inchikey {values}",
                lambda s: s.inchikey,
            ),
            (
                "SELECT smiles, id FROM compounds WHERE smiles {values} ORDER BY id",
                lambda s: s.smiles,
            ),
        ):
            by_value = {key_of(s): s.inchikey for key, s in todo.items() if key not in found}
            for value, compound_id in self._select_in(sql, list(by_value)):
                found.setdefault(by_value[value], compound_id)
        return found

    def compounds_for_inchikeys(
        self, inchikeys: Iterable[str]
    ) -> dict[str, tuple[int, str | None]]:
        """InChIKey -> (compound id, canonical SMILES) for the keys the KB knows (aliases too)."""
        todo = list(dict.fromkeys(inchikeys))
        found: dict[str, tuple[int, str | None]] = {}
        for sql in (
            "SELECT inchikey, id, smiles FROM compounds WHERE inchikey {values}",
            "SELECT k.inchikey, c.id, c.smiles FROM compound_keys k JOIN compounds c ON c.id = "
            "k.compound_id WHERE k.inchikey {values}",
        ):
            pending = [key for key in todo if key not in found]
            for key, compound_id, smiles in self._select_in(sql, pending):
                found.setdefault(key, (compound_id, smiles))
        return found

    def _find_by_primary_name(self, compound: Compound) -> Mapping[str, Any] | None:
        """The stored record of a compound without a structure: the same kind under the same
        primary name (IUPAC or common) is the same record."""
        primary = normalize_name(compound.name)
        if not primary:
            return None
        rows = self._mappings(
            f"SELECT {C_COLUMNS} FROM compound_names n JOIN compounds c ON c.id = n.compound_id "
            "WHERE n.norm = ? AND c.inchikey IS NULL AND c.kind = ? AND n.rank <= 1 ORDER BY "
            "c.id LIMIT 1",
            (primary, compound.kind),
        )
        return rows[0] if rows else None

    # -- writing ---------------------------------------------------------------------------
    def insert_compound(self, compound: Compound, fingerprint: bytes | None = None) -> int:
        """Insert a compound the caller knows is new (no look-up); returns its id."""
        self._require_writable()
        with self._write_scope():
            return self._insert_compound(compound, fingerprint)

    def upsert_compound(
        self, compound: Compound, fingerprint: bytes | None = None
    ) -> tuple[int, bool]:
        """Store a compound, or merge it into the stored record of the same structure (or,
        without one, of the same kind and primary name). Returns (id, whether it is new)."""
        self._require_writable()
        with self._write_scope():
            row = self._find_existing(compound)
            if row is None:
                return self._insert_compound(compound, fingerprint), True
            existing = compound_from_row(row)
            merged = merge_compounds(existing, compound)
            if merged != existing:
                self.execute(
                    "UPDATE compounds SET iupac_name=?, common_name=?, synonyms=?, "
                    "description=?, pubchem_cid=?, cas=?, inchi=?, provenance=? WHERE id=?",
                    (
                        merged.iupac_name,
                        merged.common_name,
                        json_text(merged.synonyms),
                        merged.description,
                        merged.pubchem_cid,
                        merged.cas,
                        merged.inchi,
                        json_text(merged.provenance),
                        existing.id,
                    ),
                )
                self._insert_names(name_rows(existing.id, merged))  # type: ignore[arg-type]
                self._compound_text_changed(existing.id, merged, existing)  # type: ignore[arg-type]
            return existing.id, False  # type: ignore[return-value]

    def add_synonyms(self, compound: Compound, names: list[str], source: str) -> None:
        """Append names (as written by a source) to a stored compound's synonyms."""
        self._require_writable()
        updated = merge_compounds(compound, Compound(synonyms=names, source=source))
        if updated == compound:
            return
        with self._write_scope():
            self.execute(
                "UPDATE compounds SET synonyms = ?, provenance = ? WHERE id = ?",
                (json_text(updated.synonyms), json_text(updated.provenance), compound.id),
            )
            self._insert_names(name_rows(compound.id, Compound(synonyms=names)))  # type: ignore[arg-type]
            self._compound_text_changed(compound.id, updated, compound)  # type: ignore[arg-type]

    def _compound_text_changed(self, compound_id: int, new: Compound, old: Compound) -> None:
        """Bring a text index that is kept apart from the row up to date (SQLite's FTS5).
        PostgreSQL's ``tsvector`` is a generated column: it follows the row by itself."""
