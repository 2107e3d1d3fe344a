"""``chemground bench lit-run``: retrieval Recall@k and answer correctness on QAC sets."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from chemground.cli.common import (
    JSONOutput,
    LLMBaseURL,
    LLMModel,
    console,
    err_console,
    print_json,
    stage_progress,
    state,
)
from chemground.errors import ChemgroundError


def register(app: typer.Typer) -> None:
    app.command("lit-run")(lit_run)


def lit_run(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="QAC CSVs in the ChemLit-QA layout (main/negative or multi-hop)."
    ),
    methods: str = typer.Option(
        "bm25,dense,hybrid",
        "--methods",
        help="Retrieval methods: bm25, dense, hybrid, mentions, bm25-stem, bm25-windows.",
    ),
    dense: bool = typer.Option(
        True, "--dense/--no-dense", help="Embed the corpus for dense search."
    ),
    mentions: bool = typer.Option(
        True, "--mentions/--no-mentions", help="Index compound mentions (copies the KB)."
    ),
    answers: bool | None = typer.Option(
        None,
        "--answers/--no-answers",
        help="Judge answers, baseline vs RAG (default: when an LLM is configured).",
    ),
    k: int = typer.Option(5, "-k", help="Chunks given to the RAG answer."),
    limit: int | None = typer.Option(
        None, "--limit", help="Only the first N questions of each file."
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    judge_model: str | None = typer.Option(
        None, "--judge-model", help="Judge model (default: the answer model)."
    ),
    out: Path | None = typer.Option(None, "--out", help="Write the full results as JSON."),
    encoding: str | None = typer.Option(
        None,
        "--encoding",
        help="The CSVs' text encoding (default: UTF-8, or what a byte-order mark says).",
        show_default=False,
    ),
    as_json: JSONOutput = False,
) -> None:
    """Recall@1/5/10 of the gold chunk per method (the files' chunks pooled as the corpus), per
    reasoning type and difficulty; with an LLM, answer accuracy without context vs with RAG."""
    from chemground.lit.evaluate import (
        build_corpus,
        corpus_retriever,
        evaluate_answers,
        evaluate_retrieval,
        load_queries,
        pool_chunks,
    )
    from chemground.lit.library import dense_available
    from chemground.lit.qac.schema import read_qac_csv
    from chemground.llm.config import llm_configured, llm_from_settings

    cli = state(ctx)
    settings = cli.with_llm(llm_base_url, llm_model)
    method_list = [m.strip() for m in methods.split(",") if m.strip()]
    if dense and not dense_available()[0]:
        err_console.print(f"dense search unavailable ({dense_available()[1]}); running without it")
        dense = False
    if not dense:
        method_list = [m for m in method_list if m != "dense"]
    records = {path.stem: read_qac_csv(path, encoding=encoding) for path in files}
    if limit:
        records = {name: rows[:limit] for name, rows in records.items()}
    want_answers = answers if answers is not None else llm_configured(settings)
    llm = llm_from_settings(settings) if want_answers else None
    judge_llm = (
        llm_from_settings(settings, model=judge_model) if want_answers and judge_model else llm
    )
    embedder = None
    if dense:
        from chemground.retrieval.embeddings import Embedder

        embedder = Embedder(settings.cache_dir / "embeddings.sqlite")
    base_kb = settings.kb.path if mentions else None
    if mentions and not settings.kb.path.exists():
        raise ChemgroundError(
            f"--mentions needs a knowledge base at {settings.kb.path} (or pass --no-mentions)"
        )
    labels = {
        "corpus": "corpus: store + mentions",
        "bm25": "index: BM25 views",
        "dense": "index: embed windows",
        "queries": "retrieval",
        "answers": "answers",
    }
    with stage_progress(labels, enabled=not as_json) as progress:
        texts = pool_chunks([r for rs in records.values() for r in rs])
        corpus = build_corpus(
            texts, base_kb, dense=dense, embedder=embedder, mentions=mentions, progress=progress
        )
        try:
            resolver = cli.workspace().resolver if mentions else None
            retriever, index_timings = corpus_retriever(
                corpus, dense=dense, embedder=embedder, progress=progress, resolver=resolver
            )
            queries, skipped = load_queries(records, corpus)
            retrieval = evaluate_retrieval(retriever, queries, method_list, progress)
            per_set = {}
            for source in records:
                subset = [q for q in queries if q.source == source]
                per_set[source] = (
                    {
                        m: s.summary()
                        for m, s in evaluate_retrieval(retriever, subset, method_list).items()
                    }
                    if subset
                    else {}
                )
            answer_result = (
                evaluate_answers(retriever, queries, llm, judge_llm, k=k, progress=progress)
                if llm is not None
                else None
            )
        finally:
            corpus.close()
    data = {
        "files": {name: len(rs) for name, rs in records.items()},
        "corpus_chunks": len(texts),
        "near_duplicate_chunks": sum(1 for group in corpus.duplicates.values() if len(group) > 1),
        "scored_queries": len(queries),
        "skipped_no_gold": skipped,
        "index": index_timings | corpus.build_seconds,
        "retrieval": {m: s.summary() for m, s in retrieval.items()},
        "retrieval_by_set": per_set,
        "answers": answer_result.summary() if answer_result else None,
        "answer_model": llm.model if llm else None,
        "judge_model": judge_llm.model if judge_llm else None,
        "scripted_llm": bool(llm is not None and not llm.is_real_model),
    }
    if out is not None:
        out.write_text(json.dumps(data, indent=1))
    if as_json:
        print_json(data)
        return
    table = Table(
        "set",
        "method",
        "n",
        "R@1",
        "R@5",
        "R@10",
        "MRR",
        "p50 ms",
        title="Recall of the gold chunk",
    )
    for source, by_method in [("all", data["retrieval"]), *data["retrieval_by_set"].items()]:
        for method, s in by_method.items():
            table.add_row(
                source,
                method,
                str(s["queries"]),
                f"{s['recall@1']:.3f}",
                f"{s['recall@5']:.3f}",
                f"{s['recall@10']:.3f}",
                f"{s['mrr']:.3f}",
                f"{s.get('latency_ms_p50', 0):.1f}",
            )
    console.print(table)
    console.print(
        f"corpus {len(texts)} chunks ({data['near_duplicate_chunks']} with near-duplicates), "
        f"{len(queries)} questions scored, skipped (gold not in corpus): {skipped or 'none'}",
        highlight=False,
    )
    if answer_result:
        a = data["answers"]
        console.print(
            f"answers ({data['answer_model']}, judged by {data['judge_model']}): baseline "
            f"{a.get('baseline', {}).get('accuracy')} vs RAG {a.get('rag', {}).get('accuracy')}",
            highlight=False,
        )
        groups = Table("group", "baseline", "RAG", title="Answer accuracy by group")
        for group, modes in a.get("by_group", {}).items():
            groups.add_row(
                group,
                f"{modes.get('baseline', float('nan')):.3f}",
                f"{modes.get('rag', float('nan')):.3f}",
            )
        console.print(groups)
        if data["scripted_llm"]:
            console.print(
                "NOTE: a scripted test LLM answered; these are not a model's results",
                highlight=False,
            )
    else:
        console.print(
            "answers not judged (no LLM configured; pass --llm-base-url/--llm-model)",
            highlight=False,
        )
