"""Tool-retrieval Recall@k of the gold tools for the benchmark's dev queries (BM25, dense, hybrid).

Prints the table and writes the "retrieval" section of benchmarks/results/tools.md.

    python benchmarks/tools_retrieval.py [-k 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tools_common import DEV_SPLITS, machine, require_data, write_section

from chemground.agent.dataset import load_benchmark
from chemground.agent.metrics import retrieval_recall
from chemground.agent.retriever import ToolRetriever
from chemground.settings import get_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args()
    data = require_data()
    retriever = ToolRetriever(cache_dir=get_settings().cache_dir)
    lines = [
        f"## Tool retrieval (Recall@{args.k})",
        "",
        f"{len(retriever.names)} tool manifests indexed; the queries are the dev questions, the "
        "relevant tools their "
        "gold tools. Recall = mean share of a question's distinct gold tools in the top k; 'all "
        "found' = share of "
        f"questions with every gold tool in the top k. Measured on {machine()}.",
        "",
        "| split | method | questions | Recall@k | all found | ms/query |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    pooled = {"bm25": [], "dense": [], "hybrid": []}
    for split in DEV_SPLITS:
        items = load_benchmark(data / split)
        for method in ("bm25", "dense", "hybrid"):
            started = time.perf_counter()
            hits = retriever.search_many([i.query for i in items], k=args.k, method=method)
            ms = (time.perf_counter() - started) * 1000 / len(items)
            result = retrieval_recall([i.tools for i in items], [[n for n, _ in h] for h in hits])
            pooled[method].append((result["recall"], len(items)))
            lines.append(
                f"| {split.split('dataset/')[1]} | {method} | {len(items)} | "
                f"{result['recall']:.3f} | "
                f"{result['all_found']:.3f} | {ms:.1f} |"
            )
            print(lines[-1])
    lines.append("")
    for method, rows in pooled.items():
        total = sum(n for _, n in rows)
        lines.append(
            f"- {method}, all dev questions: Recall@{args.k} = "
            f"{sum(r * n for r, n in rows) / total:.3f}"
        )
    lines.append(
        "\nThe hybrid ranking adds, for each tool, its best score among the request's sub-requests "
        "(sentences, then/also clauses) with weight 3, chosen on a sample of the *train* questions "
        "(multiple_train, 400 questions); the dev questions were not used to tune it or the "
        "descriptions."
    )
    write_section("retrieval", "\n".join(lines))
    print("\n".join(lines[-5:]))


if __name__ == "__main__":
    main()
