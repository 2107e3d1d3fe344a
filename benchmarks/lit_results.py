"""Writes one named section of benchmarks/results/lit.md, keeping the other sections."""

from __future__ import annotations

import platform
import re
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "lit.md"
HEADER = (
    "# Literature RAG benchmarks\n\nRe-run with `python benchmarks/lit_retrieval.py` and "
    "`python benchmarks/lit_scale.py`.\n"
)


def write_section(name: str, body: str) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    stamp = (
        f"_measured {time.strftime('%Y-%m-%d %H:%M')} on {platform.machine()}, "
        f"{platform.python_version()}_"
    )
    block = f"<!-- {name}:start -->\n{body}\n\n{stamp}\n<!-- {name}:end -->"
    pattern = re.compile(rf"<!-- {name}:start -->.*?<!-- {name}:end -->", re.DOTALL)
    text = (
        pattern.sub(lambda _: block, text)
        if pattern.search(text)
        else text.rstrip() + "\n\n" + block + "\n"
    )
    RESULTS.write_text(text)
