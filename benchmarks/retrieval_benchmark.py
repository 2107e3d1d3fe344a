"""Retrieval benchmark (issue 3): table retriever vs a plain BM25 baseline, and latency.

    python benchmarks/retrieval_benchmark.py [--per-task 100] [--kb PATH]

Questions are generated from KB records (each keeps its source record id) for every aspect,
in two input formats (names / random non-canonical SMILES). Recall@1/3/5/10 of the source
record per aspect and format, for the table retriever and for BM25 over the same records
serialised as text. Latency in a warm process (retrieve, ask end to end) and the time from
a fresh process to the first answer. Writes benchmarks/results/retrieval.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import latency_summary, machine_line, markdown_table, write_section
from _kb import DEFAULT_KB, full_kb

from chemground.bench.generate import ALL_TASKS, generate
from chemground.qa import QA
from chemground.retrieval.text_records import BM25RecordRetriever
from chemground.settings import Settings
from chemground.workspace import Workspace

KS = (1, 3, 5, 10)


def rank_of(source_id: str, evidence) -> int | None:
    for i, e in enumerate(evidence, start=1):
        if e.id == source_id:
            return i
    return None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--per-task", type=int, default=100, help="questions per task and input format"
    )
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    kb_path = full_kb(args.kb)
    settings = Settings(kb={"path": kb_path}, cache_dir=kb_path.parent / "cache")
    workspace = Workspace(settings, readonly=True)
    qa = QA(workspace)
    items = generate(workspace.kb, per_task=args.per_task, seed=args.seed, tasks=ALL_TASKS)
    print(f"{len(items)} questions", file=sys.stderr)
    bm25 = BM25RecordRetriever(workspace.kb, settings.cache_dir)
    started = time.perf_counter()
    bm25.index()
    bm25_build_s = time.perf_counter() - started

    ranks: dict[str, dict[tuple[str, str], list[int | None]]] = {
        "table": defaultdict(list),
        "bm25": defaultdict(list),
    }
    for item in items:
        query, evidence = qa.retrieve(item.question, k=10)
        key = (item.aspect, item.input_format)
        ranks["table"][key].append(rank_of(item.source["id"], evidence))
        ranks["bm25"][key].append(rank_of(item.source["id"], bm25.retrieve(query, 10)))
    # Latency in the now-warm process, on questions it has not seen (another seed).
    fresh = generate(
        workspace.kb, per_task=max(5, args.per_task // 5), seed=args.seed + 1, tasks=ALL_TASKS
    )
    retrieve_ms: list[float] = []
    ask_ms: list[float] = []
    for item in fresh:
        t0 = time.perf_counter()
        qa.retrieve(item.question, k=5)
        retrieve_ms.append((time.perf_counter() - t0) * 1000)
    for item in generate(
        workspace.kb, per_task=max(5, args.per_task // 5), seed=args.seed + 2, tasks=ALL_TASKS
    ):
        t0 = time.perf_counter()
        qa.ask(item.question)
        ask_ms.append((time.perf_counter() - t0) * 1000)

    env = {
        **os.environ,
        "CHEMGROUND_KB": str(kb_path),
        "CHEMGROUND_CACHE_DIR": str(settings.cache_dir),
    }
    first_answer = []
    for question in (
        "What is the molecular weight of CC(=O)Nc1ccc(O)cc1?",
        "What forms when benzaldehyde reacts with benzohydrazide?",
    ):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "chemground", "ask", question],
            env=env,
            check=True,
            capture_output=True,
        )
        first_answer.append(time.perf_counter() - t0)

    def recall(values: list[int | None], k: int) -> float:
        return (
            sum(1 for r in values if r is not None and r <= k) / len(values)
            if values
            else float("nan")
        )

    rows = []
    by_level = defaultdict(lambda: defaultdict(list))
    for key in sorted(ranks["table"]):
        aspect, fmt = key
        t, b = ranks["table"][key], ranks["bm25"][key]
        level = (
            "reaction"
            if any(
                i.source["kind"] == "reaction" for i in items if (i.aspect, i.input_format) == key
            )
            else "compound"
        )
        by_level[(level, fmt)]["table"].extend(t)
        by_level[(level, fmt)]["bm25"].extend(b)
        rows.append(
            [aspect, fmt, len(t)]
            + [f"{recall(t, k):.3f}" for k in KS]
            + [f"{recall(b, k):.3f}" for k in KS]
        )
    summary_rows = []
    for (level, fmt), values in sorted(by_level.items()):
        summary_rows.append(
            [level, fmt, len(values["table"])]
            + [f"{recall(values['table'], k):.3f}" for k in KS]
            + [f"{recall(values['bm25'], k):.3f}" for k in KS]
        )
    lat_r, lat_a = latency_summary(retrieve_ms), latency_summary(ask_ms)
    header = ["", "format", "n"] + [f"table R@{k}" for k in KS] + [f"BM25 R@{k}" for k in KS]
    stats = workspace.kb.stats()
    text = [
        "## Table retrieval (issue 3)",
        "",
        machine_line(),
        f"KB: full dictionary + starter set + shared patent reactions ({stats.compounds:,} "
        "compounds, "
        f"{stats.reactions:,} reactions). {len(items)} generated questions ({args.per_task} per "
        "task and format, "
        f"seed {args.seed}); SMILES inputs are random non-canonical SMILES. Recall@k of the source "
        "record.",
        "",
        "Summary by level (targets: table R@5 >= 0.95 reaction, >= 0.98 compound, both formats):",
        "",
        markdown_table(["level", *header[1:]], summary_rows),
        "",
        "Per aspect:",
        "",
        markdown_table(["aspect", *header[1:]], rows),
        "",
        f"Latency in the warm process, on {len(retrieve_ms)} + {len(ask_ms)} questions it had not "
        "seen (other seeds):",
        "",
        markdown_table(
            ["latency (warm process)", "p50 ms", "p95 ms", "target"],
            [
                [
                    "retrieve (parse + table retrieval)",
                    f"{lat_r['p50']:.1f}",
                    f"{lat_r['p95']:.1f}",
                    "p50 <= 10, p95 <= 50",
                ],
                [
                    "ask end to end (extractive)",
                    f"{lat_a['p50']:.1f}",
                    f"{lat_a['p95']:.1f}",
                    "p50 <= 50",
                ],
            ],
        ),
        "",
        f"Fresh process to first answer (`python -m chemground ask ...`, KB built): "
        f"{', '.join(f'{s:.2f} s' for s in first_answer)} (target <= 3 s). BM25 index build: "
        f"{bm25_build_s:.1f} s.",
    ]
    path = write_section("retrieval", "\n".join(text))
    print("\n".join(text))
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
