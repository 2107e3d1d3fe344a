"""The embedded knowledge base: one SQLite file (WAL mode, FTS5 for text).

Tables: ``compounds`` (one row per structure, keyed by InChIKey), ``compound_names``
(normalised name -> compound, for exact name look-up), ``compound_keys`` (extra InChIKeys
that identify the same compound, e.g. the dictionary's own key where RDKit's differs),
``reactions`` and the link table ``participants`` (reaction, compound, role), FTS5 indexes
over reaction and compound text, ``imports`` (what was imported, for idempotency) and
``meta``. Readers open the file read-only and never block each other.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import warnings
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from chemground.chem.names import DictionaryHit, normalize_name
from chemground.chem.structure import Structure
from chemground.errors import ChemgroundError, NotFoundError
from chemground.kb.records import Compound, Conditions, Participant, Reaction, Role
from chemground.kb.named_queries import NamedQueries
from chemground.kb.sqlite_structure import SCREEN_SCHEMA, SQLiteStructureSearch
from chemground.kb.store import KBStats, KnowledgeBase, ReactionLink

SCHEMA_VERSION = "1"

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);

CREATE TABLE IF NOT EXISTS compounds (
    id INTEGER PRIMARY KEY,
    inchikey TEXT UNIQUE,
    parent_inchikey TEXT,
    smiles TEXT,
    inchi TEXT,
    formula TEXT,
    molecular_weight REAL,
    exact_mass REAL,
    iupac_name TEXT,
    common_name TEXT,
    synonyms TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    pubchem_cid INTEGER,
    cas TEXT,
    kind TEXT NOT NULL DEFAULT 'compound',
    source TEXT NOT NULL DEFAULT '',
    provenance TEXT NOT NULL DEFAULT '{}',
    fingerprint BLOB
);
CREATE INDEX IF NOT EXISTS compounds_parent ON compounds(parent_inchikey);
CREATE INDEX IF NOT EXISTS compounds_connectivity ON compounds(substr(inchikey, 1, 14));
CREATE INDEX IF NOT EXISTS compounds_smiles ON compounds(smiles);
CREATE INDEX IF NOT EXISTS compounds_cas ON compounds(cas);

CREATE TABLE IF NOT EXISTS compound_keys (
    inchikey TEXT PRIMARY KEY,
    compound_id INTEGER NOT NULL REFERENCES compounds(id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS compound_names (
    norm TEXT NOT NULL,
    compound_id INTEGER NOT NULL REFERENCES compounds(id),
    rank INTEGER NOT NULL,
    PRIMARY KEY (norm, compound_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS reactions (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL DEFAULT '',
    title TEXT,
    reaction_class TEXT,
    description TEXT NOT NULL DEFAULT '',
    reaction_smiles TEXT,
    temperature_c REAL,
    temperature_text TEXT,
    time_h REAL,
    ph REAL,
    pressure_bar REAL,
    atmosphere TEXT,
    yield_percent REAL,
    operations TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '',
    flags TEXT NOT NULL DEFAULT '[]',
    provenance TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS reactions_source ON reactions(source);

CREATE TABLE IF NOT EXISTS participants (
    reaction_rowid INTEGER NOT NULL REFERENCES reactions(rowid),
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    compound_id INTEGER REFERENCES compounds(id),
    name TEXT,
    smiles TEXT,
    inchikey TEXT,
    amount TEXT,
    unresolved_reason TEXT,
    PRIMARY KEY (reaction_rowid, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS participants_compound ON participants(compound_id, role);

CREATE VIRTUAL TABLE IF NOT EXISTS reactions_fts USING fts5(
    title, description, notes, content='reactions', content_rowid='rowid'
);
CREATE VIRTUAL TABLE IF NOT EXISTS compounds_fts USING fts5(
    iupac_name, common_name, synonyms, description, content='compounds', content_rowid='id'
);

CREATE TABLE IF NOT EXISTS imports (
    sha256 TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    summary TEXT NOT NULL
);
"""
    + SCREEN_SCHEMA
)

_COMPOUND_COLUMNS = (
    "id, inchikey, parent_inchikey, smiles, inchi, formula, molecular_weight, exact_mass, "
    "iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, provenance"
)
_REACTION_COLUMNS = (
    "rowid, id, source, dataset, title, reaction_class, description, reaction_smiles, temperature_c, "
    "temperature_text, time_h, ph, pressure_bar, atmosphere, yield_percent, operations, notes, flags, provenance"
)
# Which compound wins a shared name: the curated dictionary files beat the large PubChem
# file (as in ``chemicals``, where later files override), and any dictionary record beats a
# compound first seen in an imported dataset.
CURATED_DICTIONARY_SOURCES = (
    "pubchem-small",
    "chemicals-user-db",
    "chemicals-cations",
    "chemicals-anions",
    "chemicals-inorganic",
    "chemicals-elements",
    "chemicals-mixtures",
    "abbreviations",
    "chemground-descriptions",
)
_SOURCE_PRIORITY_SQL = (
    "CASE WHEN c.source IN ("
    + ", ".join(f"'{s}'" for s in CURATED_DICTIONARY_SOURCES)
    + ") THEN 2 "
    "WHEN c.source = 'pubchem-large' THEN 1 ELSE 0 END"
)
_FTS_TOKEN = re.compile(r"[\w\-]+", re.UNICODE)


def _structure_from_row(row: sqlite3.Row) -> Structure | None:
    if not row["smiles"] or not row["inchikey"]:
        return None
    return Structure(
        smiles=row["smiles"],
        inchikey=row["inchikey"],
        formula=row["formula"] or "",
        molecular_weight=row["molecular_weight"] or 0.0,
        exact_mass=row["exact_mass"] or 0.0,
        parent_inchikey=row["parent_inchikey"] or row["inchikey"],
    )


def _compound_from_row(row: sqlite3.Row) -> Compound:
    return Compound(
        id=row["id"],
        inchikey=row["inchikey"],
        parent_inchikey=row["parent_inchikey"],
        smiles=row["smiles"],
        inchi=row["inchi"],
        formula=row["formula"],
        molecular_weight=row["molecular_weight"],
        exact_mass=row["exact_mass"],
        iupac_name=row["iupac_name"],
        common_name=row["common_name"],
        synonyms=json.loads(row["synonyms"]),
        description=row["description"],
        pubchem_cid=row["pubchem_cid"],
        cas=row["cas"],
        kind=row["kind"],
        source=row["source"],
        provenance=json.loads(row["provenance"]),
    )


def _matched_name(row: sqlite3.Row, normalized: str) -> str:
    for name in [row["iupac_name"], row["common_name"], *json.loads(row["synonyms"])]:
        if name and normalize_name(name) == normalized:
            return name
    return normalized


def fts_query(text: str) -> str:
    """A safe FTS5 query: every word quoted, OR-ed (so punctuation cannot break the syntax)."""
    tokens = [t for t in _FTS_TOKEN.findall(text) if len(t) > 1]
    return " OR ".join('"' + t.replace('"', "") + '"' for t in tokens[:64])


def _json(value: list | dict) -> str:
    """JSON text of a list/dict column; empty ones (most flags and synonyms) without the encoder."""
    if not value:
        return "[]" if isinstance(value, list) else "{}"
    return json.dumps(value)


WAL_CHECKPOINT_BYTES = 4 << 20  # SQLite's default automatic checkpoint: 1000 pages of 4 KiB


class _BackgroundCheckpointer:
    """Copies the write-ahead log into the database file on its own thread and connection.

    With SQLite's automatic checkpoint, the commit that crosses the threshold also waits for
    the copy and its fsync: a tenth of a patent-file import. SQLite's documentation suggests
    this instead for write-heavy applications; a PASSIVE checkpoint never blocks readers or
    the writer, and a checkpoint cut short by a crash is redone by SQLite on the next open.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wake = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="kb-wal-checkpoint", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            while True:
                self._wake.wait()
                self._wake.clear()
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except (
                    sqlite3.Error
                ) as error:  # the WAL stays; SQLite copies it on a later checkpoint
                    warnings.warn(
                        f"{self._path}: background WAL checkpoint failed: {error}", stacklevel=1
                    )
                if self._stopping:
                    return
        finally:
            conn.close()

    def close(self) -> None:
        """Run a last checkpoint and stop the thread."""
        self._stopping = True
        self._wake.set()
        self._thread.join()


class _Reader:
    """One thread's connection to a read-only KB (a holder: a Connection cannot be weakly referenced)."""

    __slots__ = ("conn", "__weakref__")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn


class SQLiteKB(NamedQueries, SQLiteStructureSearch, KnowledgeBase):
    """Knowledge base in one SQLite file."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if readonly:
            if not self.path.exists():
                raise NotFoundError(f"no knowledge base at {self.path}")
            uri = f"file:{self.path}?mode=ro"
            self._conn = sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None
            )
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        # A read-only KB gives each thread its own connection (the HTTP API answers on several
        # threads): a shared connection runs one statement at a time, so every reader would
        # queue behind the slowest. Read-only connections need no coordination; the creating
        # thread keeps the first one. A thread's connection lives in its thread-local storage,
        # so it is closed when the thread ends; close() closes those still open.
        self._local = threading.local() if readonly else None
        self._readers: weakref.WeakSet[_Reader] = weakref.WeakSet()
        if self._local is not None:
            self._local.reader = _Reader(self._conn)
            self._readers.add(self._local.reader)
        self._depth = 0
        self._fingerprint_cache: tuple[list[int], list[Any]] | None = None
        self._screen_cache = None
        self._checkpointer: _BackgroundCheckpointer | None = None
        try:
            self._conn.execute("PRAGMA busy_timeout = 30000")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA mmap_size = 268435456")
            self._conn.execute("PRAGMA cache_size = -65536")
            if not readonly:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self._conn.execute("PRAGMA wal_autocheckpoint = 0")  # see _BackgroundCheckpointer
                fresh = self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
                if not fresh:
                    self._check_schema()  # never add our tables to someone else's database
                self._conn.executescript(SCHEMA)
                if fresh:
                    self.set_meta("schema_version", SCHEMA_VERSION)
        except sqlite3.DatabaseError as error:
            self._conn.close()
            raise ChemgroundError(
                f"{self.path} is not a chemground knowledge base: {error}"
            ) from error
        self._check_schema()

    def _check_schema(self) -> None:
        try:
            version = self.get_meta("schema_version")
        except sqlite3.DatabaseError as error:
            self._conn.close()
            raise ChemgroundError(
                f"{self.path} is not a chemground knowledge base: {error}"
            ) from error
        if version != SCHEMA_VERSION:
            raise ChemgroundError(
                f"{self.path} has KB schema version {version!r}; this chemground expects {SCHEMA_VERSION}. "
                "Rebuild it with `chemground kb build --force`."
            )

    # -- plumbing ------------------------------------------------------------------------
    @property
    def sqlite_path(self) -> Path | None:
        """The database file (None for an in-memory KB): importer workers read it directly."""
        return None if str(self.path) == ":memory:" else self.path

    def _require_writable(self) -> None:
        if self.readonly:
            raise ChemgroundError(f"the knowledge base {self.path} was opened read-only")

    @property
    def connection(self) -> sqlite3.Connection:
        return self._conn if self._local is None else self._thread_connection()

    def _thread_connection(self) -> sqlite3.Connection:
        """This thread's connection to a read-only KB (opened on the thread's first query)."""
        reader = getattr(self._local, "reader", None)
        if reader is None:
            conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
            )
            conn.row_factory = sqlite3.Row
            for pragma in (
                "busy_timeout = 30000",
                "foreign_keys = ON",
                "mmap_size = 268435456",
                "cache_size = -65536",
            ):  # as for the first connection (__init__)
                conn.execute(f"PRAGMA {pragma}")
            reader = self._local.reader = _Reader(conn)
            with self._lock:
                self._readers.add(reader)
        return reader.conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        if self._local is not None:
            return self._thread_connection().execute(sql, params)
        with self._lock:
            return self._conn.execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._require_writable()
        with self._lock:
            if self._depth == 0:
                self._conn.execute("BEGIN IMMEDIATE")
            else:
                self._conn.execute(f"SAVEPOINT sp{self._depth}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if self._depth == 0:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO sp{self._depth}")
                    self._conn.execute(f"RELEASE sp{self._depth}")
                self._fingerprint_cache = None
                raise
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._conn.execute("COMMIT")
                    self._after_commit()
                else:
                    self._conn.execute(f"RELEASE sp{self._depth}")

    def _after_commit(self) -> None:
        """Start copying the WAL into the database once it has grown (as SQLite's automatic
        checkpoint would, but off this thread: see :class:`_BackgroundCheckpointer`)."""
        try:
            size = Path(f"{self.path}-wal").stat().st_size
        except OSError:
            return  # no WAL file (in-memory database)
        if size >= WAL_CHECKPOINT_BYTES:
            if self._checkpointer is None:
                self._checkpointer = _BackgroundCheckpointer(self.path)
            self._checkpointer.request()

    def _stop_checkpointer(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None

    def checkpoint(self) -> None:
        """Wait until everything committed is in the database file itself (the WAL copied)."""
        self._stop_checkpointer()
        if not self.readonly:
            with self._lock:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        self._stop_checkpointer()
        with self._lock:
            self._conn.close()
            for reader in list(self._readers):  # a read-only KB's per-thread connections
                reader.conn.close()

    # -- meta ----------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self._require_writable()
        self.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def all_meta(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.execute("SELECT key, value FROM meta")}

    # -- compounds: reading --------------------------------------------------------------
    def get_compound(self, compound_id: int, with_reactions: int = 50) -> Compound:
        row = self.execute(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE id = ?", (compound_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no compound with id {compound_id}")
        compound = _compound_from_row(row)
        if with_reactions:
            rows = self.execute(
                "SELECT DISTINCT r.id FROM participants p JOIN reactions r ON r.rowid = p.reaction_rowid "
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
            rank = row["rank"] if "rank" in row.keys() else 0
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
            f"SELECT n.rank AS rank, {', '.join('c.' + c.strip() for c in _COMPOUND_COLUMNS.split(','))} "
            "FROM compound_names n JOIN compounds c ON c.id = n.compound_id WHERE n.norm = ? "
            f"ORDER BY n.rank < 0 DESC, {_SOURCE_PRIORITY_SQL} DESC, n.rank, c.id",
            (normalized,),
            normalized,
        )

    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE inchikey = ? "
            f"UNION SELECT {', '.join('c.' + c.strip() for c in _COMPOUND_COLUMNS.split(','))} "
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
                    f"WITH p(norm, compound_id) AS (VALUES {values}) SELECT n.norm, n.compound_id FROM p "
                    "JOIN compound_names n ON n.norm = p.norm AND n.compound_id = p.compound_id",
                    [v for pair in chunk for v in pair],
                )
            )
        return found

    def compounds_for_inchikeys(
        self, inchikeys: Iterable[str]
    ) -> dict[str, tuple[int, str | None]]:
        """InChIKey -> (compound id, canonical SMILES) for the keys the KB knows, aliases included."""
        todo = list(dict.fromkeys(inchikeys))
        found: dict[str, tuple[int, str | None]] = {}
        for sql in (
            "SELECT inchikey, id, smiles FROM compounds WHERE inchikey IN ({})",
            (
                "SELECT k.inchikey, c.id, c.smiles FROM compound_keys k JOIN compounds c ON c.id = k.compound_id "
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
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE substr(inchikey, 1, 14) = ? ORDER BY id LIMIT 50",
            (connectivity_key[:14],),
        )

    def lookup_parent(self, parent_inchikey: str) -> list[DictionaryHit]:
        return self._hits(
            f"SELECT {_COMPOUND_COLUMNS} FROM compounds WHERE parent_inchikey = ? OR inchikey = ? ORDER BY id LIMIT 50",
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

    # -- compounds: writing --------------------------------------------------------------
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
                    f"SELECT {', '.join('c.' + c.strip() for c in _COMPOUND_COLUMNS.split(','))} FROM compound_keys k "
                    "JOIN compounds c ON c.id = k.compound_id WHERE k.inchikey = ?",
                    (compound.inchikey,),
                ).fetchone()
            return row
        # no structure: the same kind under the same primary name is the same record
        primary = normalize_name(compound.name)
        if not primary:
            return None
        return self.execute(
            f"SELECT {', '.join('c.' + c.strip() for c in _COMPOUND_COLUMNS.split(','))} FROM compound_names n "
            "JOIN compounds c ON c.id = n.compound_id WHERE n.norm = ? AND c.inchikey IS NULL AND c.kind = ? "
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
                "INSERT INTO compounds_fts(compounds_fts, rowid, iupac_name, common_name, synonyms, description) "
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
            "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, description) VALUES (?, ?, ?, ?, ?)",
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
                    "UPDATE compounds SET iupac_name=?, common_name=?, synonyms=?, description=?, pubchem_cid=?, "
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
            "INSERT INTO compounds (inchikey, parent_inchikey, smiles, inchi, formula, molecular_weight, exact_mass, "
            "iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, provenance, fingerprint) "
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

    # -- reactions -----------------------------------------------------------------------
    def _reactions_from_rows(self, rows: list[sqlite3.Row]) -> list[Reaction]:
        if not rows:
            return []
        by_rowid = {row["rowid"]: row for row in rows}
        participants: dict[int, list[Participant]] = {rowid: [] for rowid in by_rowid}
        marks = ",".join("?" * len(by_rowid))
        for p in self.execute(
            f"SELECT reaction_rowid, role, compound_id, name, smiles, inchikey, amount, unresolved_reason "
            f"FROM participants WHERE reaction_rowid IN ({marks}) ORDER BY reaction_rowid, position",
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
                "SELECT r.id, p.compound_id, p.role FROM participants p JOIN reactions r ON r.rowid = p.reaction_rowid "
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
                "INSERT OR IGNORE INTO reactions (id, source, dataset, title, reaction_class, description, "
                "reaction_smiles, temperature_c, temperature_text, time_h, ph, pressure_bar, atmosphere, yield_percent, "
                "operations, notes, flags, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                "INSERT INTO reactions (rowid, id, source, dataset, title, reaction_class, description, "
                "reaction_smiles, temperature_c, temperature_text, time_h, ph, pressure_bar, atmosphere, yield_percent, "
                "operations, notes, flags, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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

    def next_compound_id(self) -> int:
        return (self.execute("SELECT max(id) FROM compounds").fetchone()[0] or 0) + 1

    def insert_compounds(self, items: list[tuple[int, Compound, bytes | None]]) -> None:
        """Insert new compounds with ids the caller reserved (``next_compound_id`` onwards) in one batch."""
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
                "INSERT INTO compounds (id, inchikey, parent_inchikey, smiles, inchi, formula, molecular_weight, "
                "exact_mass, iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, "
                "provenance, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self._conn.executemany(
                "INSERT INTO compound_names VALUES (?, ?, ?) ON CONFLICT(norm, compound_id) "
                "DO UPDATE SET rank = min(rank, excluded.rank)",
                names,
            )
            self._conn.executemany(
                "INSERT INTO compounds_fts(rowid, iupac_name, common_name, synonyms, description) VALUES (?, ?, ?, ?, ?)",
                fts,
            )
            self._fingerprint_cache = None

    def search_reaction_text(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        q = fts_query(query)
        if not q:
            return []
        rows = self.execute(
            "SELECT r.id, bm25(reactions_fts) AS score FROM reactions_fts JOIN reactions r ON r.rowid = reactions_fts.rowid "
            "WHERE reactions_fts MATCH ? ORDER BY score LIMIT ?",
            (q, limit),
        ).fetchall()
        return [(row[0], -row[1]) for row in rows]

    def search_compound_text(self, query: str, limit: int = 10) -> list[tuple[int, float]]:
        q = fts_query(query)
        if not q:
            return []
        rows = self.execute(
            "SELECT rowid, bm25(compounds_fts) AS score FROM compounds_fts WHERE compounds_fts MATCH ? "
            "ORDER BY score LIMIT ?",
            (q, limit),
        ).fetchall()
        return [(row[0], -row[1]) for row in rows]

    # -- imports -------------------------------------------------------------------------
    def import_record(self, sha256: str) -> dict[str, Any] | None:
        row = self.execute(
            "SELECT path, format, summary FROM imports WHERE sha256 = ?", (sha256,)
        ).fetchone()
        return (
            None
            if row is None
            else {"path": row[0], "format": row[1], "summary": json.loads(row[2])}
        )

    def record_import(self, sha256: str, path: str, fmt: str, summary: dict[str, Any]) -> None:
        self.execute(
            "INSERT OR IGNORE INTO imports VALUES (?, ?, ?, ?)",
            (sha256, path, fmt, json.dumps(summary)),
        )

    def remove_records(self, reaction_ids: Sequence[str], compound_ids: Sequence[int]) -> None:
        self._require_writable()
        reactions, compounds = list(reaction_ids), list(compound_ids)
        with self.transaction():
            conn = self._conn
            for start in range(0, len(reactions), 500):
                chunk = reactions[start : start + 500]
                rows = conn.execute(
                    f"SELECT rowid, title, description, notes FROM reactions WHERE id IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                if not rows:
                    continue
                conn.executemany(
                    "INSERT INTO reactions_fts(reactions_fts, rowid, title, description, notes) "
                    "VALUES ('delete', ?, ?, ?, ?)",
                    [tuple(r) for r in rows],
                )
                rowids = [r[0] for r in rows]
                marks = ",".join("?" * len(rowids))
                conn.execute(f"DELETE FROM participants WHERE reaction_rowid IN ({marks})", rowids)
                conn.execute(f"DELETE FROM reactions WHERE rowid IN ({marks})", rowids)
            for start in range(0, len(compounds), 500):
                chunk = compounds[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT id, iupac_name, common_name, synonyms, description FROM compounds "
                    f"WHERE id IN ({marks})",
                    chunk,
                ).fetchall()
                conn.executemany(
                    "INSERT INTO compounds_fts(compounds_fts, rowid, iupac_name, common_name, synonyms, "
                    "description) VALUES ('delete', ?, ?, ?, ?, ?)",
                    [tuple(r) for r in rows],
                )
                conn.execute(
                    f"UPDATE participants SET compound_id = NULL WHERE compound_id IN ({marks})",
                    chunk,
                )
                for table in ("compound_names", "compound_keys", "compound_screens"):
                    conn.execute(f"DELETE FROM {table} WHERE compound_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM compounds WHERE id IN ({marks})", chunk)
        self._fingerprint_cache = None
        self._screen_cache = None

    # -- export (kb migrate) -------------------------------------------------------------
    def export_tables(self, batch_size: int = 20_000) -> Iterator[tuple[str, Any, int]]:
        """Every stored record, table by table in batches, for copying into another backend.

        Yields (table, rows, total rows of the table). Compounds come before the tables that
        refer to them; a reactions batch is a pair (reaction rows, their participant rows).
        Meta rows that a new KB writes itself (schema version, backend) are left out.
        """
        total = self._count(
            "SELECT COUNT(*) FROM meta WHERE key NOT IN ('schema_version', 'backend')"
        )
        yield (
            "meta",
            [
                tuple(r)
                for r in self.execute(
                    "SELECT key, value FROM meta WHERE key NOT IN ('schema_version', 'backend') ORDER BY key"
                )
            ],
            total,
        )
        total = self._count("SELECT COUNT(*) FROM compounds")
        last = 0
        while True:
            rows = [
                tuple(r)
                for r in self.execute(
                    f"SELECT {_COMPOUND_COLUMNS}, fingerprint FROM compounds WHERE id > ? ORDER BY id LIMIT ?",
                    (last, batch_size),
                )
            ]
            if not rows:
                break
            yield "compounds", rows, total
            last = rows[-1][0]
        for table, order in (
            ("compound_keys", "inchikey"),
            ("compound_names", "norm, compound_id"),
            ("imports", "sha256"),
        ):
            total = self._count(f"SELECT COUNT(*) FROM {table}")
            cursor = self.execute(f"SELECT * FROM {table} ORDER BY {order}")
            while rows := [tuple(r) for r in cursor.fetchmany(batch_size)]:
                yield table, rows, total
        total = self._count("SELECT COUNT(*) FROM reactions")
        last = 0
        while True:
            rows = [
                tuple(r)
                for r in self.execute(
                    f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    (last, batch_size),
                )
            ]
            if not rows:
                break
            participants = [
                tuple(r)
                for r in self.execute(
                    "SELECT reaction_rowid, position, role, compound_id, name, smiles, inchikey, amount, unresolved_reason "
                    "FROM participants WHERE reaction_rowid > ? AND reaction_rowid <= ? ORDER BY reaction_rowid, position",
                    (last, rows[-1][0]),
                )
            ]
            yield "reactions", (rows, participants), total
            last = rows[-1][0]

    # -- stats ---------------------------------------------------------------------------
    def _count(self, sql: str) -> int:
        return int(self.execute(sql).fetchone()[0])

    def table_exists(self, name: str) -> bool:
        return (
            self.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
            is not None
        )

    _table_exists = table_exists

    def stats(self) -> KBStats:
        size = sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )
        return KBStats(
            path=str(self.path),
            compounds=self._count("SELECT COUNT(*) FROM compounds"),
            compounds_with_structure=self._count(
                "SELECT COUNT(*) FROM compounds WHERE smiles IS NOT NULL"
            ),
            compound_names=self._count("SELECT COUNT(*) FROM compound_names"),
            reactions=self._count("SELECT COUNT(*) FROM reactions"),
            participants=self._count("SELECT COUNT(*) FROM participants"),
            flagged_reactions=self._count("SELECT COUNT(*) FROM reactions WHERE flags != '[]'"),
            reactions_by_source={
                r[0] or "(none)": r[1]
                for r in self.execute(
                    "SELECT dataset, COUNT(*) FROM reactions GROUP BY dataset ORDER BY 2 DESC"
                )
            },
            compounds_by_source={
                r[0] or "(none)": r[1]
                for r in self.execute(
                    "SELECT source, COUNT(*) FROM compounds GROUP BY source ORDER BY 2 DESC"
                )
            },
            documents=self._count("SELECT COUNT(*) FROM documents")
            if self._table_exists("documents")
            else 0,
            chunks=self._count("SELECT COUNT(*) FROM chunks")
            if self._table_exists("chunks")
            else 0,
            size_bytes=size,
            meta=self.all_meta(),
        )
