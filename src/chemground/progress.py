"""The one progress callback that long jobs take, and a no-op default.

Building a KB, importing files, exporting the graph, ingesting papers, embedding chunks and
running benchmarks all report progress the same way, so the CLI can show one Rich bar per
stage (``cli.common.StageProgress``) and the Python API can pass any callable, or nothing.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, "int | None"], None]
"""``progress(stage, advance, total)``: ``advance`` more units of ``stage`` are done; ``total`` is
the stage's size when known (repeat it or pass None; a new total replaces the old one)."""


def no_progress(stage: str, advance: int, total: int | None) -> None:
    """A progress callback that reports nothing (the default for library callers)."""
