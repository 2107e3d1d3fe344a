"""The embedded knowledge base: one SQLite file (WAL mode, FTS5 for text).

This module holds the connection side (opening, read-only per-thread readers, transactions,
the background WAL checkpointer) and the primitives the shared mixins build on
(:mod:`chemground.kb.dialect`); each other concern is a mixin in its own module: the schema
(``sqlite_schema``), compounds and names (``sqlite_compounds``), reactions and participants
(``sqlite_reactions``), text search (``sqlite_text``), the imports ledger, removal and export
(``sqlite_ledger``), structure search (``sqlite_structure``). What does not depend on SQLite
is shared with the PostgreSQL store: rows and records (``rows``), compound look-ups and
merging (``compound_records``), reactions (``reaction_records``), meta, ledger and statistics
(``ledger``), text queries (``text_query``), the tables (``schema_tables``).

Tables: ``compounds`` (one row per structure, keyed by InChIKey), ``compound_names``
(normalised name -> compound, for exact name look-up), ``compound_keys`` (extra InChIKeys
that identify the same compound, e.g. the dictionary's own key where RDKit's differs),
``reactions`` and the link table ``participants`` (reaction, compound, role), FTS5 indexes
over reaction and compound text, ``imports`` (what was imported, for idempotency) and
``meta``. Readers open the file read-only and never block each other.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chemground.errors import ChemgroundError, NotFoundError
from chemground.kb.graph_rows import GraphRowQueries
from chemground.kb.named_queries import NamedQueries
from chemground.kb.papers import SQLITE_PAPER_SCHEMA, PaperTables
from chemground.kb.sqlite_compounds import SQLiteCompounds
from chemground.kb.sqlite_ledger import SQLiteLedger
from chemground.kb.sqlite_reactions import SQLiteReactions
from chemground.kb.sqlite_schema import (  # re-exported: the schema's names have always lived here
    _COMPOUND_COLUMNS,
    _FTS_TOKEN,
    _REACTION_COLUMNS,
    _SOURCE_PRIORITY_SQL,
    CURATED_DICTIONARY_SOURCES,
    SCHEMA,
    SCHEMA_VERSION,
    _compound_from_row,
    _json,
    _matched_name,
    _structure_from_row,
    fts_query,
)
from chemground.kb.sqlite_structure import SQLiteStructureSearch
from chemground.kb.sqlite_text import SQLiteTextSearch
from chemground.kb.store import KnowledgeBase

__all__ = [
    "CURATED_DICTIONARY_SOURCES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "_COMPOUND_COLUMNS",
    "_FTS_TOKEN",
    "_REACTION_COLUMNS",
    "_SOURCE_PRIORITY_SQL",
    "SQLiteKB",
    "_compound_from_row",
    "_json",
    "_matched_name",
    "_structure_from_row",
    "fts_query",
]

WAL_CHECKPOINT_BYTES = 4 << 20  # SQLite's default automatic checkpoint: 1000 pages of 4 KiB
_IN_BATCH = 500  # values in one IN (...) list


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
    """One thread's connection to a read-only KB (a holder: a Connection has no weak refs)."""

    __slots__ = ("__weakref__", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn


def _check_kb_path(path: Path, readonly: bool) -> None:
    """Refuse a KB path that cannot work, with what to do about it: a folder, or (to write) a
    file or folder that is read-only. Each was a raw sqlite3 error or a traceback ("unable to
    open database file"; "is not a chemground knowledge base: attempt to write a readonly
    database" for a perfectly good KB in a read-only folder)."""
    import os

    if path.is_dir():
        raise ChemgroundError(
            f"{path} is a folder; the KB is a file (e.g. {path / 'kb.sqlite'}), given with --kb "
            "or CHEMGROUND_KB"
        )
    if readonly or not path.exists():
        return
    folder = path.parent if str(path.parent) else Path(".")
    for target, what in ((path, "file"), (folder, "folder")):
        if not os.access(target, os.W_OK):
            raise ChemgroundError(
                f"the knowledge base {path} cannot be written: its {what} is read-only (SQLite "
                "needs to write the file and its journal beside it); make it writable, or copy "
                "the KB somewhere writable and pass --kb"
            )


class SQLiteKB(
    SQLiteCompounds,
    SQLiteReactions,
    SQLiteTextSearch,
    SQLiteLedger,
    NamedQueries,
    GraphRowQueries,
    PaperTables,
    SQLiteStructureSearch,
    KnowledgeBase,
):
    """Knowledge base in one SQLite file."""

    _PAPER_SCHEMA = SQLITE_PAPER_SCHEMA

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        _check_kb_path(self.path, readonly)
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
                f"{self.path} has KB schema version {version!r}; this chemground expects "
                f"{SCHEMA_VERSION}. "
                "Rebuild it with `chemground kb build --force`."
            )

    # -- plumbing ------------------------------------------------------------------------
    @property
    def structure_source(self) -> Path | None:
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

    def _mappings(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """All rows of one query (a ``sqlite3.Row`` reads by position and by column name)."""
        return self.execute(sql, params).fetchall()

    def _select_in(
        self, sql: str, values: Sequence[Any], by_name: bool = False
    ) -> Iterator[sqlite3.Row]:
        """The rows of ``sql`` with ``{values}`` read as ``IN (?, ...)``, in batches of 500
        values (SQLite limits the parameters of one statement). Rows read both ways, so
        ``by_name`` changes nothing here."""
        for start in range(0, len(values), _IN_BATCH):
            chunk = list(values[start : start + _IN_BATCH])
            marks = ",".join("?" * len(chunk))
            yield from self.execute(sql.replace("{values}", f"IN ({marks})"), chunk)

    def _write_scope(self) -> threading.RLock:
        """Writes on SQLite hold the store's lock (the one connection writes in order)."""
        return self._lock

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

    def copy_to(self, target: str | Path) -> None:
        """Write a consistent copy of the KB to a new file (``VACUUM INTO``), also of a KB
        being written to in WAL mode or opened read-only.

        Args:
            target: the new file's path; it must not exist.

        Raises:
            FileExistsError: ``target`` exists. ChemgroundError: SQLite could not write it.
        """
        target = Path(target)
        if target.exists():
            raise FileExistsError(f"{target} exists; the KB copy needs a new file")
        try:
            self.execute("VACUUM INTO ?", (str(target),))
        except sqlite3.Error as error:
            raise ChemgroundError(f"cannot copy {self.path} to {target}: {error}") from error

    def close(self) -> None:
        self._stop_checkpointer()
        with self._lock:
            self._conn.close()
            for reader in list(self._readers):  # a read-only KB's per-thread connections
                reader.conn.close()

    # -- meta ----------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        self._require_writable()
        self.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def table_exists(self, name: str) -> bool:
        return (
            self.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
            is not None
        )

    _table_exists = table_exists
