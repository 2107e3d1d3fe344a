"""Structure search on the SQLite KB: RDKit in the process, with a fingerprint pre-screen.

Substructure search screens every compound with RDKit's pattern fingerprint (a bit set in
the query's fingerprint must be set in any molecule that contains it) held as one numpy
matrix, then runs RDKit's exact substructure match only on the survivors. Pattern
fingerprints are kept in the ``compound_screens`` table (computed by ``kb build``, or on a
writable KB's first search for compounds added since); a read-only KB without them computes
the missing ones in memory once per process. Similarity search uses the Morgan
fingerprints the compounds table already stores.

Reaction searches restrict the candidates to compounds that take part in a reaction in the
roles asked, so a million-reaction KB is searched through its few hundred thousand distinct
participants rather than through the participants table.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rdkit import Chem, DataStructs

from chemground.kb.dialect import StoreDialect
from chemground.kb.records import Role
from chemground.kb.structure_search import (
    PATTERN_FP_BITS,
    QueryFormat,
    ReactionMatch,
    StructureMatch,
    StructureSearch,
    group_reaction_matches,
    parse_similarity_query,
    parse_substructure_query,
    substructure_matcher,
)

if TYPE_CHECKING:
    import sqlite3

    import numpy as np

SCREEN_SCHEMA = """
CREATE TABLE IF NOT EXISTS compound_screens (
    compound_id INTEGER PRIMARY KEY REFERENCES compounds(id),
    pattern BLOB
);
"""

_PATTERN_BYTES = PATTERN_FP_BITS // 8
_CHUNK = 500


def pattern_bytes(smiles: str) -> bytes | None:
    """The packed pattern fingerprint of a stored SMILES (None if RDKit cannot read it)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    return DataStructs.BitVectToBinaryText(Chem.PatternFingerprint(mol, fpSize=PATTERN_FP_BITS))


class _ScreenIndex:
    """Compound ids (ascending) and their packed pattern fingerprints as a matrix."""

    def __init__(self, ids: np.ndarray, patterns: np.ndarray, key: tuple) -> None:
        self.ids = ids
        self.patterns = patterns
        self.key = key

    def candidates(self, query_fp: DataStructs.ExplicitBitVect) -> np.ndarray:
        """Ids whose fingerprint has every bit of the query's (ascending)."""
        import numpy as np

        q = np.frombuffer(DataStructs.BitVectToBinaryText(query_fp), dtype=np.uint8)
        if not self.ids.size:
            return self.ids
        words = q.view(np.uint64)
        matrix = self.patterns.view(np.uint64)
        keep = np.ones(len(self.ids), dtype=bool)
        for column in np.nonzero(words)[0]:  # only the words the query sets: most are zero
            w = words[column]
            keep &= (matrix[:, column] & w) == w
        return self.ids[keep]


class SQLiteStructureSearch(StoreDialect):
    """Structure-search methods of :class:`~chemground.kb.sqlite_store.SQLiteKB` (a mixin)."""

    _screen_cache: _ScreenIndex | None
    _participant_cache: dict[tuple, tuple[tuple, np.ndarray]]

    if TYPE_CHECKING:  # the store's primitives are StoreDialect's; these are its other parts
        _conn: sqlite3.Connection

        def fingerprints(self) -> tuple[list[int], list[Any]]: ...
        def lookup_inchikey(self, inchikey: str) -> list[Any]: ...
        def _table_exists(self, name: str) -> bool: ...

    _structure_lock = threading.Lock()

    # -- the pre-screen index -------------------------------------------------------------
    def _compounds_state(self) -> tuple:
        row = self.execute("SELECT max(id), count(smiles) FROM compounds").fetchone()
        return (row[0] or 0, row[1])

    def update_structure_index(self) -> int:
        """Compute and store the pattern fingerprints of compounds that have none yet.

        Returns:
            How many compounds were fingerprinted.

        Raises:
            ChemgroundError: when the KB was opened read-only.
        """
        self._require_writable()
        rows = self.execute(
            "SELECT c.id, c.smiles FROM compounds c LEFT JOIN compound_screens s ON "
            "s.compound_id = c.id "
            "WHERE c.smiles IS NOT NULL AND s.compound_id IS NULL"
        ).fetchall()
        if not rows:
            return 0
        computed = [(compound_id, pattern_bytes(smiles)) for compound_id, smiles in rows]
        with self.transaction():
            self._conn.executemany(
                "INSERT OR REPLACE INTO compound_screens VALUES (?, ?)", computed
            )
        return len(computed)

    def _screen_index(self) -> _ScreenIndex:
        import numpy as np

        key = self._compounds_state()
        cached = getattr(self, "_screen_cache", None)
        if cached is not None and cached.key == key:
            return cached
        with self._structure_lock:
            if not self.readonly:
                self.update_structure_index()
            stored = self._table_exists("compound_screens")
            sql = (
                "SELECT c.id, s.pattern, c.smiles FROM compounds c LEFT JOIN compound_screens s "
                "ON s.compound_id = c.id WHERE c.smiles IS NOT NULL ORDER BY c.id"
                if stored
                else "SELECT id, NULL, smiles FROM compounds WHERE smiles IS NOT NULL ORDER BY id"
            )
            ids: list[int] = []
            blobs: list[bytes] = []
            for compound_id, blob, smiles in self.execute(sql):
                if blob is None and (not stored or self.readonly):
                    blob = pattern_bytes(smiles)  # a read-only KB without the index: in memory
                if blob is None or len(blob) != _PATTERN_BYTES:
                    continue
                ids.append(compound_id)
                blobs.append(blob)
            patterns = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(
                len(blobs), _PATTERN_BYTES
            )
            index = _ScreenIndex(np.array(ids, dtype=np.int64), patterns.copy(), key)
            self._screen_cache = index
            return index

    def _participant_compounds(self, roles: tuple[Role, ...] | None) -> np.ndarray:
        """Distinct compound ids taking part in a reaction in ``roles`` (ascending, cached)."""
        import numpy as np

        state = tuple(self.execute("SELECT max(rowid), count(*) FROM reactions").fetchone())
        cache = self.__dict__.setdefault("_participant_cache", {})
        found = cache.get(roles)
        if found is not None and found[0] == state:
            return found[1]
        sql = "SELECT DISTINCT compound_id FROM participants WHERE compound_id IS NOT NULL"
        params: list[str] = []
        if roles:
            sql += f" AND role IN ({','.join('?' * len(roles))})"
            params = [r.value for r in roles]
        ids = np.array(sorted(row[0] for row in self.execute(sql, params)), dtype=np.int64)
        cache[roles] = (state, ids)
        return ids

    # -- compounds -------------------------------------------------------------------------
    def _compound_rows(self, ids: Sequence[int]) -> Iterable[tuple[int, str, str | None]]:
        for start in range(0, len(ids), _CHUNK):
            chunk = [int(i) for i in ids[start : start + _CHUNK]]
            marks = ",".join("?" * len(chunk))
            yield from self.execute(
                "SELECT id, smiles, coalesce(common_name, iupac_name) FROM compounds WHERE id "
                f"IN ({marks}) "
                "ORDER BY id",
                chunk,
            )

    def _substructure_ids(
        self, query: str, query_format: QueryFormat, restrict: np.ndarray | None, limit: int | None
    ) -> list[tuple[int, str, str | None]]:
        import numpy as np

        q = parse_substructure_query(query, query_format)
        candidates = self._screen_index().candidates(q.pattern_fingerprint())
        if restrict is not None:
            candidates = np.intersect1d(candidates, restrict, assume_unique=True)
        out = []
        matches = substructure_matcher(q.mol)
        for compound_id, smiles, name in self._compound_rows(candidates):
            mol = Chem.MolFromSmiles(smiles)
            if mol is not None and matches(mol):
                out.append((compound_id, smiles, name))
                if limit is not None and len(out) >= limit:
                    break
        return out

    def _similar_ids(
        self, smiles: str, threshold: float, restrict: np.ndarray | None
    ) -> list[tuple[int, float]]:
        import numpy as np

        q = parse_similarity_query(smiles, threshold)
        ids, fps = self.fingerprints()
        if not ids:
            return []
        scores = np.asarray(DataStructs.BulkTanimotoSimilarity(q.fingerprint, fps))
        id_array = np.asarray(ids, dtype=np.int64)
        keep = scores >= q.threshold - 1e-9
        if restrict is not None:
            keep &= np.isin(id_array, restrict)
        pairs = [(int(i), round(float(s), 6)) for i, s in zip(id_array[keep], scores[keep])]
        pairs.sort(key=lambda pair: (-pair[1], pair[0]))
        return pairs

    def _compounds_by_structure(self, search: StructureSearch) -> list[StructureMatch]:
        query, mode, threshold, limit = search.query, search.mode, search.threshold, search.limit
        if mode == "substructure":
            return [
                StructureMatch(i, s, 1.0, n)
                for i, s, n in self._substructure_ids(query, search.query_format, None, limit)
            ]
        if mode == "similarity":
            pairs = self._similar_ids(query, threshold, None)[:limit]
            rows = {row[0]: row for row in self._compound_rows(sorted(i for i, _ in pairs))}
            return [
                StructureMatch(i, rows[i][1], score, rows[i][2]) for i, score in pairs if i in rows
            ]
        ids = self._exact_compound_ids(query)  # mode "exact"
        return [StructureMatch(i, s, 1.0, n) for i, s, n in self._compound_rows(ids)][:limit]

    # -- reactions -------------------------------------------------------------------------
    def _reaction_rows(
        self, scored: dict[int, float], roles: tuple[Role, ...] | None, limit: int
    ) -> list[tuple[int, str, int, str, str, float]]:
        """(reaction rowid, id, compound id, role, SMILES, score) of the first ``limit``
        reactions (by KB order) with one of ``scored``'s compounds in ``roles``."""
        role_sql, role_params = "", []
        if roles:
            role_sql = f" AND p.role IN ({','.join('?' * len(roles))})"
            role_params = [r.value for r in roles]
        ids = list(scored)
        rows: list[tuple[int, str, int, str, str, float]] = []
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT p.reaction_rowid, r.id, p.compound_id, p.role, c.smiles FROM "
                "participants p "
                "JOIN reactions r ON r.rowid = p.reaction_rowid JOIN compounds c ON c.id = "
                "p.compound_id "
                f"WHERE p.compound_id IN ({marks}){role_sql} AND p.reaction_rowid IN ("
                "SELECT DISTINCT p.reaction_rowid FROM participants p WHERE p.compound_id IN "
                f"({marks}){role_sql} "
                "ORDER BY p.reaction_rowid LIMIT ?) ORDER BY p.reaction_rowid, p.position"
            )
            params = [*chunk, *role_params, *chunk, *role_params, limit]
            rows.extend(
                (r[0], r[1], r[2], r[3], r[4], scored[r[2]]) for r in self.execute(sql, params)
            )
        rows.sort(key=lambda row: row[0])
        return rows

    def _reactions_by_structure(self, search: StructureSearch) -> list[ReactionMatch]:
        query, mode, threshold, limit = search.query, search.mode, search.threshold, search.limit
        role_tuple = search.roles
        if mode == "substructure":
            restrict = self._participant_compounds(role_tuple)
            scored = {
                i: 1.0
                for i, _, _ in self._substructure_ids(query, search.query_format, restrict, None)
            }
        elif mode == "similarity":
            restrict = self._participant_compounds(role_tuple)
            scored = dict(self._similar_ids(query, threshold, restrict))
        else:  # mode "exact"
            scored = dict.fromkeys(self._exact_compound_ids(query), 1.0)
        if not scored:
            return []
        if mode != "similarity":
            rows = self._reaction_rows(scored, role_tuple, limit)
            return group_reaction_matches([row[1:] for row in rows], limit)
        # best score first: take score levels in turn until enough reactions are found, then
        # list every participant of those reactions that reached the threshold
        order: dict[str, float] = {}
        levels: dict[float, dict[int, float]] = {}
        for compound_id, score in scored.items():
            levels.setdefault(score, {})[compound_id] = score
        for score in sorted(levels, reverse=True):
            for row in self._reaction_rows(levels[score], role_tuple, limit):
                if row[1] not in order and len(order) < limit:
                    order[row[1]] = score
            if len(order) >= limit:
                break
        rows = []
        ids = list(order)
        role_sql = f" AND p.role IN ({','.join('?' * len(role_tuple))})" if role_tuple else ""
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            rows.extend(
                self.execute(
                    "SELECT r.id, p.compound_id, p.role, c.smiles FROM participants p "
                    "JOIN reactions r ON r.rowid = p.reaction_rowid JOIN compounds c ON c.id = "
                    "p.compound_id "
                    f"WHERE r.id IN ({','.join('?' * len(chunk))}){role_sql} ORDER BY "
                    "p.reaction_rowid, p.position",
                    [*chunk, *[r.value for r in role_tuple or ()]],
                )
            )
        grouped = group_reaction_matches(
            [(r[0], r[1], r[2], r[3], scored[r[1]]) for r in rows if r[1] in scored], limit
        )
        rank = {reaction_id: i for i, reaction_id in enumerate(order)}
        return sorted(grouped, key=lambda m: rank[m.reaction_id])
