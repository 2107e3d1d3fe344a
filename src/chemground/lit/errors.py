"""Errors of the literature pipeline (all are ChemgroundErrors, so the CLI prints one line)."""

from __future__ import annotations

from chemground.errors import ChemgroundError, ImportFileError


class DocumentReadError(ImportFileError):
    """A paper that cannot be read: corrupt, truncated, empty, or in an unknown format."""


class EncryptedDocumentError(DocumentReadError):
    """A PDF protected by a password we do not have."""


class QACFormatError(ImportFileError):
    """A question-answer-context CSV that does not have the ChemLit-QA columns or values."""


class LitIndexError(ChemgroundError):
    """The literature index is missing, stale beyond repair, or inconsistent with the KB."""
