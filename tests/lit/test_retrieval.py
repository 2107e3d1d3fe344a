"""Searching papers: BM25, dense, hybrid and compound mentions, the on-disk index, answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chemground.chem.mentions import MentionFinder
from chemground.errors import ChemgroundError
from chemground.lit.answer import NOT_AVAILABLE, answer_extractive, answer_with_llm
from chemground.lit.index import open_index
from chemground.lit.library import Library, dense_available
from chemground.llm import ScriptedLLM
from chemground.settings import get_settings
from chemground.workspace import Workspace
from tests.lit.papers import write_corpus

needs_dense = pytest.mark.skipif(
    not dense_available()[0], reason="the offline MiniLM model is not installed"
)
CARBON_DIOXIDE = "CURLTUGMZLYLDI-UHFFFAOYSA-N"
BENZOIC_ACID = "WPYMKLBDIGXBTP-UHFFFAOYSA-N"


@pytest.fixture
def library(kb_copy, tmp_path, monkeypatch):
    """A workspace on a copy of the small KB with the four test papers added (index not built)."""
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    workspace = Workspace(get_settings())
    library = Library(workspace, dense=True)
    summary = library.add(
        list(write_corpus(tmp_path / "papers").values()), chunk_size=400, overlap=80
    )
    assert summary.count("added") == 4
    yield library
    workspace.close()


def _document_text(library, evidence):
    return library.store.document(evidence.record["document_id"]).text


@needs_dense
def test_hybrid_search_finds_the_passage_and_cites_it(library):
    retriever = library.retriever()
    result = retriever.search("Which metal was slower and gave toluene as a side product?", k=3)
    top = result.evidence[0]
    assert top.kind == "chunk" and top.retriever == "hybrid"
    assert "Platinum was slower" in top.record["text"]
    record = top.record
    assert (
        record["page"] == 2
        and record["section"] == "2. Results"
        and record["title"].startswith("Catalytic")
    )
    text = _document_text(library, top)
    assert text[record["start"] : record["end"]] == record["text"]
    assert text[record["snippet_start"] : record["snippet_end"]] == record["snippet"]
    assert "Platinum was slower" in record["snippet"]
    assert (
        top.provenance["offsets"] == [record["start"], record["end"]]
        and top.provenance["page"] == 2
    )
    assert "bm25 #1" in top.why and "dense #" in top.why
    question = "Which metal was slower and gave toluene as a side product?"
    assert "Platinum" in retriever.search(question, 1, "bm25").evidence[0].record["text"]
    assert any(
        "Platinum" in e.record["text"] for e in retriever.search(question, 3, "dense").evidence
    )


@needs_dense
def test_a_smiles_question_finds_the_chunk_that_names_the_compound(library):
    retriever = library.retriever()
    result = retriever.search("O=C(O)c1ccccc1", k=3, method="mentions")
    assert result.mentions and result.mentions[0].inchikey == BENZOIC_ACID
    top = result.evidence[0]
    assert "benzoic acid" in top.record["text"].lower() and top.match == "exact"
    assert "same structure" in top.why and "benzoic acid" in top.record["snippet"].lower()
    hybrid = retriever.search("What is O=C(O)c1ccccc1 made from?", k=1)
    assert "benzoic acid" in hybrid.evidence[0].record["text"].lower()
    assert "mentions #1" in hybrid.evidence[0].why


@needs_dense
def test_the_index_is_kept_on_disk_and_rebuilt_when_papers_change(library, tmp_path):
    first = library.index()
    assert library.last_build is not None and first.has_dense
    library.last_build = None
    again = library.index()
    assert library.last_build is None and again.chunk_ids == first.chunk_ids  # loaded, not rebuilt
    extra = tmp_path / "extra.txt"
    extra.write_text(
        "Nitration\n\nNitrobenzene is made from benzene with nitric and sulfuric acids at 50 °C.\n"
    )
    added = library.add([extra], chunk_size=400, overlap=80).files[0]
    rebuilt = library.index()
    assert library.last_build is not None and any(
        c.startswith(added.document_id) for c in rebuilt.chunk_ids
    )
    library.store.delete(added.document_id)
    retriever = library.retriever()
    assert not any(
        e.record["document_id"] == added.document_id
        for e in retriever.search("nitrobenzene from benzene", k=5).evidence
    )


def test_without_vectors_hybrid_fuses_the_bm25_views(library):
    bm25_only = Library(library.workspace, dense=False)
    retriever = bm25_only.retriever()
    assert not retriever.index.has_dense
    result = retriever.search("How is acetylsalicylic acid made?", k=2)
    assert "salicylic acid and acetic anhydride" in result.evidence[0].record["text"]
    assert any("dense search unavailable" in n for n in result.notes)
    with pytest.raises(ChemgroundError, match="no vectors"):
        retriever.search("aspirin", method="dense")
    with pytest.raises(ChemgroundError, match="unknown retrieval method"):
        retriever.search("aspirin", method="magic")


def test_mention_finder_resolves_names_formulas_and_smiles_and_skips_plain_words(kb_copy):
    finder = MentionFinder(kb=kb_copy, passages=True)
    text = (
        "The capital cost of the optimal plant was high. CO2 and benzyl alcohol reacted in THF; "
        "phenol (c1ccc(O)cc1) was added."
    )
    found = {m.text: m for m in finder.find_compounds(text)}
    assert "capital" not in found and "optimal" not in found
    assert found["CO2"].inchikey == CARBON_DIOXIDE  # the formula decides: not the Co2+ ion
    assert "benzyl alcohol" in found and "THF" in found and "phenol" in found
    assert (
        found["c1ccc(O)cc1"].source == "smiles"
        and found["c1ccc(O)cc1"].inchikey == found["phenol"].inchikey
    )
    for mention in found.values():
        assert text[mention.start : mention.end] == mention.text


def test_extractive_answer_cites_snippets(library):
    result = (
        Library(library.workspace, dense=False)
        .retriever()
        .search("What is aspirin made from?", k=3)
    )
    answer = answer_extractive("What is aspirin made from?", result)
    assert answer.method == "extractive" and answer.supported
    assert "salicylic acid and acetic anhydride" in answer.answer
    assert f"[{answer.citations[0]}]" in answer.answer
    data = answer.to_json()
    assert (
        data["citations"][0]["chunk_id"] == answer.citations[0]
        and data["evidence"][0]["kind"] == "chunk"
    )


def test_llm_answer_cites_given_ids_and_abstains_when_unsupported(library):
    retriever = Library(library.workspace, dense=False).retriever()
    result = retriever.search("What is aspirin made from?", k=3)
    good = result.evidence[0].id
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "answer": "From salicylic acid [doc-0000000000#9].",
                    "citations": [],
                    "supported": True,
                }
            ),
            json.dumps(
                {
                    "answer": f"From salicylic acid and acetic anhydride [{good}].",
                    "citations": [good],
                    "supported": True,
                }
            ),
        ]
    )
    answer = answer_with_llm("What is aspirin made from?", result, llm)
    assert answer.supported and answer.citations == [good] and f"[{good}]" in answer.answer
    assert (
        "cited ids that were not given" in llm.calls[1]["messages"][-1]["content"]
    )  # the re-ask said why
    prompt = llm.calls[0]["messages"][1]["content"]
    assert good in prompt and "Answer not available from the given context." in prompt
    assert any("scripted" in n for n in answer.notes)

    abstain = ScriptedLLM(
        [json.dumps({"answer": "It is blue.", "citations": [], "supported": False})]
    )
    answer = answer_with_llm("What colour is the sky on Mars?", result, abstain)
    assert answer.answer == NOT_AVAILABLE and not answer.supported and answer.citations == []

    # (issue 20) a reply that still cites nothing usable after the re-ask: the extractive answer,
    # with why
    stubborn = ScriptedLLM([json.dumps({"answer": "Yes.", "citations": [], "supported": True})] * 2)
    fallback = answer_with_llm("What is aspirin made from?", result, stubborn)
    assert fallback.method == "extractive" and fallback.citations
    assert any("must cite" in n and "extractive answer" in n for n in fallback.notes)


def test_open_index_refuses_dense_without_an_embedder(library):
    with pytest.raises(ChemgroundError):
        open_index(library.store, Path(library.index_dir), dense=True, embedder=None)
