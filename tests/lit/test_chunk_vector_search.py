"""The one vector index (retrieval.vectors.VectorIndex): faiss's float16 scan and numpy's float32
product pick the same chunks, and the literature, the records and the tools all use it."""

from __future__ import annotations

import numpy as np
import pytest

from chemground.retrieval.vectors import VectorIndex


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_top_k_is_the_exact_top_k():
    vectors = _unit(3000, 0)
    search = VectorIndex(vectors, fp16=True)
    for query in _unit(5, 1):
        exact = set(np.argsort(-(vectors @ query))[:50].tolist())
        found = set(search.top(query, 50).tolist())
        assert len(found & exact) >= 49  # float16 may swap a near-tie at the boundary
    assert len(search.top(vectors[0], 10_000)) == 3000  # k larger than the corpus
    assert search.top(vectors[0], 0).size == 0


def test_faiss_and_numpy_backends_agree(monkeypatch):
    pytest.importorskip("faiss", reason="faiss-cpu is part of the dense extra")
    vectors = _unit(2000, 2)
    fast = VectorIndex(vectors, fp16=True)
    assert fast.backend == "faiss-fp16"
    import builtins

    real_import = builtins.__import__

    def no_faiss(name, *args, **kwargs):
        if name == "faiss":
            raise ImportError("no faiss")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_faiss)
    plain = VectorIndex(vectors, fp16=True)
    assert plain.backend == "numpy"
    query = _unit(1, 3)[0]
    assert len(set(fast.top(query, 100).tolist()) & set(plain.top(query, 100).tolist())) >= 98


def test_one_vector_index_serves_the_literature_and_the_record_indexes():
    from chemground.retrieval import embeddings

    assert embeddings.VectorIndex is VectorIndex  # the records' and classifier's import path
    vectors = _unit(500, 4)
    query = _unit(1, 5)[0]
    index = VectorIndex(vectors, [f"r{i}" for i in range(500)])
    assert index.backend == "numpy"  # exact float32 unless fp16 is asked for
    hits = index.search(query, 7)
    scores = vectors @ query
    expected = np.argsort(-scores)[:7]
    assert [h[0] for h in hits] == [f"r{i}" for i in expected]
    assert [h[1] for h in hits] == pytest.approx([float(scores[i]) for i in expected])
    positions, ranked_scores = VectorIndex(vectors, fp16=True).ranked(query, 7)
    assert positions.tolist() == expected.tolist()  # float16 scan, float32 scores: same order here
    assert ranked_scores.tolist() == pytest.approx(scores[expected].tolist(), abs=1e-6)
    assert VectorIndex(vectors[:0], fp16=True).ranked(query, 3)[0].size == 0
    assert index.search(query, 0) == [] and VectorIndex(vectors[:0], []).search(query, 3) == []
    with pytest.raises(ValueError):
        VectorIndex(vectors).search(query, 3)  # no ids to report
    with pytest.raises(ValueError):
        VectorIndex(vectors, ["r0"])


def test_window_rescoring_reads_float16_rows_as_float32():
    windows = _unit(300, 6).astype(np.float16)
    index = VectorIndex(windows)
    assert index.vectors is windows  # a float16 memory map is not copied
    query = _unit(1, 7)[0]
    rows = np.asarray([5, 0, 299, 5])
    expected = windows[rows].astype(np.float32) @ query
    assert index.score(query, rows).tolist() == expected.tolist()


def test_best_window_is_the_chunk_score_and_the_first_best_window():
    from chemground.lit.index import LitIndex

    index = LitIndex.__new__(LitIndex)
    index.window_start = np.asarray([0, 2, 3, 6], dtype=np.int32)  # chunks of 2, 1, 3 windows
    window_scores = np.asarray([0.1, 0.4, 0.2, 0.5, 0.7, 0.7], dtype=np.float32)
    best, window = index.best_windows(np.asarray([2, 0]), lambda ids: window_scores[ids])
    assert best.tolist() == pytest.approx([0.7, 0.4])
    assert window.tolist() == [4, 1]  # a tie goes to the first window, as argmax does
