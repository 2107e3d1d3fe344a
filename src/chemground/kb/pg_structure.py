"""Structure search on the PostgreSQL KB: the RDKit cartridge does it in the database.

Substructure search is the cartridge's ``mol @> query`` over the GiST-indexed ``mol`` column
(the index is the pre-screen SQLite keeps in ``compound_screens``); similarity search is
``tanimoto_sml`` over the GiST-indexed Morgan ``mfp`` column, the threshold handed to the
index as ``rdkit.tanimoto_threshold``. Results are those of the SQLite store, in the same
order (the contract tests compare them). A mixin of :class:`~chemground.kb.pg_store.PostgresKB`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chemground.kb.dialect import StoreDialect
from chemground.kb.records import Role
from chemground.kb.structure_search import (
    QueryFormat,
    ReactionMatch,
    StructureMatch,
    StructureSearch,
    group_reaction_matches,
    parse_similarity_query,
    parse_substructure_query,
)


class PostgresStructureSearch(StoreDialect):
    """Structure search by the RDKit cartridge (a mixin of the PostgreSQL store)."""

    if TYPE_CHECKING:  # provided by PostgresKB
        _conn: Any

        def _q(self, sql: str, params: Any = ()) -> Any: ...
        def _exact_compound_ids(self, query: str) -> list[int]: ...

    def update_structure_index(self) -> int:
        """Nothing to compute: the GiST indexes on ``mol`` and ``mfp`` are the pre-screen."""
        return 0

    @staticmethod
    def _query_mol_sql(query: str, query_format: QueryFormat) -> tuple[str, str]:
        q = parse_substructure_query(query, query_format)
        return (
            "qmol_from_smarts(%s::cstring)" if q.is_smarts else "mol_from_smiles(%s::cstring)"
        ), q.text

    def _compounds_by_structure(self, search: StructureSearch) -> list[StructureMatch]:
        query, mode, threshold, limit = search.query, search.mode, search.threshold, search.limit
        if mode == "substructure":
            expr, text = self._query_mol_sql(query, search.query_format)
            rows = self._q(
                "SELECT id, smiles, coalesce(common_name, iupac_name) FROM compounds WHERE mol "
                f"@> {expr} "
                "ORDER BY id LIMIT %s",
                (text, limit),
            ).fetchall()
            return [StructureMatch(r[0], r[1], 1.0, r[2]) for r in rows]
        if mode == "similarity":
            q = parse_similarity_query(query, threshold)
            with self._lock, self._conn.transaction():
                self._conn.execute(
                    f"SET LOCAL rdkit.tanimoto_threshold = {max(q.threshold - 1e-9, 0.0)}"
                )
                rows = self._conn.execute(
                    "SELECT c.id, c.smiles, coalesce(c.common_name, c.iupac_name), "
                    "tanimoto_sml(c.mfp, q.fp) AS s "
                    "FROM compounds c, (SELECT morganbv_fp(mol_from_smiles(%s::cstring)) AS fp) q "
                    "WHERE c.mfp %% q.fp AND tanimoto_sml(c.mfp, q.fp) >= %s ORDER BY s DESC, "
                    "c.id LIMIT %s",
                    (q.smiles, q.threshold - 1e-9, limit),
                ).fetchall()
            out = [StructureMatch(r[0], r[1], round(float(r[3]), 6), r[2]) for r in rows]
            return sorted(out, key=lambda m: (-m.score, m.compound_id))
        ids = self._exact_compound_ids(query)  # mode "exact"
        rows = self._q(
            "SELECT id, smiles, coalesce(common_name, iupac_name) FROM compounds WHERE id = "
            "ANY(%s) ORDER BY id",
            (ids,),
        ).fetchall()
        return [StructureMatch(r[0], r[1], 1.0, r[2]) for r in rows][:limit]

    def _reactions_by_structure(self, search: StructureSearch) -> list[ReactionMatch]:
        query, mode, threshold, limit = search.query, search.mode, search.threshold, search.limit
        role_tuple = search.roles
        role_values = [r.value for r in role_tuple] if role_tuple else [r.value for r in Role]
        if mode in ("substructure", "exact"):
            # three plain queries, so the planner sees the matched compounds as constants: a
            # common solvent is found by walking participants in order, a rare group by its index
            if mode == "substructure":
                expr, text = self._query_mol_sql(query, search.query_format)
                ids = [
                    r[0] for r in self._q(f"SELECT id FROM compounds WHERE mol @> {expr}", (text,))
                ]
            else:
                ids = self._exact_compound_ids(query)
            if not ids:
                return []
            # the first ``limit`` reactions of each matched compound (an ordered index-only scan
            # per compound), then the first ``limit`` of those: rare groups and common solvents
            # alike touch at most len(ids) x limit index entries
            rowids = [
                r[0]
                for r in self._q(
                    "SELECT DISTINCT x.r FROM unnest(%s::bigint[]) AS c(id), LATERAL ("
                    "SELECT DISTINCT reaction_rowid AS r FROM participants "
                    "WHERE compound_id = c.id AND role = ANY(%s) "
                    "ORDER BY reaction_rowid LIMIT %s) x ORDER BY x.r LIMIT %s",
                    (ids, role_values, limit, limit),
                )
            ]
            rows = self._q(
                "SELECT p.reaction_id, p.compound_id, p.role, c.smiles, 1.0 FROM participants p "
                "JOIN compounds c ON c.id = p.compound_id "
                "WHERE p.reaction_rowid = ANY(%s) AND p.compound_id = ANY(%s) AND p.role = ANY(%s) "
                "ORDER BY p.reaction_rowid, p.position",
                (rowids, ids, role_values),
            ).fetchall()
            return group_reaction_matches([(r[0], r[1], r[2], r[3], r[4]) for r in rows], limit)
        # similarity: the matched compounds scored in the database, reactions by best score
        q = parse_similarity_query(query, threshold)
        sql = (
            "WITH m AS MATERIALIZED (SELECT c.id, c.smiles, "
            "round(tanimoto_sml(c.mfp, q.fp)::numeric, 6)::float8 AS s FROM compounds c, "
            "(SELECT morganbv_fp(mol_from_smiles(%s::cstring)) AS fp) q "
            "WHERE c.mfp %% q.fp AND tanimoto_sml(c.mfp, q.fp) >= %s), "
            "p AS MATERIALIZED (SELECT p.reaction_rowid, p.position, p.compound_id, p.role, "
            "m.smiles, m.s "
            "FROM participants p JOIN m ON m.id = p.compound_id WHERE p.role = ANY(%s)), "
            "b AS (SELECT reaction_rowid, max(s) AS best FROM p GROUP BY reaction_rowid "
            "ORDER BY best DESC, reaction_rowid LIMIT %s) "
            "SELECT r.id, p.compound_id, p.role, p.smiles, p.s FROM b JOIN p ON p.reaction_rowid "
            "= b.reaction_rowid JOIN reactions r ON r.rowid = b.reaction_rowid "
            "ORDER BY b.best DESC, b.reaction_rowid, p.position"
        )
        with self._lock, self._conn.transaction():
            self._conn.execute(
                f"SET LOCAL rdkit.tanimoto_threshold = {max(q.threshold - 1e-9, 0.0)}"
            )
            rows = self._conn.execute(
                sql, (q.smiles, q.threshold - 1e-9, role_values, limit)
            ).fetchall()
        return group_reaction_matches([(r[0], r[1], r[2], r[3], r[4]) for r in rows], limit)
