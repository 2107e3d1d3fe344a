"""The second stage and its neighbours: re-rankers behind one interface (an LLM scoring relevance
the PaperQA2 way), weighted fusion, query expansion with the compounds' other names, and the
bootstrap intervals the benchmark reports."""

from __future__ import annotations

import json

import pytest

from chemground.errors import ChemgroundError
from chemground.lit.evaluate import bootstrap_ci, first_gold_rank, paired_bootstrap_difference
from chemground.lit.library import Library
from chemground.lit.retriever import CHANNELS, Fusion, Ranking, fuse
from chemground.llm import ScriptedLLM
from chemground.retrieval.rerank import LLMReranker, Reranker, rerank_order
from chemground.settings import get_settings
from chemground.workspace import Workspace
from tests.lit.papers import write_corpus


def test_rerank_order_sorts_by_score_and_keeps_first_stage_order_for_ties_and_gaps():
    assert rerank_order([10, 11, 12, 13], [1.0, 5.0, None, 5.0]) == [11, 13, 10, 12]
    assert rerank_order([], []) == []
    with pytest.raises(ChemgroundError, match="3 re-ranker scores for 2"):
        rerank_order([1, 2], [0.0, 1.0, 2.0])


def _relevance_by_keyword(messages):
    """A scripted model that reads the prompt: 9 for a passage about platinum, 1 otherwise."""
    prompt = messages[-1]["content"]
    passage = prompt.split("Passage:", 1)[1]
    return json.dumps({"score": 9 if "Platinum" in passage else 1})


def test_llm_reranker_scores_each_passage_and_survives_bad_replies():
    llm = ScriptedLLM(_relevance_by_keyword)
    reranker = LLMReranker(llm)
    assert isinstance(reranker, Reranker)
    scores = reranker.score(
        "Which metal was slower?", ["Palladium was fast.", "Platinum was slower."]
    )
    assert scores == [1.0, 9.0]
    assert (
        len(llm.calls) == 2 and "Which metal was slower?" in llm.calls[0]["messages"][-1]["content"]
    )
    bad = LLMReranker(ScriptedLLM(["not json", "still not json", json.dumps({"score": 42})] * 2))
    assert (
        bad.score("q", ["a passage"]) == [None] and bad.errors
    )  # unusable twice: unscored, not a crash
    with pytest.raises(ChemgroundError, match="empty question"):
        reranker.score("  ", ["x"])
    with pytest.raises(ChemgroundError, match="worker"):
        LLMReranker(llm, workers=0)


def test_weighted_fusion_drops_a_zero_weight_channel_and_weights_the_rest():
    rankings = [Ranking("bm25", [1, 2, 3]), Ranking("dense", [3, 2, 1])]
    equal = fuse(rankings, Fusion())
    assert equal[0][0] == 2 or equal[0][1] == equal[1][1]  # symmetric lists: a tie at the top
    only_dense = fuse(rankings, Fusion((("bm25", 0.0), ("dense", 1.0)), k=60))
    assert [p for p, _ in only_dense] == [3, 2, 1]
    leaning = fuse(rankings, Fusion((("bm25", 2.0), ("dense", 1.0)), k=10))
    assert leaning[0][0] == 1
    assert "k=10" in Fusion(k=10).describe() and all(c in Fusion().describe() for c in CHANNELS)


def test_bootstrap_intervals_cover_the_mean_and_pair_the_questions():
    assert bootstrap_ci([1.0] * 20) == (1.0, 1.0, 1.0)
    mean, low, high = bootstrap_ci([1.0] * 90 + [0.0] * 10)
    assert mean == pytest.approx(0.9) and low < 0.9 < high and low > 0.8 and high <= 1.0
    # the same hits except five questions where a wins: a paired interval above zero
    a = [1.0] * 50 + [1.0] * 5
    b = [1.0] * 50 + [0.0] * 5
    diff, low, high = paired_bootstrap_difference(a, b)
    assert diff == pytest.approx(5 / 55) and low > 0
    with pytest.raises(ValueError, match="same questions"):
        paired_bootstrap_difference([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="no values"):
        bootstrap_ci([])
    assert (
        first_gold_rank(["a", "b", "c"], {"c", "b"}) == 2 and first_gold_rank(["a"], {"z"}) is None
    )


@pytest.fixture
def retriever(kb_copy, tmp_path, monkeypatch):
    """Hybrid search over the four test papers, BM25 views only (no model needed)."""
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    workspace = Workspace(get_settings())
    library = Library(workspace, dense=False)
    library.add(list(write_corpus(tmp_path / "papers").values()), chunk_size=400, overlap=80)
    yield library.retriever()
    workspace.close()


def test_search_hands_the_top_candidates_to_the_reranker(retriever):
    question = "Which catalyst gave toluene as a side product?"
    plain = retriever.search(question, k=5)
    assert plain.evidence and "rerank" not in plain.timings_ms
    with pytest.raises(ChemgroundError, match="no re-ranker"):
        retriever.search(question, rerank=True)
    llm = ScriptedLLM(_relevance_by_keyword)
    retriever.reranker = LLMReranker(llm)
    retriever.rerank_depth = 3
    result = retriever.search(question, k=5)
    top = result.evidence[0]
    assert "Platinum was slower" in top.record["text"] and top.retriever == "hybrid+llm"
    assert len(llm.calls) == min(3, len(plain.evidence))  # only the first stage's top 3 were scored
    assert "rerank" in result.timings_ms
    assert [e.id for e in result.evidence[3:]] == [
        e.id for e in plain.evidence[3:]
    ]  # the rest keep their order
    unranked = retriever.search(question, k=5, rerank=False)
    assert [e.id for e in unranked.evidence] == [e.id for e in plain.evidence]


def test_query_expansion_adds_the_other_names_of_a_named_compound(retriever):
    mentions = retriever.finder.find("How is aspirin made?")
    assert mentions, "the small KB names aspirin"
    expanded, notes = retriever.expansion("How is aspirin made?", mentions)
    assert (
        expanded.startswith("How is aspirin made? ")
        and notes
        and notes[0].startswith("aspirin -> ")
    )
    added = expanded.removeprefix("How is aspirin made? ")
    assert "aspirin" not in added.lower()  # nothing the question already says
    assert not any(
        "expanded" in n for n in retriever.search("How is aspirin made?", k=1).notes
    )  # opt-in
    result = retriever.search("How is aspirin made?", k=1, expand=True)
    assert any(note.startswith("query expanded with aspirin -> ") for note in result.notes)
    assert "Acetylsalicylic acid" in result.evidence[0].record["text"]
    assert retriever.expansion("How is it made?", [])[0] == "How is it made?"
