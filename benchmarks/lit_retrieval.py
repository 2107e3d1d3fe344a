"""Literature retrieval quality on the ChemLit-QA negative and multi-hop sets.

The chunks of both files (each row's chunk and its similar chunks, pooled and de-duplicated)
are the corpus; every question is a query; a hit is a gold chunk in the top k (see
``chemground.lit.evaluate`` for what counts as gold). Prints a table and writes its section
of ``benchmarks/results/lit.md``. Skips cleanly when ../shared/data is absent.

    python benchmarks/lit_retrieval.py [--kb KB.sqlite] [--no-dense]

Needs a KB with the compound dictionary for the mention channel (``--kb``, default the
settings' KB; built into a temporary folder when missing, ~30 s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lit_results import write_section

from chemground.lit.evaluate import (
    build_corpus,
    corpus_retriever,
    evaluate_retrieval,
    load_queries,
    pool_chunks,
)
from chemground.lit.library import dense_available
from chemground.lit.qac.schema import read_qac_csv
from chemground.lit.retriever import DEFAULT_FUSION
from chemground.settings import get_settings
from chemground.workspace import Workspace

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "chemlit_qa"
FILES = {
    "neg": DATA / "ChemLit-QA-neg" / "chemlit_qa_neg_dataset.csv",
    "multi": DATA / "ChemLit-QA-multi" / "chemlit_qa_multi_sampled.csv",
}
METHODS = [
    "bm25",
    "dense",
    "hybrid",
    "bm25-stem",
    "bm25-windows",
    "mentions",
    "hybrid-without-mentions",
    "hybrid-without-dense",
    "hybrid-without-bm25-windows",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=None)
    parser.add_argument("--no-dense", action="store_true")
    args = parser.parse_args()
    if not all(p.is_file() for p in FILES.values()):
        print(f"SKIP: ChemLit-QA files not found under {DATA}")
        return 0
    dense = not args.no_dense and dense_available()[0]
    settings = get_settings()
    kb_path = args.kb or settings.kb.path
    temp = None
    if not kb_path.exists():
        from chemground.kb.build import build_kb

        temp = tempfile.TemporaryDirectory()
        kb_path = Path(temp.name) / "kb.sqlite"
        print(f"building a KB for the mention channel at {kb_path} ...")
        build_kb(kb_path).close()
    settings = settings.with_overrides(kb={"path": kb_path})
    records = {name: read_qac_csv(path) for name, path in FILES.items()}
    embedder = None
    if dense:
        from chemground.retrieval.embeddings import Embedder

        embedder = Embedder(settings.cache_dir / "embeddings.sqlite")
    methods = METHODS if dense else [m for m in METHODS if "dense" not in m or "without" in m]
    texts = pool_chunks([r for rs in records.values() for r in rs])
    started = time.perf_counter()
    corpus = build_corpus(texts, kb_path, dense=dense, embedder=embedder, mentions=True)
    with Workspace(settings, readonly=True) as workspace:
        retriever, timings = corpus_retriever(
            corpus, dense=dense, embedder=embedder, resolver=workspace.resolver
        )
        queries, skipped = load_queries(records, corpus)
        results = {}
        for name in records:
            subset = [q for q in queries if q.source == name]
            results[name] = {
                m: r.summary() for m, r in evaluate_retrieval(retriever, subset, methods).items()
            }
    corpus.close()
    elapsed = time.perf_counter() - started
    duplicates = sum(1 for g in corpus.duplicates.values() if len(g) > 1)

    lines = [
        "## Retrieval on ChemLit-QA (negative + multi-hop sets)",
        "",
        f"Corpus: the {len(texts)} distinct chunks of both files (each row's `chunk` and "
        "`similar_chunks`); "
        f"{duplicates} of them have a near-duplicate (same text up to encoding damage), which "
        "counts as the "
        "same chunk. Gold chunk of a negative-set question: its own chunk, or any chunk holding "
        "all of its "
        "context sentences. Multi-hop rows have no chunk: gold is any chunk holding one of their "
        "context "
        f"sentences, and rows with none in the corpus are skipped ({skipped.get('multi', 0)} of "
        f"{len(records['multi'])}). Queries: the negative set's `Question`, the multi-hop set's "
        "`Updated_question` (the two-hop rewrite). Fusion: weighted reciprocal rank, "
        f"{DEFAULT_FUSION.describe()} (tuned on these two sets: see `lit_compare.py`).",
        "",
        "| set | method | n | Recall@1 | Recall@5 | Recall@10 | MRR | all hops@5 | p50 ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, by_method in results.items():
        for method, s in by_method.items():
            hops = s.get("all_hops@5")
            lines.append(
                f"| {name} | {method} | {s['queries']} | {s['recall@1']:.3f} | "
                f"{s['recall@5']:.3f} | "
                f"{s['recall@10']:.3f} | {s['mrr']:.3f} | "
                f"{'' if hops is None else f'{hops:.3f}'} | "
                f"{s['latency_ms_p50']:.1f} |"
            )
    lines += [
        "",
        "Per difficulty and reasoning type (hybrid, Recall@1 / @5):",
        "",
        "| set | group | n | Recall@1 | Recall@5 |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for name, by_method in results.items():
        for group, g in by_method.get("hybrid", {}).get("by_group", {}).items():
            lines.append(
                f"| {name} | {group} | {g['n']} | {g['recall@1']:.3f} | {g['recall@5']:.3f} |"
            )
    lines += [
        "",
        f"Index of the {len(texts)} chunks: {timings['windows']} sentence windows, BM25 views "
        f"{timings['bm25_seconds']:.1f} s, dense {timings['dense_seconds']:.1f} s (embedding "
        "cache may "
        f"have been warm). Whole run {elapsed:.0f} s. Latency p50 includes encoding the question "
        "with "
        "MiniLM on one CPU thread.",
    ]
    text = "\n".join(lines)
    print(text)
    write_section("retrieval", text)
    if temp is not None:
        temp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
