"""The one vector index of the text channels: exact top-k of unit vectors by inner product.

Literature chunks and their sentence windows (``lit.index``), serialised KB records
(``retrieval.text_records``), tool manifests (``agent.retriever``) and the aspect classifier's
exemplars all search vectors the same way, so there is one class for it: :class:`VectorIndex`.
It answers three questions, which are all the callers ask: the best rows (:meth:`top`,
:meth:`ranked`), the best ids (:meth:`search`), and the exact scores of rows a caller already
chose (:meth:`score`, the literature's re-scoring of its candidates' windows).

With faiss installed (the ``dense`` extra) and ``fp16`` on, the vectors are scanned as float16
by faiss's SIMD kernels: half the memory traffic of a float32 matrix-vector product, which is
what bounds this scan (100k chunks: ~3 ms instead of ~8 ms), with the same ranking at the
precision that matters. A graph index (HNSW) would be faster still, but it is approximate and
its recall of the top few hundred is poor on 384-d vectors; the literature's fine stage needs
them. Without faiss (or with ``fp16=False``, where exact float32 scores are wanted: small
indexes, where a scan costs microseconds) numpy does the scan in float32. Scores handed back
are always exact float32 inner products, whichever backend chose the rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class VectorIndex:
    """Exact nearest rows of ``vectors`` (n x d, unit length) by inner product (= cosine).

    Args:
        vectors: the rows. float16 rows are kept as given (a memory map stays on disk until
            rows are read); others are held as contiguous float32 (no copy when they are).
        ids: what :meth:`search` reports for each row (default: none; positions only).
        fp16: scan with faiss in float16 when faiss is installed (large indexes).

    Raises:
        ValueError: when ``ids`` and ``vectors`` differ in length.
    """

    def __init__(
        self, vectors: np.ndarray, ids: Sequence[str] | None = None, *, fp16: bool = False
    ) -> None:
        if ids is not None and len(vectors) != len(ids):
            raise ValueError(f"{len(vectors)} vectors but {len(ids)} ids")
        if vectors.dtype != np.float16:
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.vectors = vectors
        self.ids = list(ids) if ids is not None else None
        self._faiss = None
        if not fp16 or not len(vectors):
            return
        try:
            import faiss
        except ImportError:
            return
        index = faiss.IndexScalarQuantizer(
            vectors.shape[1], faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
        )
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        self._faiss = index

    def __len__(self) -> int:
        return len(self.vectors)

    @property
    def backend(self) -> str:
        """``faiss-fp16`` or ``numpy``: what scans the rows."""
        return "faiss-fp16" if self._faiss is not None else "numpy"

    def top(self, query_vector: np.ndarray, k: int) -> np.ndarray:
        """Positions of the ``k`` best rows, unordered (a candidate set to re-score).

        Args:
            query_vector: a unit vector of the rows' dimension.
            k: how many rows (fewer when there are fewer).

        Returns:
            int64 positions, ``min(k, len(self))`` of them.
        """
        k = min(k, len(self.vectors))
        if k <= 0:
            return np.zeros(0, dtype=np.int64)
        if self._faiss is not None:
            query = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
            _, ids = self._faiss.search(query, k)
            return ids[0][ids[0] >= 0].astype(np.int64)
        scores = self.vectors @ query_vector
        return np.argpartition(-scores, k - 1)[:k].astype(np.int64)

    def ranked(self, query_vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the ``k`` best rows, best first, and their exact float32 scores.

        Args:
            query_vector: a unit vector of the rows' dimension.
            k: how many rows (fewer when there are fewer).

        Returns:
            (positions, scores), both of length ``min(k, len(self))``.
        """
        k = min(k, len(self.vectors))
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        query = np.asarray(query_vector, dtype=np.float32)
        if self._faiss is None:  # one float32 product gives both the choice and the scores
            scores = self.vectors @ query
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top])]
            return top.astype(np.int64), np.asarray(scores[top], dtype=np.float32)
        top = self.top(query, k)
        scores = self.score(query, top)  # exact, not float16
        order = np.argsort(-scores)
        return top[order], scores[order]

    def score(self, query_vector: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact float32 scores of the given rows (read as float32, whatever they are stored as).

        Why: a two-stage search (the literature's chunks, then their windows) chooses its
        candidates elsewhere and only needs these rows scored, not the whole index scanned.

        Args:
            query_vector: a unit vector of the rows' dimension.
            rows: positions of the rows to score.

        Returns:
            One float32 score per row, in the order of ``rows``.
        """
        return np.asarray(self.vectors[rows], dtype=np.float32) @ query_vector

    def search(self, query_vector: np.ndarray, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` nearest (id, cosine) pairs, best first (exact float32 scores).

        Args:
            query_vector: a unit vector of the rows' dimension.
            k: how many.

        Returns:
            (id, score) pairs; none for an empty index.

        Raises:
            ValueError: when the index was made without ids.
        """
        if self.ids is None:
            raise ValueError("this vector index has no ids; use ranked()")
        if not self.ids:
            return []
        positions, scores = self.ranked(np.asarray(query_vector).astype(np.float32), k)
        return [(self.ids[i], float(score)) for i, score in zip(positions, scores)]

    def save(self, folder: Path) -> None:
        """Write ``vectors.npy`` and ``ids.json`` into ``folder`` (created when missing)."""
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "vectors.npy", self.vectors)
        (folder / "ids.json").write_text(json.dumps(self.ids))

    @classmethod
    def load(cls, folder: Path, *, fp16: bool = False) -> VectorIndex:
        """The index :meth:`save` wrote to ``folder``.

        Raises:
            OSError: when a file is missing or unreadable.
            ValueError: when they do not match.
        """
        return cls(
            np.load(folder / "vectors.npy"),
            json.loads((folder / "ids.json").read_text()),
            fp16=fp16,
        )
