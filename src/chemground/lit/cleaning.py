"""Cleaning: from a reader's blocks to one clean text per paper, with a map back to pages.

What is removed, and why: reference lists (they match every query about a cited topic and
answer none), citation markers such as ``[12]``, ``[3-5]``, superscript ``¹²`` and
"(Smith et al., 2020)" (noise for retrieval and for readers of a snippet), and running
headers, footers and page numbers of PDFs (repeated on every page, they would glue journal
names into every chunk). What is kept: the title, headings (as their own paragraphs, so a
chunk shows which section it is in), body text and figure captions.

Blocks without a section (PDF pages, plain text) are split at heading lines first. The
result is the cleaned text plus :class:`TextSpan` s saying which page and section each part
came from; chunk offsets refer to this text, and it is what the KB stores.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from chemground.lit.records import Block, ParsedDocument, TextSpan

# -- headings ----------------------------------------------------------------------------
_SECTION_NAMES = (
    "abstract",
    "introduction",
    "background",
    "methods",
    "method",
    "materials and methods",
    "methods and materials",
    "experimental",
    "experimental section",
    "experimental details",
    "experimental procedures",
    "experimental methods",
    "computational methods",
    "computational details",
    "results",
    "discussion",
    "results and discussion",
    "conclusion",
    "conclusions",
    "conclusions and outlook",
    "summary",
    "outlook",
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "references",
    "bibliography",
    "literature cited",
    "notes and references",
    "references and notes",
    "supporting information",
    "supplementary information",
    "supplementary material",
    "associated content",
    "author information",
    "author contributions",
    "notes",
    "funding",
    "conflicts of interest",
    "conflict of interest",
    "competing interests",
    "data availability",
    "appendix",
    "keywords",
    "graphical abstract",
    "synthesis",
    "characterization",
)
_SECTION_RE = "|".join(re.escape(name) for name in sorted(_SECTION_NAMES, key=len, reverse=True))
_NUMBER = r"(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-H]\.)"
_KNOWN_HEADING = re.compile(
    rf"^\s*(?:{_NUMBER}\s+)?(?:■\s*)?(?:{_SECTION_RE})\s*:?\s*$", re.IGNORECASE
)
_NUMBERED_HEADING = re.compile(rf"^\s*{_NUMBER}\s+([A-Z][^\n.!?;:=]{{1,70}})$")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_REFERENCE_HEADING = re.compile(
    rf"^\s*(?:{_NUMBER}\s+)?(?:■\s*)?(?:references?(?:\s+and\s+notes)?|notes\s+and\s+references|bibliography|"
    r"literature\s+cited|works\s+cited|cited\s+literature|references\s+cited)\s*:?\s*$",
    re.IGNORECASE,
)
# sections that may follow a reference list and are worth keeping
_AFTER_REFERENCES = re.compile(
    r"^\s*(?:appendix|supporting information|supplementary|electronic supplementary)", re.IGNORECASE
)


def is_reference_heading(text: str) -> bool:
    return bool(_REFERENCE_HEADING.match(text.strip()))


def heading_of(line: str) -> str | None:
    """The section title if ``line`` is a heading line, else None."""
    stripped = line.strip()
    if not stripped or len(stripped) > 90:
        return None
    markdown = _MARKDOWN_HEADING.match(stripped)
    if markdown:
        return markdown.group(1).strip()
    if _KNOWN_HEADING.match(stripped):
        return _tidy_heading(stripped)
    numbered = _NUMBERED_HEADING.match(stripped)
    if (
        numbered
        and len(numbered.group(1).split()) <= 8
        and not re.search(r"\d\s*(?:g|mg|mL|mmol|°C|h)\b", stripped)
    ):
        return _tidy_heading(stripped)
    return None


def _tidy_heading(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("■", "")).strip().rstrip(":").strip()
    return text[:1].upper() + text[1:] if text.isupper() and len(text) > 3 else text


# -- citation markers ----------------------------------------------------------------------
_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_BRACKET_CITATION = re.compile(
    r"(?<![\w\[\]])\s?\[\s*\d{1,3}(?:\s*[-–—,]\s*\d{1,3})*\s*\](?![\w\-\[(])"
)
_SUPERSCRIPT_RUN = re.compile(
    rf"(?P<before>[A-Za-z)\].,;:]{{1}})(?P<sup>[{_SUPERSCRIPT_DIGITS}]+(?:[,‐\-–][{_SUPERSCRIPT_DIGITS}]+)*)"
    rf"(?![⁺⁻{_SUPERSCRIPT_DIGITS}])"
)
_AUTHOR_YEAR = re.compile(
    r"\s?\((?:(?:see\s+)?(?:e\.g\.,?\s+)?[A-Z][A-Za-z'’\-]+(?:\s+(?:et\s+al\.?|and|&)(?:\s+[A-Z][A-Za-z'’\-]+)?)?,?\s+"
    r"(?:19|20)\d{2}[a-z]?(?:\s*[;,]\s*)?)+\)"
)
# Linear-time patterns: a run of spaces is matched from its first character only (a pattern
# that could start anywhere in a run, or split it between two quantifiers, costs time
# quadratic in the run's length: 16 s for "(" and 20,000 spaces).
_EMPTY_BRACKETS = re.compile(r"\s?(?:\[[,;\s]*\]|\([,;\s]*\))")
_SPACE_BEFORE_PUNCT = re.compile(r"(?<![ \t])[ \t]+([.,;:!?](?:\s|$))")
# units after which a superscript number is an exponent, not a citation
_UNITS = {
    "m",
    "cm",
    "mm",
    "nm",
    "km",
    "dm",
    "pm",
    "um",
    "μm",
    "µm",
    "s",
    "ms",
    "g",
    "kg",
    "l",
    "ml",
    "mol",
    "k",
    "a",
    "v",
    "w",
    "j",
    "kj",
    "hz",
    "pa",
    "bar",
    "ev",
    "kcal",
    "cal",
    "h",
    "min",
    "sp",
    "mg",
    "dl",
    "ft",
    "in",
    "å",
}


def superscript_is_citation(text_before: str, superscript: str) -> bool:
    """Is a superscript number right after ``text_before`` a citation (not an exponent/charge)?

    Citations follow a word of three or more letters ("reported¹²", "studies³⁻⁵") or a
    closing punctuation mark ("known.⁴"); exponents follow units ("cm²", "mol⁻¹" — the
    latter never matches because it starts with a minus).
    """
    if not re.fullmatch(r"\s*[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+(?:\s*[,\-–‐]\s*[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)*\s*", superscript):
        return False
    before = text_before.rstrip()
    if not before:
        return False
    if before[-1] in ".,;:)]":
        return True
    word = re.search(r"([A-Za-zÅμµ]+)$", before)
    if not word:
        return False
    token = word.group(1)
    return len(token) >= 3 and token.lower() not in _UNITS


def strip_citations(text: str) -> tuple[str, int]:
    """Text without citation markers, and how many were removed."""
    removed = 0

    def drop(match: re.Match) -> str:
        nonlocal removed
        removed += 1
        return ""

    text = _BRACKET_CITATION.sub(drop, text)
    text = _AUTHOR_YEAR.sub(drop, text)

    def drop_superscript(match: re.Match) -> str:
        nonlocal removed
        start = match.start()
        context = text[max(0, start - 40) : start + 1]
        if superscript_is_citation(context, match.group("sup")):
            removed += 1
            return match.group("before")
        return match.group(0)

    text = _SUPERSCRIPT_RUN.sub(drop_superscript, text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return text, removed


# -- running headers and footers -----------------------------------------------------------
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$", re.IGNORECASE)
_EDGE_LINES = 3


def _line_key(line: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", line.strip().lower()))


def remove_running_lines(pages: list[str]) -> tuple[list[str], int]:
    """Drop lines repeated at the top or bottom of many pages (headers, footers) and bare
    page numbers. A line counts as running when it (digits ignored) is among the first or
    last three lines of at least half of the pages, and of two pages at least."""
    if not pages:
        return pages, 0
    split = [page.split("\n") for page in pages]
    edge_counts: Counter[str] = Counter()
    for lines in split:
        content = [i for i, line in enumerate(lines) if line.strip()]
        edges = set(content[:_EDGE_LINES] + content[-_EDGE_LINES:])
        edge_counts.update({_line_key(lines[i]) for i in edges})
    threshold = max(2, (len(pages) + 1) // 2)
    running = {key for key, count in edge_counts.items() if count >= threshold and len(key) > 1}
    removed = 0
    out = []
    for lines in split:
        content = [i for i, line in enumerate(lines) if line.strip()]
        edges = set(content[:_EDGE_LINES] + content[-_EDGE_LINES:])
        kept = []
        for i, line in enumerate(lines):
            if i in edges and (_line_key(line) in running or _PAGE_NUMBER.match(line)):
                removed += 1
                continue
            kept.append(line)
        out.append("\n".join(kept))
    return out, removed


# -- paragraphs ----------------------------------------------------------------------------
_LIST_ITEM = re.compile(r"^\s*(?:[-*•▪◦]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+")
_HYPHEN_BREAK = re.compile(r"([a-z])-\n([a-z])")


def reflow(text: str) -> str:
    """Join lines that a PDF or a hard-wrapped text file broke inside a paragraph.

    A blank line always ends a paragraph; so does a short line ending a sentence (the last
    line of a paragraph rarely reaches the right margin). Words hyphenated at a line break
    are joined ("hydro-\\ngen" -> "hydrogen").
    """
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    lines = [line.rstrip() for line in text.split("\n")]
    lengths = sorted(len(line) for line in lines if line.strip())
    typical = lengths[int(len(lengths) * 0.8)] if lengths else 0
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        if current and (_LIST_ITEM.match(line) or heading_of(stripped)):
            paragraphs.append(" ".join(current))
            current = []
        current.append(re.sub(r"[ \t]+", " ", stripped))
        ends_sentence = stripped[-1:] in ".!?:" and len(stripped) < 0.75 * typical
        if ends_sentence or heading_of(stripped):
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(p for p in paragraphs if p)


def split_at_headings(block: Block) -> list[Block]:
    """A block whose text contains heading lines, split into one block per section."""
    out: list[Block] = []
    section = block.section
    kind = block.kind
    current: list[str] = []

    def flush() -> None:
        if any(line.strip() for line in current):
            out.append(Block("\n".join(current), page=block.page, section=section, kind=kind))
        current.clear()

    for line in block.text.split("\n"):
        heading = heading_of(line)
        if heading:
            flush()
            section = heading
            if is_reference_heading(heading):
                kind = "references"
            elif kind == "references" and not _AFTER_REFERENCES.match(heading):
                kind = "references"  # a heading inside the reference list (e.g. "Notes")
            else:
                kind = "body"
            out.append(
                Block(
                    heading,
                    page=block.page,
                    section=section,
                    kind="references" if kind == "references" else "heading",
                )
            )
            continue
        current.append(line)
    flush()
    return out


_REFERENCE_ENTRY = re.compile(
    r"^\s*(?:\[\d{1,3}\]|\(\d{1,3}\)|\d{1,3}\.)\s+\S.*(?:19|20)\d{2}", re.IGNORECASE
)


def drop_trailing_reference_entries(text: str) -> tuple[str, int]:
    """Remove an unheaded bibliography at the end of a text: a run of at least three
    paragraphs that look like numbered reference entries with a year."""
    paragraphs = text.split("\n\n")
    cut = len(paragraphs)
    while cut > 0 and _REFERENCE_ENTRY.match(paragraphs[cut - 1]):
        cut -= 1
    if len(paragraphs) - cut >= 3:
        return "\n\n".join(paragraphs[:cut]), len(paragraphs) - cut
    return text, 0


# -- the whole document ----------------------------------------------------------------------
@dataclass
class CleaningReport:
    running_lines: int = 0
    citations: int = 0
    reference_blocks: int = 0
    reference_entries: int = 0


@dataclass
class CleanedDocument:
    text: str
    spans: list[TextSpan]
    report: CleaningReport = field(default_factory=CleaningReport)


def clean(parsed: ParsedDocument) -> CleanedDocument:
    """Cleaned text of ``parsed`` and where each part came from."""
    report = CleaningReport()
    blocks = list(parsed.blocks)
    paged = [b for b in blocks if b.page is not None]
    if len(paged) >= 2:
        texts, report.running_lines = remove_running_lines([b.text for b in paged])
        for block, text in zip(paged, texts):
            block.text = text
    # Unstructured blocks (PDF pages, plain text) are split at heading lines; structured ones
    # (XML, HTML) already carry their sections. The section carries across page breaks.
    split: list[Block] = []
    section: str | None = None
    in_references = False
    for block in blocks:
        if parsed.format in ("pdf", "text"):
            block.section = block.section or section
            if in_references:
                block.kind = "references"
            parts = split_at_headings(block)
            if parts:
                section = parts[-1].section
                in_references = parts[-1].kind == "references"
            split.extend(parts)
        else:
            split.append(block)
    pieces: list[tuple[str, Block]] = []
    for block in split:
        if block.kind == "references":
            report.reference_blocks += 1
            continue
        text = block.text if parsed.format in ("xml", "html") else reflow(block.text)
        text, removed = strip_citations(text)
        report.citations += removed
        text = _normalise_spaces(text)
        if text:
            pieces.append((text, block))
    if pieces and parsed.format in ("pdf", "text"):
        last_text, last_block = pieces[-1]
        trimmed, dropped = drop_trailing_reference_entries(last_text)
        report.reference_entries += dropped
        pieces[-1] = (trimmed, last_block)
        pieces = [(t, b) for t, b in pieces if t]
    parts: list[str] = []
    spans: list[TextSpan] = []
    position = 0
    for text, block in pieces:
        if parts:
            position += 2  # the "\n\n" between blocks
        spans.append(TextSpan(position, position + len(text), block.page, block.section))
        parts.append(text)
        position += len(text)
    return CleanedDocument("\n\n".join(parts), spans, report)


# control characters have no meaning in a paper's text; vertical tab, form feed (a page break)
# and the Unicode line/paragraph separators are line breaks
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029]")
_BREAKS = frozenset("\x0b\x0c\u2028\u2029")
_SPACES = re.compile(r"[ \t\u00a0]+")
_SPACED_NEWLINE = re.compile(r" ?\n ?")  # after _SPACES, a space never comes in a run


def _normalise_spaces(text: str) -> str:
    text = text.replace("\u00ad", "").replace("\u200b", "").replace("\ufeff", "")
    text = _CONTROL.sub(lambda m: "\n" if m.group() in _BREAKS else "", text)
    text = _SPACES.sub(" ", text)
    text = _SPACED_NEWLINE.sub("\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
