"""The knowledge base on a PostgreSQL server with the RDKit cartridge.

For users who outgrow one SQLite file: many readers and writers, millions of reactions, and
substructure and similarity search inside the database. The tables and columns are those of
the SQLite store (so a KB migrates row for row, ids and reaction order kept), plus:

- ``compounds.mol`` (cartridge ``mol``, GiST-indexed) for substructure search (``@>``), and
  ``compounds.mfp`` (Morgan radius 2, 2,048 bits, GiST-indexed; the same bits as the
  fingerprints RDKit computes in the process) for Tanimoto search (``%`` and
  ``tanimoto_sml``). Like on SQLite, only compounds stored with a fingerprint take part in
  similarity search.
- ``reactions.tsv`` and ``compounds.tsv`` (generated ``tsvector`` columns, GIN-indexed) for
  full-text search, ranked by ``ts_rank`` instead of SQLite's BM25.
- the paper tables of :mod:`chemground.kb.papers` (``documents``, ``chunks``,
  ``chunk_mentions``), created when a first paper is added, as on SQLite.

Writes are serialised by a table lock taken at the start of each outermost transaction
(readers are never blocked); imports stream rows with ``COPY`` inside that one transaction,
so they stay atomic and idempotent as on SQLite.

What does not depend on the engine (rows and records, look-ups, merging, reactions, the
ledger, text search) is shared with the SQLite store through mixins
(:mod:`chemground.kb.dialect` names what this module supplies to them); structure search is
the mixin :mod:`chemground.kb.pg_structure`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar

from chemground.errors import ChemgroundError
from chemground.kb.compound_records import CompoundRecords
from chemground.kb.graph_rows import GraphRowQueries
from chemground.kb.ledger import LedgerRecords
from chemground.kb.named_queries import NamedQueries
from chemground.kb.papers import PAPER_COLUMNS, POSTGRES_PAPER_SCHEMA, PaperTables
from chemground.kb.pg_structure import PostgresStructureSearch
from chemground.kb.reaction_records import ReactionRecords
from chemground.kb.records import Compound, Reaction
from chemground.kb.rows import (
    COMPOUND_COLUMNS,
    PARTICIPANT_COLUMNS,
    REACTION_COLUMNS,
    compound_row,
    name_rows,
    participant_rows,
    reaction_row,
)
from chemground.kb.schema_tables import POSTGRES_TYPES, create_table
from chemground.kb.sqlite_schema import SCHEMA_VERSION
from chemground.kb.store import KnowledgeBase
from chemground.kb.text_query import TextSearch, tsquery

MORGAN_FP_SIZE = 2048  # as chemground.chem.fingerprints.MORGAN_BITS

# what PostgreSQL adds to the shared tables (chemground.kb.schema_tables): the cartridge's
# molecule and fingerprint, the text-search vectors, and each link's reaction id repeated, so
# that links are read from the index alone
_COMPOUND_EXTRA = """,
    mol mol,
    mfp bfp,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(iupac_name, '') || ' ' || coalesce(common_name, '') || ' ' || synonyms || ' '
        || description)) STORED"""
_REACTION_EXTRA = """,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(title, '') || ' ' || description || ' ' || notes)) STORED"""
_PARTICIPANT_EXTRA = """,
    reaction_id TEXT NOT NULL"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);

{
    create_table(
        "compounds",
        POSTGRES_TYPES,
        ''',
    mol mol,
    mfp bfp,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(iupac_name, '') || ' ' || coalesce(common_name, '') || ' ' || synonyms || ' '
        || description)) STORED''',
    )
}
CREATE INDEX IF NOT EXISTS compounds_parent ON compounds(parent_inchikey);
CREATE INDEX IF NOT EXISTS compounds_connectivity ON compounds(substr(inchikey, 1, 14));
CREATE INDEX IF NOT EXISTS compounds_smiles ON compounds(smiles);
CREATE INDEX IF NOT EXISTS compounds_cas ON compounds(cas);
CREATE INDEX IF NOT EXISTS compounds_pubchem ON compounds(pubchem_cid);
CREATE INDEX IF NOT EXISTS compounds_mol ON compounds USING gist(mol);
CREATE INDEX IF NOT EXISTS compounds_mfp ON compounds USING gist(mfp);
CREATE INDEX IF NOT EXISTS compounds_tsv ON compounds USING gin(tsv);

{create_table("compound_keys", POSTGRES_TYPES)}

{create_table("compound_names", POSTGRES_TYPES)}

{
    create_table(
        "reactions",
        POSTGRES_TYPES,
        ''',
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(title, '') || ' ' || description || ' ' || notes)) STORED''',
    )
}
CREATE INDEX IF NOT EXISTS reactions_source ON reactions(source);
CREATE INDEX IF NOT EXISTS reactions_tsv ON reactions USING gin(tsv);

{create_table("participants", POSTGRES_TYPES, _PARTICIPANT_EXTRA)}
-- A compound's links by role in reaction order, with the reaction id: "reactions of ethanol" is
-- an index-only scan even for a solvent in 200,000 reactions, in the order SQLite's index gives.
CREATE INDEX IF NOT EXISTS participants_compound
    ON participants(compound_id, role, reaction_rowid, position) INCLUDE (reaction_id);

{create_table("imports", POSTGRES_TYPES)}
"""

_PLAIN_COMPOUND_COLUMNS = [c.strip() for c in COMPOUND_COLUMNS.split(",")] + ["fingerprint"]
_URL = re.compile(r"^postgres(?:ql)?:/", re.IGNORECASE)
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@/]*@")


def is_postgres_url(location: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) location, also after ``Path`` folded
    its ``//`` into ``/`` (a ``--kb`` option typed as a path does that)."""
    return bool(_URL.match(str(location)))


def normalize_url(location: object) -> str:
    """The connection URL of a location :func:`is_postgres_url` accepts.

    ``pathlib.Path`` turns ``postgresql://host/db`` into ``postgresql:/host/db``; the second
    slash is put back. (A URL with an empty host, ``postgresql:///db``, cannot be told apart
    after that folding: name the host, ``postgresql://localhost/db``, or a socket directory
    percent-encoded, ``postgresql://%2Frun%2Fpostgresql/db``.)
    """
    text = str(location)
    scheme, _, rest = text.partition(":")
    return f"{scheme}://{rest.lstrip('/')}"


def shown_url(url: str) -> str:
    """A connection URL as it may be shown or stored: the password masked (``***``)."""
    return _PASSWORD.sub(r"\1***@", url)


def _connect(url: str):
    try:
        import psycopg
    except ImportError as error:  # pragma: no cover - the postgres extra is not installed
        raise ChemgroundError(
            "a PostgreSQL knowledge base needs psycopg: pip install 'chemground[postgres]'"
        ) from error
    try:
        conn = psycopg.connect(url, autocommit=True)
        # short queries: JIT compilation (40-50 ms) costs more than any of them saves
        conn.execute("SET jit = off")
    except psycopg.Error as error:
        raise ChemgroundError(
            f"cannot connect to the knowledge base {shown_url(url)}: {error}"
        ) from None
    return conn


def _portable(sql: str) -> str:
    """SQLite-style SQL (``?`` placeholders) for psycopg: ``?`` -> ``%s`` outside string
    literals, and every ``%`` doubled (psycopg reads placeholders inside literals too)."""
    parts = re.split(r"('(?:[^']|'')*')", sql.replace("%", "%%"))
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("?", "%s")
    return "".join(parts)


def ensure_cartridge(conn) -> None:
    """Create the rdkit extension if the cartridge types are not there yet.

    Raises:
        ChemgroundError: the cartridge is not installed on the server (or cannot be created).
    """
    import psycopg

    if conn.execute("SELECT 1 FROM pg_type WHERE typname = 'mol'").fetchone():
        return
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS rdkit")
    except psycopg.Error as error:
        raise ChemgroundError(
            f"the PostgreSQL server has no usable RDKit cartridge ({error}); install it "
            "(Debian: apt-get install postgresql-15-rdkit) and run CREATE EXTENSION rdkit as a "
            "superuser"
        ) from None


class PostgresKB(
    CompoundRecords,
    ReactionRecords,
    TextSearch,
    LedgerRecords,
    NamedQueries,
    GraphRowQueries,
    PaperTables,
    PostgresStructureSearch,
    KnowledgeBase,
):
    """Knowledge base in a PostgreSQL database with the RDKit cartridge.

    Args:
        url: a libpq connection URL (``postgresql://user@host:5432/dbname``).
        readonly: refuse writes (reads never block writers on PostgreSQL either way).
        create: create the schema in an empty database (refused in one that holds other
            tables without chemground's ``meta``).

    Raises:
        ChemgroundError: cannot connect; no RDKit cartridge; not a chemground KB; a KB
            schema version this chemground does not read.
    """

    _PAPER_SCHEMA = POSTGRES_PAPER_SCHEMA
    # full-text search (text_query.TextSearch): the generated tsvector columns, by ts_rank
    _REACTION_TEXT_SQL = (
        "SELECT id, ts_rank(tsv, q) AS score FROM reactions, websearch_to_tsquery('simple', ?) q "
        "WHERE tsv @@ q ORDER BY score DESC, rowid LIMIT ?"
    )
    _COMPOUND_TEXT_SQL = (
        "SELECT id, ts_rank(tsv, q) AS score FROM compounds, websearch_to_tsquery('simple', ?) q "
        "WHERE tsv @@ q ORDER BY score DESC, id LIMIT ?"
    )
    _text_query = staticmethod(tsquery)
    _text_score = staticmethod(float)

    def __init__(self, url: str, readonly: bool = False, create: bool = True) -> None:
        self.url = normalize_url(url)
        self.path = shown_url(self.url)  # shown in stats and messages
        self.readonly = readonly
        self._conn = _connect(self.url)
        self._lock = threading.RLock()
        self._depth = 0
        self._fingerprint_cache: tuple[list[int], list[Any]] | None = None
        try:
            self._conn.execute(f"SET rdkit.morgan_fp_size = {MORGAN_FP_SIZE}")
            tables = {
                r[0]
                for r in self._conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                )
            }
            if "meta" not in tables:
                if readonly or not create:
                    raise ChemgroundError(
                        f"no knowledge base at {self.path} (no chemground tables)"
                    )
                if tables & {"compounds", "reactions", "participants"}:
                    raise ChemgroundError(
                        f"{self.path} holds tables of another application; not a chemground KB"
                    )
                ensure_cartridge(self._conn)
                with self._conn.transaction():
                    self._conn.execute(SCHEMA)
                    self._conn.execute(
                        "INSERT INTO meta VALUES ('schema_version', %s)", (SCHEMA_VERSION,)
                    )
                    self._conn.execute("INSERT INTO meta VALUES ('backend', 'postgresql')")
            version = self.get_meta("schema_version")
        except BaseException:
            self._conn.close()
            raise
        if version != SCHEMA_VERSION:
            self._conn.close()
            raise ChemgroundError(
                f"{self.path} has KB schema version {version!r}; this chemground expects "
                f"{SCHEMA_VERSION}."
            )

    # -- plumbing ------------------------------------------------------------------------
    @property
    def structure_source(self) -> str:
        """The URL importer workers connect to for identifiers the KB already stores."""
        return self.url

    def _require_writable(self) -> None:
        if self.readonly:
            raise ChemgroundError(f"the knowledge base {self.path} was opened read-only")

    def _q(self, sql: str, params: Sequence[Any] | dict = (), row_factory=None):
        with self._lock:
            cur = self._conn.cursor(row_factory=row_factory) if row_factory else self._conn.cursor()
            cur.execute(sql, params)
            return cur

    def _dicts(self, sql: str, params: Sequence[Any] | dict = ()) -> list[dict]:
        from psycopg.rows import dict_row

        return self._q(sql, params, dict_row).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()):
        """Run SQLite-style SQL (``?`` placeholders): what the named methods both stores share
        (named queries, graph rows, papers) send.

        Only portable SQL works (no FTS5 ``MATCH``, ``PRAGMA`` or ``sqlite_master``); the
        schema's tables and columns are those of the SQLite store. Callers outside ``kb/``
        use the named methods instead (``tests/test_no_raw_sql.py``).

        Args:
            sql: the statement, with ``?`` placeholders.
            params: its parameters.

        Returns:
            The psycopg cursor.
        """
        return self._q(_portable(sql), tuple(params))

    def _mappings(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        """All rows of one SQLite-style query, as dicts by column name."""
        return self._dicts(_portable(sql), tuple(params))

    def _select_in(self, sql: str, values: Sequence[Any], by_name: bool = False) -> Iterator[Any]:
        """The rows of SQLite-style ``sql`` with ``{values}`` read as ``= ANY(array)``: one
        statement for any number of values; dicts with ``by_name``, else tuples."""
        if not values:
            return iter(())
        query = _portable(sql.replace("{values}", "= ANY(?)"))
        if by_name:
            return iter(self._dicts(query, (list(values),)))
        return iter(self._q(query, (list(values),)).fetchall())

    def _write_scope(self) -> AbstractContextManager[None]:
        """Writes on PostgreSQL run in one transaction (which takes the writer's table lock)."""
        return self.transaction()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._require_writable()
        with self._lock:
            outermost = self._depth == 0
            self._depth += 1
            try:
                with self._conn.transaction():
                    if outermost:  # one writer at a time; readers are never blocked
                        self._conn.execute(
                            "LOCK TABLE compounds, reactions IN SHARE ROW EXCLUSIVE MODE"
                        )
                    yield
            except BaseException:
                self._fingerprint_cache = None
                raise
            finally:
                self._depth -= 1

    _BULK_INDEXES: ClassVar[tuple[str, ...]] = (
        "compounds_mol",
        "compounds_mfp",
        "compounds_tsv",
        "reactions_tsv",
        "participants_compound",
    )

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A transaction for loading many rows into an empty KB: the GiST, GIN and link indexes
        are dropped first and built once at the end (building a GiST index over loaded rows is
        several times faster than growing it row by row)."""
        with self.transaction():
            self._q("SET LOCAL maintenance_work_mem = '512MB'")
            for name in self._BULK_INDEXES:
                self._q(f"DROP INDEX IF EXISTS {name}")
            yield
            self._q(SCHEMA)  # CREATE ... IF NOT EXISTS: builds the dropped indexes
            self._q("ANALYZE")  # plans for a freshly filled KB

    def table_exists(self, name: str) -> bool:
        """Whether the KB's schema has this table (e.g. ``chunks`` once papers were added)."""
        row = self._q(
            "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = %s",
            (name,),
        ).fetchone()
        return row is not None

    def checkpoint(self) -> None:
        """Nothing to do: the server makes commits durable."""

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def drop_tables(self) -> None:
        """Drop every chemground table (``kb build --force``); the KB is closed afterwards."""
        self._require_writable()
        with self._lock, self._conn.transaction():
            self._conn.execute("DROP VIEW IF EXISTS sqlite_master")  # made by earlier versions
            self._conn.execute(
                "DROP TABLE IF EXISTS chunk_mentions, chunks, documents, participants, reactions, "
                "compound_names, compound_keys, imports, compounds, meta"
            )
        self.close()

    # -- meta ----------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        self._require_writable()
        self._q(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
            "excluded.value",
            (key, value),
        )

    # -- compounds: reading --------------------------------------------------------------
    def _first_reaction_ids(self, compound_id: int, limit: int) -> list[str]:
        found = self._q(
            "SELECT reaction_id FROM participants WHERE compound_id = %s "
            "GROUP BY reaction_rowid, reaction_id ORDER BY reaction_rowid LIMIT %s",
            (compound_id, limit),
        ).fetchall()
        return [r[0] for r in found]

    def known_names(self, pairs: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
        """Those (normalised name, compound id) pairs the KB already has."""
        todo = list(dict.fromkeys(pairs))
        if not todo:
            return set()
        rows = self._q(
            "SELECT n.norm, n.compound_id FROM unnest(%s::text[], %s::bigint[]) AS p(norm, "
            "compound_id) "
            "JOIN compound_names n ON n.norm = p.norm AND n.compound_id = p.compound_id",
            ([p[0] for p in todo], [p[1] for p in todo]),
        )
        return {(norm, compound_id) for norm, compound_id in rows}

    # -- compounds: writing --------------------------------------------------------------
    def _find_existing(self, compound: Compound) -> dict | None:
        """The stored record of ``compound``: by InChIKey (alias keys too) or canonical
        SMILES, else by kind and primary name."""
        if compound.inchikey:
            hits = self.lookup_inchikey(compound.inchikey)
            if not hits and compound.smiles:
                hits = self.lookup_smiles(compound.smiles)
            if hits:
                return self._dicts(
                    f"SELECT {COMPOUND_COLUMNS} FROM compounds WHERE id = %s",
                    (hits[0].compound_id,),
                )[0]
            return None
        return self._find_by_primary_name(compound)  # type: ignore[return-value]

    def _insert_names(self, rows: list[tuple[str, int, int]]) -> None:
        if not rows:
            return
        # one statement may not touch a key twice: keep each pair's best rank
        best: dict[tuple[str, int], int] = {}
        for norm, compound_id, rank in rows:
            key = (norm, compound_id)
            best[key] = min(rank, best.get(key, rank))
        self._q(
            "INSERT INTO compound_names SELECT * FROM unnest(%s::text[], %s::bigint[], %s::int[]) "
            "ON CONFLICT (norm, compound_id) DO UPDATE SET rank = least(compound_names.rank, "
            "excluded.rank)",
            ([k[0] for k in best], [k[1] for k in best], list(best.values())),
        )

    def insert_compounds(self, items: list[tuple[int, Compound, bytes | None]]) -> None:
        """Insert new compounds with ids the caller reserved, by COPY through a staging table
        (the cartridge's ``mol`` and ``mfp`` are computed by the server from the SMILES)."""
        self._require_writable()
        if not items:
            return
        with self.transaction():
            self.copy_compound_rows(compound_row(i, compound, fp) for i, compound, fp in items)
            self._insert_names([row for i, compound, _ in items for row in name_rows(i, compound)])
        self._fingerprint_cache = None

    def copy_compound_rows(self, rows: Iterable[Sequence[Any]]) -> int:
        """COPY plain compound rows (the SQLite store's columns, fingerprint last) in; the
        server adds ``mol`` and ``mfp``. Returns the number of rows."""
        columns = ", ".join(_PLAIN_COMPOUND_COLUMNS)
        with self._lock:
            self._conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS compounds_stage AS SELECT "
                f"{columns} FROM compounds WITH NO DATA"
            )
            self._conn.execute("TRUNCATE compounds_stage")
            count = 0
            staged = ", ".join("s." + c for c in _PLAIN_COMPOUND_COLUMNS)
            with (
                self._conn.cursor() as cur,
                cur.copy(f"COPY compounds_stage ({columns}) FROM STDIN") as copy,
            ):
                for row in rows:
                    copy.write_row(row)
                    count += 1
            self._conn.execute(
                f"INSERT INTO compounds ({columns}, mol, mfp) SELECT {staged}, m.mol, "
                "CASE WHEN s.fingerprint IS NOT NULL THEN morganbv_fp(m.mol) END "
                "FROM compounds_stage s LEFT JOIN LATERAL (SELECT "
                "mol_from_smiles(s.smiles::cstring) AS mol) m ON true"
            )
            self._conn.execute("TRUNCATE compounds_stage")
        return count

    def _insert_compound(self, compound: Compound, fingerprint: bytes | None) -> int:
        """Insert one new compound, numbered after the last; returns its id."""
        with self.transaction():
            compound_id = self.next_compound_id()
            self.insert_compounds([(compound_id, compound, fingerprint)])
        return compound_id

    def add_alias_key(self, inchikey: str, compound_id: int) -> None:
        self._require_writable()
        self._q(
            "INSERT INTO compound_keys VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (inchikey, compound_id),
        )

    def set_description(self, compound_id: int, description: str) -> None:
        self._require_writable()
        self._q("UPDATE compounds SET description = %s WHERE id = %s", (description, compound_id))

    # -- reactions -----------------------------------------------------------------------
    def get_reactions(self, reaction_ids: Sequence[str]) -> dict[str, Reaction]:
        """The stored reactions among ``reaction_ids``, in the order asked (``= ANY`` returns
        them in no particular order)."""
        ids = list(dict.fromkeys(reaction_ids))
        found = {r.id: r for r in self._reactions_with_ids(ids)}
        return {i: found[i] for i in ids if i in found}

    def _link_rows(self, compound_ids: list[int], roles: list[str] | None) -> list[Any]:
        """In the order SQLite's (compound, role) index gives: rankings that tie keep the same
        order on both stores."""
        role_sql = " AND role = ANY(%s)" if roles else ""
        return self._q(
            "SELECT reaction_id, compound_id, role FROM participants WHERE compound_id = ANY(%s)"
            f"{role_sql} ORDER BY compound_id, role, reaction_rowid, position",
            [compound_ids, roles] if roles else [compound_ids],
        ).fetchall()

    def _write_reactions(self, numbered: list[tuple[int, Reaction]]) -> None:
        """The reaction and participant rows, by COPY."""
        self.copy_reaction_rows(
            (reaction_row(i, r) for i, r in numbered),
            (row for i, r in numbered for row in participant_rows(i, r)),
        )

    def copy_reaction_rows(
        self, rows: Iterable[Sequence[Any]], participants: Iterable[Sequence[Any]]
    ) -> None:
        """COPY reaction rows (the SQLite store's columns, rowid first) and participant rows in."""
        ids: dict[int, str] = {}
        with self._lock, self._conn.cursor() as cur:
            with cur.copy(f"COPY reactions ({REACTION_COLUMNS}) FROM STDIN") as copy:
                for row in rows:
                    ids[row[0]] = row[1]
                    copy.write_row(row)
            with cur.copy(
                f"COPY participants ({PARTICIPANT_COLUMNS}, reaction_id) FROM STDIN"
            ) as copy:
                for row in participants:
                    copy.write_row((*row, ids[row[0]]))

    _PLAIN_TABLES: ClassVar[dict[str, str]] = {
        "meta": "key, value",
        "compound_keys": "inchikey, compound_id",
        "compound_names": "norm, compound_id, rank",
        "imports": "sha256, path, format, summary",
        **PAPER_COLUMNS,
    }

    def copy_plain_rows(self, table: str, rows: Iterable[Sequence[Any]]) -> int:
        """COPY rows into a table without cartridge columns (meta, names, keys, ledger,
        papers: the paper tables are created first where they are missing)."""
        columns = self._PLAIN_TABLES[table]  # a fixed list: no table name from outside reaches SQL
        if table in PAPER_COLUMNS:
            self.ensure_paper_tables()
        count = 0
        with (
            self._lock,
            self._conn.cursor() as cur,
            cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
                count += 1
        return count

    def remove_records(self, reaction_ids: Sequence[str], compound_ids: Sequence[int]) -> None:
        self._require_writable()
        with self.transaction():
            self._q(
                "DELETE FROM participants WHERE reaction_rowid IN "
                "(SELECT rowid FROM reactions WHERE id = ANY(%s))",
                (list(reaction_ids),),
            )
            self._q("DELETE FROM reactions WHERE id = ANY(%s)", (list(reaction_ids),))
            ids = [int(i) for i in compound_ids]
            self._q(
                "UPDATE participants SET compound_id = NULL WHERE compound_id = ANY(%s)", (ids,)
            )
            for table in ("compound_names", "compound_keys"):
                self._q(f"DELETE FROM {table} WHERE compound_id = ANY(%s)", (ids,))
            self._q("DELETE FROM compounds WHERE id = ANY(%s)", (ids,))
        self._fingerprint_cache = None

    # -- the imports ledger and size ---------------------------------------------------------
    def record_import(self, sha256: str, path: str, fmt: str, summary: dict[str, Any]) -> None:
        self._require_writable()
        self._q(
            "INSERT INTO imports VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (sha256, path, fmt, json.dumps(summary)),
        )

    def _size_bytes(self) -> int:
        """The KB's tables in the current schema, with their indexes and TOAST."""
        return int(
            self._q(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN "
                "pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            ).fetchone()[0]
        )
