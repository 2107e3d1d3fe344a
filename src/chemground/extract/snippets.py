"""Documents -> snippets: the experimental paragraphs an extraction LLM reads one at a time.

Sources: plain text (paragraphs separated by blank lines, or one per line; a short heading
line such as "Example 12" or "Synthesis of 4-bromoanisole" is kept as the next paragraph's
title), the paragraph column of CSV/JSON Lines files (ORD reaction records included), and the
documents already ingested into the KB for literature RAG (``chemground lit add``).
Paragraphs that do not read like a procedure (no quantity or temperature and no lab verb) are
skipped unless asked otherwise, because asking an LLM about them costs money and finds nothing.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chemground.errors import ImportFileError
from chemground.kb.store import KnowledgeBase

TEXT_FIELDS = (
    "paragraph",
    "text",
    "procedure",
    "procedure_text",
    "procedureDetails",
    "description",
    "instruction",
    "content",
    "body",
)
ID_FIELDS = ("id", "doc_id", "document_id", "reaction_id", "reactionId", "patent", "source")
TITLE_FIELDS = ("title", "heading")
TEXT_SUFFIXES = (".txt", ".text", ".md")
MAX_SNIPPET_CHARS = 6000
MIN_SNIPPET_CHARS = 60

_QUANTITY = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:mg|g|kg|ml|mL|l|L|µl|μl|µL|μL|mmol|mol|µmol|μmol|eq\.?|equiv\.?|°\s*C|° "
    r"C|ºC|K\b|%|M\b|N\b)",
)
_LAB_VERB = re.compile(
    r"\b(?:stirr|reflux|heat|add|dissolv|cool|filter|concentrat|evaporat|extract|wash|dri|purif|chromatograph|"
    r"recrystalli|quench|warm|treat|react|yield|obtain|afford|distill|suspend|hydrogenat|titrat)\w*",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[0-9])")


@dataclass(frozen=True)
class Snippet:
    """One paragraph of one document, with where it came from."""

    doc_id: str
    index: int
    text: str
    title: str | None = None
    source: str = ""

    @property
    def id(self) -> str:
        return f"{self.doc_id}#{self.index}"

    @property
    def text_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:20]


def looks_experimental(text: str) -> bool:
    """A procedure names amounts or temperatures and uses lab verbs ("stirred", "added",
    "yield")."""
    return bool(_QUANTITY.search(text)) and bool(_LAB_VERB.search(text))


def _is_heading(line: str) -> bool:
    words = line.split()
    return (
        0 < len(words) <= 25
        and len(line) <= 200
        and not line.rstrip().endswith((".", ":", ";", ","))
    )


def _windows(text: str, limit: int) -> list[str]:
    """Split an over-long paragraph at sentence ends into pieces of at most ``limit`` characters."""
    if len(text) <= limit:
        return [text]
    pieces, current = [], ""
    for sentence in _SENTENCE_END.split(text):
        if current and len(current) + 1 + len(sentence) > limit:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return [p[i : i + limit] for p in pieces for i in range(0, len(p), limit)]


def _unwrap(lines: list[str]) -> list[str]:
    """Paragraphs of hard-wrapped text (PDF extractions): a short line ending a sentence ends
    one."""
    width = sorted(map(len, lines))[int(len(lines) * 0.9)]
    blocks: list[str] = []
    current: list[str] = []
    for line in lines:
        if _is_heading(line) and len(line) < 0.6 * width:
            if current:
                blocks.append(" ".join(current))
                current = []
            blocks.append(line)
            continue
        current.append(line)
        if line.endswith((".", "!", "?")) and len(line) < 0.8 * width:
            blocks.append(" ".join(current))
            current = []
    if current:
        blocks.append(" ".join(current))
    return blocks


def split_paragraphs(text: str, max_chars: int = MAX_SNIPPET_CHARS) -> list[tuple[str | None, str]]:
    """(title, paragraph) pairs of a plain-text document; headings become the next paragraph's
    title."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    if len(blocks) <= 1 and text.count("\n") > 2:
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        blocks = lines if sum(map(len, lines)) / len(lines) > 200 else _unwrap(lines)
    out: list[tuple[str | None, str]] = []
    headings: list[str] = []
    for block in blocks:
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        while len(lines) > 1 and _is_heading(lines[0]):  # "Example 3\nStep 1: ...\n<procedure>"
            headings.append(lines.pop(0))
        body = " ".join(lines)
        if len(lines) == 1 and _is_heading(body):
            headings.append(body)
            continue
        title = " — ".join(headings[-2:]) if headings else None
        headings = []
        for piece in _windows(body, max_chars):
            out.append((title, piece))
    return out


def _opener(path: Path):
    return gzip.open if path.name.lower().endswith(".gz") else open


def _suffix(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    return Path(name).suffix


def _dig(record: dict[str, Any], dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _ord_text(record: dict[str, Any]) -> tuple[str | None, str | None]:
    """(text, id) of an ORD reaction record ({"reaction": {...}} or a bare reaction)."""
    reaction = record.get("reaction", record)
    if not isinstance(reaction, dict):
        return None, None
    text = _dig(reaction, "notes.procedureDetails")
    doc = _dig(reaction, "provenance.patent") or reaction.get("reactionId")
    return (text if isinstance(text, str) else None), (str(doc) if doc else None)


def _pick(record: dict[str, Any], field: str | None, fields: tuple[str, ...]) -> Any:
    if field:
        return _dig(record, field)
    for name in fields:
        if record.get(name) not in (None, ""):
            return record[name]
    return None


def read_snippets(
    path: Path,
    *,
    text_field: str | None = None,
    id_field: str | None = None,
    all_paragraphs: bool = False,
    max_chars: int = MAX_SNIPPET_CHARS,
) -> Iterator[Snippet]:
    """Snippets of one file (plain text, CSV/TSV, JSON Lines or a JSON list; ``.gz`` allowed)."""
    path = Path(path)
    if not path.is_file():
        raise ImportFileError(f"{path}: no such file")
    suffix = _suffix(path)
    if suffix in TEXT_SUFFIXES:
        try:
            with _opener(path)(path, "rt", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except (OSError, EOFError) as error:
            raise ImportFileError(f"{path}: cannot read: {error}") from error
        for index, (title, paragraph) in enumerate(split_paragraphs(text, max_chars)):
            if _keep(paragraph, all_paragraphs):
                yield Snippet(path.name, index, paragraph, title, str(path))
        return
    if suffix in (".csv", ".tsv"):
        rows = _csv_rows(path)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        rows = _json_rows(path)
    else:
        raise ImportFileError(
            f"{path}: cannot read snippets from a {suffix or 'suffix-less'} file; give .txt/.md "
            "(plain text), .csv/.tsv or .jsonl/.json (a paragraph per row)"
        )
    yield from _snippets_from_rows(path, rows, text_field, id_field, all_paragraphs, max_chars)


def _snippets_from_rows(
    path: Path,
    rows: Iterable[tuple[int, dict[str, Any]]],
    text_field: str | None,
    id_field: str | None,
    all_paragraphs: bool,
    max_chars: int,
) -> Iterator[Snippet]:
    seen_text_column = False
    first_keys: list[str] = []
    count = 0
    for line, record in rows:
        if not first_keys:
            first_keys = list(record)
        text, doc = (None, None) if text_field else _ord_text(record)
        if text is None:
            value = _pick(record, text_field, TEXT_FIELDS)
            text = value if isinstance(value, str) else None
        if text is None:
            continue
        seen_text_column = True
        ident = _pick(record, id_field, ID_FIELDS)
        doc_id = str(ident) if ident not in (None, "") else (doc or f"{path.name}:{line}")
        title = _pick(record, None, TITLE_FIELDS)
        for piece in _windows(" ".join(text.split()), max_chars):
            if _keep(piece, all_paragraphs):
                yield Snippet(doc_id, count, piece, str(title) if title else None, f"{path}:{line}")
                count += 1
    if not seen_text_column and first_keys:
        wanted = f"the field {text_field!r}" if text_field else f"any of {', '.join(TEXT_FIELDS)}"
        raise ImportFileError(
            f"{path}: no row has {wanted} with text (columns: {', '.join(first_keys[:20])}); "
            "name the paragraph column with --text-field"
        )


def _keep(text: str, all_paragraphs: bool) -> bool:
    if len(text) < MIN_SNIPPET_CHARS and not all_paragraphs:
        return False
    return all_paragraphs or looks_experimental(text)


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with _opener(path)(path, "rt", encoding="utf-8-sig", newline="") as handle:
        sample = handle.readline()
        handle.seek(0)
        dialect = "excel-tab" if sample.count("\t") > sample.count(",") else "excel"
        reader = csv.DictReader(handle, dialect=dialect)
        try:
            for line, row in enumerate(reader, start=2):
                yield line, {k.strip(): v for k, v in row.items() if k is not None}
        except csv.Error as error:
            raise ImportFileError(
                f"{path}: malformed CSV near line {reader.line_num}: {error}"
            ) from error


def _json_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with _opener(path)(path, "rt", encoding="utf-8") as handle:
        first = handle.read(1)
        while first and first.isspace():
            first = handle.read(1)
        handle.seek(0)
        if first == "[":
            try:
                records = json.load(handle)
            except json.JSONDecodeError as error:
                raise ImportFileError(
                    f"{path}: not valid JSON ({error.msg} at line {error.lineno})"
                ) from error
            for index, record in enumerate(records, start=1):
                if isinstance(record, dict):
                    yield index, record
            return
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise ImportFileError(
                    f"{path}: line {line} is not valid JSON ({error.msg}); truncated file?"
                ) from error
            if isinstance(record, dict):
                yield line, record


# -- documents ingested for literature RAG -----------------------------------------------------


def kb_has_documents(kb: KnowledgeBase) -> bool:
    """Whether papers were added to the KB (``chemground lit add``).

    Args:
        kb: the knowledge base (any backend).

    Returns:
        True when it stores at least one document.
    """
    return kb.paper_counts()[0] > 0


def snippets_from_kb(
    kb: KnowledgeBase,
    *,
    all_paragraphs: bool = False,
    max_chars: int = MAX_SNIPPET_CHARS,
    document_ids: list[str] | None = None,
) -> Iterator[Snippet]:
    """Snippets of the documents ingested for literature RAG (nothing when there are none).

    Each document's cleaned text is split into paragraphs like a plain-text file.

    Args:
        kb: the knowledge base (any backend).
        all_paragraphs: keep paragraphs that do not read like a procedure.
        max_chars: the longest snippet; longer paragraphs are split at sentences.
        document_ids: only these documents (default: all, by id).

    Returns:
        The snippets, document by document in id order.
    """
    for doc_id, title, text in kb.document_texts(document_ids):
        for index, (heading, paragraph) in enumerate(split_paragraphs(text or "", max_chars)):
            if _keep(paragraph, all_paragraphs):
                yield Snippet(str(doc_id), index, paragraph, heading or title, "kb:documents")
