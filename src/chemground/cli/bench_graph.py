"""``chemground bench graph-generate`` / ``graph-run``: the graph retrieval benchmark."""

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
    output_file,
    print_json,
    stage_progress,
    state,
)
from chemground.errors import ChemgroundError


def register(app: typer.Typer) -> None:
    app.command("graph-generate")(graph_generate)
    app.command("graph-run")(graph_run)


def graph_generate(
    ctx: typer.Context,
    out: Path = typer.Option(
        Path("graph_bench.jsonl"), "--out", "-o", help="Where to write the tasks (JSONL)."
    ),
    per_type: int = typer.Option(
        20, "--per-type", min=1, help="Tasks per task type (fewer if the graph lacks anchors)."
    ),
    seed: int = typer.Option(0, "--seed"),
    max_gold_rows: int = typer.Option(30, "--max-gold-rows", min=1),
    types: list[str] | None = typer.Option(
        None, "--type", help="Only these task types (repeatable)."
    ),
    backend: str | None = typer.Option(None, "--backend"),
) -> None:
    """Sample tasks from the graph of the KB: question, reference Cypher, gold answer (executed)."""
    from chemground.cli.graph import open_for
    from chemground.graph.bench.generate import generate_tasks, task_counts, write_tasks

    output_file(out)
    with open_for(ctx, backend) as graph, stage_progress({"tasks": "tasks"}) as progress:
        tasks = generate_tasks(
            graph,
            per_type=per_type,
            seed=seed,
            max_gold_rows=max_gold_rows,
            types=types,
            progress=progress,
        )
    write_tasks(tasks, out)
    table = Table("task type", "tasks", title=f"{len(tasks)} tasks written to {out}")
    for name, n in task_counts(tasks).items():
        table.add_row(name, str(n))
    console.print(table)


def graph_run(
    ctx: typer.Context,
    tasks_path: Path = typer.Option(
        Path("graph_bench.jsonl"), "--tasks", help="Tasks from graph-generate."
    ),
    mode: str = typer.Option(
        "one-shot-semantic",
        "--mode",
        help="zero-shot | one-shot-static | one-shot-random | one-shot-semantic",
    ),
    reference: bool = typer.Option(
        False, "--reference", help="Score the reference queries (sanity check; no LLM)."
    ),
    validate: bool = typer.Option(True, "--validate/--no-validate"),
    link: bool = typer.Option(
        True,
        "--link/--no-link",
        help="Entity linking: resolve the question's compounds, tie the query's anchors to them.",
    ),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N tasks."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write per-task scores (JSONL)."),
    backend: str | None = typer.Option(None, "--backend"),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """Run Text2Cypher on every task with the configured LLM and score it (or --reference for a
    sanity run)."""
    from chemground.cli.graph import open_for
    from chemground.graph.bench.generate import read_tasks
    from chemground.graph.bench.run import prediction_of, reference_prediction, run_benchmark
    from chemground.graph.text2cypher import Text2Cypher
    from chemground.llm.config import llm_configured, llm_from_settings

    tasks = read_tasks(tasks_path)[:limit]
    if out is not None:
        output_file(out, tasks_path)
    settings = state(ctx).with_llm(llm_base_url, llm_model)
    if not reference and not llm_configured(settings):
        raise ChemgroundError(
            "graph-run needs an LLM to write the Cypher: pass --llm-base-url and --llm-model (or "
            "set "
            "CHEMGROUND_LLM_BASE_URL / CHEMGROUND_LLM_MODEL). Use --reference to score the "
            "reference queries "
            "as a sanity check without an LLM."
        )
    with open_for(ctx, backend) as graph:
        if reference:
            label = "reference queries (sanity check, no LLM)"

            def predict(task):
                return reference_prediction(graph, task)
        else:
            llm = llm_from_settings(settings)
            pipeline = Text2Cypher(graph, llm, mode=mode, validate=validate)
            label = f"Text2Cypher {mode}{' + entity linking' if link else ''} with {llm.model}"
            parser = None
            if link:
                from chemground.graph.linking import compounds_of
                from chemground.qa import QA

                parser = QA(state(ctx).workspace_for(settings))

            def predict(task):
                compounds = compounds_of(parser.parse(task["question"])) if parser else None
                return prediction_of(pipeline.run(task["question"], compounds))

        with stage_progress({"tasks": "tasks"}, enabled=not as_json) as progress:
            scores, summary = run_benchmark(tasks, graph, predict, progress=progress)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as handle:
            for item in scores:
                handle.write(json.dumps(item, ensure_ascii=False, default=str) + "\n")
    if as_json:
        print_json({"run": label, "summary": summary})
        return
    print_summary(summary, f"Graph benchmark: {label}, {len(tasks)} tasks")
    if reference:
        err_console.print(
            "This run scored the reference queries only (should be 1.0 everywhere); "
            "the real run needs an LLM (--llm-base-url / --llm-model)."
        )


def print_summary(summary: dict, title: str) -> None:
    table = Table(
        "task type",
        "n",
        "BLEU",
        "METEOR",
        "ROUGE-L",
        "P",
        "R",
        "F1",
        "path F1",
        "partial path R",
        "exact",
        "errors",
        title=title,
    )

    def fmt(v):
        return "–" if v is None else f"{v:.3f}"

    order = {name: i for i, name in enumerate(summary)}
    for name, row in sorted(
        summary.items(),
        key=lambda kv: (kv[0].startswith("level:") + 2 * (kv[0] == "all"), order[kv[0]]),
    ):
        errors = ", ".join(f"{k} {v}" for k, v in row["errors"].items() if v) or "none"
        table.add_row(
            name,
            str(row["n"]),
            fmt(row["bleu"]),
            fmt(row["meteor"]),
            fmt(row["rouge_l"]),
            fmt(row["precision"]),
            fmt(row["recall"]),
            fmt(row["f1"]),
            fmt(row["path_f1"]),
            fmt(row["partial_path_recall"]),
            fmt(row["exact_answer"]),
            errors,
        )
    console.print(table)
