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
