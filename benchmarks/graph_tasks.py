"""Benchmark sizes per task type: how many tasks the starter and ORD graphs yield, and generation
time.

Run: python benchmarks/graph_tasks.py  [--per-type N]

Also scores the reference queries (sanity run, no LLM: must be 1.0). Text2Cypher with a real
model is benchmarks/graph_text2cypher.py.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from graph_common import DEFAULT_KB, machine_note, ord_kb, write_section

from chemground.graph.bench.generate import generate_tasks, task_counts
from chemground.graph.bench.run import reference_prediction, run_benchmark
from chemground.graph.build import build_graph
from chemground.graph.config import open_graph
from chemground.kb.build import build_kb
from chemground.settings import GraphSettings


def sizes(kb: Path, per_type: int) -> tuple[dict, float, float, dict]:
    build_graph(kb, settings=GraphSettings())
    with open_graph(kb) as graph:
        started = time.perf_counter()
        tasks = generate_tasks(graph, per_type=per_type, seed=0)
        generated = time.perf_counter() - started
        started = time.perf_counter()
        _, summary = run_benchmark(tasks, graph, lambda task: reference_prediction(graph, task))
        scored = time.perf_counter() - started
    return task_counts(tasks), generated, scored, summary["all"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-type", type=int, default=50)
    args = parser.parse_args()
    starter = DEFAULT_KB.with_name("starter-kb.sqlite")
    if not starter.exists():
        build_kb(starter).close()
    results = {
        "starter KB (273 reactions)": sizes(starter, args.per_type),
        "ORD KB (13.8k reactions)": sizes(ord_kb(DEFAULT_KB), args.per_type),
    }
    names = list(next(iter(results.values()))[0])
    lines = [
        "| task type | level | " + " | ".join(results) + " |",
        "| --- | --- |" + " ---: |" * len(results),
    ]
    from chemground.graph.bench.tasks import TASK_BY_NAME

    for name in names:
        lines.append(
            f"| {name} | {TASK_BY_NAME[name].level} | "
            + " | ".join(str(r[0][name]) for r in results.values())
            + " |"
        )
    lines.append(
        "| **total** | | " + " | ".join(str(sum(r[0].values())) for r in results.values()) + " |"
    )
    lines.append(
        "| generation time (s) | | " + " | ".join(f"{r[1]:.1f}" for r in results.values()) + " |"
    )
    lines.append(
        "| reference sanity run: exact answers | | "
        + " | ".join(f"{r[3]['exact_answer']:.3f} ({r[2]:.1f} s)" for r in results.values())
        + " |"
    )
    table = "\n".join(lines)
    print(table)
    write_section(
        "tasks",
        f"""## Benchmark sizes per task type

{machine_note()}
`generate_tasks(per_type={args.per_type}, seed=0, max_gold_rows=30)`: a candidate becomes a task only when its
reference query returns 1-30 rows. The reference sanity run scores each reference query against its own gold
(BLEU/METEOR/ROUGE-L/retrieval/path metrics all 1.0 expected). No LLM runs here: Text2Cypher with a real model
is measured by `benchmarks/graph_text2cypher.py` (section "Text2Cypher with a real model" below).

{table}

Script: `python benchmarks/graph_tasks.py`.""",
    )


if __name__ == "__main__":
    main()
