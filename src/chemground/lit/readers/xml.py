"""XML reader for papers: JATS (PubMed Central, publishers) and TEI (GROBID output).

Structure does the cleaning here: reference lists (``ref-list`` / ``listBibl``) become
``references`` blocks that cleaning drops, and bibliographic cross-references
(``xref ref-type="bibr"`` / ``ref type="bibr"``) are removed before the text is taken, so
"as shown before [12]" loses its marker without guessing. Elements are matched by local
name, so namespaced and plain files read alike. The parser never fetches DTDs or entities.
"""

from __future__ import annotations

from pathlib import Path

from chemground.lit.cleaning import is_reference_heading
from chemground.lit.errors import DocumentReadError
from chemground.lit.readers.tree import remove_keep_tail
from chemground.lit.records import Block, ParsedDocument

_CITATION_XREF = {"bibr", "ref", "fn"}


def _local(tag: object) -> str:
    if not isinstance(tag, str):
        return ""  # comments and processing instructions
    return tag.rsplit("}", 1)[-1].lower()


def _parser():
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def read_xml(path: Path) -> ParsedDocument:
    from lxml import etree

    try:
        root = etree.parse(str(path), _parser()).getroot()
    except (etree.XMLSyntaxError, OSError) as error:
        raise DocumentReadError(f"{path.name}: malformed XML ({error})") from error
    if root is None:
        raise DocumentReadError(f"{path.name}: empty XML document")
    _drop_citation_refs(root)
    kind = _local(root.tag)
    if kind == "tei":
        blocks, title = _tei_blocks(root)
        fmt_detail = "tei"
    elif (
        kind == "article"
        or root.find(".//{*}article-meta") is not None
        or root.find(".//article-meta") is not None
    ):
        blocks, title = _jats_blocks(root)
        fmt_detail = "jats"
    else:
        blocks, title = _generic_blocks(root)
        fmt_detail = "xml"
    if not any(b.text.strip() for b in blocks if b.kind != "references"):
        raise DocumentReadError(f"{path.name}: the XML ({fmt_detail}) holds no paper text")
    return ParsedDocument(
        path=path, format="xml", blocks=blocks, title=title, metadata={"xml_flavour": fmt_detail}
    )


def _drop_citation_refs(root) -> None:
    """Remove reference cross-links but keep the text that follows them (the element's tail)."""
    for element in list(root.iter()):
        name = _local(element.tag)
        if name not in ("xref", "ref"):
            continue
        kind = (element.get("ref-type") or element.get("type") or "").lower()
        if kind not in _CITATION_XREF:
            continue
        if (
            name == "ref"
            and element.getparent() is not None
            and _local(element.getparent().tag) == "ref-list"
        ):
            continue  # a JATS <ref> inside <ref-list> is a bibliography entry, not a citation
        remove_keep_tail(element)


def _text(element) -> str:
    return " ".join("".join(element.itertext()).split())


def _children(element, *names: str):
    return [child for child in element if _local(child.tag) in names]


def _first(root, name: str):
    for element in root.iter():
        if _local(element.tag) == name:
            return element
    return None


# -- JATS --------------------------------------------------------------------------------
def _jats_blocks(root) -> tuple[list[Block], str | None]:
    blocks: list[Block] = []
    title_el = _first(root, "article-title")
    title = _text(title_el) if title_el is not None else None
    if title:
        blocks.append(Block(title, section="Title", kind="title"))
    for abstract in (e for e in root.iter() if _local(e.tag) == "abstract"):
        text = "\n\n".join(_text(p) for p in abstract.iter() if _local(p.tag) == "p") or _text(
            abstract
        )
        if text:
            blocks.append(Block(text, section="Abstract", kind="abstract"))
    body = _first(root, "body")
    if body is not None:
        _jats_section(body, None, blocks)
    back = _first(root, "back")
    if back is not None:
        for element in back:
            name = _local(element.tag)
            if name == "ref-list":
                blocks.append(Block(_text(element), section="References", kind="references"))
            elif name in ("sec", "ack", "app-group", "app"):
                _jats_section(element, None, blocks)
    return blocks, title


def _jats_section(element, section: str | None, blocks: list[Block]) -> None:
    for child in element:
        name = _local(child.tag)
        if name == "title":
            continue
        if name in ("sec", "ack", "app"):
            title_el = _children(child, "title")
            heading = (
                _text(title_el[0])
                if title_el
                else ("Acknowledgements" if name == "ack" else section)
            )
            kind = "references" if heading and _is_reference_heading(heading) else "body"
            if heading and heading != section:
                blocks.append(Block(heading, section=heading, kind="heading"))
            if kind == "references":
                blocks.append(Block(_text(child), section=heading, kind="references"))
            else:
                _jats_section(child, heading, blocks)
        elif name == "p":
            text = _text(child)
            if text:
                blocks.append(Block(text, section=section))
        elif name in ("fig", "table-wrap"):
            caption = _children(child, "caption")
            label = _children(child, "label")
            text = " ".join(_text(x) for x in (label + caption))
            if text:
                blocks.append(Block(text, section=section, kind="caption"))
        elif name in ("list", "disp-quote", "boxed-text", "statement"):
            text = _text(child)
            if text:
                blocks.append(Block(text, section=section))
        elif name == "ref-list":
            blocks.append(Block(_text(child), section="References", kind="references"))


# -- TEI (GROBID) ------------------------------------------------------------------------
def _tei_blocks(root) -> tuple[list[Block], str | None]:
    blocks: list[Block] = []
    header = _first(root, "teiheader")
    title = None
    if header is not None:
        for element in header.iter():
            if _local(element.tag) == "title" and _text(element):
                title = _text(element)
                break
        if title:
            blocks.append(Block(title, section="Title", kind="title"))
        abstract = next((e for e in header.iter() if _local(e.tag) == "abstract"), None)
        if abstract is not None:
            text = "\n\n".join(_text(p) for p in abstract.iter() if _local(p.tag) == "p") or _text(
                abstract
            )
            if text:
                blocks.append(Block(text, section="Abstract", kind="abstract"))
    text_el = _first(root, "text")
    if text_el is None:
        return blocks, title
    for part in text_el:
        name = _local(part.tag)
        if name in ("body", "back"):
            _tei_divs(part, None, blocks)
    return blocks, title


def _tei_divs(element, section: str | None, blocks: list[Block]) -> None:
    for child in element:
        name = _local(child.tag)
        if name == "div":
            head = _children(child, "head")
            heading = _text(head[0]) if head else section
            if child.get("type") in ("references", "bibliography") or (
                heading and _is_reference_heading(heading)
            ):
                blocks.append(
                    Block(_text(child), section=heading or "References", kind="references")
                )
                continue
            if heading and heading != section:
                blocks.append(Block(heading, section=heading, kind="heading"))
            _tei_divs(child, heading, blocks)
        elif name == "p":
            text = _text(child)
            if text:
                blocks.append(Block(text, section=section))
        elif name == "figure":
            text = " ".join(
                _text(x) for x in child if _local(x.tag) in ("head", "label", "figdesc")
            )
            if text:
                blocks.append(Block(text, section=section, kind="caption"))
        elif name == "listbibl":
            blocks.append(Block(_text(child), section="References", kind="references"))
        elif name in ("list", "formula", "quote"):
            text = _text(child)
            if text:
                blocks.append(Block(text, section=section))


# -- anything else -----------------------------------------------------------------------
def _generic_blocks(root) -> tuple[list[Block], str | None]:
    """Unknown XML: paragraphs where there are <p> elements, otherwise the whole text."""
    paragraphs = [_text(p) for p in root.iter() if _local(p.tag) in ("p", "para")]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        text = _text(root)
        paragraphs = [text] if text else []
    title_el = _first(root, "title")
    title = _text(title_el) if title_el is not None else None
    return [Block(p) for p in paragraphs], title or None


def _is_reference_heading(heading: str) -> bool:
    return is_reference_heading(heading)
