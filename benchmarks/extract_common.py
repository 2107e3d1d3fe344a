"""Shared plumbing of the extraction benchmarks: data location, the reused KB, result sections."""

from __future__ import annotations

import re
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "reactions"
RESULTS = REPO / "benchmarks" / "results" / "extract.md"
WORK = Path("/tmp/chemground-extract-bench")
HEADER = (
    "# Extraction (issue 4)\n\nWritten by `benchmarks/extract_*.py`; each script replaces its own "
    "section. "
    "Re-run them on a quiet machine for timings.\n"
)


def full_kb(path: Path = WORK / "kb.sqlite") -> Path:
    """A KB with the whole dictionary, built once under /tmp and reused."""
    if not path.exists():
        from chemground.kb.build import build_kb

        path.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        print(f"building the full-dictionary KB at {path} (once) ...", flush=True)
        build_kb(path).close()
        print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def write_section(name: str, markdown: str, path: Path = RESULTS) -> None:
    """Replace (or add) the section ``name`` of the results file."""
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{markdown.rstrip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    text = (
        pattern.sub(lambda _: block, text)
        if pattern.search(text)
        else text.rstrip() + "\n\n" + block + "\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
