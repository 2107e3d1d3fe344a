"""Shared helpers of the tools benchmarks: the data folder and writing a section of
results/tools.md."""

from __future__ import annotations

import platform
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "tools.md"
DATA = HERE.parent.parent / "shared" / "data" / "chemtoolbench"
DEV_SPLITS = [
    "dataset/Chemistry/single_dev.jsonl",
    "dataset/Chemistry/multiple_dev.jsonl",
    "dataset/Materials/single_dev.jsonl",
]


def require_data() -> Path:
    if not DATA.is_dir():
        print(f"skipped: the benchmark data is not at {DATA}")
        sys.exit(0)
    return DATA


def machine() -> str:
    import os

    load = (
        f", load average {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else ""
    )
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}{load}"
    )


def write_section(name: str, text: str) -> None:
    """Replace (or append) the section ``name`` of results/tools.md, keeping the others."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Tools benchmarks\n"
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(current):
        current = pattern.sub(lambda _: block, current)
    else:
        current = current.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(current, encoding="utf-8")
