"""Plain-text and Markdown reader: the whole file is one block; cleaning finds headings.

Markdown headings (``# Results``) are kept as heading lines so section detection sees them.
Text that is not UTF-8 is read as Windows-1252/Latin-1 (every byte maps to a character) and
the fallback is recorded in the document's metadata rather than failing the file.
"""

from __future__ import annotations

from pathlib import Path

from chemground.lit.errors import DocumentReadError
from chemground.lit.records import Block, ParsedDocument


def decode_text(raw: bytes) -> tuple[str, str]:
    """(text, encoding): UTF-8 (with or without BOM), else cp1252, else Latin-1."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding), encoding.replace("-sig", "")
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1"), "latin-1"


def read_text(path: Path) -> ParsedDocument:
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise DocumentReadError(f"{path.name}: binary data, not text (NUL bytes)")
    text, encoding = decode_text(raw)
    if not text.strip():
        raise DocumentReadError(f"{path.name}: empty text file")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    title = None
    for line in text.split("\n"):
        if line.strip():
            candidate = line.strip().lstrip("#").strip()
            if len(candidate) <= 200:
                title = candidate
            break
    metadata = {"encoding": encoding} if encoding != "utf-8" else {}
    return ParsedDocument(path=path, format="text", blocks=[Block(text)], title=title, metadata=metadata)
