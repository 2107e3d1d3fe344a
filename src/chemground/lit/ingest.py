"""Adding papers: read, clean, chunk, find compound mentions, store; one file at a time.

Each file is added in one KB transaction (a crash leaves it absent, never half-stored).
A file whose bytes are already stored is skipped ("unchanged"), whatever its path; a file
at a stored path whose bytes changed replaces the older version ("updated"). A file that
cannot be read (corrupt, encrypted, empty, unknown format) is reported and the batch goes on.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from chemground.errors import ChemgroundError
from chemground.kb.sqlite_store import SQLiteKB
from chemground.lit.chunking import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, chunk_text
from chemground.lit.cleaning import clean
from chemground.lit.errors import DocumentReadError
from chemground.lit.mentions import MemoryNameIndex, MentionFinder
from chemground.lit.readers import SUFFIXES, read_document
from chemground.lit.records import Chunk, Document
from chemground.lit.store import LitStore, chunk_id_for, document_id_for

Progress = Callable[[str, int, int | None], None]


@dataclass
class FileResult:
    path: str
    status: str  # added | updated | unchanged | failed
    document_id: str | None = None
    title: str | None = None
    format: str | None = None
    pages: int | None = None
    chunks: int = 0
    characters: int = 0
    mentions: int = 0
    cleaning: dict = field(default_factory=dict)
    error: str | None = None
    note: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class AddSummary:
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def chunks_added(self) -> int:
        return sum(f.chunks for f in self.files if f.status in ("added", "updated"))

    @property
    def changed(self) -> bool:
        return any(f.status in ("added", "updated") for f in self.files)

    def to_dict(self) -> dict:
        return {
            "files": [f.to_dict() for f in self.files], "added": self.count("added"), "updated": self.count("updated"),
            "unchanged": self.count("unchanged"), "failed": self.count("failed"), "chunks_added": self.chunks_added,
            "seconds": round(self.seconds, 3),
        }


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files named directly, plus supported files found (recursively) in named folders."""
    out: list[Path] = []
    for path in paths:
        path = Path(path).expanduser()
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES
                              and not p.name.startswith(".")))
        else:
            out.append(path)
    return list(dict.fromkeys(out))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Ingestor:
    """Adds files to one KB with fixed chunking and mention-finding settings."""

    def __init__(self, kb: SQLiteKB, *, chunk_size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP,
                 find_mentions: bool = True, fmt: str | None = None) -> None:
        if chunk_size < 50 or overlap < 0 or overlap >= chunk_size:
            raise ChemgroundError(f"bad chunking: size {chunk_size}, overlap {overlap} "
                                  "(need size >= 50 and 0 <= overlap < size)")
        self.kb = kb
        self.store = LitStore(kb)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.find_mentions = find_mentions
        self.fmt = fmt
        self._finder: MentionFinder | None = None

    def finder(self) -> MentionFinder:
        if self._finder is None:
            self._finder = MentionFinder(self.kb, names=MemoryNameIndex(self.kb))
        return self._finder

    def add(self, paths: Iterable[Path], progress: Progress | None = None) -> AddSummary:
        files = expand_paths(paths)
        summary = AddSummary()
        started = time.perf_counter()
        if progress:
            progress("files", 0, len(files))
        for path in files:
            summary.files.append(self.add_file(path))
            if progress:
                progress("files", 1, None)
        summary.seconds = time.perf_counter() - started
        return summary

    def add_file(self, path: Path) -> FileResult:
        started = time.perf_counter()
        result = FileResult(path=str(path), status="failed")
        try:
            self._add(Path(path), result)
        except ChemgroundError as error:
            result.status, result.error = "failed", str(error)
        except Exception as error:  # noqa: BLE001 - a parser bug on one file must not stop the batch
            result.status = "failed"
            result.error = f"{Path(path).name}: unexpected {type(error).__name__} while reading: {error}"
        result.seconds = round(time.perf_counter() - started, 3)
        return result

    def _add(self, path: Path, result: FileResult) -> None:
        if not path.exists():
            raise DocumentReadError(f"{path}: no such file")
        if not path.is_file():
            raise DocumentReadError(f"{path}: not a regular file")
        resolved = path.resolve()
        result.path = str(resolved)
        sha = file_sha256(resolved)
        existing = self.store.find_by_sha(sha)
        if existing is not None:
            result.status, result.document_id, result.title = "unchanged", existing.id, existing.title
            result.format = existing.format
            result.chunks = len(self.store.chunks_of(existing.id))
            if existing.path != str(resolved):
                result.note = f"same content as {existing.path}, already stored as {existing.id}"
            return
        parsed = read_document(resolved, self.fmt)
        cleaned = clean(parsed)
        if not cleaned.text.strip():
            raise DocumentReadError(f"{path.name}: no text left after cleaning")
        spans = chunk_text(cleaned.text, cleaned.spans, self.chunk_size, self.overlap)
        document_id = document_id_for(sha)
        chunks = [
            Chunk(id=chunk_id_for(document_id, seq), document_id=document_id, seq=seq, start=s.start, end=s.end,
                  text=cleaned.text[s.start:s.end], page=s.page, page_end=s.page_end, section=s.section)
            for seq, s in enumerate(spans)
        ]
        mentions = [self.finder().find(c.text) for c in chunks] if self.find_mentions else None
        metadata = dict(parsed.metadata)
        metadata.update({"cleaning": cleaned.report.to_dict(), "chunk_size": self.chunk_size,
                         "chunk_overlap": self.overlap, "file_name": resolved.name})
        document = Document(id=document_id, sha256=sha, path=str(resolved), format=parsed.format, text=cleaned.text,
                            title=parsed.title, n_pages=parsed.n_pages, metadata=metadata)
        replace = [d.id for d in self.store.find_by_path(str(resolved)) if d.sha256 != sha]
        self.store.insert(document, chunks, mentions, replace=replace)
        result.status = "updated" if replace else "added"
        if replace:
            result.note = f"replaced the earlier version ({', '.join(replace)})"
        result.document_id, result.title, result.format = document_id, parsed.title, parsed.format
        result.pages, result.chunks, result.characters = parsed.n_pages, len(chunks), len(cleaned.text)
        result.mentions = sum(len(m) for m in mentions) if mentions else 0
        result.cleaning = cleaned.report.to_dict()
