"""Readers: one per file type, each turning a file into :class:`ParsedDocument` blocks.

The format is taken from the file's first bytes when they are decisive (``%PDF-``, an XML
declaration or root element, an HTML tag) and from the suffix otherwise, so a mislabelled
file is still read correctly and a truncated PDF is reported as such.
"""

from __future__ import annotations

from pathlib import Path

from chemground.encodings import bom_encoding
from chemground.lit.errors import DocumentReadError
from chemground.lit.readers.html import read_html
from chemground.lit.readers.pdf import read_pdf
from chemground.lit.readers.text import read_text
from chemground.lit.readers.xml import read_xml
from chemground.lit.records import ParsedDocument

FORMATS = ("pdf", "xml", "html", "text")
SUFFIXES = {
    ".pdf": "pdf",
    ".xml": "xml",
    ".nxml": "xml",
    ".jats": "xml",
    ".tei": "xml",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
    ".markdown": "text",
    ".rst": "text",
}
_READERS = {"pdf": read_pdf, "xml": read_xml, "html": read_html, "text": read_text}


def detect_format(path: Path) -> str:
    """One of FORMATS, or DocumentReadError saying why the file is not a paper we can read."""
    suffix = path.suffix.lower()
    by_suffix = SUFFIXES.get(suffix)
    with path.open("rb") as handle:
        head = handle.read(2048)
    bom = bom_encoding(head)
    if bom and bom != "utf-8-sig":  # UTF-16/32 text: sniff its characters, not its bytes
        head = head.decode(bom, errors="ignore").encode("utf-8")
    sniff = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if by_suffix == "pdf" or sniff.startswith(b"%pdf-"):
        return "pdf"  # the PDF reader reports a missing header as corruption
    if sniff.startswith((b"<!doctype html", b"<html")) or (
        by_suffix == "html" and sniff.startswith(b"<")
    ):
        return "html"
    if sniff.startswith((b"<?xml", b"<article", b"<tei")):
        return "html" if b"<html" in sniff[:400] else "xml"
    if by_suffix:
        return by_suffix
    if b"\x00" in head:
        raise DocumentReadError(
            f"{path.name}: unknown binary format (supported: PDF, JATS/TEI XML, HTML, text)"
        )
    return "text"


def read_document(
    path: Path, fmt: str | None = None, encoding: str | None = None
) -> ParsedDocument:
    """Read ``path`` with the reader for ``fmt`` (detected when not given). ``encoding`` is
    for text and HTML files that are neither UTF-8 nor marked by a byte-order mark (XML and
    HTML files usually declare their own)."""
    if not path.is_file():
        raise DocumentReadError(f"{path}: no such file")
    fmt = fmt or detect_format(path)
    if fmt not in _READERS:
        raise DocumentReadError(f"unknown document format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt in ("text", "html"):
        return _READERS[fmt](path, encoding)
    return _READERS[fmt](path)


__all__ = ["FORMATS", "SUFFIXES", "detect_format", "read_document"]
