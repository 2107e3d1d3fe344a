"""Text retrieval over the KB's records (the text-RAG baselines: ``--method bm25 | dense``).

Every compound and reaction is serialised to text (``retrieval.records``) and indexed with
BM25 (bm25s) or MiniLM embeddings. Indexes are cached under the cache dir, keyed by a stamp of
the KB's content, so they are built once per KB state.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from pathlib import Path

from chemground.evidence import Evidence
from chemground.kb.store import KnowledgeBase
from chemground.reasoning.query import QueryTuple
from chemground.retrieval.bm25 import BM25Index
from chemground.retrieval.records import (
    compound_record,
    compound_text,
    reaction_record,
    reaction_text,
)


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
    reaction_ids = [h.split(":", 1)[1] for h, _ in hits if h.startswith("reaction:")]
    compound_ids = [int(h.split(":", 1)[1]) for h, _ in hits if h.startswith("compound:")]
    reactions = kb.get_reactions(reaction_ids)
    compounds = kb.get_compounds(compound_ids)
    out = []
    for key, score in hits:
        kind, _, raw = key.partition(":")
        if kind == "reaction" and raw in reactions:
            out.append(
                Evidence(
                    kind="reaction",
                    id=raw,
                    score=round(score, 4),
                    match="similar",
                    record=reaction_record(reactions[raw]),
                    retriever=retriever,
                    why=f"{retriever} text similarity {score:.3f}",
                )
            )
        elif kind == "compound" and int(raw) in compounds:
            out.append(
                Evidence(
                    kind="compound",
                    id=raw,
                    score=round(score, 4),
                    match="similar",
                    record=compound_record(compounds[int(raw)]),
                    retriever=retriever,
                    why=f"{retriever} text similarity {score:.3f}",
                )
            )
    return out


def load_or_build(folder: Path, kb: KnowledgeBase, load, build):
    """The record index saved in ``folder``, or one built from the KB's record texts with
    ``build(texts, ids)`` and saved atomically (a half-written index is never loaded)."""
    if (folder / "ids.json").exists():
        return load(folder)
    ids, texts = [], []
    for record_id, text in iter_record_texts(kb):
        ids.append(record_id)
        texts.append(text)
    index = build(texts, ids)
    # a folder of this process's own: two server workers may build the same index at once
    tmp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    index.save(tmp)
    try:
        tmp.rename(
            folder
        )  # atomic; fails when another worker got there first (or a stale copy sits there)
    except OSError:
        if (folder / "ids.json").exists():  # the other worker's identical index: keep it
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            shutil.rmtree(folder, ignore_errors=True)
            tmp.rename(folder)
    return index


class BM25RecordRetriever:
    """BM25 over serialised KB records; the question text is the query."""

    name = "bm25"

    def __init__(self, kb: KnowledgeBase, cache_dir: Path) -> None:
        self.kb = kb
        self.folder = cache_dir / "indexes" / f"bm25-{kb_stamp(kb)}"
        self._index: BM25Index | None = None
        self._lock = threading.Lock()

    def index(self) -> BM25Index:
        with self._lock:
            if self._index is None:
                self._index = load_or_build(self.folder, self.kb, BM25Index.load, BM25Index)
            return self._index

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        return evidence_for(self.kb, self.index().search(query.question, k), self.name)


class DenseRecordRetriever:
    """Nearest records by MiniLM embedding of their text (vectors cached on disk)."""

    name = "dense"

    def __init__(self, kb: KnowledgeBase, cache_dir: Path, progress=None) -> None:
        self.kb = kb
        self.cache_dir = cache_dir
        self.folder = cache_dir / "indexes" / f"dense-{kb_stamp(kb)}"
        self.progress = progress
        self._index = None
        self._embedder = None
        self._lock = threading.Lock()

    @property
    def embedder(self):
        if self._embedder is None:
            from chemground.retrieval.embeddings import Embedder

            self._embedder = Embedder(self.cache_dir / "embeddings.sqlite")
        return self._embedder

    def index(self):
        from chemground.retrieval.embeddings import VectorIndex

        def embed(texts: list[str], ids: list[str]) -> VectorIndex:
            if self.progress:
                self.progress("embed records", 0, len(texts))
            report = (lambda n: self.progress("embed records", n, None)) if self.progress else None
            return VectorIndex(self.embedder.encode(texts, progress=report), ids)

        with self._lock:
            if self._index is None:
                self._index = load_or_build(self.folder, self.kb, VectorIndex.load, embed)
            return self._index

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        index = self.index()
        return evidence_for(
            self.kb, index.search(self.embedder.encode_one(query.question), k), self.name
        )
