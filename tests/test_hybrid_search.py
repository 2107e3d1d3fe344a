"""The one hybrid search (issue 16): BM25 + vectors + reciprocal-rank fusion, as records, tools and
papers use it; records search their BM25 and dense indexes through it."""

from __future__ import annotations

import numpy as np
import pytest

from chemground.errors import ChemgroundError
from chemground.retrieval.bm25 import BM25Index
from chemground.retrieval.fusion import Fusion, reciprocal_rank_fusion
from chemground.retrieval.hybrid import HybridSearch
from chemground.retrieval.vectors import VectorIndex

TEXTS = {
    "a": "benzaldehyde reduced to benzyl alcohol with sodium borohydride",
    "b": "Suzuki coupling of aryl bromides with phenylboronic acid",
    "c": "esterification of acetic acid with ethanol",
    "d": "nitration of toluene with nitric and sulfuric acid",
}


def _vectors() -> VectorIndex:
    rows = np.random.default_rng(0).standard_normal((len(TEXTS), 8)).astype(np.float32)
    return VectorIndex(rows / np.linalg.norm(rows, axis=1, keepdims=True), list(TEXTS))


def test_hybrid_is_the_fusion_of_the_bm25_and_dense_rankings():
    bm25, vectors = BM25Index(list(TEXTS.values()), list(TEXTS)), _vectors()
    search = HybridSearch(bm25, vectors, encode=lambda texts: vectors.vectors[[2] * len(texts)])
    query = "acetic acid esterification"
    vector = vectors.vectors[2]
    expected = reciprocal_rank_fusion(
        [[i for i, _ in bm25.search(query, 30)], [i for i, _ in vectors.search(vector, 30)]]
    )
    assert search.fused(query) == expected
    assert search.search(query, 2) == expected[:2]
    assert search.search(query, 2, "bm25") == bm25.search(query, 2)
    assert search.search(query, 2, "dense", vector) == vectors.search(vector, 2)
    with pytest.raises(ChemgroundError, match="unknown retrieval method"):
        search.search(query, method="magic")
    with pytest.raises(ChemgroundError, match="encoder"):
        HybridSearch(bm25, vectors).search(query, method="dense")


def test_indexes_are_made_on_first_use_and_once():
    made: list[str] = []

    def bm25():
        made.append("bm25")
        return BM25Index(list(TEXTS.values()), list(TEXTS))

    search = HybridSearch(bm25, lambda: made.append("vectors") or _vectors())
    assert made == []
    search.search("toluene nitration", 1, "bm25")
    search.search("toluene nitration", 1, "bm25")
    assert made == ["bm25"]  # BM25 alone never makes the vectors


def test_fusion_weights_and_empty_channels():
    rankings = [("bm25", ["x", "y"]), ("dense", ["y", "z"]), ("mentions", [])]
    assert Fusion().fuse(rankings) == reciprocal_rank_fusion([["x", "y"], ["y", "z"]])
    only_dense = Fusion((("bm25", 0.0),)).fuse(rankings)
    assert [i for i, _ in only_dense] == ["y", "z"]
    assert Fusion((("bm25", 2.0),), k=10).describe() == "k=10, bm25 2"


def test_record_retrievers_search_the_kb_texts_through_the_hybrid_search(kb_copy, tmp_path):
    from chemground.reasoning.query import QueryTuple
    from chemground.retrieval.text_records import BM25RecordRetriever, iter_record_texts

    retriever = BM25RecordRetriever(kb_copy, tmp_path)
    ids, texts = zip(*iter_record_texts(kb_copy))
    question = texts[0][:80]
    expected = BM25Index(list(texts), list(ids)).search(question, 3)
    found = retriever.retrieve(QueryTuple(question=question, level="reaction", aspect=None), k=3)
    assert [f"{e.kind}:{e.id}" for e in found] == [i for i, _ in expected]
    assert {e.retriever for e in found} == {"bm25"}
    again = BM25RecordRetriever(kb_copy, tmp_path)  # the saved index is loaded, same answer
    assert (
        again.retrieve(QueryTuple(question=question, level="reaction", aspect=None), k=3) == found
    )


def test_load_or_build_keeps_one_copy_and_rebuilds_a_damaged_one(tmp_path):
    from chemground.retrieval.hybrid import load_or_build

    folder = tmp_path / "index"
    builds: list[int] = []

    def build() -> BM25Index:
        builds.append(1)
        return BM25Index(list(TEXTS.values()), list(TEXTS))

    first = load_or_build(folder, BM25Index.load, build)
    again = load_or_build(folder, BM25Index.load, build)
    assert len(builds) == 1 and [p.name for p in tmp_path.iterdir()] == ["index"]
    assert again.search("toluene nitration", 2) == first.search("toluene nitration", 2)
    (folder / "ids.json").write_text("{not json")
    rebuilt = load_or_build(folder, BM25Index.load, build)
    assert len(builds) == 2 and rebuilt.search("toluene", 1) == first.search("toluene", 1)
