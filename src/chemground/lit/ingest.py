"""Adding papers: read, clean, chunk, find compound mentions, store; one file at a time.

Each file is added in one KB transaction (a crash leaves it absent, never half-stored).
A file whose bytes are already stored is skipped ("unchanged"), whatever its path; a file
at a stored path whose bytes changed replaces the older version ("updated"). A file that
cannot be read (corrupt, encrypted, empty, unknown format) is reported and the batch goes on.

Folders are walked without leaving them: a symbolic link is followed only when its target
lies inside the folder named, and special files (FIFOs, sockets, devices, which could block
a read for ever) are never opened; both are reported as skipped. A file larger than the
size limit (50 MB by default) is refused before it is read. A large file that is allowed is
read, cleaned and chunked in time linear in its size, and its chunks and their compound
mentions are made while they are stored, so they are never all in memory at once.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from chemground.agent.jsonsafe import fields_json
from chemground.chem.mentions import MemoryNameIndex, MentionFinder
from chemground.errors import ChemgroundError
from chemground.kb.store import KnowledgeBase
from chemground.lit.chunking import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, chunk_text
from chemground.lit.cleaning import clean
from chemground.lit.errors import DocumentReadError
from chemground.lit.readers import SUFFIXES, read_document
from chemground.lit.readers.text import check_encoding
from chemground.lit.records import Chunk, Document
from chemground.lit.store import LitStore, chunk_id_for, document_id_for
from chemground.progress import Progress

DEFAULT_MAX_FILE_MB = 50.0


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


@dataclass
class Skipped:
    """A path found in a folder and not read, with the reason (a warning, not a failure)."""

    path: str
    reason: str


@dataclass
class AddSummary:
    files: list[FileResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
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
            "files": [fields_json(f) for f in self.files],
            "added": self.count("added"),
            "updated": self.count("updated"),
            "unchanged": self.count("unchanged"),
            "failed": self.count("failed"),
            "chunks_added": self.chunks_added,
            "skipped": [fields_json(s) for s in self.skipped],
            "seconds": round(self.seconds, 3),
        }


def expand_paths(paths: Iterable[Path], skipped: list[Skipped] | None = None) -> list[Path]:
    """Files named directly, plus supported files found (recursively) in named folders.

    Inside a folder, symbolic links that lead out of it and special files are left out and
    recorded in ``skipped``; links to files inside it are kept (as their target, once)."""
    out: list[Path] = []
    for path in paths:
        path = Path(path).expanduser()
        if path.is_dir():
            out.extend(_walk_folder(path, skipped if skipped is not None else []))
        else:
            out.append(path)
    return list(dict.fromkeys(out))


def _walk_folder(folder: Path, skipped: list[Skipped]) -> list[Path]:
    root = folder.resolve()
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root, followlinks=False, onerror=None):
        here = Path(directory)
        dirnames.sort()
        names = [(name, False) for name in filenames] + [(name, True) for name in dirnames]
        for name, is_dir in sorted(names):
            entry = here / name
            if name.startswith(".") and not is_dir:
                continue
            try:
                info = entry.lstat()
            except OSError as error:
                skipped.append(Skipped(str(entry), f"cannot be read: {error.strerror or error}"))
                continue
            if stat.S_ISLNK(info.st_mode):
                target = _link_target(entry)
                if target is None:
                    if entry.suffix.lower() in SUFFIXES:
                        skipped.append(Skipped(str(entry), "broken symbolic link"))
                    continue
                if not target.is_relative_to(root):
                    if (
                        is_dir
                        or target.is_dir()
                        or entry.suffix.lower() in SUFFIXES
                        or target.suffix.lower() in SUFFIXES
                    ):
                        skipped.append(
                            Skipped(
                                str(entry), f"symbolic link to {target}, outside the folder {root}"
                            )
                        )
                    continue
                if is_dir:
                    continue  # inside the folder: its files are found where they are
                try:
                    info = target.stat()
                except OSError:
                    continue
                entry = target
            elif is_dir:
                continue
            if entry.suffix.lower() not in SUFFIXES and Path(name).suffix.lower() not in SUFFIXES:
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(Skipped(str(entry), "not a regular file (a FIFO, socket or device)"))
                continue
            found.append(entry)
    return sorted(dict.fromkeys(found))


def _link_target(link: Path) -> Path | None:
    """Where a symbolic link finally leads (all links resolved), or None if nowhere."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # missing target, or a loop of links
        return None
    return target


def file_sha256(path: Path) -> str:
    """SHA-256 of a regular file; refuses FIFOs and devices without blocking on them."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DocumentReadError(f"{path}: not a regular file (a FIFO, socket or device)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Ingestor:
    """Adds files to one KB with fixed chunking and mention-finding settings."""

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        overlap: int = DEFAULT_OVERLAP,
        find_mentions: bool = True,
        fmt: str | None = None,
        encoding: str | None = None,
        max_file_mb: float | None = DEFAULT_MAX_FILE_MB,
    ) -> None:
        if chunk_size < 50 or overlap < 0 or overlap >= chunk_size:
            raise ChemgroundError(
                f"bad chunking: size {chunk_size}, overlap {overlap} "
                "(need size >= 50 and 0 <= overlap < size)"
            )
        if max_file_mb is not None and max_file_mb <= 0:
            raise ChemgroundError(
                f"bad file size limit {max_file_mb} MB (give a positive number of MB)"
            )
        check_encoding(encoding)
        self.kb = kb
        self.store = LitStore(kb)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.find_mentions = find_mentions
        self.fmt = fmt
        self.encoding = encoding
        self.max_file_mb = max_file_mb
        self._finder: MentionFinder | None = None

    def finder(self) -> MentionFinder:
        if self._finder is None:
            self._finder = MentionFinder(kb=self.kb, names=MemoryNameIndex(self.kb), passages=True)
        return self._finder

    def add(self, paths: Iterable[Path], progress: Progress | None = None) -> AddSummary:
        summary = AddSummary()
        files = expand_paths(paths, summary.skipped)
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
        except Exception as error:
            result.status = "failed"
            result.error = (
                f"{Path(path).name}: unexpected {type(error).__name__} while reading: {error}"
            )
        result.seconds = round(time.perf_counter() - started, 3)
        return result

    def _add(self, path: Path, result: FileResult) -> None:
        if not path.exists():
            raise DocumentReadError(f"{path}: no such file")
        resolved = path.resolve()
        info = resolved.stat()
        if stat.S_ISDIR(info.st_mode):
            raise DocumentReadError(f"{path}: is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise DocumentReadError(
                f"{path}: not a regular file (a FIFO, socket or device); refusing to read it"
            )
        result.path = str(resolved)
        if info.st_size == 0:
            raise DocumentReadError(f"{path.name}: empty file (0 bytes)")
        limit = self.max_file_mb
        if limit is not None and info.st_size > limit * 1e6:
            raise DocumentReadError(
                f"{path.name}: {info.st_size / 1e6:,.1f} MB is over the {limit:g} MB limit for "
                "one file; "
                "split it, or raise the limit with --max-file-mb"
            )
        sha = file_sha256(resolved)
        existing = self.store.find_by_sha(sha)
        if existing is not None:
            result.status, result.document_id, result.title = (
                "unchanged",
                existing.id,
                existing.title,
            )
            result.format = existing.format
            result.chunks = len(self.store.chunks_of(existing.id))
            if existing.path != str(resolved):
                result.note = f"same content as {existing.path}, already stored as {existing.id}"
            return
        parsed = read_document(resolved, self.fmt, self.encoding)
        cleaned = clean(parsed)
        parsed.blocks = []  # the cleaned text is what is kept; let the blocks go
        if not cleaned.text.strip():
            raise DocumentReadError(f"{path.name}: no text left after cleaning")
        spans = chunk_text(cleaned.text, cleaned.spans, self.chunk_size, self.overlap)
        document_id = document_id_for(sha)
        metadata = dict(parsed.metadata)
        metadata.update(
            {
                "cleaning": fields_json(cleaned.report),
                "chunk_size": self.chunk_size,
                "chunk_overlap": self.overlap,
                "file_name": resolved.name,
            }
        )
        document = Document(
            id=document_id,
            sha256=sha,
            path=str(resolved),
            format=parsed.format,
            text=cleaned.text,
            title=parsed.title,
            n_pages=parsed.n_pages,
            metadata=metadata,
        )
        counted = {"mentions": 0}

        def chunks() -> Iterator[
            tuple[Chunk, list]
        ]:  # made as they are stored: memory stays bounded
            for seq, s in enumerate(spans):
                chunk = Chunk(
                    id=chunk_id_for(document_id, seq),
                    document_id=document_id,
                    seq=seq,
                    start=s.start,
                    end=s.end,
                    text=cleaned.text[s.start : s.end],
                    page=s.page,
                    page_end=s.page_end,
                    section=s.section,
                )
                found = self.finder().find_compounds(chunk.text) if self.find_mentions else []
                counted["mentions"] += len(found)
                yield chunk, found

        replace = [d.id for d in self.store.find_by_path(str(resolved)) if d.sha256 != sha]
        stored = self.store.insert_stream(document, chunks(), replace=replace)
        result.status = "updated" if replace else "added"
        if replace:
            result.note = f"replaced the earlier version ({', '.join(replace)})"
        result.document_id, result.title, result.format = document_id, parsed.title, parsed.format
        result.pages, result.chunks, result.characters = parsed.n_pages, stored, len(cleaned.text)
        result.mentions = counted["mentions"]
        result.cleaning = fields_json(cleaned.report)
