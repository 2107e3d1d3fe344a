"""Finding the right tools for a request: BM25 and dense (offline MiniLM) over the manifests.

The indexed text of a tool is its name split into words, its namespace, description,
parameter descriptions and return description (``ToolManifest.retrieval_text``), so a
request phrased in a chemist's words ("is this molecule likely to cross into the brain?")
meets the tool that answers it. The search is the one hybrid search
(:class:`~chemground.retrieval.hybrid.HybridSearch`: BM25, dense, reciprocal-rank fusion);
what is the tools' own is its texts, the on-disk BM25 index keyed by them, and the
sub-request bonus of :meth:`ToolRetriever.search_many`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

from chemground.agent.manifest import ToolManifest
from chemground.agent.registry import ToolRegistry, default_registry
from chemground.errors import ChemgroundError
from chemground.retrieval.hybrid import METHODS, HybridSearch

_CLAUSE = re.compile(
    r"(?<=[.?!;])\s+|\b(?:then|after "
    r"that|afterwards|subsequently|additionally|also|finally|next)\b[,:]?",
    re.IGNORECASE,
)


def split_request(query: str) -> list[str]:
    """Sub-requests of a multi-step request (none when it is a single one)."""
    parts = [p.strip(" ,;:") for p in _CLAUSE.split(query) if p and len(p.split()) >= 3]
    return parts if len(parts) > 1 else []


class ToolRetriever:
    """Top-k tools for a query."""

    def __init__(
        self,
        registry: ToolRegistry | None = None,
        manifests: Sequence[ToolManifest] | None = None,
        cache_dir: Path | None = None,
        part_weight: float = 3.0,
    ) -> None:
        self.part_weight = part_weight
        self.manifests = (
            list(manifests)
            if manifests is not None
            else (registry or default_registry()).manifests()
        )
        self.names = [m.name for m in self.manifests]
        self.texts = [m.retrieval_text() for m in self.manifests]
        self.cache_dir = cache_dir

    @cached_property
    def search_index(self) -> HybridSearch:
        """The one hybrid search over the manifests' texts; each index made on first use."""
        return HybridSearch(
            lambda: self.bm25,
            lambda: self.vectors,
            encode=lambda texts: self.embedder.encode(texts),
        )

    @cached_property
    def bm25(self):
        """The BM25 index of the manifests; with a cache dir, built once and kept on disk
        (keyed by the indexed texts), so a search loads it instead of building it, which
        would import scipy.sparse (~140 ms of start-up)."""
        from chemground.retrieval.bm25 import BM25Index

        if self.cache_dir is None:
            return BM25Index(self.texts, self.names)
        import hashlib
        import json

        from chemground.retrieval.bm25 import bm25s_module
        from chemground.retrieval.hybrid import load_or_build

        stamp = hashlib.sha256(
            json.dumps([bm25s_module().__version__, self.names, self.texts]).encode()
        ).hexdigest()[:16]
        return load_or_build(
            self.cache_dir / "tool-index" / stamp,
            BM25Index.load,
            lambda: BM25Index(self.texts, self.names),
        )

    @cached_property
    def embedder(self):
        from chemground.retrieval.embeddings import Embedder

        return Embedder(self.cache_dir / "tool-embeddings.sqlite" if self.cache_dir else None)

    @cached_property
    def vectors(self):
        """The manifests' MiniLM vectors (the one vector index, exact float32)."""
        from chemground.retrieval.vectors import VectorIndex

        return VectorIndex(self.embedder.encode(self.texts), self.names)

    def search(self, query: str, k: int = 5, method: str = "hybrid") -> list[tuple[str, float]]:
        """Top-k (tool name, score) pairs for one request; see :meth:`search_many`."""
        return self.search_many([query], k, method)[0]

    def search_many(
        self, queries: Sequence[str], k: int = 5, method: str = "hybrid"
    ) -> list[list[tuple[str, float]]]:
        """Top-k tools per query (dense texts are embedded in one batch).

        ``hybrid`` fuses BM25 and dense rankings (reciprocal rank) of the whole request and
        adds, for each tool, its best fused score among the sub-requests (sentences,
        "then"/"also" clauses) times ``part_weight``, so every task of a multi-step request
        gets a chance at the top k.

        Args:
            queries: the requests.
            k: tools per request.
            method: bm25, dense or hybrid.

        Returns:
            Per request, (tool name, score) pairs, best first; none for a blank request.

        Raises:
            ChemgroundError: on an unknown method.
        """
        if method not in METHODS:
            raise ChemgroundError(
                f"unknown retrieval method {method!r}; use one of {', '.join(METHODS)}"
            )
        depth = max(30, k)
        search = self.search_index
        if method == "bm25":
            return [search.search(q, k, "bm25") if q.strip() else [] for q in queries]
        parts = [split_request(q) if method == "hybrid" else [] for q in queries]
        texts = list(queries) + [p for ps in parts for p in ps]
        vectors = iter(self.embedder.encode(texts))
        whole = [next(vectors) for _ in queries]
        out = []
        for query, vector, pieces in zip(queries, whole, parts):
            if not query.strip():
                out.append([])
                continue
            if method == "dense":
                out.append(search.search(query, k, "dense", vector))
                continue
            scores = dict(search.fused(query, vector, depth))
            best_in_part: dict[str, float] = {}
            for piece in pieces:
                for name, score in search.fused(piece, next(vectors), depth):
                    best_in_part[name] = max(best_in_part.get(name, 0.0), score)
            for name, score in best_in_part.items():
                scores[name] = scores.get(name, 0.0) + self.part_weight * score
            out.append(sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))[:k])
        return out

    def manifest(self, name: str) -> ToolManifest:
        return self.manifests[self.names.index(name)]
