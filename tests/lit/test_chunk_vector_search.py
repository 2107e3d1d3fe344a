"""The coarse dense stage: faiss's float16 scan and numpy's float32 product pick the same chunks."""

from __future__ import annotations

import numpy as np
import pytest

from chemground.lit.index import ChunkVectorSearch


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_top_k_is_the_exact_top_k():
    vectors = _unit(3000, 0)
    search = ChunkVectorSearch(vectors)
    for query in _unit(5, 1):
        exact = set(np.argsort(-(vectors @ query))[:50].tolist())
        found = set(search.top(query, 50).tolist())
        assert len(found & exact) >= 49  # float16 may swap a near-tie at the boundary
    assert len(search.top(vectors[0], 10_000)) == 3000  # k larger than the corpus
    assert search.top(vectors[0], 0).size == 0


def test_faiss_and_numpy_backends_agree(monkeypatch):
    pytest.importorskip("faiss", reason="faiss-cpu is part of the dense extra")
    vectors = _unit(2000, 2)
    fast = ChunkVectorSearch(vectors)
    assert fast.backend == "faiss-fp16"
    import builtins

    real_import = builtins.__import__

    def no_faiss(name, *args, **kwargs):
        if name == "faiss":
            raise ImportError("no faiss")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_faiss)
    plain = ChunkVectorSearch(vectors)
    assert plain.backend == "numpy"
    query = _unit(1, 3)[0]
    assert len(set(fast.top(query, 100).tolist()) & set(plain.top(query, 100).tolist())) >= 98


def test_one_vector_search_serves_the_literature_and_the_record_indexes():
    from chemground.lit.index import ChunkVectorSearch
    from chemground.retrieval.embeddings import VectorIndex
    from chemground.retrieval.vectors import ExactVectorSearch

    assert ChunkVectorSearch is ExactVectorSearch
    vectors = _unit(500, 4)
    query = _unit(1, 5)[0]
    index = VectorIndex(vectors, [f"r{i}" for i in range(500)])
    hits = index.search(query, 7)
    scores = vectors @ query
    expected = np.argsort(-scores)[:7]
    assert [h[0] for h in hits] == [f"r{i}" for i in expected]
    assert [h[1] for h in hits] == pytest.approx([float(scores[i]) for i in expected])
    positions, ranked_scores = ExactVectorSearch(vectors).ranked(query, 7)
    assert positions.tolist() == expected.tolist()  # float16 scan, float32 scores: same order here
    assert ranked_scores.tolist() == pytest.approx(scores[expected].tolist(), abs=1e-6)
    assert ExactVectorSearch(vectors[:0]).ranked(query, 3)[0].size == 0
    assert index.search(query, 0) == [] and VectorIndex(vectors[:0], []).search(query, 3) == []
