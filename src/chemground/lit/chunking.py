"""Recursive chunking of a cleaned paper, with exact offsets and page/section of each chunk.

semchunk splits recursively at the largest boundary that fits (blank lines, then line breaks,
sentence ends, clause punctuation, spaces), so a chunk ends at a paragraph or sentence end
whenever one is near, and it reports each chunk's character offsets. Sizes are counted in
characters (2,000 by default, as the ChemLit-QA chunks were); ``overlap`` repeats the end of
a chunk at the start of the next, so a sentence cut at a boundary is still whole somewhere.

A long text is chunked one segment (about a million characters, cut at a paragraph break
when there is one) at a time: semchunk holds every piece it splits a text into, which for
a text without separators is one string per character (1.2 GB for 20 MB of text), so
segments keep the memory bounded whatever the file, and the time linear.
"""

from __future__ import annotations

import bisect
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


def chunk_text(text: str, spans: list[TextSpan], size: int = DEFAULT_CHUNK_SIZE,
               overlap: int = DEFAULT_OVERLAP) -> list[ChunkSpan]:
    """Chunks of ``text`` (at most ``size`` characters each) with the page and section where
    each starts (and the page where it ends)."""
    if size < 50:
        raise ChemgroundError(f"chunk size {size} is too small (use at least 50 characters)")
    if overlap < 0 or overlap >= size:
        raise ChemgroundError(f"chunk overlap {overlap} must be at least 0 and smaller than the chunk size {size}")
    if not text.strip():
        return []
    chunker = _chunker(size)
    offsets: list[tuple[int, int]] = []
    for first, last in segments(text, max(SEGMENT_CHARS, 4 * size)):
        piece = text if (first, last) == (0, len(text)) else text[first:last]
        _, found = chunker(piece, offsets=True, overlap=overlap or None)
        offsets.extend((first + start, first + end) for start, end in found)
        del piece
    starts = [span.start for span in spans]
    out = []
    for start, end in offsets:
        if not text[start:end].strip():
            continue
        first = _span_at(spans, starts, start)
        last = _span_at(spans, starts, max(start, end - 1))
        out.append(ChunkSpan(
            start=start, end=end,
            page=first.page if first else None,
            page_end=last.page if last else None,
            section=first.section if first else None,
        ))
    return out


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
