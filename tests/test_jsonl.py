"""The one JSONL reader: line numbers in every error, gzip, torn last lines of resumable logs."""

from __future__ import annotations

import gzip

import pytest

from chemground.errors import ChemgroundError, ImportFileError
from chemground.jsonl import read_jsonl


def test_values_come_with_their_line_numbers_and_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"a": 1}\n\n  \n[2, 3]\n"text"\n', encoding="utf-8")
    assert list(read_jsonl(path)) == [(1, {"a": 1}), (4, [2, 3]), (5, "text")]


def test_a_bad_line_is_named_by_path_and_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"a": 1}\n{"a": \n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(ImportFileError, match=r"items\.jsonl:2: not JSON"):
        list(read_jsonl(path, error=ImportFileError))


def test_a_torn_last_line_is_skipped_only_when_allowed(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}\n{"id": "c', encoding="utf-8")
    assert [v["id"] for _, v in read_jsonl(path, torn_tail_ok=True)] == ["a", "b"]
    with pytest.raises(ChemgroundError, match=r"log\.jsonl:3: not JSON"):
        list(read_jsonl(path))


def test_a_bad_line_in_the_middle_is_an_error_even_for_a_log(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"id": "a"}\n{"id": \n{"id": "c"}\n', encoding="utf-8")
    with pytest.raises(ChemgroundError, match=r"log\.jsonl:2: not JSON"):
        list(read_jsonl(path, torn_tail_ok=True))


def test_gzip_reads_like_plain_text(tmp_path):
    path = tmp_path / "items.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write('{"a": 1}\n{"b": 2}\n')
    assert [n for n, _ in read_jsonl(path)] == [1, 2]


def test_missing_and_non_utf8_files_are_clear_errors(tmp_path):
    with pytest.raises(ChemgroundError, match="no such file"):
        list(read_jsonl(tmp_path / "absent.jsonl"))
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"name": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(ChemgroundError, match="not UTF-8"):
        list(read_jsonl(path))
