"""Chunking of a cleaned paper, with exact offsets and page/section of each chunk.

The promise a chunk size makes: a text at or under ``size`` characters is one chunk, whole
(re-splitting a 1,000-character passage into 897 + 142 only makes a worse pair of chunks);
a longer text is cut into chunks of at most ``size`` characters, and only then does
``overlap`` apply, between neighbouring chunks of that text.

How a longer text is cut. semchunk splits recursively at the largest boundary that fits
(blank lines, then line breaks, sentence ends, clause punctuation, spaces) into "cores" of at
most ``size - overlap`` characters, so a chunk ends at a paragraph or sentence end whenever
one is near. Each core after the first is then extended backwards by at most ``overlap``
characters, to the earliest sentence (else word) start in that reach, so a sentence cut at a
boundary is still whole somewhere and every chunk still fits in ``size``. (semchunk's own
overlap mode is not used: with it, texts well under ``size`` came back in two pieces: 432 of
the 606 ChemLit-QA passages, e.g. 1,672 characters as 1,089 + 662.)

A long text is chunked one segment (about a million characters, cut at a paragraph break
when there is one) at a time: semchunk holds every piece it splits a text into, which for
a text without separators is one string per character (1.2 GB for 20 MB of text), so
segments keep the memory bounded whatever the file, and the time linear.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from chemground.errors import ChemgroundError
from chemground.lit.records import TextSpan

DEFAULT_CHUNK_SIZE = 2000
DEFAULT_OVERLAP = 200
SEGMENT_CHARS = 1_000_000  # the most text handed to semchunk at once


@dataclass(frozen=True)
class ChunkSpan:
    start: int
    end: int
    page: int | None
    page_end: int | None
    section: str | None


@lru_cache(maxsize=8)
def _chunker(size: int):
    import semchunk

    return semchunk.chunkerify(len, chunk_size=size)


def chunk_text(
    text: str, spans: list[TextSpan], size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[ChunkSpan]:
    """Chunks of ``text`` with the page and section where each starts (and the page where it ends).

    Args:
        text: the cleaned text of one document.
        spans: its page/section spans (may be empty).
        size: the largest chunk, in characters; a text this long or shorter stays whole.
        overlap: characters a chunk of a longer text may repeat from the end of the one before.

    Returns:
        Chunk spans in text order; ``text[start:end]`` is the chunk, at most ``size`` long.

    Raises:
        ChemgroundError: when ``size`` is below 50 or ``overlap`` is not in ``[0, size)``.
    """
    if size < 50:
        raise ChemgroundError(f"chunk size {size} is too small (use at least 50 characters)")
    if overlap < 0 or overlap >= size:
        raise ChemgroundError(
            f"chunk overlap {overlap} must be at least 0 and smaller than the chunk size {size}"
        )
    if not text.strip():
        return []
    offsets = chunk_offsets(text, size, overlap)
    starts = [span.start for span in spans]
    out = []
    for start, end in offsets:
        first = _span_at(spans, starts, start)
        last = _span_at(spans, starts, max(start, end - 1))
        out.append(
            ChunkSpan(
                start=start,
                end=end,
                page=first.page if first else None,
                page_end=last.page if last else None,
                section=first.section if first else None,
            )
        )
    return out


def chunk_offsets(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """(start, end) of each chunk of ``text`` (see the module docstring); surrounding
    whitespace is left out of a chunk, and whitespace-only pieces are dropped."""
    first, last = _strip(text, 0, len(text))
    if first >= last:
        return []
    if last - first <= size:
        return [(first, last)]  # fits: one chunk, whatever the overlap
    chunker = _chunker(size - overlap)
    cores: list[tuple[int, int]] = []
    for seg_start, seg_end in segments(text, max(SEGMENT_CHARS, 4 * size)):
        piece = text if (seg_start, seg_end) == (0, len(text)) else text[seg_start:seg_end]
        _, found = chunker(piece, offsets=True)
        for start, end in found:
            start, end = _strip(text, seg_start + start, seg_start + end)
            if start < end:
                cores.append((start, end))
        del piece
    out = []
    for i, (start, end) in enumerate(cores):
        if i and overlap:
            start = _overlap_start(text, start, max(cores[i - 1][0], start - overlap))
        out.append((start, end))
    return out


_SENTENCE_START = re.compile(r"(?:(?<=[.!?])[\"')\]]*\s+|\n\s*)(?=\S)")
_WORD_START = re.compile(r"(?<=\s)(?=\S)")


def _overlap_start(text: str, start: int, reach: int) -> int:
    """The earliest sentence start (else word start) in ``text[reach:start]``; ``start`` when
    there is none, so an overlap never begins in the middle of a word."""
    if reach >= start:
        return start
    window = text[reach:start]
    for pattern in (_SENTENCE_START, _WORD_START):
        for match in pattern.finditer(window):
            if match.end() < len(window):
                return reach + match.end()
    return start


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def segments(text: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) of consecutive parts of ``text``, each at most ``limit`` characters, cut at a
    paragraph break (else a line break, else a space) in the second half of the limit when
    there is one there."""
    out = []
    start, length = 0, len(text)
    while length - start > limit:
        end = start + limit
        low = start + limit // 2
        cut = text.rfind("\n\n", low, end)
        if cut < 0:
            cut = text.rfind("\n", low, end)
        if cut < 0:
            cut = text.rfind(" ", low, end)
        cut = end if cut <= start else cut
        out.append((start, cut))
        start = cut
    out.append((start, length))
    return out


def _span_at(spans: list[TextSpan], starts: list[int], offset: int) -> TextSpan | None:
    if not spans:
        return None
    index = bisect.bisect_right(starts, offset) - 1
    return spans[max(index, 0)]
