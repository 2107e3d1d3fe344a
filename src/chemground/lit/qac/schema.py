"""Question-answer-context records in the ChemLit-QA CSV layout, written and read back.

The main (and negative) layout has 16 columns; list-valued cells (Context, A_start_end,
similar_chunks, Cluster_labels, Keywords) are Python-list strings, as in the published
files. The score columns keep their published names ("..._gpt-4o") so files stay
interchangeable; which model judged our own scores is recorded in ``Judge_model``, one of
three trailing provenance columns (``Chunk_id``, ``Document_id``, ``Judge_model``) that
readers of the published layout can ignore. The multi-hop layout has its own 7 columns.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json
from chemground.encodings import bom_encoding, normalise_encoding
from chemground.errors import clip, preview
from chemground.lit.errors import QACFormatError

REASONING_TYPES = (
    "Procedural",
    "Comparative",
    "Causal",
    "Conditional",
    "Evaluative",
    "Predictive",
    "Explanatory",
)
DIFFICULTIES = ("Easy", "Medium", "Hard")
NEGATIVE = "Negative"
NEGATIVE_ANSWER = "Answer not available from the given context."
SCORE_COLUMNS = {
    "answer_relevancy": "Answer Relevancy Scores_gpt-4o",
    "faithfulness": "Faithfulness Scores_gpt-4o",
    "hallucination": "Hallucination Scores_gpt-4o",
    "question_faithfulness": "Question Faithfulness Scores_gpt-4o",
}
MAIN_COLUMNS = [
    "chunk",
    "Reasoning_type",
    "Question",
    "Answer",
    "Difficulty",
    "Context",
    "A_start_end",
    "similar_chunks",
    "Cluster_labels",
    "ID",
    *SCORE_COLUMNS.values(),
    "SE_penalized",
    "Keywords",
]
PROVENANCE_COLUMNS = ["Chunk_id", "Document_id", "Judge_model"]
MULTI_COLUMNS = ["Question", "Updated_question", "Answer", "Context", "Similarity", "Keyword", "ID"]
_LIST_COLUMNS = ("Context", "A_start_end", "similar_chunks", "Cluster_labels", "Keywords")


@dataclass
class QACRecord:
    """One question with its answer, the chunk it comes from and the supporting sentences."""

    chunk: str
    reasoning_type: str
    question: str
    answer: str
    difficulty: str
    context: list[str]
    spans: list[tuple[int, int]]  # A_start_end: offsets of the context sentences in ``chunk``
    similar_chunks: list[str] = field(default_factory=list)
    cluster_labels: list[str] = field(default_factory=list)
    id: str = ""
    scores: dict[str, float | None] = field(default_factory=dict)
    se_penalized: float | None = None
    keywords: list[str] = field(default_factory=list)
    chunk_id: str | None = None
    document_id: str | None = None
    judge_model: str | None = None
    single_hop_question: str | None = (
        None  # multi-hop layout: the question before the bridge rewrite
    )

    @property
    def is_negative(self) -> bool:
        return self.difficulty == NEGATIVE or self.answer.strip().startswith("Answer not available")

    def to_row(self) -> dict[str, Any]:
        row = {
            "chunk": self.chunk,
            "Reasoning_type": self.reasoning_type,
            "Question": self.question,
            "Answer": self.answer,
            "Difficulty": self.difficulty,
            "Context": repr(list(self.context)),
            "A_start_end": repr([list(s) for s in self.spans]),
            "similar_chunks": repr(list(self.similar_chunks)),
            "Cluster_labels": repr(list(self.cluster_labels)),
            "ID": self.id,
            "SE_penalized": _number(self.se_penalized),
            "Keywords": repr(list(self.keywords)),
            "Chunk_id": self.chunk_id or "",
            "Document_id": self.document_id or "",
            "Judge_model": self.judge_model or "",
        }
        for key, column in SCORE_COLUMNS.items():
            row[column] = _number(self.scores.get(key))
        return row

    def to_json(self) -> dict[str, Any]:
        """The JSONL record of ``lit qac`` (``fields_json``: each span as a list)."""
        return fields_json(self)


@dataclass
class MultiHopRecord:
    question: str
    updated_question: str
    answer: str
    context: list[str]
    similarity: float | None
    keyword: str
    id: str = ""
    chunk_id: str | None = None
    bridge_chunk_id: str | None = None

    def to_row(self) -> dict[str, Any]:
        return {
            "Question": self.question,
            "Updated_question": self.updated_question,
            "Answer": self.answer,
            "Context": repr(list(self.context)),
            "Similarity": _number(self.similarity),
            "Keyword": self.keyword,
            "ID": self.id,
            "Chunk_id": self.chunk_id or "",
            "Bridge_chunk_id": self.bridge_chunk_id or "",
        }


def _number(value: float | None) -> str:
    return (
        "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.6g}"
    )


def write_qac_csv(path: Path, records: list[QACRecord]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MAIN_COLUMNS + PROVENANCE_COLUMNS)
        writer.writeheader()
        for record in records:
            writer.writerow(record.to_row())


def write_multihop_csv(path: Path, records: list[MultiHopRecord]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*MULTI_COLUMNS, "Chunk_id", "Bridge_chunk_id"])
        writer.writeheader()
        for record in records:
            writer.writerow(record.to_row())


# -- reading ------------------------------------------------------------------------------------
def _list_cell(value: str, column: str, where: str) -> list:
    """The Python-list literal of one cell (an empty cell is an empty list).

    Raises:
        QACFormatError: the cell is not a list literal; the message starts with ``where``
            (file, row and line) and the column.
    """
    text = (value or "").strip()
    if not text:
        return []
    try:
        parsed = ast.literal_eval(text)
    except SyntaxError as error:
        raise QACFormatError(
            f"{where}, {column}: not a Python list literal ({error.msg}): {preview(text)}"
        ) from None
    except (ValueError, TypeError, RecursionError):  # a name, a call, nesting too deep
        raise QACFormatError(
            f"{where}, {column}: not a list of plain values such as ['first', 'second'] "
            f"(only quoted text, numbers and lists may appear): {preview(text)}"
        ) from None
    if not isinstance(parsed, (list, tuple)):
        raise QACFormatError(
            f"{where}, {column}: should hold a list, found {type(parsed).__name__} {preview(text)}"
        )
    return list(parsed)


def _spans_cell(value: str, where: str) -> list[tuple[int, int]]:
    """The ``A_start_end`` cell: a list of ``[start, end]`` pairs of whole numbers."""
    spans = []
    for number, item in enumerate(_list_cell(value, "A_start_end", where), start=1):
        if not (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in item)
        ):
            raise QACFormatError(
                f"{where}, A_start_end: item {number} should be a [start, end] pair of whole "
                f"numbers, found {clip(repr(item), 80)}"
            )
        spans.append((item[0], item[1]))
    return spans


def _float_cell(value: str, column: str, where: str) -> float | None:
    text = (value or "").strip()
    if not text or text.lower() == "nan":
        return None
    try:
        return float(text)
    except ValueError:
        raise QACFormatError(f"{where}, {column}: not a number: {preview(text)}") from None


def _read_text(path: Path, encoding: str | None) -> str:
    """The text of the CSV at ``path``: a byte-order mark or ``encoding`` chooses the codec,
    otherwise it must be UTF-8 (nothing is guessed).

    Raises:
        QACFormatError: the path is missing, a folder or a special file, cannot be read, the
            encoding is unknown, or the bytes do not decode (the message gives the byte offset
            and line of the first bad byte and what to do).
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise QACFormatError(f"{path}: no such file") from None
    except OSError as error:
        raise QACFormatError(f"{path}: cannot read: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise QACFormatError(
            f"{path}: is a folder, not a file; give a CSV in the ChemLit-QA layout"
        )
    if not stat.S_ISREG(info.st_mode):
        raise QACFormatError(f"{path}: not a regular file (a FIFO, socket or device)")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise QACFormatError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        codec = normalise_encoding(encoding) if encoding else bom_encoding(data) or "utf-8-sig"
    except ValueError as error:
        raise QACFormatError(str(error)) from None
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        offset = len(data) - len(error.object) + error.start  # utf-8-sig decodes after the BOM
        line = data[:offset].count(b"\n") + 1
        bad = error.object[error.start : error.end].hex(" ")
        shown = "UTF-8" if codec == "utf-8-sig" else codec
        hint = (
            "check the --encoding given"
            if encoding
            else "it may be in another encoding: save it as UTF-8, or pass its encoding with "
            "--encoding (e.g. latin-1 or cp1252)"
        )
        raise QACFormatError(
            f"{path}: not valid {shown} text at byte {offset:,} (line {line:,}: 0x{bad}); {hint}"
        ) from None


def read_qac_csv(path: Path, encoding: str | None = None) -> list[QACRecord]:
    """Records of a ChemLit-QA style CSV.

    The main/negative layout gives one record per row; in the multi-hop layout each row becomes
    a record with the multi-hop question, no chunk and reasoning type "Multihop".

    Args:
        path: the CSV file.
        encoding: the file's text encoding (default: UTF-8, or what a byte-order mark says).

    Returns:
        The records, in file order.

    Raises:
        QACFormatError: the file is missing, a folder, not text in the encoding, not in either
            layout, or a cell is malformed (the message names the row, its line and the column,
            e.g. ``qac.csv: row 3 (line 4), A_start_end: ...``).
    """
    path = Path(path)
    text = _read_text(path, encoding)
    csv.field_size_limit(1 << 26)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        columns = reader.fieldnames or []
        if "Updated_question" in columns:
            return _read_multi(reader, path)
        missing = [c for c in ("chunk", "Question", "Answer", "Context") if c not in columns]
        if missing:
            raise QACFormatError(
                f"{path.name}: not a ChemLit-QA CSV; missing columns {missing} (has {columns[:12]})"
            )
        records = []
        for where, row in _rows(reader, path):
            if not (row.get("Question") or "").strip():
                raise QACFormatError(f"{where}, Question: empty")
            records.append(
                QACRecord(
                    chunk=row["chunk"],
                    reasoning_type=(row.get("Reasoning_type") or "").strip(),
                    question=row["Question"].strip(),
                    answer=(row.get("Answer") or "").strip(),
                    difficulty=(row.get("Difficulty") or "").strip(),
                    context=[str(s) for s in _list_cell(row["Context"], "Context", where)],
                    spans=_spans_cell(row.get("A_start_end", ""), where),
                    similar_chunks=[
                        str(s)
                        for s in _list_cell(row.get("similar_chunks", ""), "similar_chunks", where)
                    ],
                    cluster_labels=[
                        str(s)
                        for s in _list_cell(row.get("Cluster_labels", ""), "Cluster_labels", where)
                    ],
                    id=str(row.get("ID") or len(records) + 1),
                    scores={
                        key: _float_cell(row.get(column, ""), column, where)
                        for key, column in SCORE_COLUMNS.items()
                    },
                    se_penalized=_float_cell(row.get("SE_penalized", ""), "SE_penalized", where),
                    keywords=[
                        str(s) for s in _list_cell(row.get("Keywords", ""), "Keywords", where)
                    ],
                    chunk_id=row.get("Chunk_id") or None,
                    document_id=row.get("Document_id") or None,
                    judge_model=row.get("Judge_model") or None,
                )
            )
    except csv.Error as error:
        raise QACFormatError(
            f"{path.name}: line {reader.line_num}: not readable as CSV ({error})"
        ) from None
    return records


def _rows(reader: csv.DictReader, path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Each data row with where it is, ``"NAME: row N (line L)"``: N counts data rows from 1,
    L is the file line the row starts on (cells may span lines)."""
    end = reader.line_num  # the header's last line
    for number, row in enumerate(reader, start=1):
        yield f"{path.name}: row {number} (line {end + 1})", row
        end = reader.line_num


def _read_multi(reader: csv.DictReader, path: Path) -> list[QACRecord]:
    records = []
    for where, row in _rows(reader, path):
        question = (row.get("Updated_question") or "").strip()
        if not question:
            raise QACFormatError(f"{where}, Updated_question: empty")
        records.append(
            QACRecord(
                chunk="",
                reasoning_type="Multihop",
                question=question,
                answer=(row.get("Answer") or "").strip(),
                difficulty="Multihop",
                context=[str(s) for s in _list_cell(row.get("Context", ""), "Context", where)],
                spans=[],
                id=str(row.get("ID") or len(records) + 1),
                keywords=[row.get("Keyword") or ""],
                single_hop_question=(row.get("Question") or "").strip() or None,
            )
        )
    return records


def summarise(records: list[QACRecord]) -> dict[str, Any]:
    return {
        "records": len(records),
        "negatives": sum(r.is_negative for r in records),
        "chunks": len({r.chunk for r in records if r.chunk}),
        "reasoning_types": dict(Counter(r.reasoning_type or "?" for r in records).most_common()),
        "difficulties": dict(Counter(r.difficulty or "?" for r in records).most_common()),
    }
