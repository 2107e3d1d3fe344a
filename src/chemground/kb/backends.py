"""Choosing a KB backend from a location, building one, and copying a KB between backends.

A location is a file path (the embedded SQLite KB) or a ``postgresql://`` URL (a server with
the RDKit cartridge). ``--kb`` and ``CHEMGROUND_KB`` take either; everything else works on
the :class:`~chemground.kb.store.KnowledgeBase` that :func:`open_kb` returns.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from pathlib import Path

from chemground.errors import ChemgroundError
from chemground.kb.store import KnowledgeBase
from chemground.progress import Progress

MIGRATE_BATCH = 20_000


# The PostgreSQL store is imported only for a PostgreSQL location: a SQLite KB (every CLI start)
# does not pay for its module (~10 ms). The rules stay in pg_store; a location that does not
# start with "postgres" is never one of its URLs.
def is_postgres_url(location: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) location (see ``pg_store``)."""
    if not str(location)[:8].lower().startswith("postgres"):
        return False
    from chemground.kb import pg_store

    return pg_store.is_postgres_url(location)


def normalize_url(location: object) -> str:
    from chemground.kb import pg_store

    return pg_store.normalize_url(location)


def shown_url(url: str) -> str:
    from chemground.kb import pg_store

    return pg_store.shown_url(url)


def open_kb(location: str | Path, readonly: bool = False) -> KnowledgeBase:
    """Open the KB at ``location`` (a SQLite file path or a PostgreSQL URL).

    Args:
        location: a path, or ``postgresql://user@host:port/dbname``.
        readonly: refuse writes (a SQLite file is then opened read-only, and must exist).

    Returns:
        The knowledge base.

    Raises:
        ChemgroundError: not a chemground KB, or the server cannot be reached.
        NotFoundError: a read-only SQLite KB that does not exist.
    """
    if is_postgres_url(location):
        from chemground.kb.pg_store import PostgresKB

        return PostgresKB(normalize_url(location), readonly=readonly)
    from chemground.kb.sqlite_store import SQLiteKB

    return SQLiteKB(Path(location), readonly=readonly)


def location_key(location: str | Path) -> str:
    """The text that names one KB on this machine (what caches of derived data are keyed by).

    Args:
        location: a SQLite file path or a PostgreSQL URL.

    Returns:
        The file's real path, or the database URL without its password.
    """
    if is_postgres_url(location):
        return shown_url(normalize_url(location))
    return os.path.realpath(Path(location).expanduser())


def server_kb_folder(location: str | Path, base: Path) -> Path:
    """A folder for files derived from a database KB (its reaction graph), under ``base``.

    A SQLite KB keeps such files beside its file; a database has no folder of its own, so
    they go under ``base`` (the cache folder), one folder per server and database.

    Args:
        location: a PostgreSQL URL.
        base: the folder to put it under.

    Returns:
        ``<base>/servers/<database>-<hash of the URL without its password>``.
    """
    key = location_key(location)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", key.rsplit("/", 1)[-1].split("?")[0]) or "db"
    return Path(base) / "servers" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def kb_exists(location: str | Path) -> bool:
    """Whether a KB is there: the file exists, or the database holds chemground's tables."""
    if not is_postgres_url(location):
        return Path(location).exists()
    from chemground.kb.pg_store import PostgresKB

    try:
        PostgresKB(normalize_url(location), readonly=True).close()
    except ChemgroundError as error:
        if "no knowledge base" in str(error):
            return False
        raise
    return True


SQLITE_SIDECARS = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database


def sqlite_files(path: str | Path) -> list[Path]:
    """A SQLite database file and the sidecar files SQLite keeps beside it (WAL, shared memory,
    rollback journal): what belongs to that database, and nothing else whose name starts alike
    ("kb.sqlite.bak", the graph folder "kb.sqlite.graph").

    Args:
        path: the database file.

    Returns:
        The paths, whether or not they exist.
    """
    path = Path(path)
    return [path, *(path.with_name(path.name + suffix) for suffix in SQLITE_SIDECARS)]


def drop_kb(location: str | Path) -> None:
    """Remove the KB at ``location``: the SQLite file with its sidecars (``sqlite_files``), or
    chemground's tables. Other files beside it are left alone."""
    if not is_postgres_url(location):
        for stale in sqlite_files(location):
            stale.unlink(missing_ok=True)
        return
    from chemground.kb.pg_store import PostgresKB

    with PostgresKB(normalize_url(location), create=False) as kb:
        kb.drop_tables()


def build_kb_at(
    location: str | Path,
    progress: Progress | None = None,
    *,
    replace: bool = False,
    **options,
) -> KnowledgeBase:
    """Build a fresh KB (dictionary + starter reactions) at a path or in an empty database.

    With ``replace``, an existing SQLite KB is replaced only once the new one is complete: it is
    built beside the old one and moved into its place, so a failed or interrupted rebuild keeps
    the old KB (and the reactions and papers imported into it). A PostgreSQL KB's tables are
    dropped first.

    A PostgreSQL KB is built as a SQLite KB in a temporary directory, then copied with
    :func:`migrate`, in one transaction: the same records, ids and order on both backends.

    Args:
        location: a path, or the URL of a database.
        progress: called with (stage, advance, total).
        replace: replace a KB already there (otherwise there must be none).
        **options: passed to :func:`chemground.kb.build.build_kb`.

    Returns:
        The new KB, open for writing.

    Raises:
        FileExistsError: the SQLite file exists and ``replace`` is false. ChemgroundError: the
        database already holds a KB and ``replace`` is false.
    """
    from chemground.kb.build import build_kb
    from chemground.kb.sqlite_store import SQLiteKB

    if not is_postgres_url(location):
        path = Path(location)
        if not (replace and path.exists()):
            return build_kb(path, progress=progress, **options)
        fresh = path.with_name(path.name + ".rebuilt")
        for stale in sqlite_files(fresh):
            stale.unlink(missing_ok=True)
        build_kb(fresh, progress=progress, **options).close()
        for old in sqlite_files(path)[1:]:  # the old KB's WAL: the new file starts clean
            old.unlink(missing_ok=True)
        fresh.replace(path)  # atomic on one filesystem: the old KB until this moment
        return SQLiteKB(path)
    if replace and kb_exists(location):
        drop_kb(location)
    if kb_exists(location):
        raise ChemgroundError(f"{location} already holds a knowledge base")
    with tempfile.TemporaryDirectory(prefix="chemground-build-") as tmp:
        source = build_kb(Path(tmp) / "kb.sqlite", progress=progress, **options)
        try:
            migrate(source, location, progress=progress)
        finally:
            source.close()
    return open_kb(location)


def migrate(
    source: KnowledgeBase, target: str | Path, progress: Progress | None = None
) -> dict[str, int]:
    """Copy every record of a SQLite KB into an empty PostgreSQL KB, in one transaction.

    Ids, reaction order, names, alias keys, the import ledger and meta are kept, so the
    copy answers every question as the source does. Rows stream with COPY in batches; the
    server computes the cartridge columns (``mol``, ``mfp``) from the stored SMILES.

    Args:
        source: a SQLite KB (read-only is enough).
        target: the URL of a PostgreSQL database without a KB, or whose KB is empty.
        progress: called with (table, rows copied, total rows of that table).

    Returns:
        Rows copied per table, and ``seconds``.

    Raises:
        ChemgroundError: the target already holds records, or is not PostgreSQL.
    """
    from chemground.kb.pg_store import PostgresKB
    from chemground.kb.sqlite_store import SQLiteKB

    if not isinstance(source, SQLiteKB):
        raise ChemgroundError(
            "kb migrate copies a SQLite KB (--from FILE) into PostgreSQL (--to URL)"
        )
    if not is_postgres_url(target):
        raise ChemgroundError(f"--to must be a postgresql:// URL, not {target!r}")
    started = time.perf_counter()
    pg = PostgresKB(normalize_url(target))
    counts: dict[str, int] = {}
    try:
        if pg.stats().compounds or pg.stats().reactions:
            raise ChemgroundError(
                f"{pg.path} already holds a knowledge base with records; migrate into an empty one"
            )
        with pg.bulk_load():
            for table, rows, total in source.export_tables(MIGRATE_BATCH):
                if progress:
                    progress(table, 0, total)
                if table == "compounds":
                    n = pg.copy_compound_rows(rows)
                elif table == "reactions":
                    n = len(rows[0])
                    pg.copy_reaction_rows(*rows)
                else:
                    n = pg.copy_plain_rows(table, rows)
                counts[table] = counts.get(table, 0) + n
                if progress:
                    progress(table, n, total)
            pg.set_meta("migrated_from", str(source.path))
    finally:
        pg.close()
    counts["seconds"] = round(time.perf_counter() - started, 1)  # type: ignore[assignment]
    return counts
