"""Opening import files: regular files only, gzip by content, explicit text encodings.

Every text import is decoded strictly: a byte-order mark (UTF-8, UTF-16, UTF-32) chooses
the encoding, otherwise the file must be UTF-8 unless the caller names another encoding
(``kb import --encoding latin-1``). A file that does not decode is refused with the byte
offset and line of the first bad byte and the option to use; it is never guessed at, so a
name is never stored with the wrong characters. Truncated or corrupt gzip data, binary data
in a text format and special files (FIFOs, devices, which could block a read for ever) are
refused with an :class:`ImportFileError` naming the file.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from chemground.encodings import bom_encoding, normalise_encoding
from chemground.errors import ImportFileError

GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 8192
# what a damaged gzip stream raises while it is read
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


def check_encoding(encoding: str | None) -> str | None:
    """``encoding`` normalised (UTF-8 also strips a BOM), or ImportFileError if Python lacks it."""
    if encoding is None:
        return None
    try:
        return normalise_encoding(encoding)
    except ValueError as error:
        raise ImportFileError(str(error)) from None


def require_regular_file(path: Path) -> os.stat_result:
    """The file's stat, or ImportFileError when it is missing, a folder or a special file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ImportFileError(f"{path}: no such file") from None
    except OSError as error:
        raise ImportFileError(f"{path}: cannot read: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ImportFileError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ImportFileError(
            f"{path}: not a regular file (a FIFO, socket or device); refusing to read it"
        )
    return info


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


@contextmanager
def open_binary(path: Path) -> Iterator[IO[bytes]]:
    """The file's bytes, decompressed when it is gzip data (told by its content, not its name)."""
    path = Path(path)
    require_regular_file(path)
    compressed = is_gzip(path)
    if path.name.lower().endswith(".gz") and not compressed:
        raise ImportFileError(f"{path}: named .gz but not gzip data")
    try:
        with gzip.open(path, "rb") if compressed else open(path, "rb") as handle:
            yield handle
    except GZIP_ERRORS as error:
        raise ImportFileError(
            f"{path}: truncated or corrupt gzip data ({type(error).__name__}: {error})"
        ) from None


def sniff_encoding(path: Path, encoding: str | None = None) -> str:
    """The codec to decode ``path`` with: the caller's, else a BOM's, else UTF-8 (strict).

    Refuses binary data (see :func:`looks_binary`) in the first 8 KB of a file without a mark."""
    encoding = check_encoding(encoding)
    with open_binary(path) as handle:
        head = handle.read(_SNIFF_BYTES)
    if encoding is not None:
        return encoding
    found = bom_encoding(head)
    if found:
        return found
    nul = head.find(b"\x00")
    if nul >= 0 and looks_binary(head):
        raise ImportFileError(
            f"{path}: binary data, not text (a NUL byte at byte {nul}); if it is UTF-16 or "
            "UTF-32 text without a "
            "byte-order mark, pass --encoding utf-16-le (or utf-16-be, utf-32-le...)"
        )
    return "utf-8-sig"


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of a file that holds a NUL byte are binary data (or UTF-16/32
    without a mark) rather than text with a stray NUL, which is left to the row checks: more
    than 1 % NUL bytes, or bytes that are not UTF-8."""
    if head.count(b"\x00") * 100 > len(head):
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(head) - 3  # not just a character cut at the end of the sample
    return False


def decoding_error(path: Path, encoding: str, explicit: bool) -> ImportFileError:
    """The error for a file that does not decode: where the first bad byte is, and what to do."""
    where = first_bad_byte(path, encoding)
    shown = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
    place = f" at byte {where[0]:,} (line {where[1]:,}: {where[2]})" if where else ""
    if explicit:
        hint = "check the --encoding given"
    else:
        hint = (
            "if the file is in another encoding, pass it with --encoding (e.g. --encoding "
            "latin-1, cp1252 "
            "or utf-16)"
        )
    return ImportFileError(f"{path}: not valid {shown} text{place}; nothing was imported; {hint}")


def first_bad_byte(path: Path, encoding: str) -> tuple[int, int, str] | None:
    """(byte offset, line number, the bad bytes in hex) of the first undecodable byte."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    offset, line = 0, 1
    try:
        with open_binary(path) as handle:
            while True:
                block = handle.read(1 << 16)
                pending = decoder.getstate()[0]
                try:
                    text = decoder.decode(block, final=not block)
                except UnicodeDecodeError as error:
                    data = pending + block
                    good = data[: error.start]
                    line += good.decode(encoding, errors="replace").count("\n")
                    bad = data[error.start : error.end].hex(" ")
                    return offset - len(pending) + error.start, line, f"0x{bad}"
                line += text.count("\n")
                offset += len(block)
                if not block:
                    return None
    except (ImportFileError, OSError):
        return None


@contextmanager
def open_text(
    path: Path, encoding: str | None = None, newline: str | None = None
) -> Iterator[IO[str]]:
    """A text handle on ``path`` (see the module docstring); decoding and gzip errors that
    happen while the caller reads become ImportFileErrors naming the file."""
    path = Path(path)
    with _open_text(path, sniff_encoding(path, encoding), encoding is not None, newline) as handle:
        yield handle


@contextmanager
def _open_text(path: Path, codec: str, explicit: bool, newline: str | None) -> Iterator[IO[str]]:
    with open_binary(path) as binary:
        handle = io.TextIOWrapper(binary, encoding=codec, errors="strict", newline=newline)
        try:
            yield handle
        except UnicodeDecodeError:
            raise decoding_error(path, codec, explicit) from None
        finally:
            handle.detach()


class _Utf8Stream(io.RawIOBase):
    """Bytes of a text handle, re-encoded as UTF-8 (for readers that only take UTF-8 bytes)."""

    def __init__(self, text: IO[str]) -> None:
        self._text = text
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        while len(self._buffer) < len(target):
            piece = self._text.read(1 << 16)
            if not piece:
                break
            self._buffer += piece.encode("utf-8")
        n = min(len(target), len(self._buffer))
        target[:n] = self._buffer[:n]
        self._buffer = self._buffer[n:]
        return n


@contextmanager
def open_utf8_bytes(path: Path, encoding: str | None = None) -> Iterator[IO[bytes]]:
    """UTF-8 bytes of ``path`` for byte-oriented parsers (RDKit's SDF reader, fastobo): the file
    itself when it is UTF-8 without a BOM, else decoded with its encoding and re-encoded."""
    codec = sniff_encoding(path, encoding)
    if codec == "utf-8-sig" and encoding is None:
        with open_binary(path) as binary:
            if binary.read(3) != codecs.BOM_UTF8:
                binary.seek(0)
            yield binary
        return
    with _open_text(Path(path), codec, encoding is not None, None) as text:
        yield io.BufferedReader(_Utf8Stream(text), buffer_size=1 << 16)
