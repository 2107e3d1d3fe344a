"""Chunking keeps its promise: a text at or under the chunk size stays whole; longer texts are
cut at sentence/paragraph breaks into chunks of at most the size, overlapping only then."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from chemground.lit.chunking import chunk_text
from chemground.lit.ingest import Ingestor

SENTENCES = [
    f"Sentence {i} reports that toluene was oxidised with KMnO4 at {20 + i} °C in water."
    for i in range(400)
]


def _paper(n: int) -> str:
    """``n`` sentences in paragraphs of five."""
    paragraphs = [" ".join(SENTENCES[i : i + 5]) for i in range(0, n, 5)]
    return "\n\n".join(paragraphs)


@pytest.mark.parametrize("length", [60, 1008, 1999, 2000])
def test_a_text_at_or_under_the_size_stays_whole_whatever_the_overlap(length):
    text = (_paper(60) * 2)[:length]
    for overlap in (0, 200, 1999):
        spans = chunk_text(text, [], size=2000, overlap=overlap)
        assert len(spans) == 1, (length, overlap, [(s.start, s.end) for s in spans])
        assert (spans[0].start, spans[0].end) == (0, len(text.rstrip()))


def test_one_character_over_the_size_is_split():
    text = ("word " * 500)[:2001].rstrip() + "x" * (2001 - len(("word " * 500)[:2001].rstrip()))
    assert len(text) == 2001
    assert len(chunk_text(text, [], size=2000, overlap=200)) == 2


def test_surrounding_whitespace_is_not_part_of_the_chunk():
    text = "\n\n  Benzoic acid is a food preservative.  \n"
    (span,) = chunk_text(text, [])
    assert text[span.start : span.end] == "Benzoic acid is a food preservative."


@pytest.mark.parametrize(("size", "overlap"), [(2000, 200), (500, 100), (300, 0)])
def test_long_texts_give_chunks_within_the_size_with_exact_offsets(size, overlap):
    text = _paper(300)
    spans = chunk_text(text, [], size=size, overlap=overlap)
    assert len(spans) > 3
    for span in spans:
        piece = text[span.start : span.end]
        assert 0 < len(piece) <= size
        assert piece == piece.strip()
        assert piece.endswith(".")  # cut at a sentence end: there is one near every boundary here
        assert re.match(r"Sentence \d+ ", piece), piece[:40]  # and starts at a sentence start
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert all(a.start < b.start and a.end < b.end for a, b in pairwise(spans))
    covered = [False] * len(text)
    for span in spans:
        covered[span.start : span.end] = [True] * (span.end - span.start)
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))  # nothing lost
    repeated = [max(0, a.end - b.start) for a, b in pairwise(spans)]
    if overlap:
        assert all(0 < r <= overlap for r in repeated), (
            repeated
        )  # overlap only between chunks, bounded
    else:
        assert not any(repeated)


def test_overlap_never_starts_inside_a_word():
    text = " ".join(f"alpha{i:04d}" for i in range(600))  # no sentence ends at all
    spans = chunk_text(text, [], size=400, overlap=80)
    assert all(s.end - s.start <= 400 for s in spans)
    assert all(text[s.start - 1] == " " for s in spans[1:])


def test_stored_chunks_of_short_texts_are_never_split(kb_copy, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    lengths = {}
    for i, n in enumerate((3, 9, 14, 22)):
        text = " ".join(SENTENCES[i * 30 : i * 30 + n])
        assert len(text) <= 2000
        (folder / f"p{i}.txt").write_text(text, encoding="utf-8")
        lengths[f"p{i}.txt"] = len(text)
    long_text = _paper(100)
    (folder / "long.txt").write_text(long_text, encoding="utf-8")
    summary = Ingestor(kb_copy, chunk_size=2000, overlap=200).add([folder])
    assert [f.status for f in summary.files] == ["added"] * 5, [f.error for f in summary.files]
    store = Ingestor(kb_copy).store
    for document in store.documents():
        chunks = store.chunks_of(document.id)
        assert all(len(c.text) <= 2000 for c in chunks)
        if len(document.text) <= 2000:
            assert len(chunks) == 1 and chunks[0].text == document.text.strip(), document.path
        else:
            assert len(chunks) > 1


def test_every_chemlit_passage_under_the_size_stays_whole(shared_data):
    from chemground.lit.evaluate import pool_chunks
    from chemground.lit.qac.schema import read_qac_csv

    records = read_qac_csv(
        shared_data / "chemlit_qa" / "ChemLit-QA-neg" / "chemlit_qa_neg_dataset.csv"
    )
    texts = pool_chunks(records)
    assert len(texts) > 500
    short = [t for t in texts if len(t.strip()) <= 2000]
    assert all(len(chunk_text(t, [])) == 1 for t in short)
    longest = max(s.end - s.start for t in texts for s in chunk_text(t, []))
    assert longest <= 2000
