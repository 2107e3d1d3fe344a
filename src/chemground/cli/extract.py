"""``chemground kb extract``: build KB reactions from patent and paper text with two LLMs.

Registered by ``chemground.cli.kb`` as ``kb extract`` (the function below is the command).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

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
from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import (
    ExtractionRun,
    ExtractOptions,
    RunCounts,
    RunResult,
    StoreOptions,
    store_records,
    write_records,
)
from chemground.extract.resolve import lookup_for_workspace
from chemground.extract.snippets import Snippet, kb_has_documents, read_snippets, snippets_from_kb
from chemground.llm.config import llm_from_settings
from chemground.workspace import Workspace


def extract(
    ctx: typer.Context,
    files: list[Path] | None = typer.Argument(
        None,
        help="Documents: plain text (.txt/.md), CSV/TSV or JSONL with a paragraph column, ORD "
        "JSONL (.gz ok).",
        show_default=False,
    ),
    extract_model: str | None = typer.Option(
        None,
        "--extract-model",
        help="Model for stage 1 (extraction); default: CHEMGROUND_LLM_MODEL.",
    ),
    check_model: str | None = typer.Option(
        None,
        "--check-model",
        help="Model for stage 2 (check and correct); "
        "ideally a stronger one; default: the extract model.",
    ),
    llm_base_url: LLMBaseURL = None,
    check_base_url: str | None = typer.Option(
        None,
        "--check-llm-base-url",
        help="Endpoint of the check model when it is served elsewhere (default: --llm-base-url).",
    ),
    from_documents: bool = typer.Option(
        False,
        "--from-documents",
        help="Also read the documents ingested for literature RAG (chemground lit) from the KB.",
    ),
    text_field: str | None = typer.Option(
        None,
        "--text-field",
        help="CSV/JSONL column with the paragraph "
        "(dotted path for nested JSON); default: paragraph, text, procedure...",
    ),
    id_field: str | None = typer.Option(
        None, "--id-field", help="CSV/JSONL column with the document id."
    ),
    all_paragraphs: bool = typer.Option(
        False,
        "--all-paragraphs",
        help="Send every paragraph, not only those that read like a procedure.",
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="Only the first N snippets (to try a setup)."
    ),
    run_dir: Path = typer.Option(
        Path("chemground-extract"),
        "--run-dir",
        help="Folder for the run journal (resume) and the records file.",
    ),
    concurrency: int | None = typer.Option(
        None,
        "--concurrency",
        min=1,
        help="Snippets worked on at once (default: CHEMGROUND_LLM_CONCURRENCY).",
    ),
    keep_unresolved: bool = typer.Option(
        False, "--keep-unresolved", help="Store reactions with unresolved names too (flagged)."
    ),
    keep_implausible: bool = typer.Option(
        False,
        "--keep-implausible",
        help="Store reactions whose product elements no input supplies (flagged).",
    ),
    allow_network: bool | None = typer.Option(
        None,
        "--network/--no-network",
        help="Ask PubChem for names "
        "the offline resolvers miss (default: CHEMGROUND_ALLOW_NETWORK).",
    ),
    json_mode: bool = typer.Option(
        True,
        "--json-mode/--no-json-mode",
        help="Ask the server for JSON output "
        "(response_format); turn off for servers that reject it.",
    ),
    max_tokens: int | None = typer.Option(None, "--max-tokens", help="Completion limit per call."),
    check_cost_in: float | None = typer.Option(
        None,
        "--check-cost-per-1k-input",
        help="Price of the check model (default: CHEMGROUND_LLM_COST_PER_1K_INPUT).",
    ),
    check_cost_out: float | None = typer.Option(
        None,
        "--check-cost-per-1k-output",
        help="Output price of the check model (default: CHEMGROUND_LLM_COST_PER_1K_OUTPUT).",
    ),
    dataset: str = typer.Option(
        "llm-extraction", "--dataset", help="Dataset label of the stored reactions."
    ),
    store: bool = typer.Option(True, "--store/--no-store", help="Write valid reactions to the KB."),
    as_json: JSONOutput = False,
) -> None:
    """Extract reactions from text with an LLM, check them with a second one, validate, and store
    them."""
    settings = state(ctx).with_llm(llm_base_url).with_overrides(allow_network=allow_network)
    if not files and not from_documents:
        raise ChemgroundError("nothing to read: give FILES and/or --from-documents")
    extract_llm = llm_from_settings(settings, model=extract_model, model_option="--extract-model")
    check_settings = settings.with_overrides(
        llm={
            "base_url": check_base_url,
            "cost_per_1k_input": check_cost_in,
            "cost_per_1k_output": check_cost_out,
        }
    )
    check_llm = llm_from_settings(
        check_settings, model=check_model or extract_model, model_option="--check-model"
    )
    workspace = Workspace(settings, build_progress=build_progress())
    snippets: list[Snippet] = []
    for path in files or []:
        snippets.extend(
            read_snippets(
                path, text_field=text_field, id_field=id_field, all_paragraphs=all_paragraphs
            )
        )
    if from_documents:
        if kb_has_documents(workspace.kb):
            snippets.extend(snippets_from_kb(workspace.kb, all_paragraphs=all_paragraphs))
        else:
            err_console.print(
                "no documents ingested for literature RAG in this KB (run `chemground lit add` "
                "first); reading FILES only"
            )
    if limit:
        snippets = snippets[:limit]
    if not snippets:
        raise ChemgroundError(
            "no snippet to extract from: no paragraph reads like an experimental procedure "
            "(pass --all-paragraphs to send every paragraph)"
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    journal = RunJournal(run_dir / "journal.sqlite")
    options = ExtractOptions(
        concurrency=concurrency or settings.llm.concurrency,
        json_mode=json_mode,
        max_tokens=max_tokens,
    )
    lookup = lookup_for_workspace(workspace)
    try:
        result = _run_with_progress(
            ExtractionRun(extract_llm, check_llm, lookup, journal, options), snippets, quiet=as_json
        )
    finally:
        journal.close()
    records_path = run_dir / "records.jsonl"
    write_records(records_path, result.records)
    summary = {
        "counts": result.counts.to_dict(),
        "usage": result.usage_dict(),
        "interrupted": result.interrupted,
        "seconds": round(result.seconds, 2),
        "run_dir": str(run_dir),
        "records": str(records_path),
        "unresolved_names": dict(_unresolved(result).most_common(50)),
    }
    if store and not result.interrupted:
        stored = store_records(
            workspace.kb,
            workspace.resolver,
            result.records,
            records_path=records_path,
            extract_model=extract_llm.model,
            check_model=check_llm.model,
            options=StoreOptions(dataset, keep_unresolved, keep_implausible),
        )
        summary["stored"] = {
            k: v
            for k, v in stored.to_dict().items()
            if k
            in ("reactions_added", "reactions_unchanged", "reactions_flagged", "compounds_added")
        }
    (run_dir / "summary.json").write_text(
        json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    workspace.close()
    if as_json:
        print_json(summary)
    else:
        _print_summary(result, summary)
    if result.interrupted:
        raise typer.Exit(130)


def _run_with_progress(run: ExtractionRun, snippets: list[Snippet], quiet: bool) -> RunResult:
    if quiet:
        return run.run(snippets)
    progress = Progress(
        TextColumn("snippets"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[counts]}"),
        console=err_console,
        transient=False,
    )
    with progress:
        task = progress.add_task("extract", total=len(snippets), counts="")

        def report(counts: RunCounts) -> None:
            progress.update(
                task, completed=counts.done, total=counts.snippets, counts=counts.line()
            )

        run.progress = report
        try:
            return run.run(snippets)
        except KeyboardInterrupt:
            err_console.print(
                "interrupted: the journal keeps every finished snippet; run the same command "
                "again to resume"
            )
            raise


def _unresolved(result: RunResult) -> Counter:
    counter: Counter = Counter()
    for record in result.records:
        if record.validation is not None:
            counter.update(record.validation.unresolved_names)
    return counter


def _print_summary(result: RunResult, summary: dict) -> None:
    c = result.counts
    table = Table(title="Extraction run", show_header=False)
    table.add_row(
        "snippets",
        f"{c.done:,} of {c.snippets:,} done ({c.resumed:,} from the journal, "
        f"{c.no_reaction:,} without a reaction)",
    )
    table.add_row(
        "records", f"{c.extracted:,} extracted, {c.checked:,} checked ({c.corrected:,} corrected)"
    )
    table.add_row("valid", f"{c.valid:,}")
    table.add_row("invalid", ", ".join(f"{k} {v:,}" for k, v in c.invalid.most_common()) or "0")
    if c.failed:
        table.add_row("failed", ", ".join(f"{k} {v:,}" for k, v in c.failed.most_common()))
    if c.warnings:
        table.add_row("warnings", ", ".join(f"{k} {v:,}" for k, v in c.warnings.most_common()))
    if "stored" in summary:
        s = summary["stored"]
        table.add_row(
            "stored",
            f"{s['reactions_added']:,} reactions added ({s['reactions_flagged']:,} flagged), "
            f"{s['reactions_unchanged']:,} already present, {s['compounds_added']:,} new compounds",
        )
    elif result.interrupted:
        table.add_row("stored", "nothing (interrupted; re-run to resume and store)")
    else:
        table.add_row("stored", "nothing (--no-store)")
    for stage, usage in summary["usage"]["this_run"].items():
        table.add_row(
            f"{stage} tokens",
            f"{usage['prompt_tokens']:,} in + {usage['completion_tokens']:,} out, "
            f"{usage['calls']:,} calls ({usage['cached_calls']:,} cached), "
            f"${usage['cost_usd']:.4f}" + (" (estimated)" if usage["estimated"] else ""),
        )
    total = summary["usage"]["total"]
    table.add_row(
        "total incl. resumed", f"{total['total_tokens']:,} tokens, ${total['cost_usd']:.4f}"
    )
    table.add_row(
        "files",
        f"{summary['records']} (every record with its status), {summary['run_dir']}/journal.sqlite",
    )
    console.print(table)
    if summary["unresolved_names"]:
        shown = ", ".join(
            f"{name!r} ×{n}" for name, n in list(summary["unresolved_names"].items())[:15]
        )
        console.print(f"unresolved names: {shown}", highlight=False)
