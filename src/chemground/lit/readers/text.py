"""Plain-text and Markdown reader: the whole file is one block; cleaning finds headings.

Markdown headings (``# Results``) are kept as heading lines so section detection sees them.
Text is decoded strictly: a byte-order mark (UTF-8, UTF-16, UTF-32) chooses the encoding,
otherwise the file must be UTF-8 unless an encoding is given (``lit add --encoding
latin-1``). A file that does not decode is refused with the byte offset of the first bad
byte and the option to use, never read with guessed characters.
"""

from __future__ import annotations

from pathlib import Path

from chemground.encodings import bom_encoding, normalise_encoding
from chemground.lit.errors import DocumentReadError
from chemground.lit.records import Block, ParsedDocument


def check_encoding(encoding: str | None) -> str | None:
    """Python's name for ``encoding`` (UTF-8 also strips a BOM), or DocumentReadError."""
    if encoding is None:
        return None
    try:
        return normalise_encoding(encoding)
    except ValueError as error:
        raise DocumentReadError(str(error)) from None


def decode_text(raw: bytes, encoding: str | None = None, name: str = "the file") -> tuple[str, str]:
    """(text, encoding): the given encoding, else the BOM's, else strict UTF-8."""
    given = check_encoding(encoding)
    codec = given or bom_encoding(raw) or "utf-8-sig"
    if given is None and codec == "utf-8-sig":
        nul = raw.find(b"\x00", 0, 8192)
        if nul >= 0 and _looks_binary(raw[:8192]):
            raise DocumentReadError(
                f"{name}: binary data, not text (a NUL byte at byte {nul}); if it is UTF-16 or "
                "UTF-32 text without "
                "a byte-order mark, pass --encoding utf-16-le (or utf-16-be, utf-32-le...)"
            )
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as error:
        shown = "UTF-8" if codec == "utf-8-sig" else codec
        line = raw[: error.start].count(b"\n") + 1 if codec == "utf-8-sig" else None
        where = f"byte {error.start:,}" + (f" (line {line:,})" if line else "")
        bad = raw[error.start : error.end].hex(" ")
        hint = (
            "check the --encoding given"
            if given
            else "if the file is in another encoding, pass it with --encoding (e.g. --encoding "
            "latin-1 or cp1252)"
        )
        raise DocumentReadError(
            f"{name}: not valid {shown} text at {where}: 0x{bad}; {hint}"
        ) from None
    return text, codec.replace("-sig", "")


def _looks_binary(head: bytes) -> bool:
    """More than 1 % NUL bytes, or not UTF-8: binary data (or UTF-16/32 without a mark), not
    text with a stray NUL (which cleaning removes)."""
    if head.count(b"\x00") * 100 > len(head):
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(head) - 3
    return False


def read_text(path: Path, encoding: str | None = None) -> ParsedDocument:
    raw = path.read_bytes()
    text, encoding = decode_text(raw, encoding, path.name)
    del raw
    if not text.strip():
        raise DocumentReadError(f"{path.name}: empty text file")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    title = None
    for line in _first_lines(text):
        if line.strip():
            candidate = line.strip().lstrip("#").strip()
            if len(candidate) <= 200:
                title = candidate
            break
    metadata = {"encoding": encoding} if encoding != "utf-8" else {}
    return ParsedDocument(
        path=path, format="text", blocks=[Block(text)], title=title, metadata=metadata
    )


def _first_lines(text: str, limit: int = 100):
    """The first lines of ``text`` without splitting all of it (a file can be tens of MB)."""
    start = 0
    for _ in range(limit):
        end = text.find("\n", start)
        if end < 0:
            yield text[start : start + 10_000]
            return
        yield text[start:end]
        start = end + 1
