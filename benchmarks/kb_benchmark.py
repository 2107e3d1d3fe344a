"""Knowledge-base benchmark: build time, import rate, compound look-up latency, file size.

    python benchmarks/kb_benchmark.py [--workdir /tmp/cg-bench]

Builds a KB from scratch (dictionary + starter set), imports the shared patent reactions
(13,501 ORD reactions from the original .pb.gz files, and the 400 uspto_revisit reaction
SMILES), and times `chemground compound` look-ups in a warm process. Writes
benchmarks/results/kb.md.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import SHARED_DATA, latency_summary, machine_line, markdown_table, time_calls, write_section  # noqa: E402

from chemground.chem.names import NameResolver  # noqa: E402
from chemground.chem.opsin import Opsin  # noqa: E402
from chemground.kb.build import build_kb  # noqa: E402
from chemground.kb.importers import import_file  # noqa: E402
from chemground.kb.lookup import lookup_compound  # noqa: E402

QUERIES = [
    "aspirin", "2-acetyloxybenzoic acid", "CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1OC(C)=O", "ethanol",
    "tetrahydrofuran", "C1CCOC1", "acetaminophen", "CC(=O)Nc1ccc(O)cc1", "caffeine", "50-78-2",
    "dichloromethane", "N,N-dimethylformamide", "CN(C)C=O", "benzaldehyde", "O=Cc1ccccc1",
    "2,5-dichloropyrimidine", "Clc1ncc(Cl)cn1", "triethylamine", "sodium chloride",
]


def size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/chemground-bench-kb"))
    args = parser.parse_args()
    if args.workdir.exists():
        shutil.rmtree(args.workdir)
    args.workdir.mkdir(parents=True)
    kb_path = args.workdir / "kb.sqlite"

    started = time.perf_counter()
    kb = build_kb(kb_path)
    build_s = time.perf_counter() - started
    fresh = kb.stats()
    fresh_mb = size_mb(kb_path)
    print(f"build: {build_s:.1f} s, {fresh.compounds:,} compounds, {fresh.reactions} reactions, {fresh_mb:.0f} MB")

    opsin = Opsin(args.workdir / "opsin-cache.sqlite")
    resolver = NameResolver(kb, opsin)
    import_rows = []
    ord_dir = SHARED_DATA / "reactions" / "ord_uspto_grants" / "original_pb"
    files = sorted(ord_dir.glob("*.pb.gz")) if ord_dir.is_dir() else []
    revisit = SHARED_DATA / "reactions" / "uspto_revisit" / "input.csv"
    if revisit.is_file():
        files.append(revisit)
    total_rows = total_s = 0.0
    for path in files:
        summary = import_file(kb, path, resolver=resolver)
        total_rows += summary.rows_read
        total_s += summary.seconds
        import_rows.append((path.name[:48], summary.format, summary.rows_read, summary.reactions_added,
                            summary.reactions_flagged, summary.compounds_added, summary.seconds, summary.rate))
        print(f"import {path.name}: {summary.rows_read} rows in {summary.seconds:.2f} s ({summary.rate:.0f}/s)")
    if not files:
        print(f"shared data not found at {SHARED_DATA}: import rows skipped")
    started = time.perf_counter()
    kb.checkpoint()  # the last WAL copy into the database file belongs to the imports' cost
    checkpoint_s = time.perf_counter() - started
    total_s += checkpoint_s

    resolver.resolve(QUERIES[0])  # warm: OPSIN started, caches primed by the first pass below
    for q in QUERIES:
        lookup_compound(kb, resolver, q)
    latencies = []
    for _ in range(20):
        for q in QUERIES:
            latencies += time_calls(lambda q=q: lookup_compound(kb, resolver, q), 1)
    lat = latency_summary(latencies)
    full = kb.stats()
    full_mb = size_mb(kb_path)
    kb.close()
    opsin.close()

    text = ["## Knowledge base (issue 2)", "", machine_line(), ""]
    text.append(markdown_table(["measure", "value", "target"], [
        ["KB build from scratch (dictionary + starter set)", f"{build_s:.1f} s", "-"],
        ["compounds / reactions in a fresh KB", f"{fresh.compounds:,} / {fresh.reactions}", "-"],
        ["fresh KB file size", f"{fresh_mb:.0f} MB", "-"],
        ["import rate, all shared reaction files", f"{total_rows / total_s:,.0f} rows/s" if total_s else "n/a",
         ">= 2,000 reactions/s"],
        ["`compound` look-up latency, warm process (p50 / p95)", f"{lat['p50']:.2f} / {lat['p95']:.2f} ms",
         "p50 <= 5 ms"],
        ["KB file size after imports", f"{full_mb:.0f} MB ({full.reactions:,} reactions, {full.compounds:,} compounds)", "-"],
    ]))
    text += ["", f"Import times are wall-clock until the import returned, its commit included (the OPSIN name "
                 "cache starts empty, so the first file also starts OPSIN's JVM); the total adds the final copy of "
                 f"the write-ahead log into the database file ({checkpoint_s:.2f} s). Earlier figures in this file's "
                 "history stopped the clock before the commit."]
    text += ["", "Per file:", "", markdown_table(
        ["file", "format", "rows", "added", "flagged", "new compounds", "seconds", "rows/s"], import_rows)]
    text += ["", f"Look-up queries ({len(QUERIES)} names, SMILES and a CAS number, 20 rounds): "
                 "resolution (dictionary, SMILES parse or OPSIN) plus the KB record and its reaction links."]
    path = write_section("kb", "\n".join(text))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
