"""``chemground bench generate`` / ``bench run``: the table-RAG benchmark."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from chemground.cli.common import (
    JSONOutput,
    LLMBaseURL,
    LLMModel,
    console,
    err_console,
    print_json,
    state,
)
from chemground.errors import ChemgroundError


def generate_command(
    ctx: typer.Context,
    out: Path = typer.Option(
        Path("table-bench.jsonl"), "--out", "-o", help="Benchmark file to write (JSONL)."
    ),
    per_task: int = typer.Option(
        50, "--per-task", min=1, help="Items per task type and input format."
    ),
    seed: int = typer.Option(
        0, "--seed", help="Random seed (the same seed gives the same benchmark)."
    ),
    tasks: str | None = typer.Option(
        None, "--tasks", help="Comma-separated task types (default: the 8 table-RAG tasks)."
    ),
    paraphrase: bool = typer.Option(
        False, "--paraphrase", help="An LLM rewrites each question, keeping entities verbatim."
    ),
    perturb: float = typer.Option(
        0.0,
        "--perturb",
        min=0.0,
        max=1.0,
        help="Fraction of name-format items whose entities get a typo or name variant.",
    ),
    ooc: Path | None = typer.Option(
        None, "--ooc", help="Also write a KB copy without the source records here."
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
) -> None:
    """Generate the benchmark from KB records: 8 task types x 2 input formats, >= 20 templates
    each."""
    from chemground.bench.generate import (
        ALL_TASKS,
        TABLE_RAG_TASKS,
        generate,
        write_items,
        write_ooc_kb,
    )

    chosen = tuple(t.strip() for t in tasks.split(",")) if tasks else TABLE_RAG_TASKS
    unknown = [t for t in chosen if t not in ALL_TASKS]
    if unknown:
        raise ChemgroundError(f"unknown task(s) {unknown}; choose from {', '.join(ALL_TASKS)}")
    cli = state(ctx)
    settings = cli.with_llm(llm_base_url, llm_model)
    rewrite = None
    if paraphrase:
        from chemground.bench.paraphrase import Paraphraser
        from chemground.llm.config import llm_from_settings

        rewrite = Paraphraser(llm_from_settings(settings))
    with cli.workspace_for(settings) as ws:
        items = generate(
            ws.kb, per_task=per_task, seed=seed, tasks=chosen, perturb=perturb, paraphrase=rewrite
        )
        write_items(items, out)
        counts: dict[str, int] = {}
        for item in items:
            counts[f"{item.task}/{item.input_format}"] = (
                counts.get(f"{item.task}/{item.input_format}", 0) + 1
            )
        console.print(f"wrote {len(items)} items to {out}")
        for key, n in sorted(counts.items()):
            console.print(f"  {key}: {n}")
        empty = [t for t in chosen if not any(i.task == t for i in items)]
        for task in empty:
            err_console.print(
                f"[yellow]no KB record can support task {task!r} (e.g. no compound has a "
                "description)[/]"
            )
        if ooc is not None:
            removed = write_ooc_kb(settings.kb.path, items, ooc)
            console.print(
                f"wrote out-of-corpus KB {ooc}: removed {removed['reactions_removed']} reactions "
                "and "
                f"{removed['compounds_removed']} compounds"
            )


def run_command(
    ctx: typer.Context,
    bench: Path = typer.Argument(..., help="Benchmark file from `chemground bench generate`."),
    method: str = typer.Option("table", "--method", "-m", help="table | bm25 | dense | none"),
    reasoner: str = typer.Option("extractive", "--reasoner", "-r"),
    k: int = typer.Option(5, "-k", help="Evidence records given to the reasoner."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Folder for results (default: <bench>-<method>-<reasoner>/)."
    ),
    workers: int = typer.Option(
        1, "--workers", "-j", help="Items answered in parallel (useful with an LLM)."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N items."),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """Answer, score and summarise a benchmark (resumable: finished items are skipped)."""
    from chemground.bench.generate import read_items
    from chemground.bench.run import run, summary_markdown
    from chemground.chem.names import normalize_name
    from chemground.qa_factory import build_qa

    if not bench.exists():
        raise ChemgroundError(f"{bench}: no such file")
    items = read_items(bench)[:limit] if limit else read_items(bench)
    cli = state(ctx)
    settings = cli.with_llm(llm_base_url, llm_model)
    out = out or bench.with_name(f"{bench.stem}-{method}-{reasoner}")
    with cli.workspace_for(settings) as ws:
        qa = build_qa(ws)
        qa.check_choices(method=method, reasoner=reasoner)  # before any item is answered

        def resolve(name: str) -> str | None:
            hits = ws.kb.lookup_name(normalize_name(name))
            if hits and hits[0].structure is not None:
                return hits[0].structure.inchikey
            return None

        progress = Progress(
            TextColumn(f"{method}+{reasoner}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err_console,
        )
        with progress:
            task = progress.add_task("run", total=len(items))
            summary = run(
                items,
                qa,
                method=method,
                reasoner=reasoner,
                out_dir=out,
                k=k,
                workers=workers,
                resolve=resolve,
                progress=lambda done, total: progress.update(task, completed=done),
            )
    if as_json:
        print_json(summary.__dict__)
    else:
        console.print(summary_markdown(summary))
        console.print(f"results: {out}/results.jsonl, summary.md, summary.png")


def register(app: typer.Typer) -> None:
    app.command("generate")(generate_command)
    app.command("run")(run_command)
