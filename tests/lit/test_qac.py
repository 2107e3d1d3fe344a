"""The QAC pipeline: filter arithmetic on hand-made numbers, alignment, CSV layout, and a full
scripted run (usefulness -> types -> generation -> alignment -> judges -> entropy -> filters ->
negatives -> multi-hop), resumed from its work file."""

from __future__ import annotations

import csv
import json
import math
import re
import threading

import pytest

from chemground.lit.errors import QACFormatError
from chemground.lit.library import Library, dense_available
from chemground.lit.qac.filters import (
    apply_drop_rules,
    cluster_by_entailment,
    mean_minus_half_sd,
    penalised_semantic_entropy,
    semantic_entropy,
    upper_fence,
)
from chemground.lit.qac.generate import align_context, keywords_of
from chemground.lit.qac.pipeline import QACConfig, run_pipeline
from chemground.lit.qac.schema import (
    MAIN_COLUMNS,
    NEGATIVE_ANSWER,
    PROVENANCE_COLUMNS,
    read_qac_csv,
)
from chemground.llm import ScriptedLLM
from chemground.llm.base import LLMError
from chemground.settings import get_settings
from chemground.workspace import Workspace
from tests.lit.papers import write_corpus

needs_dense = pytest.mark.skipif(
    not dense_available()[0], reason="the offline MiniLM model is not installed"
)


# -- arithmetic
# -------------------------------------------------------------------------------------
def test_mean_minus_half_sd_and_the_iqr_fence_by_hand():
    assert mean_minus_half_sd([1.0, 0.9, 0.8, 0.2, 1.0]) == pytest.approx(
        0.78 - 0.5 * math.sqrt(0.0896)
    )
    assert mean_minus_half_sd([None, None]) is None
    # sorted [0.1, 0.1, 0.15, 0.2, 2.0]: Q1 = 0.1, Q3 = 0.2, fence = 0.2 + 1.5 * 0.1
    assert upper_fence([0.1, 0.2, 0.15, 0.1, 2.0]) == pytest.approx(0.35)


def test_drop_rules_on_hand_made_scores():
    relevancy = [1.0, 0.9, 0.8, 0.2, 1.0, 0.9, 0.95]
    hallucination = [0.0, 0.0, 0.1, 0.0, 0.2, 0.0, 0.0]
    scores = [
        {
            "answer_relevancy": r,
            "faithfulness": 1.0,
            "question_faithfulness": 1.0,
            "hallucination": h,
        }
        for r, h in zip(relevancy, hallucination)
    ]
    scores[5]["question_faithfulness"] = None  # a judge that failed: dropped under its rule
    entropies = [0.1, 0.2, 0.15, 0.1, 2.0, 1.0, 1.1]
    difficulties = ["Easy", "Easy", "Easy", "Easy", "Easy", "Hard", "Hard"]
    report = apply_drop_rules(scores, entropies, difficulties)
    mean = sum(relevancy) / 7
    sd = math.sqrt(sum((r - mean) ** 2 for r in relevancy) / 7)
    assert report.thresholds["answer_relevancy"] == pytest.approx(mean - 0.5 * sd)
    assert report.dropped[3] == ["answer_relevancy"]  # 0.2 < 0.7795...; 0.8 is not
    assert sorted(report.dropped[4]) == [
        "hallucination",
        "semantic_entropy",
    ]  # 0.2 > 0.1; 2.0 > 0.35
    assert report.dropped[5] == ["question_faithfulness"]
    assert 2 not in report.dropped  # hallucination of exactly 0.1 is allowed
    assert report.thresholds["semantic_entropy"]["Easy"] == pytest.approx(0.35)
    assert report.thresholds["semantic_entropy"]["Hard"] == pytest.approx(1.075 + 1.5 * 0.05)
    assert report.kept == [0, 1, 2, 6]
    assert report.counts() == {
        "answer_relevancy": 1,
        "hallucination": 1,
        "semantic_entropy": 1,
        "question_faithfulness": 1,
    }


def test_semantic_entropy_and_its_contradiction_penalty():
    assert semantic_entropy([5]) == 0.0
    assert semantic_entropy([3, 2]) == pytest.approx(-(0.6 * math.log(0.6) + 0.4 * math.log(0.4)))
    assert semantic_entropy([1, 1, 1, 1, 1]) == pytest.approx(math.log(5))
    assert penalised_semantic_entropy([3, 2], [False, True]) == pytest.approx(
        semantic_entropy([3, 2]) + 0.4
    )
    assert penalised_semantic_entropy([5], [True]) == pytest.approx(1.0)
    same = {
        ("a", "a2"),
        ("a2", "a"),
        ("b", "b2"),
        ("b2", "b"),
        ("a", "c"),
    }  # a->c only: not the same meaning
    clusters = cluster_by_entailment(
        ["a", "b", "a2", "c", "b2"], lambda x, y: x == y or (x, y) in same
    )
    assert clusters == [[0, 2], [1, 4], [3]]


def test_alignment_finds_offsets_exactly_with_spacing_and_fuzzily():
    chunk = (
        "Toluene was oxidised.  The yield was 95 %\nafter 2 h. Benzoic acid crystallised on "
        "cooling."
    )
    spans = align_context(["The yield was 95 % after 2 h.", "Toluene was oxidised."], chunk)
    assert [chunk[s:e] for s, e in spans] == [
        "The yield was 95 %\nafter 2 h.",
        "Toluene was oxidised.",
    ]
    fuzzy = align_context(["Benzoic acid crystalised on cooling"], chunk)
    assert chunk[fuzzy[0][0] : fuzzy[0][1]] == "Benzoic acid crystallised on cooling."
    assert align_context(["Platinum was used instead of palladium."], chunk) is None
    assert keywords_of("Why and how does toluene oxidise?") == ["why", "how"]


def test_reading_a_csv_that_is_not_in_the_layout_fails_clearly(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(QACFormatError, match="missing columns"):
        read_qac_csv(path)
    path.write_text("chunk,Question,Answer,Context\nsome text,Why?,Because.,not a list\n")
    with pytest.raises(QACFormatError, match=r"bad\.csv: row 1 \(line 2\), Context: "):
        read_qac_csv(path)


HEADER = "chunk,Question,Answer,Context,A_start_end\n"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        # a pair of texts: int('a') raised a bare ValueError
        (
            "text,Why?,Because.,\"['a']\",\"[['a', 'b']]\"",
            r"row 2 \(line 4\), A_start_end: item 1 should be a \[start, end\] pair of whole "
            r"numbers, found \['a', 'b'\]",
        ),
        # a bare number: iterating 5 raised a bare TypeError
        (
            "text,Why?,Because.,\"['a']\",[5]",
            r"row 2 \(line 4\), A_start_end: item 1 should be .* found 5$",
        ),
        # a name: the message showed <ast.Name object at 0x...>
        (
            "text,Why?,Because.,[foo],",
            r"row 2 \(line 4\), Context: not a list of plain values .*: '\[foo\]'$",
        ),
        ("text,Why?,Because.,\"['a'\",", r"row 2 \(line 4\), Context: not a Python list literal"),
        ('text,Why?,Because.,"[\'a\']","[[1, 2, 3]]"', r"A_start_end: item 1 should be"),
    ],
    ids=["span-of-texts", "span-a-number", "context-a-name", "context-unclosed", "span-of-three"],
)
def test_a_malformed_cell_names_its_row_line_and_column(tmp_path, row, message):
    """The first row's chunk spans two lines, so the second row starts on line 4."""
    path = tmp_path / "cells.csv"
    path.write_text(HEADER + '"two\nlines",Why?,Because.,"[\'a\']","[[0, 3]]"\n' + row + "\n")
    with pytest.raises(QACFormatError, match=message) as caught:
        read_qac_csv(path)
    assert str(caught.value).startswith("cells.csv: ") and "<ast." not in str(caught.value)


def test_a_csv_that_is_not_utf8_is_refused_with_the_byte_and_read_with_its_encoding(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes((HEADER + "caf\u00e9,Why?,Because.,\"['a']\",\n").encode("latin-1"))
    with pytest.raises(
        QACFormatError,
        match=r"latin\.csv: not valid UTF-8 text at byte 45 \(line 2: 0xe9\); it may be in "
        r"another encoding: .*--encoding",
    ):
        read_qac_csv(path)
    assert read_qac_csv(path, encoding="latin-1")[0].chunk == "caf\u00e9"
    with pytest.raises(QACFormatError, match="unknown text encoding 'nope'"):
        read_qac_csv(path, encoding="nope")


def test_a_folder_is_named_as_a_folder(tmp_path):
    with pytest.raises(QACFormatError, match="is a folder, not a file"):
        read_qac_csv(tmp_path)
    with pytest.raises(QACFormatError, match="no such file"):
        read_qac_csv(tmp_path / "missing.csv")


def test_the_published_csvs_can_be_read(shared_data):
    folder = shared_data / "chemlit_qa"
    negatives = read_qac_csv(folder / "ChemLit-QA-neg" / "chemlit_qa_neg_dataset.csv")
    assert len(negatives) == 139 and all(r.is_negative for r in negatives)
    first = negatives[0]
    assert first.spans and first.similar_chunks and first.scores["answer_relevancy"] is not None
    multi = read_qac_csv(folder / "ChemLit-QA-multi" / "chemlit_qa_multi_sampled.csv")
    assert (
        len(multi) == 200 and multi[0].single_hop_question and multi[0].reasoning_type == "Multihop"
    )


# -- a whole scripted run
# ------------------------------------------------------------------------------
def _passage(text: str, label: str = "Passage") -> str:
    match = re.search(label + r'[^\n]*:\n"""(.*?)"""', text, re.DOTALL)
    return match.group(1) if match else ""


def _first_sentence(passage: str) -> str:
    for part in re.split(r"(?<=[.!?])\s+|\n\n", passage):
        part = part.strip()
        if len(part.split()) >= 5:
            return part
    return passage.strip()


class Responder:
    """Scripted replies chosen by the prompt's TASK line; records every task it answered."""

    def __init__(self) -> None:
        self.tasks: list[str] = []
        # samples counted per prompt, not globally: with two workers a global count gave the
        # "second" answer to whichever question's sampling was interleaved, and the outlier
        # filter then dropped one more candidate under load (a flaky test)
        self.samples: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, messages):
        text = messages[-1]["content"]
        task = text.split("\n", 1)[0].removeprefix("TASK: ").strip()
        self.tasks.append(task)
        passage = _passage(text)
        if task == "usefulness":
            useful = "Aspirin synthesis" not in passage  # one paper is judged not useful
            return json.dumps(
                {"useful": useful, "reason": "test", "topic": ["Organic chemistry", "Catalysis"]}
            )
        if task == "reasoning_types":
            return json.dumps({"types": ["Causal", "explanatory"]})
        if task == "generate_causal":
            sentence = _first_sentence(passage)
            words = sentence.split()
            return json.dumps(
                {
                    "question": f"Why is it reported that {' '.join(words[:8])}?",
                    "answer": sentence,
                    "context": [sentence],
                }
            )
        if task == "generate_explanatory":
            return json.dumps({"question": None, "answer": None, "context": []})
        if task == "difficulty":
            return json.dumps({"difficulty": "Easy"})
        if task.startswith("judge_"):
            score = 1.0
            if task == "judge_hallucination":
                score = (
                    0.5 if "Palladium on carbon gave" in text else 0.0
                )  # this question must be dropped
            return json.dumps({"score": score, "reason": "test"})
        if task == "sample_answer":
            with self.lock:
                self.samples[text] = self.samples.get(text, 0) + 1
                count = self.samples[text]
            return json.dumps({"answer": "first" if count % 5 else "second"})
        if task == "entailment":
            a = re.search(r"Answer A: (.*)", text).group(1)
            b = re.search(r"Answer B: (.*)", text).group(1)
            return json.dumps({"entails": a == b, "contradicts": b == "second"})
        if task == "negative":
            return json.dumps(
                {
                    "question": "What is the boiling point of the catalyst support?",
                    "context": [_first_sentence(passage)],
                }
            )
        if task == "answerable":
            return json.dumps({"answerable": False})
        if task == "multihop":
            question = re.search(r"Question: (.*)", text).group(1)
            keyword = question.split()[5]
            bridge = _first_sentence(_passage(text, "Passage B"))
            return json.dumps(
                {
                    "keyword": keyword,
                    "updated_question": question.replace(keyword, "the thing in B"),
                    "bridge_context": [bridge],
                }
            )
        raise AssertionError(f"unexpected task {task!r}")


@pytest.fixture
def qac_library(kb_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    workspace = Workspace(get_settings())
    library = Library(workspace, dense=True)
    paths = write_corpus(tmp_path / "papers")
    library.add([paths["pdf"], paths["xml"], paths["text"]], chunk_size=250, overlap=0)
    yield library
    workspace.close()


@needs_dense
def test_scripted_run_end_to_end_then_resumed(qac_library, tmp_path):
    responder = Responder()
    llm = ScriptedLLM(responder)
    out = tmp_path / "out" / "qac.csv"
    summary = run_pipeline(
        qac_library, llm, out, QACConfig(samples=5, workers=2, min_chunk_chars=60)
    )
    chunks = list(qac_library.store.iter_chunks())
    assert summary.chunks == len([c for c in chunks if len(c.text) >= 60]) and summary.chunks > 3
    assert 0 < summary.useful < summary.chunks  # the aspirin note was judged not useful
    assert (
        summary.candidates == summary.useful
    )  # one causal question per useful chunk; explanatory did not apply
    assert summary.dropped == {"hallucination": 1} and summary.kept == summary.candidates - 1
    assert not summary.real_model and any("scripted" in line for line in summary.lines())
    assert set(responder.tasks) >= {
        "usefulness",
        "reasoning_types",
        "generate_causal",
        "generate_explanatory",
        "difficulty",
        "judge_answer_relevancy",
        "judge_faithfulness",
        "judge_hallucination",
        "judge_question_faithfulness",
        "sample_answer",
        "entailment",
        "negative",
        "answerable",
        "multihop",
    }

    with out.open(newline="") as handle:
        header = next(csv.reader(handle))
    assert header == MAIN_COLUMNS + PROVENANCE_COLUMNS
    records = read_qac_csv(out)
    assert len(records) == summary.kept
    for record in records:
        assert (
            record.reasoning_type == "Causal"
            and record.difficulty == "Easy"
            and record.judge_model == "scripted"
        )
        assert "Palladium on carbon gave" not in record.answer  # dropped by the hallucination rule
        assert [
            record.chunk[s:e] for s, e in record.spans
        ] == record.context  # A_start_end maps back exactly
        # 5 samples: four "first", one "second"; "second" contradicts the reference -> penalty 1/5
        expected = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2)) + 0.2
        assert record.se_penalized == pytest.approx(expected, rel=1e-5)
        own = qac_library.store.chunk(record.chunk_id)
        siblings = {c.text for c in qac_library.store.chunks_of(own.document_id) if c.id != own.id}
        assert (
            record.similar_chunks
            and set(record.similar_chunks) <= siblings
            and len(record.similar_chunks) <= 4
        )
        assert record.cluster_labels == ["Organic chemistry", "Catalysis"] and record.keywords == [
            "why"
        ]

    negatives = read_qac_csv(out.with_name("qac_neg.csv"))
    assert len(negatives) == summary.negatives == summary.useful
    assert all(
        n.answer == NEGATIVE_ANSWER and n.difficulty == "Negative" and n.is_negative
        for n in negatives
    )
    assert all([n.chunk[s:e] for s, e in n.spans] == n.context for n in negatives)
    multi = read_qac_csv(out.with_name("qac_multi.csv"))
    assert len(multi) == summary.multihop > 0
    assert all("the thing in B" in m.question and m.single_hop_question for m in multi)

    # resumed: everything comes from the work files, the LLM is not called again
    silent = ScriptedLLM(lambda messages: (_ for _ in ()).throw(LLMError("must not be called")))
    again = run_pipeline(
        qac_library, silent, out, QACConfig(samples=5, workers=2, min_chunk_chars=60)
    )
    assert again.chunks_resumed == again.chunks and again.kept == summary.kept
    assert again.negatives == summary.negatives and again.multihop == summary.multihop
    assert silent.calls == []
