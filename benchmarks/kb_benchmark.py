"""Knowledge-base benchmark: build time, import rate, compound look-up latency, file size.

    python benchmarks/kb_benchmark.py [--workdir /tmp/cg-bench]

Builds a KB from scratch (dictionary + starter set), imports the shared patent reactions
(13,501 ORD reactions from the original .pb.gz files, and the 400 uspto_revisit reaction
SMILES) into copies of it, --repeat times (the median run is reported, with the range), and
times `chemground compound` look-ups in a warm process. Writes benchmarks/results/kb.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    SHARED_DATA,
    latency_summary,
    machine_line,
    markdown_table,
    time_calls,
    write_section,
)
from _kb import reaction_files

from chemground.chem.names import NameResolver
from chemground.chem.opsin import Opsin
from chemground.kb.build import build_kb
from chemground.kb.importers import import_file
from chemground.kb.lookup import lookup_compound
from chemground.kb.sqlite_store import SQLiteKB

QUERIES = [
    "aspirin",
    "2-acetyloxybenzoic acid",
    "CC(=O)Oc1ccccc1C(=O)O",
    "OC(=O)c1ccccc1OC(C)=O",
    "ethanol",
    "tetrahydrofuran",
    "C1CCOC1",
    "acetaminophen",
    "CC(=O)Nc1ccc(O)cc1",
    "caffeine",
    "50-78-2",
    "dichloromethane",
    "N,N-dimethylformamide",
    "CN(C)C=O",
    "benzaldehyde",
    "O=Cc1ccccc1",
    "2,5-dichloropyrimidine",
    "Clc1ncc(Cl)cn1",
    "triethylamine",
    "sodium chloride",
]


def size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6


def import_all(kb_path: Path, files: list[Path]) -> tuple[float, list[tuple], float, Path]:
    """Import ``files`` into the KB at ``kb_path``: (rows/s, per-file rows, final checkpoint s,
    path)."""
    kb = SQLiteKB(kb_path)
    opsin = Opsin(kb_path.parent / "opsin-cache.sqlite")
    resolver = NameResolver(kb, opsin)
    rows, total_rows, total_s = [], 0, 0.0
    try:
        for path in files:
            summary = import_file(kb, path, resolver=resolver)
            total_rows += summary.rows_read
            total_s += summary.seconds
            rows.append(
                (
                    path.name[:48],
                    summary.format,
                    summary.rows_read,
                    summary.reactions_added,
                    summary.reactions_flagged,
                    summary.compounds_added,
                    summary.seconds,
                    summary.rate,
                )
            )
            print(
                f"import {path.name}: {summary.rows_read} rows in {summary.seconds:.2f} s "
                f"({summary.rate:.0f}/s)",
                file=sys.stderr,
            )
        started = time.perf_counter()
        kb.checkpoint()  # the last WAL copy into the database file belongs to the imports' cost
        checkpoint_s = time.perf_counter() - started
    finally:
        kb.close()
        opsin.close()
    return total_rows / (total_s + checkpoint_s), rows, checkpoint_s, kb_path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/chemground-bench-kb"))
    parser.add_argument(
        "--repeat", type=int, default=5, help="import runs (the median is reported)"
    )
    parser.add_argument(
        "--import-into", type=Path, help=argparse.SUPPRESS
    )  # one run, in its own process
    args = parser.parse_args()
    if args.import_into:
        rate, rows, checkpoint, _ = import_all(args.import_into, reaction_files())
        print(json.dumps([rate, rows, checkpoint]))
        return
    if args.workdir.exists():
        shutil.rmtree(args.workdir)
    args.workdir.mkdir(parents=True)
    kb_path = args.workdir / "kb.sqlite"

    started = time.perf_counter()
    kb = build_kb(kb_path)
    build_s = time.perf_counter() - started
    fresh = kb.stats()
    fresh_mb = size_mb(kb_path)
    print(
        f"build: {build_s:.1f} s, {fresh.compounds:,} compounds, {fresh.reactions} reactions, "
        f"{fresh_mb:.0f} MB"
    )

    files = reaction_files()
    if not files:
        print(f"shared data not found at {SHARED_DATA}: import rows skipped")
    # Each run imports every file into its own copy of the fresh KB, with an empty OPSIN
    # cache (a new JVM); the median run is reported, with the range: 2-core machines are noisy.
    kb.close()
    runs = []
    for run in range(args.repeat if files else 0):
        run_path = args.workdir / f"run{run}" / "kb.sqlite"
        run_path.parent.mkdir()
        shutil.copy(kb_path, run_path)
        # a fresh process per run, as `chemground kb import` would be: no caches or warm
        # worker pool carried over from the build or an earlier run
        out = subprocess.run(
            [sys.executable, __file__, "--import-into", str(run_path)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rate, rows, checkpoint = json.loads(out.strip().splitlines()[-1])
        runs.append((rate, [tuple(r) for r in rows], checkpoint, run_path))
        print(f"run {run + 1}: {rate:,.0f} rows/s")
    runs.sort(key=lambda r: r[0])
    rate, import_rows, checkpoint_s, run_path = (
        runs[len(runs) // 2] if runs else (0.0, [], 0.0, kb_path)
    )
    kb = SQLiteKB(run_path)
    opsin = Opsin(args.workdir / "opsin-cache.sqlite")
    resolver = NameResolver(kb, opsin)

    resolver.resolve(QUERIES[0])  # warm: OPSIN started, caches primed by the first pass below
    for q in QUERIES:
        lookup_compound(kb, resolver, q)
    latencies = []
    for _ in range(20):
        for q in QUERIES:
            latencies += time_calls(lambda q=q: lookup_compound(kb, resolver, q), 1)
    lat = latency_summary(latencies)
    full = kb.stats()
    full_mb = size_mb(run_path)
    kb.close()
    opsin.close()

    text = ["## Knowledge base (issue 2)", "", machine_line(), ""]
    text.append(
        markdown_table(
            ["measure", "value", "target"],
            [
                ["KB build from scratch (dictionary + starter set)", f"{build_s:.1f} s", "-"],
                [
                    "compounds / reactions in a fresh KB",
                    f"{fresh.compounds:,} / {fresh.reactions}",
                    "-",
                ],
                ["fresh KB file size", f"{fresh_mb:.0f} MB", "-"],
                [
                    "import rate, all shared reaction files (median of runs; range)",
                    f"{rate:,.0f} rows/s ({runs[0][0]:,.0f} to {runs[-1][0]:,.0f}, {len(runs)} "
                    "runs)"
                    if runs
                    else "n/a",
                    ">= 2,000 reactions/s",
                ],
                [
                    "`compound` look-up latency, warm process (p50 / p95)",
                    f"{lat['p50']:.2f} / {lat['p95']:.2f} ms",
                    "p50 <= 5 ms",
                ],
                [
                    "KB file size after imports",
                    f"{full_mb:.0f} MB ({full.reactions:,} reactions, {full.compounds:,} "
                    "compounds)",
                    "-",
                ],
            ],
        )
    )
    text += [
        "",
        "Import times are wall-clock until the import returned, its commit included (each run "
        "starts "
        "with an empty OPSIN name cache, so its first file also starts OPSIN's JVM); the "
        "per-file table is "
        "the median run's, and its total adds the final copy of "
        f"the write-ahead log into the database file ({checkpoint_s:.2f} s). Earlier figures in "
        "this file's "
        "history stopped the clock before the commit.",
    ]
    text += [
        "",
        "Per file:",
        "",
        markdown_table(
            ["file", "format", "rows", "added", "flagged", "new compounds", "seconds", "rows/s"],
            import_rows,
        ),
    ]
    text += [
        "",
        f"Look-up queries ({len(QUERIES)} names, SMILES and a CAS number, 20 rounds): "
        "resolution (dictionary, SMILES parse or OPSIN) plus the KB record and its reaction links.",
    ]
    path = write_section("kb", "\n".join(text))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
