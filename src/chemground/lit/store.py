"""The literature pipeline's view of the papers in a knowledge base.

The tables themselves (``documents``, ``chunks``, ``chunk_mentions``) are the KB's, on every
backend (:mod:`chemground.kb.papers`); this layer adds the literature policy on top: a chunk
must be the document text at its offsets, and ``meta.lit_generation`` counts changes, so an
on-disk index knows when it is stale (with ``meta.lit_kb_uuid``, a KB that was replaced).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence

from chemground.chem.mentions import Mention
from chemground.errors import NotFoundError
from chemground.kb.papers import MentionHit
from chemground.kb.store import KnowledgeBase
from chemground.lit.records import Chunk, Document

__all__ = ["LitStore", "MentionHit", "chunk_id_for", "document_id_for"]


def document_id_for(sha256: str) -> str:
    """Short, stable id from the file's content hash (what answers cite)."""
    return f"doc-{sha256[:10]}"


def chunk_id_for(document_id: str, seq: int) -> str:
    return f"{document_id}#{seq}"


class LitStore:
    """Reads and writes papers in one KB (any backend), keeping the change counter.

    Args:
        kb: the knowledge base; a writable one gets the paper tables on first use.
    """

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        if not kb.readonly and not (kb.has_paper_tables() and kb.get_meta("lit_kb_uuid")):
            with kb.transaction():
                kb.ensure_paper_tables()
                if kb.get_meta("lit_kb_uuid") is None:
                    kb.set_meta("lit_kb_uuid", uuid.uuid4().hex)

    # -- state -------------------------------------------------------------------------------
    def ready(self) -> bool:
        """Whether this KB has the literature tables (a read-only KB may predate them)."""
        return self.kb.has_paper_tables()

    def generation(self) -> str:
        """Changes whenever documents are added or removed (index freshness key)."""
        return f"{self.kb.get_meta('lit_kb_uuid', '')}:{self.kb.get_meta('lit_generation', '0')}"

    def _bump_generation(self) -> None:
        current = int(self.kb.get_meta("lit_generation", "0") or 0)
        self.kb.set_meta("lit_generation", str(current + 1))

    def counts(self) -> tuple[int, int]:
        """(documents, chunks) stored."""
        return self.kb.paper_counts()

    # -- writing ---------------------------------------------------------------------------
    def find_by_sha(self, sha256: str) -> Document | None:
        """The document stored with this content hash, or None."""
        found = self.kb.find_documents(sha256=sha256)
        return found[0] if found else None

    def find_by_path(self, path: str) -> list[Document]:
        """The documents stored from this path (older versions of a file included)."""
        return self.kb.find_documents(path=path)

    def insert(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        mentions: Sequence[Sequence[Mention]] | None = None,
        replace: Iterable[str] = (),
    ) -> None:
        """Store a document with its chunks (and their compound mentions) in one transaction,
        first removing the documents in ``replace`` (older versions of the same file).

        Raises:
            ValueError: a chunk is not the document text at its offsets (nothing is stored).
        """
        for chunk in chunks:
            _check_chunk(document, chunk)
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

        Returns:
            The number of chunks stored.

        Raises:
            ValueError: a chunk is not the document text at its offsets. Still one
            transaction: an error from the iterable or a bad chunk stores nothing.
        """

        def checked() -> Iterator[tuple[Chunk, Sequence[Mention]]]:
            for chunk, found in chunks:
                _check_chunk(document, chunk)
                yield chunk, found

        with self.kb.transaction():
            count = self.kb.add_document(document, checked(), replace)
            self._bump_generation()
        return count

    def delete(self, document_id: str) -> None:
        """Delete a document and its chunks.

        Raises:
            NotFoundError: no document has this id.
        """
        with self.kb.transaction():
            self.kb.delete_document(document_id)
            self._bump_generation()

    # -- reading ---------------------------------------------------------------------------
    def documents(self) -> list[Document]:
        """Every stored document, oldest first."""
        return self.kb.list_documents()

    def document(self, document_id: str) -> Document:
        """One stored document (NotFoundError if there is none)."""
        return self.kb.get_document(document_id)

    def document_titles(self, document_ids: Iterable[str]) -> dict[str, tuple[str | None, str]]:
        """Document id -> (title, path)."""
        return self.kb.document_titles(document_ids)

    def chunk(self, chunk_id: str) -> Chunk:
        """One stored chunk.

        Raises:
            NotFoundError: no chunk has this id.
        """
        found = self.kb.get_chunks([chunk_id])
        if chunk_id not in found:
            raise NotFoundError(f"no chunk with id {chunk_id!r}")
        return found[chunk_id]

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunk id -> chunk, for the ids that are stored."""
        return self.kb.get_chunks(chunk_ids)

    def chunks_of(self, document_id: str) -> list[Chunk]:
        """A document's chunks in order."""
        return self.kb.chunks_of_document(document_id)

    def iter_chunks(self, batch_size: int = 2000) -> Iterator[Chunk]:
        """Every chunk, in storage order (the order indexes are built in)."""
        return self.kb.iter_chunks(batch_size)

    def chunks_mentioning(self, inchikeys: Iterable[str], limit: int = 5000) -> list[MentionHit]:
        """One hit per (chunk, compound) for chunks naming a compound with one of these
        InChIKeys (exact), or with the same skeleton (first InChIKey block: stereo, isotope
        or charge variants); exact hits first."""
        return self.kb.chunks_mentioning(inchikeys, limit)

    def mentions_of(self, chunk_id: str) -> list[dict]:
        """The compounds a chunk names, in text order."""
        return self.kb.chunk_mentions(chunk_id)


def _check_chunk(document: Document, chunk: Chunk) -> None:
    if document.text[chunk.start : chunk.end] != chunk.text:
        raise ValueError(
            f"chunk {chunk.id} does not match the document text at {chunk.start}-{chunk.end}"
        )
