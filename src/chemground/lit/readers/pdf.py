"""PDF reader (pypdf): one block per page, so every chunk knows its page.

pypdf is pure Python, reads PDFs offline and says when a file is encrypted. Files that are
encrypted with an empty user password (permissions only) are opened; files that need a
password are refused with :class:`EncryptedDocumentError`. Running headers, footers and
section headings are handled by :mod:`chemground.lit.cleaning`, not here.
"""

from __future__ import annotations

import logging
from pathlib import Path

from chemground.lit.errors import DocumentReadError, EncryptedDocumentError
from chemground.lit.records import Block, ParsedDocument


def read_pdf(path: Path) -> ParsedDocument:
    try:
        from pypdf import PdfReader
        from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError
    except ImportError as error:  # pragma: no cover - pypdf is a dependency
        raise DocumentReadError("reading PDFs needs pypdf: pip install pypdf") from error
    with path.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" not in head:
        raise DocumentReadError(f"{path.name}: not a PDF (no %PDF- header in the first 1 KB)")
    # pypdf logs repairable damage as warnings; keep them out of the user's terminal.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (NotImplementedError, DependencyError) as error:
                raise EncryptedDocumentError(
                    f"{path.name}: encrypted PDF that pypdf cannot decrypt ({error})"
                ) from error
            if not opened:
                raise EncryptedDocumentError(
                    f"{path.name}: encrypted PDF (a password is needed to read it)"
                )
        pages = []
        for number, page in enumerate(reader.pages, start=1):
            pages.append(Block(text=page.extract_text() or "", page=number))
        title = _title(reader)
    except (EncryptedDocumentError, DocumentReadError):
        raise
    except FileNotDecryptedError as error:
        raise EncryptedDocumentError(f"{path.name}: encrypted PDF ({error})") from error
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        AssertionError,
        OSError,
        RecursionError,
        ZeroDivisionError,
    ) as error:  # what damaged files raise inside pypdf
        raise DocumentReadError(
            f"{path.name}: corrupt or unreadable PDF ({type(error).__name__}: {error})"
        ) from error
    if not any(block.text.strip() for block in pages):
        raise DocumentReadError(
            f"{path.name}: the PDF has {len(pages)} page(s) but no extractable text (a scan "
            "needs OCR first)"
        )
    return ParsedDocument(path=path, format="pdf", blocks=pages, title=title, n_pages=len(pages))


def _title(reader) -> str | None:
    from pypdf.errors import PyPdfError

    try:
        info = reader.metadata
    except (PyPdfError, KeyError, ValueError, TypeError):
        return None  # broken metadata must not stop text extraction; the title is optional
    title = getattr(info, "title", None) if info else None
    if (
        isinstance(title, str)
        and title.strip()
        and title.strip().lower() not in {"untitled", "microsoft word"}
    ):
        return title.strip()
    return None
