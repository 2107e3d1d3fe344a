"""Errors users see.

Every error chemground raises on bad input is a ``ChemgroundError`` whose message says what
could not be handled and why, so the CLI can print it and exit non-zero without a traceback.
"""

from __future__ import annotations


class ChemgroundError(Exception):
    """Base class: a problem the user can act on (bad input, missing data, bad config)."""


class StructureError(ChemgroundError, ValueError):
    """A SMILES or InChI string that does not describe a valid structure."""


class NameResolutionError(ChemgroundError, LookupError):
    """A chemical name that neither the dictionary nor OPSIN could turn into a structure."""


class NotFoundError(ChemgroundError, LookupError):
    """A record (compound, reaction, document) that is not in the knowledge base."""


class ImportFileError(ChemgroundError):
    """A file that cannot be imported (malformed, truncated, missing columns)."""


class ConfigError(ChemgroundError):
    """A setting that is missing or invalid."""


class ExternalToolError(ChemgroundError, RuntimeError):
    """A helper program (Java for OPSIN, an LLM endpoint...) is missing or failed."""


class InputLimitError(ChemgroundError, ValueError):
    """An input over one of the size or sanity limits checked before any costly work.

    For example a question longer than ``max_question_chars``, a SMILES with too many atoms, or a
    name too long for OPSIN.
    """


class StructureLimitError(StructureError, InputLimitError):
    """A SMILES or InChI refused before RDKit parses it: too long, too many atoms, an absurd
    charge."""


class NameLimitError(NameResolutionError, InputLimitError):
    """A name refused before the dictionary or OPSIN sees it: too long, or with control
    characters."""


# --- quoting user input in messages ----------------------------------------------------------

PREVIEW_CHARS = 60
MESSAGE_CHARS = 300


def preview(text: object, limit: int = PREVIEW_CHARS) -> str:
    """``text`` quoted for an error message, at most about ``limit`` characters of it.

    Short text is quoted whole (``repr``, so control characters and lone surrogates show as
    escapes and never reach a terminal or a JSON encoder raw); long text is cut, with its
    length: ``'CCCCCCCC…' (20,000 characters)``. Every message that echoes what a user typed
    goes through here, so a 60 KB input cannot make a 240 KB error.
    """
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit and len(quoted := repr(text)) <= 2 * limit + 2:
        return quoted
    head = text[:limit]
    while len(repr(head)) > 2 * limit + 2 and len(head) > 8:  # escapes (\udc80) take 6 characters
        head = head[: len(head) // 2]
    return f"{head!r}… ({len(text):,} characters)"


def clip(message: object, limit: int = MESSAGE_CHARS) -> str:
    """A message from another program (RDKit, OPSIN) cut to ``limit`` characters: they echo
    their input, which may be huge. Control characters and lone surrogates are escaped."""
    text = message if isinstance(message, str) else str(message)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text):,} characters)"
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return text


def control_character(text: str) -> str | None:
    """A description of the first control character (C0/C1, DEL) or lone surrogate in ``text``,
    or None: such characters are never part of a chemical name, SMILES or question."""
    if text.isprintable():
        return None
    for position, ch in enumerate(text):
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0:
            return f"a control character (U+{code:04X}) at position {position + 1}"
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate (U+{code:04X}) at position {position + 1}"
    return None
