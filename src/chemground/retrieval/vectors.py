"""The one exact vector search of the text channels: top-k of unit vectors by inner product.

Literature chunks (``lit.index``), serialised KB records and tool manifests
(``retrieval.embeddings.VectorIndex``) all search vectors the same way; this class is that way.

With faiss installed (the ``dense`` extra) and ``fp16`` on, the vectors are scanned as float16
by faiss's SIMD kernels: half the memory traffic of a float32 matrix-vector product, which is
what bounds this scan (100k chunks: ~3 ms instead of ~8 ms), with the same ranking at the
precision that matters. A graph index (HNSW) would be faster still, but it is approximate and
its recall of the top few hundred is poor on 384-d vectors; the literature's fine stage needs
them. Without faiss (or with ``fp16=False``, where exact float32 scores are wanted) numpy does
the scan in float32.
"""

from __future__ import annotations

import numpy as np


class ExactVectorSearch:
    """Exact top-k over the rows of ``vectors`` (n x d, unit length).

    Args:
        vectors: the rows to search (kept, not copied, on the numpy path).
        fp16: scan with faiss in float16 when faiss is installed.
    """

    def __init__(self, vectors: np.ndarray, *, fp16: bool = True) -> None:
        self.vectors = vectors
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
        return "faiss-fp16" if self._faiss is not None else "numpy"

    def top(self, query_vector: np.ndarray, k: int) -> np.ndarray:
        """Positions of the ``k`` best rows (unordered)."""
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
        """Positions of the ``k`` best rows, best first, and their float32 scores.

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
        scores = np.asarray(self.vectors[top], dtype=np.float32) @ query  # exact, not float16
        order = np.argsort(-scores)
        return top[order], scores[order]
