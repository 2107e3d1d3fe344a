"""Sentence spans and sentence windows, with offsets into the text they came from.

Questions about a paper are usually answered by one or two sentences, so retrieval scores
short windows of consecutive sentences (and keeps the best one as the snippet to show),
and QAC generation aligns context sentences to offsets. A regular expression is enough
here: a wrong split (after "Fig.") only shifts a window boundary, it loses no text.
"""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"(?<=[.!?])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9])|\n\s*\n")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Fig|Figs|Eq|Eqs|Ref|Refs|No|Nos|Tab|Vol|ca|approx|vs|al|e\.g|i\.e|cf|Dr|Prof|St|resp)\.)$"
)
WINDOW_SENTENCES = 2


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``; leading/trailing spaces excluded."""
    spans = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.start() + len(match.group(1) or "")
        if match.group(0).count("\n") < 2 and _ABBREVIATION.search(text[max(start, end - 8) : end]):
            continue  # "Fig. 2", "et al. The", "e.g. X": not a sentence end
        _append(text, start, end, spans)
        start = match.end()
    _append(text, start, len(text), spans)
    return spans


def _append(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def sentence_windows(text: str, size: int = WINDOW_SENTENCES) -> list[tuple[int, int]]:
    """(start, end) of every run of ``size`` consecutive sentences (stride one); a text with
    fewer sentences is one window."""
    spans = sentence_spans(text)
    if not spans:
        return []
    if len(spans) <= size:
        return [(spans[0][0], spans[-1][1])]
    return [(spans[i][0], spans[i + size - 1][1]) for i in range(len(spans) - size + 1)]
