"""lxml helpers shared by the HTML and XML readers."""

from __future__ import annotations


def remove_keep_tail(element) -> None:
    """Remove ``element`` (a citation marker) but keep the text that follows it."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail or ""
    previous = element.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail
    parent.remove(element)
