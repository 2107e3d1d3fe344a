"""Adding papers: readers, cleaning, chunk offsets, idempotency, bad files in a batch."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from chemground.lit.chunking import chunk_text
from chemground.lit.cleaning import clean
from chemground.lit.ingest import Ingestor
from chemground.lit.readers import detect_format, read_document
from chemground.lit.records import TextSpan
from chemground.lit.store import LitStore
from tests.lit.papers import HEADER, write_corpus, write_encrypted_pdf, write_pdf


@pytest.fixture
def corpus(tmp_path) -> dict[str, Path]:
    return write_corpus(tmp_path / "papers")


@pytest.fixture
def ingestor(kb_copy) -> Ingestor:
    return Ingestor(kb_copy, chunk_size=300, overlap=60)


def _texts(store: LitStore) -> dict[str, str]:
    return {Path(d.path).suffix: d.text for d in store.documents()}


def test_pdf_xml_text_and_html_are_read_cleaned_and_chunked(ingestor, corpus):
    summary = ingestor.add([corpus["pdf"], corpus["xml"], corpus["text"], corpus["html"]])
    assert [f.status for f in summary.files] == ["added"] * 4, [f.error for f in summary.files]
    store = ingestor.store
    texts = _texts(store)

    pdf = texts[".pdf"]
    assert "hydrogenation of benzaldehyde to benzyl alcohol over palladium" in pdf
    assert HEADER not in pdf  # running header on every page
    assert "[1]" not in pdf and "[2,3]" not in pdf and "at 25 °C." in pdf  # citation markers
    assert "Org. Lett." not in pdf and "Science 2010" not in pdf  # the reference list
    assert (
        "Additional spectra of the benzyl alcohol" in pdf
    )  # supporting information after the references
    assert "\n3\n" not in pdf and not pdf.rstrip().endswith("3")  # page numbers

    xml = texts[".xml"]
    assert xml.startswith("Oxidation of toluene")
    assert "food preservative." in xml and "[1]" not in xml and "J. Org. Chem." not in xml
    assert "Figure 1 Yield of benzoic acid against time." in xml

    text = texts[".txt"]
    assert "(Smith et al., 2019)" not in text and "catalysed by sulfuric acid." in text

    html = texts[".html"]
    assert "sulfuric acid." in html and "acid.1" not in html  # linked superscript citation removed
    assert "12 m2 per gram" in html  # an exponent is not a citation
    assert "Home" not in html and "Copyright" not in html and "Fischer, Ber." not in html

    pdf_doc = next(d for d in store.documents() if d.format == "pdf")
    assert pdf_doc.n_pages == 3 and pdf_doc.title == "Catalytic hydrogenation of benzaldehyde"
    pages = {c.page for c in store.chunks_of(pdf_doc.id)}
    assert {1, 2, 3} <= pages | {c.page_end for c in store.chunks_of(pdf_doc.id)}
    results = [c for c in store.chunks_of(pdf_doc.id) if "Platinum was slower" in c.text]
    assert results and results[0].page == 2 and results[0].section == "2. Results"
    xml_doc = next(d for d in store.documents() if d.format == "xml")
    methods = [c for c in store.chunks_of(xml_doc.id) if "KMnO4" in c.text]
    assert methods and methods[-1].section in ("Methods", "Introduction")


def test_every_chunk_maps_back_to_the_stored_text_exactly(ingestor, corpus):
    ingestor.add(list(corpus.values()))
    store = ingestor.store
    total = 0
    for document in store.documents():
        chunks = store.chunks_of(document.id)
        assert chunks, document.path
        for chunk in chunks:
            total += 1
            assert document.text[chunk.start : chunk.end] == chunk.text
            assert 0 < len(chunk.text) <= 300
        # chunks cover the whole text (only whitespace falls between them) and overlap in order
        covered = [False] * len(document.text)
        for chunk in chunks:
            covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
        assert all(c or document.text[i].isspace() for i, c in enumerate(covered))
        assert [c.seq for c in chunks] == list(range(len(chunks)))
        assert all(a.start < b.start for a, b in pairwise(chunks))
    assert total == ingestor.kb.stats().chunks


def test_re_adding_is_idempotent_and_a_changed_file_replaces_its_old_version(
    ingestor, corpus, tmp_path
):
    first = ingestor.add(list(corpus.values()))
    store = ingestor.store
    before = (store.counts(), store.generation())
    again = ingestor.add(list(corpus.values()))
    assert [f.status for f in again.files] == ["unchanged"] * 4
    assert [f.document_id for f in again.files] == [f.document_id for f in first.files]
    assert (store.counts(), store.generation()) == before

    copy = tmp_path / "copy.txt"
    copy.write_bytes(corpus["text"].read_bytes())
    same = ingestor.add_file(copy)
    assert same.status == "unchanged" and "same content" in same.note

    old_id = first.files[2].document_id
    corpus["text"].write_text(corpus["text"].read_text() + "\nThe yield was 80 %.\n")
    changed = ingestor.add_file(corpus["text"])
    assert changed.status == "updated" and changed.document_id != old_id
    ids = {d.id for d in store.documents()}
    assert old_id not in ids and changed.document_id in ids and len(ids) == 4
    assert not ingestor.kb.execute(
        "SELECT 1 FROM chunks WHERE document_id = ?", (old_id,)
    ).fetchall()


def test_bad_files_are_reported_and_the_batch_goes_on(ingestor, corpus, tmp_path):
    good = corpus["pdf"]
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[:700])
    not_pdf = tmp_path / "fake.pdf"
    not_pdf.write_text("this is not a PDF at all")
    encrypted = write_encrypted_pdf(good, tmp_path / "locked.pdf")
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n")
    broken_xml = tmp_path / "broken.xml"
    broken_xml.write_text("<article><body><p>unclosed</body>")
    summary = ingestor.add(
        [truncated, not_pdf, encrypted, good, empty, broken_xml, tmp_path / "missing.pdf"]
    )
    status = {Path(f.path).name: f for f in summary.files}
    assert status["hydrogenation.pdf"].status == "added"
    assert "corrupt or unreadable PDF" in status["truncated.pdf"].error
    assert "not a PDF" in status["fake.pdf"].error
    assert "encrypted" in status["locked.pdf"].error and "password" in status["locked.pdf"].error
    assert "empty" in status["empty.txt"].error
    assert "malformed XML" in status["broken.xml"].error
    assert "no such file" in status["missing.pdf"].error
    assert summary.count("failed") == 6 and summary.count("added") == 1
    assert ingestor.store.counts()[0] == 1  # nothing half-written for the bad files


def test_a_failure_while_storing_leaves_no_partial_document(ingestor, corpus, monkeypatch):
    from chemground.lit import store as store_module

    original = store_module.LitStore._bump_generation

    def explode(self):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store_module.LitStore, "_bump_generation", explode)
    result = ingestor.add_file(corpus["text"])
    assert result.status == "failed" and "disk full" in result.error
    assert ingestor.store.counts() == (0, 0)
    monkeypatch.setattr(store_module.LitStore, "_bump_generation", original)
    assert ingestor.add_file(corpus["text"]).status == "added"


def test_format_is_detected_from_content(tmp_path, corpus):
    misnamed = tmp_path / "paper.txt"
    misnamed.write_bytes(corpus["pdf"].read_bytes())
    assert detect_format(misnamed) == "pdf"
    assert detect_format(corpus["xml"]) == "xml"
    assert detect_format(corpus["html"]) == "html"
    assert read_document(misnamed).n_pages == 3


def test_chunking_respects_size_and_overlap():
    text = " ".join(f"Sentence number {i} talks about toluene and benzene." for i in range(200))
    spans = chunk_text(text, [TextSpan(0, len(text), 1, "Results")], size=500, overlap=100)
    assert len(spans) > 10
    assert all(s.end - s.start <= 500 for s in spans)
    assert all(b.start < a.end for a, b in pairwise(spans))  # neighbours overlap
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert all(s.section == "Results" and s.page == 1 for s in spans)
    with pytest.raises(Exception, match="overlap"):
        chunk_text(text, [], size=500, overlap=500)


def test_pdf_pages_and_sections_follow_the_chunks(tmp_path):
    pages = [
        [f"Line {i} of the first page about solvent effects in catalysis." for i in range(8)],
        ["3. Discussion"] + [f"Line {i} of the second page on kinetics." for i in range(8)],
    ]
    path = write_pdf(tmp_path / "p.pdf", pages, title="Two pages")
    document = clean(read_document(path))
    spans = chunk_text(document.text, document.spans, size=200, overlap=0)
    assert spans[0].page == 1 and spans[-1].page == 2
    assert spans[-1].section == "3. Discussion"
