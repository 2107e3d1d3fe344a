"""One on-disk cache: a key -> value table in a SQLite file, shared by threads and processes.

The LLM responses, OPSIN translations, PubChem replies and text embeddings are each cached
with it. A cache must never be the reason a call fails, so:

- a file that is not a readable SQLite database is moved aside (``*.corrupt-<time>``) and a
  new one started;
- any later database error turns the cache off for this process, with one warning;
- the table can be bounded (``max_entries``), oldest writes dropped first;
- writes use WAL with ``synchronous=NORMAL``: a cache entry need not wait for the disk.

Values are ``str`` or ``bytes`` as given; ``get_json``/``put_json`` store JSON. The run
journal of extraction (``extract.journal``) is not a cache: losing an entry there loses paid
work, so it fails loudly instead, and keeps its own file.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_BATCH = 500  # keys per SELECT ... IN (...): below SQLite's variable limit


class DiskCache:
    """A bounded key -> value store in one SQLite file that never makes a caller fail.

    Args:
        path: the SQLite file (its folder is created); None makes a cache that stores nothing.
        name: what warnings call it ("LLM response cache").
        table: the table name; change it to invalidate entries written by older code.
        max_entries: keep at most this many entries (oldest writes dropped); None for no bound.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        name: str = "cache",
        table: str = "entries",
        max_entries: int | None = None,
    ) -> None:
        if not table.replace("_", "").isalnum():
            raise ValueError(f"cache table name {table!r} must be letters, digits and _")
        self.path = Path(path) if path is not None else None
        self.name = name
        self.table = table
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            self._start()

    # -- opening -----------------------------------------------------------------------------
    def _start(self) -> None:
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except OSError as error:
            log.warning("%s %s cannot be used (%s); caching is off", self.name, self.path, error)
        except sqlite3.DatabaseError as error:
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            log.warning(
                "%s %s is unreadable (%s); moved it to %s and started a new one",
                self.name,
                self.path,
                error,
                aside,
            )
            try:
                self.path.rename(aside)
                for suffix in ("-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
                self._db = self._open()
            except (OSError, sqlite3.DatabaseError) as again:
                log.warning(
                    "%s %s cannot be used (%s); caching is off", self.name, self.path, again
                )
                self._db = None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        try:
            try:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.OperationalError:  # another process holds it: keep its journal mode
                pass
            db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, value)")
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({self.table})")}
            if columns != {"key", "value"}:
                # a cache written by an older chemground (the LLM cache's "body" column): it is
                # only a cache, so it starts afresh rather than staying off in every process
                log.warning(
                    "%s %s has an older layout (%s); started it afresh",
                    self.name,
                    self.path,
                    ", ".join(sorted(columns)),
                )
                with db:
                    db.execute(f"DROP TABLE {self.table}")
                    db.execute(f"CREATE TABLE {self.table} (key TEXT PRIMARY KEY, value)")
            db.execute(f"SELECT count(*) FROM {self.table}").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _failed(self, error: sqlite3.Error) -> None:
        log.warning(
            "%s %s failed (%s); caching is off for this process", self.name, self.path, error
        )
        try:
            if self._db is not None:
                self._db.close()
        except sqlite3.Error:
            pass
        self._db = None

    @property
    def enabled(self) -> bool:
        """Whether entries are being stored (False without a path or after a database error)."""
        return self._db is not None

    # -- reading -----------------------------------------------------------------------------
    def get(self, key: str) -> str | bytes | None:
        """The value stored under ``key``, or None."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, str | bytes]:
        """The stored values of those ``keys`` that have one."""
        found: dict[str, str | bytes] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            if self._db is None:
                return found
            try:
                for start in range(0, len(unique), _BATCH):
                    chunk = unique[start : start + _BATCH]
                    marks = ",".join("?" * len(chunk))
                    query = f"SELECT key, value FROM {self.table} WHERE key IN ({marks})"
                    found.update(self._db.execute(query, chunk).fetchall())
            except sqlite3.Error as error:
                self._failed(error)
        return found

    def get_json(self, key: str) -> Any | None:
        """The JSON value stored under ``key``; None when absent or unreadable (then dropped)."""
        raw = self.get(key)
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except (TypeError, ValueError):
            self.delete(key)
            return None

    # -- writing -----------------------------------------------------------------------------
    def put(self, key: str, value: str | bytes) -> None:
        """Store ``value`` under ``key`` (replacing any older value)."""
        self.put_many([(key, value)])

    def put_json(self, key: str, value: Any) -> None:
        """Store ``value`` as JSON under ``key``."""
        self.put(key, json.dumps(value, ensure_ascii=False))

    def put_many(self, items: Iterable[tuple[str, str | bytes]]) -> None:
        """Store many entries in one transaction."""
        with self._lock:
            if self._db is None:
                return
            try:
                self._db.executemany(f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?)", items)
                if self.max_entries is not None and self.max_entries > 0:
                    self._trim()
                self._db.commit()
            except sqlite3.Error as error:
                self._failed(error)

    def _trim(self) -> None:
        assert self._db is not None
        count = self._db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0]
        extra = count - (self.max_entries or 0)
        if extra > 0:  # INSERT OR REPLACE gives a new rowid: the smallest are the oldest writes
            self._db.execute(
                f"DELETE FROM {self.table} WHERE rowid IN "
                f"(SELECT rowid FROM {self.table} ORDER BY rowid LIMIT ?)",
                (extra,),
            )

    def delete(self, key: str) -> None:
        """Drop the entry under ``key`` (a value that proved unusable)."""
        with self._lock:
            if self._db is None:
                return
            try:
                self._db.execute(f"DELETE FROM {self.table} WHERE key = ?", (key,))
                self._db.commit()
            except sqlite3.Error as error:
                self._failed(error)

    def __len__(self) -> int:
        with self._lock:
            if self._db is None:
                return 0
            try:
                return int(self._db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0])
            except sqlite3.Error as error:
                self._failed(error)
                return 0

    def close(self) -> None:
        """Close the file (later calls behave as a disabled cache)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
