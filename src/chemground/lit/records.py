"""What the literature pipeline passes around: parsed blocks, stored documents and chunks.

A reader turns a file into :class:`ParsedDocument` blocks (text with its page and section);
cleaning and chunking turn those into one cleaned text per document and :class:`Chunk` spans
of it, so every chunk can be cited by document, page/section and character offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BlockKind = str  # "title" | "abstract" | "heading" | "body" | "caption" | "references"


@dataclass
class Block:
    """A run of text from one page and one section of the source."""

    text: str
    page: int | None = None  # 1-based page number (PDF); None where the format has no pages
    section: str | None = None
    kind: BlockKind = "body"


@dataclass
class ParsedDocument:
    """A file as its reader saw it, before cleaning."""

    path: Path
    format: str  # pdf | xml | html | text
    blocks: list[Block]
    title: str | None = None
    n_pages: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TextSpan:
    """Where a block of the source landed in the cleaned text."""

    start: int
    end: int
    page: int | None
    section: str | None


@dataclass
class Chunk:
    """A stored passage: ``text == document.text[start:end]``."""

    id: str
    document_id: str
    seq: int
    start: int
    end: int
    text: str
    page: int | None = None
    page_end: int | None = None
    section: str | None = None

    def location(self) -> str:
        """Human-readable place in the source: "p. 3-4, Results, chars 1200-3180"."""
        parts = []
        if self.page is not None:
            parts.append(
                f"p. {self.page}"
                if self.page_end in (None, self.page)
                else f"pp. {self.page}-{self.page_end}"
            )
        if self.section:
            parts.append(self.section)
        parts.append(f"chars {self.start}-{self.end}")
        return ", ".join(parts)


@dataclass
class Document:
    """A stored paper: its cleaned text is what chunk offsets refer to."""

    id: str
    sha256: str
    path: str
    format: str
    text: str
    title: str | None = None
    n_pages: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    added_at: str = ""
