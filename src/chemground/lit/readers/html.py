"""HTML reader: trafilatura finds the article text (no menus, footers, cookie banners).

Before extraction, superscript citation links (``<sup><a href="#ref1">1</a></sup>``) are
removed with lxml; otherwise they would be glued to the preceding word ("hard.1"). The
extractor's XML output keeps headings, so blocks carry their section, and a "References"
section becomes a ``references`` block that cleaning drops.
"""

from __future__ import annotations

import re
from pathlib import Path

from chemground.lit.cleaning import is_reference_heading, superscript_is_citation
from chemground.lit.errors import DocumentReadError
from chemground.lit.readers.text import check_encoding
from chemground.lit.readers.tree import remove_keep_tail
from chemground.lit.records import Block, ParsedDocument

_CITATION_SUP = re.compile(r"^[\s\d,\-–—\[\]()]+$")


def html_dependencies():
    """(trafilatura, lxml.etree, lxml.html), or DocumentReadError naming what is really missing.

    trafilatura's own import can fail on a module it needs rather than on itself: with lxml 6,
    ``lxml.html.clean`` is the separate package ``lxml_html_clean`` (used by jusText)."""
    try:
        import trafilatura
        from lxml import etree
        from lxml import html as lxml_html
    except ImportError as error:
        missing = getattr(error, "name", None) or ""
        package = {"lxml.html.clean": "lxml_html_clean", "lxml_html_clean": "lxml_html_clean"}.get(
            missing, missing.split(".")[0]
        )
        hint = f"; install it: pip install {package}" if package else ""
        raise DocumentReadError(
            "reading HTML needs trafilatura and lxml, and importing them failed: "
            f"{type(error).__name__}: "
            f"{error}{hint}"
        ) from error
    return trafilatura, etree, lxml_html


def read_html(path: Path, encoding: str | None = None) -> ParsedDocument:
    trafilatura, etree, lxml_html = html_dependencies()
    raw = path.read_bytes()
    if not raw.strip():
        raise DocumentReadError(f"{path.name}: empty HTML file")
    if (
        b"\x00" in raw[:4096]
        and not raw.startswith((b"\xff\xfe", b"\xfe\xff"))
        and encoding is None
    ):
        raise DocumentReadError(f"{path.name}: binary data, not HTML (NUL bytes)")
    try:
        if encoding is not None:
            text = raw.decode(check_encoding(encoding) or "utf-8")
            tree = lxml_html.fromstring(
                text.encode("utf-8"), parser=lxml_html.HTMLParser(encoding="utf-8")
            )
        else:
            tree = lxml_html.fromstring(raw)
    except UnicodeDecodeError as error:
        raise DocumentReadError(
            f"{path.name}: not valid {encoding} text at byte {error.start:,}; "
            "check the --encoding given"
        ) from None
    except (etree.ParserError, ValueError) as error:
        raise DocumentReadError(f"{path.name}: unreadable HTML ({error})") from error
    page_title = (tree.findtext(".//title") or "").strip() or None
    _strip_citation_superscripts(tree)
    cleaned = lxml_html.tostring(tree, encoding="unicode")
    extracted = trafilatura.extract(
        cleaned,
        output_format="xml",
        include_comments=False,
        include_tables=False,
        include_images=False,
        favor_recall=True,
        with_metadata=True,
        deduplicate=False,
    )
    if not extracted:
        raise DocumentReadError(f"{path.name}: no article text found in the HTML")
    try:
        doc = etree.fromstring(extracted.encode("utf-8"))
    except etree.XMLSyntaxError as error:  # pragma: no cover - trafilatura writes valid XML
        raise DocumentReadError(
            f"{path.name}: the HTML extractor returned malformed XML ({error})"
        ) from error
    title = doc.get("title") or page_title
    blocks: list[Block] = []
    section: str | None = None
    in_references = False
    main = doc.find("main")
    for element in main if main is not None else doc:
        text = " ".join("".join(element.itertext()).split())
        if not text:
            continue
        if element.tag == "head":
            if title and text == title and not blocks:
                blocks.append(Block(text, section="Title", kind="title"))
                continue
            section = text
            in_references = is_reference_heading(text)
            blocks.append(
                Block(text, section=section, kind="references" if in_references else "heading")
            )
        else:
            blocks.append(
                Block(text, section=section, kind="references" if in_references else "body")
            )
    if not any(b.kind in ("body", "abstract") for b in blocks):
        raise DocumentReadError(f"{path.name}: no article text found in the HTML")
    return ParsedDocument(path=path, format="html", blocks=blocks, title=title)


def _strip_citation_superscripts(tree) -> None:
    """Drop superscript citation numbers: linked ones always, unlinked ones only where the
    word before them is not a unit (so "m<sup>2</sup>" keeps its exponent)."""
    for sup in list(tree.iter("sup")):
        text = sup.text_content()
        if not _CITATION_SUP.match(text or "x"):
            continue
        linked = bool(sup.findall(".//a"))
        if linked or superscript_is_citation(_text_before(sup), text):
            remove_keep_tail(sup)
    for link in list(tree.iter("a")):
        href = link.get("href") or ""
        if (
            href.startswith("#")
            and re.search(r"(ref|bib|cite|cr)\w*\d", href, re.IGNORECASE)
            and _CITATION_SUP.match(link.text_content().strip() or "x")
        ):
            remove_keep_tail(link)


def _text_before(element) -> str:
    previous = element.getprevious()
    if previous is not None:
        return previous.tail or ""
    parent = element.getparent()
    return (parent.text or "") if parent is not None else ""
