"""Cold start of ``chemground lit search``: wall time of one search from a fresh process, side by
side with ``python -c "import rdkit.Chem"`` (the yardstick the issue names), alternating the two
so both see the same machine load.

A workspace (a copy of the settings' KB plus the first ``--papers`` ChemLit-QA passages as text
files, indexed with vectors) is prepared once in a temporary folder; its index and vectors are
on disk, so each timed search only loads them. Writes the ``cold_start`` section of
``benchmarks/results/lit.md``.

    python benchmarks/lit_cold_start.py [--runs 7] [--papers 150]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lit_results import write_section

from chemground.lit.evaluate import pool_chunks
from chemground.lit.qac.schema import read_qac_csv
from chemground.settings import get_settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "chemlit_qa"
NEG = DATA / "ChemLit-QA-neg" / "chemlit_qa_neg_dataset.csv"
QUESTION = "How does micromixing affect the selectivity of the reaction?"


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-500:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--papers", type=int, default=150)
    args = parser.parse_args()
    if not NEG.is_file():
        print(f"SKIP: ChemLit-QA not found under {DATA}")
        return 0
    kb = get_settings().kb.path
    if not kb.exists():
        print(f"SKIP: no KB at {kb}")
        return 0
    chemground = shutil.which("chemground") or str(Path(sys.executable).with_name("chemground"))
    with tempfile.TemporaryDirectory(prefix="chemground-cold-") as temp:
        folder = Path(temp)
        shutil.copy(kb, folder / "kb.sqlite")
        papers = folder / "papers"
        papers.mkdir()
        for i, text in enumerate(pool_chunks(read_qac_csv(NEG))[: args.papers]):
            (papers / f"p{i:03d}.txt").write_text(text, encoding="utf-8")
        env = {
            **os.environ,
            "CHEMGROUND_KB": str(folder / "kb.sqlite"),
            "CHEMGROUND_CACHE_DIR": str(folder / "cache"),
        }
        started = time.perf_counter()
        timed([chemground, "lit", "add", str(papers), "--json"], env)
        prepare = time.perf_counter() - started
        timed(
            [chemground, "lit", "search", QUESTION], env
        )  # the first search exports nothing new; warm the OS cache
        rdkit, search = [], []
        for _ in range(args.runs):
            rdkit.append(timed([sys.executable, "-c", "import rdkit.Chem"], env))
            search.append(timed([chemground, "lit", "search", QUESTION, "-k", "5"], env))
    r, s = statistics.median(rdkit), statistics.median(search)
    load = os.getloadavg()[0]
    text = "\n".join(
        [
            "## Cold start of `chemground lit search`",
            "",
            f"Wall time of one hybrid search from a fresh process over {args.papers} passages "
            "(index and vectors on "
            f"disk, MiniLM on ONNX Runtime), alternated {args.runs} times with `python -c "
            '"import rdkit.Chem"`; '
            f"medians. Preparing the workspace (add + index + embed) took {prepare:.0f} s once. "
            "Load average at the "
            f"end: {load:.1f} on 2 cores.",
            "",
            "| command | median s | min s | max s |",
            "| --- | ---: | ---: | ---: |",
            f'| python -c "import rdkit.Chem" | {r:.3f} | {min(rdkit):.3f} | {max(rdkit):.3f} |',
            f"| chemground lit search | {s:.3f} | {min(search):.3f} | {max(search):.3f} |",
            "",
            f"Ratio search / rdkit import: **{s / r:.1f}x** (measured in this one run).",
        ]
    )
    print(text)
    write_section("cold_start", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
