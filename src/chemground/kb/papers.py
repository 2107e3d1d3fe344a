"""Papers in the knowledge base: the ``documents``, ``chunks`` and ``chunk_mentions`` tables.

They live beside the compounds and reactions, in the same SQLite file or PostgreSQL
database, so one KB holds the records and the papers that mention them, and a paper is
stored in one KB transaction: whole or not at all. Documents are keyed by the SHA-256 of
their file (what makes re-adding idempotent); chunks are spans of a document's cleaned
text, numbered in storage order (``rowid``, the order text indexes are built in); a chunk's
mentions are the compounds found in it, by InChIKey and by skeleton (first key block).

:class:`PaperTables` is a mixin of both stores: its SQL is portable (``?`` placeholders,
the same tables and columns on every backend), and each store names its own DDL in
``_PAPER_SCHEMA``. The literature pipeline (``chemground.lit.store.LitStore``) adds its
policy on top: chunk checks and the change counter its indexes use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol

from chemground.errors import NotFoundError
from chemground.lit.records import Chunk, Document

SQLITE_PAPER_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    title TEXT,
    n_pages INTEGER,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    added_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);

CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    page INTEGER,
    page_end INTEGER,
    section TEXT,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_document ON chunks(document_id, seq);

CREATE TABLE IF NOT EXISTS chunk_mentions (
    chunk_rowid INTEGER NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE,
    inchikey TEXT NOT NULL,
    connectivity TEXT NOT NULL,
    compound_id INTEGER,
    mention TEXT NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunk_mentions_key ON chunk_mentions(inchikey);
CREATE INDEX IF NOT EXISTS chunk_mentions_connectivity ON chunk_mentions(connectivity);
CREATE INDEX IF NOT EXISTS chunk_mentions_chunk ON chunk_mentions(chunk_rowid);
"""

# The same tables on PostgreSQL: 64-bit ids, and ``rowid`` an ordinary key column (SQLite's
# INTEGER PRIMARY KEY is its row id); rows are numbered by add_document in both stores.
POSTGRES_PAPER_SCHEMA = (
    SQLITE_PAPER_SCHEMA.replace("rowid INTEGER PRIMARY KEY", "rowid BIGINT PRIMARY KEY")
    .replace("chunk_rowid INTEGER NOT NULL", "chunk_rowid BIGINT NOT NULL")
    .replace("compound_id INTEGER", "compound_id BIGINT")
)

PAPER_TABLES = ("documents", "chunks", "chunk_mentions")
# Column lists in the order rows are exported and copied (``kb migrate``).
PAPER_COLUMNS: dict[str, str] = {
    "documents": "id, sha256, path, format, title, n_pages, text, metadata, added_at",
    "chunks": "rowid, id, document_id, seq, char_start, char_end, page, page_end, section, text",
    "chunk_mentions": "chunk_rowid, inchikey, connectivity, compound_id, mention, char_start, "
    "char_end, source",
}
PAPER_EXPORT_ORDER = {"documents": "id", "chunks": "rowid", "chunk_mentions": "chunk_rowid"}

_DOCUMENT_COLUMNS = PAPER_COLUMNS["documents"]
_CHUNK_COLUMNS = (
    "c.rowid, c.id, c.document_id, c.seq, c.char_start, c.char_end, c.page, c.page_end, "
    "c.section, c.text"
)
_BATCH = 500  # ids per IN (...) list


class MentionLike(Protocol):
    """What a stored mention needs (``chemground.chem.mentions.Mention`` is one)."""

    text: str
    start: int  # relative to the chunk
    end: int
    inchikey: str
    compound_id: int | None
    source: str

    @property
    def connectivity(self) -> str: ...


@dataclass(frozen=True)
class MentionHit:
    """A chunk that names a compound, and whether by the same structure or its skeleton."""

    chunk_id: str
    mention: str
    inchikey: str
    exact: bool
    offset: int = 0  # where the mention starts, relative to the chunk


class PaperTables:
    """Documents, chunks and their compound mentions (a mixin of both stores).

    Needs the store's ``execute`` (``?`` placeholders), ``transaction``, ``table_exists``,
    ``_require_writable`` and ``readonly``; the store sets ``_PAPER_SCHEMA``.
    """

    _PAPER_SCHEMA: ClassVar[str] = SQLITE_PAPER_SCHEMA
    readonly: bool

    def execute(self, sql: str, params: Any = ()) -> Any:  # provided by the store
        raise NotImplementedError

    def transaction(self) -> Any:  # provided by the store
        raise NotImplementedError

    def table_exists(self, name: str) -> bool:  # provided by the store
        raise NotImplementedError

    def _require_writable(self) -> None:  # provided by the store
        raise NotImplementedError

    # -- tables ------------------------------------------------------------------------------
    def has_paper_tables(self) -> bool:
        """Whether the KB has the paper tables (a read-only KB may predate them).

        Returns:
            True once :meth:`ensure_paper_tables` ran on this KB.
        """
        return self.table_exists("chunks")

    def ensure_paper_tables(self) -> None:
        """Create the paper tables where they are missing (one transaction).

        Raises:
            ChemgroundError: the KB was opened read-only.
        """
        self._require_writable()
        if self.has_paper_tables():
            return
        with self.transaction():
            for statement in (s.strip() for s in self._PAPER_SCHEMA.split(";")):
                if statement:
                    self.execute(statement)

    def paper_counts(self) -> tuple[int, int]:
        """(documents, chunks) stored; (0, 0) without the paper tables."""
        if not self.has_paper_tables():
            return 0, 0
        row = self.execute(
            "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM chunks)"
        ).fetchone()
        return int(row[0]), int(row[1])

    # -- writing -----------------------------------------------------------------------------
    def add_document(
        self,
        document: Document,
        chunks: Iterable[tuple[Chunk, Sequence[MentionLike]]],
        replace: Iterable[str] = (),
    ) -> int:
        """Store a document with its chunks and their mentions, in one transaction.

        The chunks are consumed one at a time while they are stored, so a long paper's chunks
        are never all in memory; an error raised by the iterable stores nothing.

        Args:
            document: the document (its ``text`` is what chunk offsets refer to).
            chunks: (chunk, mentions found in it) pairs; mention offsets are relative to the
                chunk and stored relative to the document.
            replace: ids of documents to delete first (older versions of the same file).

        Returns:
            The number of chunks stored.

        Raises:
            ChemgroundError: the KB is read-only. A database error (e.g. a document with the
            same SHA-256 already stored) leaves the KB unchanged.
        """
        self.ensure_paper_tables()
        count = 0
        with self.transaction():
            for old in replace:
                self._delete_document(old)
            self.execute(
                f"INSERT INTO documents ({_DOCUMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document.id,
                    document.sha256,
                    document.path,
                    document.format,
                    document.title,
                    document.n_pages,
                    document.text,
                    json.dumps(document.metadata),
                    document.added_at or datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            rowid = int(self.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0])
            for chunk, mentions in chunks:
                rowid += 1
                self.execute(
                    f"INSERT INTO chunks ({PAPER_COLUMNS['chunks']}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        rowid,
                        chunk.id,
                        document.id,
                        chunk.seq,
                        chunk.start,
                        chunk.end,
                        chunk.page,
                        chunk.page_end,
                        chunk.section,
                        chunk.text,
                    ),
                )
                for mention in mentions:
                    self.execute(
                        f"INSERT INTO chunk_mentions ({PAPER_COLUMNS['chunk_mentions']}) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            rowid,
                            mention.inchikey,
                            mention.connectivity,
                            mention.compound_id,
                            mention.text,
                            chunk.start + mention.start,
                            chunk.start + mention.end,
                            mention.source,
                        ),
                    )
                count += 1
        return count

    def delete_document(self, document_id: str) -> None:
        """Delete a document with its chunks and mentions.

        Raises:
            NotFoundError: no document has this id. ChemgroundError: the KB is read-only.
        """
        self._require_writable()
        with self.transaction():
            if not self.has_paper_tables() or not self._delete_document(document_id):
                raise NotFoundError(f"no document with id {document_id!r}")

    def _delete_document(self, document_id: str) -> bool:
        self.execute(
            "DELETE FROM chunk_mentions WHERE chunk_rowid IN "
            "(SELECT rowid FROM chunks WHERE document_id = ?)",
            (document_id,),
        )
        self.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        return self.execute("DELETE FROM documents WHERE id = ?", (document_id,)).rowcount > 0

    # -- reading documents -------------------------------------------------------------------
    def _documents(self, where: str, params: Sequence[Any]) -> list[Document]:
        if not self.has_paper_tables():
            return []
        rows = self.execute(f"SELECT {_DOCUMENT_COLUMNS} FROM documents {where}", params)
        return [_document(row) for row in rows]

    def find_documents(
        self, *, sha256: str | None = None, path: str | None = None
    ) -> list[Document]:
        """Stored documents with this content hash and/or this path (oldest first).

        Args:
            sha256: the SHA-256 of the file's bytes.
            path: the path the document was read from.

        Returns:
            The matching documents ([] without the paper tables).

        Raises:
            ValueError: neither ``sha256`` nor ``path`` given.
        """
        clauses = [(c, v) for c, v in (("sha256", sha256), ("path", path)) if v is not None]
        if not clauses:
            raise ValueError("find_documents needs a sha256 or a path")
        where = " AND ".join(f"{column} = ?" for column, _ in clauses)
        return self._documents(f"WHERE {where} ORDER BY added_at, id", [v for _, v in clauses])

    def list_documents(self) -> list[Document]:
        """Every stored document, oldest first."""
        return self._documents("ORDER BY added_at, id", ())

    def get_document(self, document_id: str) -> Document:
        """The stored document with this id.

        Raises:
            NotFoundError: none has it.
        """
        found = self._documents("WHERE id = ?", (document_id,))
        if not found:
            raise NotFoundError(f"no document with id {document_id!r}")
        return found[0]

    def document_titles(self, document_ids: Iterable[str]) -> dict[str, tuple[str | None, str]]:
        """Document id -> (title, path), for those of ``document_ids`` that are stored."""
        ids = list(dict.fromkeys(document_ids))
        out: dict[str, tuple[str | None, str]] = {}
        if not ids or not self.has_paper_tables():
            return out
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            for row in self.execute(
                f"SELECT id, title, path FROM documents WHERE id IN ({marks})", part
            ):
                out[row[0]] = (row[1], row[2])
        return out

    def document_texts(
        self, document_ids: Sequence[str] | None = None
    ) -> Iterator[tuple[str, str | None, str]]:
        """(id, title, full cleaned text) of stored documents, by id (all when None)."""
        if not self.has_paper_tables():
            return
        if document_ids is None:
            rows = self.execute("SELECT id, title, text FROM documents ORDER BY id")
            yield from ((r[0], r[1], r[2]) for r in rows.fetchall())
            return
        ids = sorted(set(document_ids))
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            rows = self.execute(
                f"SELECT id, title, text FROM documents WHERE id IN ({marks}) ORDER BY id", part
            ).fetchall()
            yield from ((r[0], r[1], r[2]) for r in rows)

    # -- reading chunks ----------------------------------------------------------------------
    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunk id -> chunk, for those of ``chunk_ids`` that are stored."""
        out: dict[str, Chunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or not self.has_paper_tables():
            return out
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            for row in self.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id IN ({marks})", part
            ):
                chunk = _chunk(row)
                out[chunk.id] = chunk
        return out

    def chunks_of_document(self, document_id: str) -> list[Chunk]:
        """A document's chunks in order ([] for an unknown document)."""
        if not self.has_paper_tables():
            return []
        rows = self.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.document_id = ? ORDER BY c.seq",
            (document_id,),
        )
        return [_chunk(r) for r in rows]

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[Chunk]:
        """Every chunk, in storage order (the order text indexes are built in)."""
        if not self.has_paper_tables():
            return
        last = 0
        while True:
            rows = self.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _chunk(row)
            last = rows[-1][0]

    def chunks_mentioning(self, inchikeys: Iterable[str], limit: int = 5000) -> list[MentionHit]:
        """Chunks naming a compound with one of these InChIKeys, or its skeleton.

        Args:
            inchikeys: the compounds' InChIKeys.
            limit: the most mention rows read per kind of match.

        Returns:
            One hit per (chunk, InChIKey): exact hits (same InChIKey) first, then chunks
            naming a stereo, isotope or charge variant (same first key block), each in
            storage order.
        """
        keys = list(dict.fromkeys(k for k in inchikeys if k))
        if not keys or not self.has_paper_tables():
            return []
        hits: dict[tuple[str, str], MentionHit] = {}
        sql = (
            "SELECT c.id, m.mention, m.inchikey, m.char_start - c.char_start FROM chunk_mentions m "
            "JOIN chunks c ON c.rowid = m.chunk_rowid WHERE m.{column} IN ({marks}) "
            "ORDER BY c.rowid, m.char_start LIMIT ?"
        )
        for column, values, exact in (
            ("inchikey", keys, True),
            ("connectivity", list(dict.fromkeys(k[:14] for k in keys)), False),
        ):
            marks = ",".join("?" * len(values))
            for row in self.execute(sql.format(column=column, marks=marks), (*values, limit)):
                hits.setdefault((row[0], row[2]), MentionHit(row[0], row[1], row[2], exact, row[3]))
        return list(hits.values())

    def chunk_mentions(self, chunk_id: str) -> list[dict[str, Any]]:
        """The compounds a chunk names: mention, inchikey, compound_id, char_start, char_end
        (document offsets) and source, in text order."""
        if not self.has_paper_tables():
            return []
        keys = ("mention", "inchikey", "compound_id", "char_start", "char_end", "source")
        rows = self.execute(
            "SELECT m.mention, m.inchikey, m.compound_id, m.char_start, m.char_end, m.source "
            "FROM chunk_mentions m JOIN chunks c ON c.rowid = m.chunk_rowid WHERE c.id = ? "
            "ORDER BY m.char_start, m.char_end",
            (chunk_id,),
        )
        return [dict(zip(keys, tuple(row), strict=True)) for row in rows]

    # -- copying -----------------------------------------------------------------------------
    def export_paper_rows(self, batch_size: int = 20_000) -> Iterator[tuple[str, list, int]]:
        """(table, rows, total rows of the table) of the paper tables, documents first, in
        :data:`PAPER_COLUMNS` order (for ``kb migrate``); nothing without the tables."""
        if not self.has_paper_tables():
            return
        for table in PAPER_TABLES:
            total = int(self.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            cursor = self.execute(
                f"SELECT {PAPER_COLUMNS[table]} FROM {table} ORDER BY {PAPER_EXPORT_ORDER[table]}"
            )
            while rows := [tuple(r) for r in cursor.fetchmany(batch_size)]:
                yield table, rows, total


def _document(row: Sequence[Any]) -> Document:
    return Document(
        id=row[0],
        sha256=row[1],
        path=row[2],
        format=row[3],
        title=row[4],
        n_pages=row[5],
        text=row[6],
        metadata=json.loads(row[7] or "{}"),
        added_at=row[8],
    )


def _chunk(row: Sequence[Any]) -> Chunk:
    return Chunk(
        id=row[1],
        document_id=row[2],
        seq=row[3],
        start=row[4],
        end=row[5],
        page=row[6],
        page_end=row[7],
        section=row[8],
        text=row[9],
    )
