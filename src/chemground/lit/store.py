"""Papers in the knowledge base: the ``documents``, ``chunks`` and ``chunk_mentions`` tables.

They live in the KB's own SQLite file (created here with ``CREATE TABLE IF NOT EXISTS`` on
the KB's connection), so one file holds compounds, reactions and the papers that mention
them, and a paper is added in one KB transaction: it is stored whole or not at all.
Documents are keyed by the SHA-256 of the file, which is what makes re-adding idempotent.
``meta.lit_generation`` counts changes, so an on-disk index knows when it is stale.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from chemground.errors import NotFoundError
from chemground.kb.sqlite_store import SQLiteKB
from chemground.lit.mentions import Mention
from chemground.lit.records import Chunk, Document

LIT_SCHEMA = """
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

_CHUNK_COLUMNS = (
    "c.rowid, c.id, c.document_id, c.seq, c.char_start, c.char_end, c.page, "
    "c.page_end, c.section, c.text"
)


def document_id_for(sha256: str) -> str:
    """Short, stable id from the file's content hash (what answers cite)."""
    return f"doc-{sha256[:10]}"


def chunk_id_for(document_id: str, seq: int) -> str:
    return f"{document_id}#{seq}"


@dataclass(frozen=True)
class MentionHit:
    """A chunk that names a compound, and whether by the same structure or its skeleton."""

    chunk_id: str
    mention: str
    inchikey: str
    exact: bool
    offset: int = 0  # where the mention starts, relative to the chunk


class LitStore:
    """Reads and writes papers in one KB (a thin layer over its SQLite connection)."""

    def __init__(self, kb: SQLiteKB) -> None:
        self.kb = kb
        if not kb.readonly and not (self.ready() and kb.get_meta("lit_kb_uuid")):
            with kb.transaction():
                for statement in _statements(LIT_SCHEMA):
                    kb.execute(statement)
                if kb.get_meta("lit_kb_uuid") is None:
                    kb.set_meta("lit_kb_uuid", uuid.uuid4().hex)

    # -- state -------------------------------------------------------------------------------
    def ready(self) -> bool:
        """Whether this KB has the literature tables (a read-only KB may predate them)."""
        return bool(
            self.kb.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunks'"
            ).fetchone()
        )

    def generation(self) -> str:
        """Changes whenever documents are added or removed (index freshness key)."""
        return f"{self.kb.get_meta('lit_kb_uuid', '')}:{self.kb.get_meta('lit_generation', '0')}"

    def _bump_generation(self) -> None:
        current = int(self.kb.get_meta("lit_generation", "0") or 0)
        self.kb.set_meta("lit_generation", str(current + 1))

    def counts(self) -> tuple[int, int]:
        if not self.ready():
            return 0, 0
        documents = self.kb.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        chunks = self.kb.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(documents), int(chunks)

    # -- writing ---------------------------------------------------------------------------
    def find_by_sha(self, sha256: str) -> Document | None:
        row = self.kb.execute("SELECT * FROM documents WHERE sha256 = ?", (sha256,)).fetchone()
        return _document(row) if row else None

    def find_by_path(self, path: str) -> list[Document]:
        return [
            _document(r) for r in self.kb.execute("SELECT * FROM documents WHERE path = ?", (path,))
        ]

    def insert(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        mentions: Sequence[Sequence[Mention]] | None = None,
        replace: Iterable[str] = (),
    ) -> None:
        """Store a document with its chunks (and their compound mentions) in one transaction,
        first removing the documents in ``replace`` (older versions of the same file)."""
        for chunk in chunks:
            if document.text[chunk.start : chunk.end] != chunk.text:
                raise ValueError(
                    f"chunk {chunk.id} does not match the document text at "
                    f"{chunk.start}-{chunk.end}"
                )
        pairs = ((chunk, mentions[index] if mentions else ()) for index, chunk in enumerate(chunks))
        self.insert_stream(document, pairs, replace)

    def insert_stream(
        self,
        document: Document,
        chunks: Iterable[tuple[Chunk, Sequence[Mention]]],
        replace: Iterable[str] = (),
    ) -> int:
        """:meth:`insert` for chunks (with their mentions) made one at a time while they are
        stored, so that a long paper's chunks and mentions are never all in memory at once.
        Still one transaction: an error from the iterable stores nothing. Returns the count."""
        count = 0
        with self.kb.transaction():
            for old in replace:
                self._delete(old)
            self.kb.execute(
                "INSERT INTO documents (id, sha256, path, format, title, n_pages, text, "
                "metadata, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document.id,
                    document.sha256,
                    document.path,
                    document.format,
                    document.title,
                    document.n_pages,
                    document.text,
                    json.dumps(document.metadata),
                    document.added_at or _now(),
                ),
            )
            for chunk, found in chunks:
                if document.text[chunk.start : chunk.end] != chunk.text:
                    raise ValueError(
                        f"chunk {chunk.id} does not match the document text at "
                        f"{chunk.start}-{chunk.end}"
                    )
                cursor = self.kb.execute(
                    "INSERT INTO chunks (id, document_id, seq, char_start, char_end, page, "
                    "page_end, section, text) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
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
                rowid = cursor.lastrowid
                for mention in found:
                    self.kb.execute(
                        "INSERT INTO chunk_mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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
            self._bump_generation()
        return count

    def delete(self, document_id: str) -> None:
        with self.kb.transaction():
            if not self._delete(document_id):
                raise NotFoundError(f"no document with id {document_id!r}")
            self._bump_generation()

    def _delete(self, document_id: str) -> bool:
        self.kb.execute(
            "DELETE FROM chunk_mentions WHERE chunk_rowid IN (SELECT rowid FROM chunks WHERE "
            "document_id = ?)",
            (document_id,),
        )
        self.kb.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        return self.kb.execute("DELETE FROM documents WHERE id = ?", (document_id,)).rowcount > 0

    # -- reading ---------------------------------------------------------------------------
    def documents(self) -> list[Document]:
        if not self.ready():
            return []
        return [
            _document(r) for r in self.kb.execute("SELECT * FROM documents ORDER BY added_at, id")
        ]

    def document(self, document_id: str) -> Document:
        row = self.kb.execute("SELECT * FROM documents WHERE id = ?", (document_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no document with id {document_id!r}")
        return _document(row)

    def document_titles(self, document_ids: Iterable[str]) -> dict[str, tuple[str | None, str]]:
        ids = list(dict.fromkeys(document_ids))
        out: dict[str, tuple[str | None, str]] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in self.kb.execute(
                f"SELECT id, title, path FROM documents WHERE id IN ({marks})", part
            ):
                out[row[0]] = (row[1], row[2])
        return out

    def chunk(self, chunk_id: str) -> Chunk:
        row = self.kb.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id = ?", (chunk_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no chunk with id {chunk_id!r}")
        return _chunk(row)

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        out: dict[str, Chunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in self.kb.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id IN ({marks})", part
            ):
                chunk = _chunk(row)
                out[chunk.id] = chunk
        return out

    def chunks_of(self, document_id: str) -> list[Chunk]:
        return [
            _chunk(r)
            for r in self.kb.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.document_id = ? ORDER BY c.seq",
                (document_id,),
            )
        ]

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[Chunk]:
        """Every chunk, in storage order (the order indexes are built in)."""
        if not self.ready():
            return
        last = 0
        while True:
            rows = self.kb.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _chunk(row)
            last = rows[-1][0]

    def chunks_mentioning(self, inchikeys: Iterable[str], limit: int = 5000) -> list[MentionHit]:
        """One hit per (chunk, compound) for chunks naming a compound with one of these
        InChIKeys (exact), or with the same skeleton (first InChIKey block: stereo, isotope
        or charge variants); exact hits first."""
        keys = list(dict.fromkeys(k for k in inchikeys if k))
        if not keys or not self.ready():
            return []
        hits: dict[tuple[str, str], MentionHit] = {}
        sql = (
            "SELECT c.id, m.mention, m.inchikey, m.char_start - c.char_start FROM chunk_mentions m "
            "JOIN chunks c ON c.rowid = m.chunk_rowid WHERE m.{column} IN ({marks}) ORDER BY "
            "c.rowid LIMIT ?"
        )
        for column, values, exact in (
            ("inchikey", keys, True),
            ("connectivity", list(dict.fromkeys(k[:14] for k in keys)), False),
        ):
            marks = ",".join("?" * len(values))
            for row in self.kb.execute(sql.format(column=column, marks=marks), (*values, limit)):
                hits.setdefault((row[0], row[2]), MentionHit(row[0], row[1], row[2], exact, row[3]))
        return list(hits.values())

    def mentions_of(self, chunk_id: str) -> list[dict]:
        return [
            dict(r)
            for r in self.kb.execute(
                "SELECT m.mention, m.inchikey, m.compound_id, m.char_start, m.char_end, m.source "
                "FROM chunk_mentions m "
                "JOIN chunks c ON c.rowid = m.chunk_rowid WHERE c.id = ? ORDER BY m.char_start",
                (chunk_id,),
            )
        ]


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _document(row) -> Document:
    return Document(
        id=row["id"],
        sha256=row["sha256"],
        path=row["path"],
        format=row["format"],
        text=row["text"],
        title=row["title"],
        n_pages=row["n_pages"],
        metadata=json.loads(row["metadata"] or "{}"),
        added_at=row["added_at"],
    )


def _chunk(row) -> Chunk:
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
