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
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json
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
def _list_cell(value: str, column: str, line: int) -> list:
    text = (value or "").strip()
    if not text:
        return []
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError) as error:
        raise QACFormatError(
            f"line {line}: column {column!r} is not a list literal ({error}): {text[:80]!r}"
        ) from error
    if not isinstance(parsed, (list, tuple)):
        raise QACFormatError(
            f"line {line}: column {column!r} should hold a list, found {type(parsed).__name__}"
        )
    return list(parsed)


def _float_cell(value: str, column: str, line: int) -> float | None:
    text = (value or "").strip()
    if not text or text.lower() == "nan":
        return None
    try:
        return float(text)
    except ValueError as error:
        raise QACFormatError(f"line {line}: column {column!r} is not a number: {text!r}") from error


def read_qac_csv(path: Path) -> list[QACRecord]:
    """Records of a ChemLit-QA style CSV (main/negative layout, or the multi-hop layout, whose
    rows become records with the multi-hop question, no chunk and reasoning type "Multihop")."""
    path = Path(path)
    if not path.is_file():
        raise QACFormatError(f"{path}: no such file")
    csv.field_size_limit(1 << 26)
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        if "Updated_question" in columns:
            return _read_multi(reader, path)
        missing = [c for c in ("chunk", "Question", "Answer", "Context") if c not in columns]
        if missing:
            raise QACFormatError(
                f"{path.name}: not a ChemLit-QA CSV; missing columns {missing} (has {columns[:12]})"
            )
        records = []
        for line, row in enumerate(reader, start=2):
            if not (row.get("Question") or "").strip():
                raise QACFormatError(f"{path.name} line {line}: empty Question")
            spans = [
                tuple(int(x) for x in s)
                for s in _list_cell(row.get("A_start_end", ""), "A_start_end", line)
            ]
            records.append(
                QACRecord(
                    chunk=row["chunk"],
                    reasoning_type=(row.get("Reasoning_type") or "").strip(),
                    question=row["Question"].strip(),
                    answer=(row.get("Answer") or "").strip(),
                    difficulty=(row.get("Difficulty") or "").strip(),
                    context=[str(s) for s in _list_cell(row["Context"], "Context", line)],
                    spans=spans,
                    similar_chunks=[
                        str(s)
                        for s in _list_cell(row.get("similar_chunks", ""), "similar_chunks", line)
                    ],
                    cluster_labels=[
                        str(s)
                        for s in _list_cell(row.get("Cluster_labels", ""), "Cluster_labels", line)
                    ],
                    id=str(row.get("ID") or line - 1),
                    scores={
                        key: _float_cell(row.get(column, ""), column, line)
                        for key, column in SCORE_COLUMNS.items()
                    },
                    se_penalized=_float_cell(row.get("SE_penalized", ""), "SE_penalized", line),
                    keywords=[
                        str(s) for s in _list_cell(row.get("Keywords", ""), "Keywords", line)
                    ],
                    chunk_id=row.get("Chunk_id") or None,
                    document_id=row.get("Document_id") or None,
                    judge_model=row.get("Judge_model") or None,
                )
            )
    return records


def _read_multi(reader: csv.DictReader, path: Path) -> list[QACRecord]:
    records = []
    for line, row in enumerate(reader, start=2):
        question = (row.get("Updated_question") or "").strip()
        if not question:
            raise QACFormatError(f"{path.name} line {line}: empty Updated_question")
        records.append(
            QACRecord(
                chunk="",
                reasoning_type="Multihop",
                question=question,
                answer=(row.get("Answer") or "").strip(),
                difficulty="Multihop",
                context=[str(s) for s in _list_cell(row.get("Context", ""), "Context", line)],
                spans=[],
                id=str(row.get("ID") or line - 1),
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
