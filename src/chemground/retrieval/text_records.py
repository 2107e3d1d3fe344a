"""Text retrieval over the KB's records (the text-RAG baselines: ``--method bm25 | dense``).

Every compound and reaction is serialised to text (``retrieval.records``) and searched with
the one hybrid search (:class:`~chemground.retrieval.hybrid.HybridSearch`: BM25, MiniLM
vectors, their fusion). What is the records' own is the texts and where the indexes live:
under the cache dir, keyed by a stamp of the KB's content, so they are built once per KB state.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from chemground.evidence import Evidence
from chemground.kb.store import KnowledgeBase
from chemground.reasoning.query import QueryTuple
from chemground.retrieval.bm25 import BM25Index
from chemground.retrieval.hybrid import HybridSearch, load_or_build
from chemground.retrieval.records import (
    compound_record,
    compound_text,
    reaction_record,
    reaction_text,
)

log = logging.getLogger(__name__)
_LONG_EMBEDDING = 5_000  # records: above this, the first dense search is announced


def kb_stamp(kb: KnowledgeBase) -> str:
    """Changes whenever records are added (ids only grow) or the KB file is replaced."""
    place = kb.path.resolve() if hasattr(kb.path, "resolve") else kb.path  # a file or a URL
    text = f"{place}|{kb.records_state()}|{kb.get_meta('built_seconds')}"
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def iter_record_texts(kb: KnowledgeBase, include_compounds: bool = True):
    """(record id, text) for every reaction and (optionally) every compound."""
    for reaction in kb.iter_reactions():
        yield f"reaction:{reaction.id}", reaction_text(reaction)
    if include_compounds:
        for compound in kb.iter_compounds():
            yield f"compound:{compound.id}", compound_text(compound)


def evidence_for(
    kb: KnowledgeBase, hits: list[tuple[str, float]], retriever: str
) -> list[Evidence]:
    """The records behind a text search's hits, as evidence (match ``similar``: a text score
    says the words are alike, not that the record answers).

    Args:
        kb: the knowledge base.
        hits: (``reaction:<id>`` or ``compound:<id>``, score) pairs, best first.
        retriever: the method's name, shown in the evidence.

    Returns:
        One evidence per hit whose record is still in the KB, in the hits' order.
    """
    reaction_ids = [h.split(":", 1)[1] for h, _ in hits if h.startswith("reaction:")]
    compound_ids = [int(h.split(":", 1)[1]) for h, _ in hits if h.startswith("compound:")]
    reactions = kb.get_reactions(reaction_ids)
    compounds = kb.get_compounds(compound_ids)
    out = []
    for key, score in hits:
        kind, _, raw = key.partition(":")
        if kind == "reaction" and raw in reactions:
            record = reaction_record(reactions[raw])
        elif kind == "compound" and int(raw) in compounds:
            record = compound_record(compounds[int(raw)])
        else:
            continue
        out.append(
            Evidence(
                kind=kind,
                id=raw,
                score=round(score, 4),
                match="similar",
                record=record,
                retriever=retriever,
                why=f"{retriever} text similarity {score:.3f}",
            )
        )
    return out


def record_texts(kb: KnowledgeBase) -> tuple[list[str], list[str]]:
    """(texts, ids) of every record, what the record indexes are built from."""
    ids, texts = [], []
    for record_id, text in iter_record_texts(kb):
        ids.append(record_id)
        texts.append(text)
    return texts, ids


class RecordRetriever:
    """Serialised KB records searched by one method of the hybrid search; the question's text is
    the query.

    Args:
        kb: the knowledge base.
        cache_dir: where the record indexes are kept (``indexes/bm25-<stamp>``,
            ``indexes/dense-<stamp>``; vectors of texts in ``embeddings.sqlite``).
        method: ``bm25``, ``dense`` or ``hybrid`` (the evidence's retriever name).
        progress: reports the embedding of the records when the vectors are built.
    """

    name = "hybrid"

    def __init__(
        self, kb: KnowledgeBase, cache_dir: Path, method: str | None = None, progress=None
    ) -> None:
        self.kb = kb
        self.cache_dir = cache_dir
        self.method = method or self.name
        self.name = self.method
        self.progress = progress
        stamp = kb_stamp(kb)
        self._bm25_folder = cache_dir / "indexes" / f"bm25-{stamp}"
        self._dense_folder = cache_dir / "indexes" / f"dense-{stamp}"
        self._embedder = None
        self.search = HybridSearch(
            self._load_bm25, self._load_vectors, encode=lambda texts: self.embedder.encode(texts)
        )

    @property
    def embedder(self):
        """The MiniLM encoder, its vectors cached in ``embeddings.sqlite`` (made on first use)."""
        if self._embedder is None:
            from chemground.retrieval.embeddings import Embedder

            self._embedder = Embedder(self.cache_dir / "embeddings.sqlite")
        return self._embedder

    def _load_bm25(self) -> BM25Index:
        return load_or_build(
            self._bm25_folder, BM25Index.load, lambda: BM25Index(*record_texts(self.kb))
        )

    def _load_vectors(self):
        from chemground.retrieval.vectors import VectorIndex

        def embed(texts: list[str], ids: list[str]) -> VectorIndex:
            if len(texts) >= _LONG_EMBEDDING:
                # said before it starts, with or without a terminal: the first dense search of
                # the default KB embeds ~77,000 records, about two hours on two CPU cores
                log.warning(
                    "--method dense embeds all %d records of the knowledge base once (about "
                    "1,000 a minute on 2 CPU cores; cached, and an interrupted run resumes); "
                    "the default methods need no embedding",
                    len(texts),
                )
            if self.progress:
                self.progress("embed records", 0, len(texts))
            report = (lambda n: self.progress("embed records", n, None)) if self.progress else None
            return VectorIndex(self.embedder.encode(texts, progress=report), ids)

        return load_or_build(
            self._dense_folder, VectorIndex.load, lambda: embed(*record_texts(self.kb))
        )

    def index(self):
        """The index this retriever's method searches (BM25's or the vectors'; both: BM25's)."""
        return self.search.vectors if self.method == "dense" else self.search.bm25

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        """The ``k`` records whose text best matches the question, as evidence.

        Args:
            query: the parsed question (its text is the query).
            k: how many records.

        Returns:
            Evidence of kind ``reaction`` or ``compound``, best first, match ``similar``.
        """
        hits = self.search.search(query.question, k, self.method)
        return evidence_for(self.kb, hits, self.name)


class BM25RecordRetriever(RecordRetriever):
    """BM25 over serialised KB records (``--method bm25``)."""

    name = "bm25"

    def __init__(self, kb: KnowledgeBase, cache_dir: Path) -> None:
        super().__init__(kb, cache_dir, "bm25")


class DenseRecordRetriever(RecordRetriever):
    """Nearest records by MiniLM embedding of their text (``--method dense``)."""

    name = "dense"

    def __init__(self, kb: KnowledgeBase, cache_dir: Path, progress=None) -> None:
        super().__init__(kb, cache_dir, "dense", progress)
