"""Documents -> snippets: paragraphs, headings, table columns, ORD records, ingested documents."""

import gzip
import json

import pytest

from chemground.errors import ImportFileError
from chemground.extract.snippets import (
    looks_experimental,
    read_snippets,
    snippets_from_kb,
    split_paragraphs,
)

PROCEDURE = (
    "A mixture of 2-chloropyridine (1.0 g, 8.8 mmol) and morpholine (2 mL) was stirred at 120 °C "
    "for 4 h. "
    "The residue was purified by chromatography to give the title compound (1.2 g, 83%)."
)


def test_paragraphs_keep_their_headings():
    text = (
        f"Example 3\nSynthesis of 4-(pyridin-2-yl)morpholine\n{PROCEDURE}\n\nThis invention "
        "relates to drugs.\n"
    )
    pairs = split_paragraphs(text)
    assert pairs[0] == ("Example 3 — Synthesis of 4-(pyridin-2-yl)morpholine", PROCEDURE)
    assert pairs[1] == (None, "This invention relates to drugs.")


def test_only_procedures_are_sent_unless_asked(tmp_path):
    path = tmp_path / "patent.txt"
    path.write_text(
        f"Background\n\nThe compounds of the invention are useful as kinase inhibitors in man.\n\n"
        f"Example 1\n\n{PROCEDURE}\n",
        encoding="utf-8",
    )
    snippets = list(read_snippets(path))
    assert [s.text for s in snippets] == [PROCEDURE] and snippets[0].title == "Example 1"
    assert snippets[0].doc_id == "patent.txt"
    assert len(list(read_snippets(path, all_paragraphs=True))) == 2
    assert looks_experimental(PROCEDURE) and not looks_experimental("Kinase inhibitors are useful.")


def test_long_paragraphs_are_windowed_at_sentences():
    sentence = "Ethanol (5 mL) was added and the mixture was stirred at 25 °C for 1 h. "
    pieces = split_paragraphs(sentence * 200, max_chars=1000)
    assert len(pieces) > 10 and all(len(p) <= 1000 for _, p in pieces)
    assert all(p.endswith("1 h.") for _, p in pieces[:-1])


def test_csv_paragraph_column_and_ids(tmp_path):
    path = tmp_path / "paras.csv"
    path.write_text(
        'patent,paragraph\nUS123,"' + PROCEDURE + '"\nUS124,Not a procedure at all.\n',
        encoding="utf-8",
    )
    [snippet] = read_snippets(path)
    assert snippet.doc_id == "US123" and snippet.text == PROCEDURE
    with pytest.raises(ImportFileError, match="--text-field"):
        list(read_snippets(path, text_field="body"))


def test_ord_jsonl_records(tmp_path):
    path = tmp_path / "ord.jsonl.gz"
    record = {
        "dataset_name": "x",
        "reaction": {
            "reactionId": "ord-1",
            "notes": {"procedureDetails": PROCEDURE},
            "provenance": {"patent": "US05464616"},
        },
    }
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    [snippet] = read_snippets(path)
    assert snippet.doc_id == "US05464616" and snippet.text == PROCEDURE


def test_unknown_file_types_and_missing_files_are_clear_errors(tmp_path):
    with pytest.raises(ImportFileError, match="no such file"):
        list(read_snippets(tmp_path / "missing.txt"))
    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    with pytest.raises(ImportFileError, match="cannot read snippets"):
        list(read_snippets(tmp_path / "x.pdf"))


def test_ingested_documents_are_read_when_present_and_skipped_when_absent(kb_copy):
    from chemground.lit.records import Chunk, Document
    from chemground.lit.store import LitStore

    assert list(snippets_from_kb(kb_copy)) == []  # no paper tables: nothing, no error
    text = f"The background is long.\n\n{PROCEDURE}"
    document = Document("paper-1", "0" * 64, "paper.txt", "text", text, title="Org. Lett. paper")
    LitStore(kb_copy).insert(document, [Chunk("paper-1#0", "paper-1", 0, 0, len(text), text)])
    [snippet] = snippets_from_kb(kb_copy)
    assert (
        snippet.doc_id == "paper-1"
        and snippet.text == PROCEDURE
        and snippet.title == "Org. Lett. paper"
    )
    assert list(snippets_from_kb(kb_copy, document_ids=["other"])) == []


def test_hard_wrapped_text_is_unwrapped_into_paragraphs():
    wrapped = (
        "Example 7\n"
        "A mixture of 2-chloropyridine (1.0 g, 8.8 mmol) and morpholine (2 mL) was\n"
        "stirred at 120 °C for 4 h. The residue was purified by chromatography to\n"
        "give the title compound (1.2 g, 83%).\n"
        "The compounds of the invention are kinase inhibitors that are useful in\n"
        "the treatment of several diseases of man and animals alike.\n"
    )
    pairs = split_paragraphs(wrapped)
    assert pairs[0][0] == "Example 7"
    assert pairs[0][1].startswith("A mixture") and pairs[0][1].endswith("(1.2 g, 83%).")
    assert pairs[1][1].startswith("The compounds of the invention")
