"""Shared by the graph benchmarks: the ORD knowledge base they measure, built once and reused.

The KB is ``build_kb`` (whole dictionary + starter reactions) plus every ORD USPTO shard of
``../shared/data/reactions/ord_uspto_grants/original_pb``, imported with the ordinary
importer. Building it takes a few minutes, so it is kept (default under /tmp) and reused.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
ORD_DIR = SHARED / "reactions" / "ord_uspto_grants" / "original_pb"
DEFAULT_KB = Path(os.environ.get("CHEMGROUND_BENCH_ORD_KB", "/tmp/chemground-bench/ord-kb.sqlite"))


def require_shared_data() -> None:
    if not ORD_DIR.is_dir():
        print(f"skipped: the ORD reaction files are not at {ORD_DIR}")
        sys.exit(0)


def ord_kb(path: Path = DEFAULT_KB) -> Path:
    """Path of the ORD KB, building it first when it does not exist yet."""
    if path.exists():
        return path
    require_shared_data()
    from chemground.chem.names import NameResolver
    from chemground.chem.opsin import Opsin
    from chemground.kb.build import build_kb
    from chemground.kb.importers import import_file

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    for stale in partial.parent.glob(partial.name + "*"):
        stale.unlink()
    started = time.perf_counter()
    print(f"building the ORD benchmark KB at {path} (once; a few minutes)…", flush=True)
    kb = build_kb(partial)
    resolver = NameResolver(kb, Opsin(path.parent / "opsin-cache.sqlite"))
    for shard in sorted(ORD_DIR.glob("*.pb.gz")):
        summary = import_file(kb, shard, fmt="ord", resolver=resolver)
        print(f"  {shard.name}: {summary.reactions_added} reactions added", flush=True)
    kb.close()
    partial.rename(path)
    for suffix in ("-wal", "-shm"):  # normally gone after close; moved along if not
        leftover = partial.with_name(partial.name + suffix)
        if leftover.exists():
            leftover.rename(path.with_name(path.name + suffix))
    print(f"built {path} in {time.perf_counter() - started:.0f} s", flush=True)
    return path


if __name__ == "__main__":
    print(ord_kb())


RESULTS = REPO / "benchmarks" / "results" / "graph.md"


def write_section(name: str, markdown: str) -> None:
    """Replace (or add) the section ``name`` of benchmarks/results/graph.md."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    text = RESULTS.read_text() if RESULTS.exists() else "# Reaction graph benchmarks\n"
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{start}\n{markdown.strip()}\n{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)


def machine_note() -> str:
    import platform

    return (
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {platform.machine()} with {os.cpu_count()} "
        "CPUs "
        f"(load average {os.getloadavg()[0]:.1f} at the start; shared machine, so timings are "
        "noisy)."
    )
