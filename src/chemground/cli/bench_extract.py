"""``chemground bench extract-run``: score LLM extraction against ORD gold, or measure the
validation ceiling on the gold records themselves (``--gold-only``, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from chemground.cli.common import (
    JSONOutput,
    LLMBaseURL,
    build_progress,
    console,
    err_console,
    print_json,
    state,
)
from chemground.errors import ChemgroundError
from chemground.extract import gold as gold_data
from chemground.extract.bench import gold_ceiling, run_extraction_bench
from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import ExtractOptions, RunCounts
from chemground.extract.resolve import lookup_for_workspace
from chemground.extract.scoring import Tolerances
from chemground.llm.config import llm_from_settings
from chemground.workspace import Workspace

DATASETS = (gold_data.TEXT2JSON, gold_data.USPTO_GRANTS)


def register(app: typer.Typer) -> None:
    app.command("extract-run")(extract_run)


def extract_run(
    ctx: typer.Context,
    data: Path = typer.Option(
        ...,
        "--data",
        help="The reactions data folder holding ord_text2json_*/ and "
        "ord_uspto_grants/ (e.g. ../shared/data/reactions).",
    ),
    dataset: str = typer.Option("all", "--dataset", help=f"{', '.join(DATASETS)} or all."),
    limit: int | None = typer.Option(
        200, "--limit", help="Paragraphs per dataset (random sample, fixed seed); 0 for all."
    ),
    seed: int = typer.Option(0, "--seed"),
    split: str = typer.Option(
        "test", "--split", help="Split of the text-to-JSON set: test, train or all."
    ),
    gold_only: bool = typer.Option(
        False,
        "--gold-only",
        help="No LLM: run the validation stage on the gold "
        "records (the ceiling any extraction can reach).",
    ),
    extract_model: str | None = typer.Option(None, "--extract-model"),
    check_model: str | None = typer.Option(None, "--check-model"),
    llm_base_url: LLMBaseURL = None,
    concurrency: int | None = typer.Option(None, "--concurrency", min=1),
    run_dir: Path = typer.Option(
        Path("chemground-extract-bench"), "--run-dir", help="Run journal (resumable)."
    ),
    json_mode: bool = typer.Option(True, "--json-mode/--no-json-mode"),
    temperature_tolerance: float = typer.Option(5.0, "--temperature-tolerance", help="°C"),
    time_tolerance: float = typer.Option(
        0.10, "--time-tolerance", help="relative (0.10 = 10%, at least 0.1 h)"
    ),
    yield_tolerance: float = typer.Option(1.0, "--yield-tolerance", help="percentage points"),
    out: Path | None = typer.Option(None, "--out", help="Write the full report as JSON."),
    as_json: JSONOutput = False,
) -> None:
    """Per-role P/R/F1 (structure match, then name), condition accuracy and survival of
    validation."""
    names = DATASETS if dataset == "all" else (dataset,)
    if any(n not in DATASETS for n in names):
        raise ChemgroundError(f"unknown dataset {dataset!r}; choose {', '.join(DATASETS)} or all")
    found = gold_data.find_datasets(data)
    missing = [n for n in names if n not in found]
    if missing:
        raise ChemgroundError(
            f"{data}: no gold file for {', '.join(missing)} (expected ord_text2json_*/*.json.gz "
            "and ord_uspto_grants/*.jsonl.gz)"
        )
    settings = state(ctx).with_llm(llm_base_url)
    reports: dict[str, Any] = {}
    with Workspace(settings, build_progress=build_progress()) as workspace:
        lookup = lookup_for_workspace(workspace)
        if not gold_only:
            extract_llm = llm_from_settings(settings, model=extract_model)
            check_llm = llm_from_settings(settings, model=check_model or extract_model)
        for name in names:
            records = gold_data.load(name, found[name], limit or None, seed, split)
            if gold_only:
                with _bar(f"{name}: validate gold", len(records), as_json) as tick:
                    reports[name] = gold_ceiling(records, lookup, progress=tick)
                continue
            journal = RunJournal(run_dir / "journal.sqlite")
            try:
                with _bar(f"{name}: extract", len(records), as_json) as tick:
                    reports[name] = run_extraction_bench(
                        records,
                        extract_llm,
                        check_llm,
                        lookup,
                        journal,
                        ExtractOptions(
                            concurrency=concurrency or settings.llm.concurrency, json_mode=json_mode
                        ),
                        Tolerances(temperature_tolerance, time_tolerance, 0.1, yield_tolerance),
                        progress=lambda counts: tick(counts.done, counts),
                    )
            finally:
                journal.close()
    if out:
        out.write_text(json.dumps(reports, indent=2, ensure_ascii=False), encoding="utf-8")
    if as_json:
        print_json(reports)
    else:
        for name, report in reports.items():
            (_print_ceiling if gold_only else _print_scores)(name, report)


class _bar:
    def __init__(self, label: str, total: int, quiet: bool) -> None:
        self.label, self.total, self.quiet = label, total, quiet
        self.progress: Progress | None = None

    def __enter__(self):
        if self.quiet:
            return lambda done, counts=None: None
        self.progress = Progress(
            TextColumn(self.label),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[counts]}"),
            console=err_console,
        )
        self.progress.start()
        task = self.progress.add_task(self.label, total=self.total, counts="")

        def tick(done: int, counts: RunCounts | None = None) -> None:
            self.progress.update(task, completed=done, counts=counts.line() if counts else "")  # type: ignore[union-attr]

        return tick

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


def _print_scores(name: str, report: dict[str, Any]) -> None:
    if not report["real_models"]:
        console.print(
            "[bold yellow]scripted LLM: these numbers measure the pipeline, not a model[/]"
        )
    table = Table(
        "role",
        "precision",
        "recall",
        "F1",
        "stage-1 F1",
        "predicted",
        "gold",
        title=f"{name}: {report['snippets']} paragraphs, extract {report['extract_model']}, "
        f"check {report['check_model']}",
    )
    for role, prf in {
        **report["checked"]["roles"],
        "all roles": report["checked"]["all_roles"],
        "any role": report["checked"]["any_role"],
    }.items():
        stage1 = report["stage1"]["roles"].get(role) or report["stage1"].get(role.replace(" ", "_"))
        table.add_row(
            role,
            f"{prf['precision']:.3f}",
            f"{prf['recall']:.3f}",
            f"{prf['f1']:.3f}",
            f"{stage1['f1']:.3f}",
            str(prf["predicted"]),
            str(prf["gold"]),
        )
    console.print(table)
    fields = Table(
        "field",
        "accuracy",
        "gold values",
        "missing",
        "spurious",
        title="conditions within tolerance",
    )
    for field, acc in report["checked"]["fields"].items():
        fields.add_row(
            field,
            f"{acc['accuracy']:.3f}",
            str(acc["gold"]),
            str(acc["missing"]),
            str(acc["spurious"]),
        )
    console.print(fields)
    usage = report["usage"]["total"]
    console.print(
        f"survived validation: {report['survived']}/{report['snippets']} "
        f"({report['survival_rate']:.1%}); "
        f"tokens {usage['total_tokens']:,}, cost ${usage['cost_usd']:.4f}, {report['seconds']} s",
        highlight=False,
    )


def _print_ceiling(name: str, report: dict[str, Any]) -> None:
    table = Table(
        "role",
        "mentions",
        "resolved",
        "share",
        "labels",
        "distinct names",
        "distinct resolved",
        title=f"{name}: validation stage on {report['reactions']} gold reactions (no LLM)",
    )
    for role, r in report["roles"].items():
        table.add_row(
            role,
            str(r["mentions"]),
            str(r["resolved"]),
            f"{r['share']:.1%}",
            str(r["labels"]),
            str(r["distinct_names"]),
            f"{r['distinct_share']:.1%}",
        )
    console.print(table)
    console.print(
        f"every participant resolved: {report['all_participants_resolved']} "
        f"({report['all_resolved_share']:.1%}); "
        f"kept by the filter: {report['kept_by_filter']} ({report['kept_share']:.1%}); "
        f"reasons: {report['reasons']}; sources: {report['sources']}",
        highlight=False,
    )
