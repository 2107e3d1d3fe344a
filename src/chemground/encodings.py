"""Text encodings of input files, decided one way for every reader and importer.

A byte-order mark (UTF-8, UTF-16, UTF-32) chooses the encoding; otherwise a file is UTF-8
unless the user names another (``--encoding latin-1``). Nothing is guessed, so a name is
never stored with the wrong characters. Readers turn the errors into their own types.
"""

from __future__ import annotations

import codecs

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def bom_encoding(head: bytes) -> str | None:
    """The encoding a byte-order mark at the start of ``head`` names, or None."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding
    return None


def normalise_encoding(encoding: str) -> str:
    """Python's name for ``encoding``, with UTF-8 read as utf-8-sig (a BOM is stripped).

    Raises:
        ValueError: Python has no codec of that name (the message gives examples).
    """
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(
            f"unknown text encoding {encoding!r} (e.g. utf-8, latin-1, cp1252, utf-16)"
        ) from None
    return "utf-8-sig" if name == "utf-8" else name
