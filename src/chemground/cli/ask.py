"""``chemground ask`` and ``chemground retrieve``: answers with their evidence."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from chemground.cli.common import (
    JSONOutput,
    LLMBaseURL,
    LLMModel,
    console,
    err_console,
    output_file,
    print_json,
    state,
)
from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.reasoning.answer import Answer


def _qa(
    ctx: typer.Context,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    parser: str = "rules",
):
    from chemground.cli.common import StageProgress  # noqa: F401 - progress for first dense index build
    from chemground.qa_factory import build_qa

    cli = state(ctx)
    settings = cli.with_llm(llm_base_url, llm_model)
    if parser not in ("rules", "llm"):
        raise ChemgroundError(f"unknown parser {parser!r}; choose rules or llm")
    return build_qa(cli.workspace_for(settings), parser=parser, progress=_embed_progress())


def _embed_progress():
    """A progress bar for the one-time embedding of the KB's records (``--method dense``)."""
    bar = {}

    def report(stage: str, advance: int, total: int | None) -> None:
        if "progress" not in bar:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            bar["progress"] = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err_console,
                transient=True,
            )
            bar["progress"].start()
            bar["task"] = bar["progress"].add_task(
                "embedding KB records (once per KB state)", total=total
            )
        if advance:
            bar["progress"].advance(bar["task"], advance)
        if bar["progress"].tasks[0].finished:
            bar["progress"].stop()

    return report


def _evidence_summary(e: Evidence) -> str:
    r = e.record
    if e.kind == "reaction":
        reactants = " + ".join(
            p.get("name") or p.get("smiles") or "?" for p in r.get("reactants", [])[:3]
        )
        products = " + ".join(
            p.get("name") or p.get("smiles") or "?" for p in r.get("products", [])[:2]
        )
        return f"{reactants} → {products}"
    if e.kind == "graph_path":
        names = [m.get("name") or m.get("smiles") or m.get("key") for m in r.get("molecules", [])]
        return (
            " → ".join(str(n) for n in names)
            + f" ({r.get('length')} step{'s' if r.get('length') != 1 else ''})"
        )
    if e.kind == "tool_result":
        result = r.get("result") if r.get("ok") else f"error: {r.get('error')}"
        arguments = ", ".join(f"{k}={v!r}" for k, v in (r.get("arguments") or {}).items())
        return f"{r.get('tool')}({arguments}) -> {result}"[:300]
    if e.kind in ("compound", "computed"):
        return " ".join(
            str(x)
            for x in (r.get("name") or "", r.get("smiles") or "", r.get("formula") or "")
            if x
        )
    return str(r.get("text") or r)[:120]


def print_answer(answer: Answer) -> None:
    style = {"answered": "bold green", "partial": "bold yellow"}.get(answer.status, "bold red")
    console.print(f"[{style}]{escape(answer.answer)}[/]")
    for note in answer.notes:
        console.print(f"  [dim]note: {escape(note)}[/]")
    if answer.evidence:
        table = Table(title="Evidence", title_justify="left", show_lines=True, expand=True)
        table.add_column("#", width=2, no_wrap=True)
        table.add_column("match", width=8, no_wrap=True)
        table.add_column("record", ratio=3, overflow="fold")
        table.add_column("why", ratio=2, overflow="fold")
        for i, e in enumerate(answer.evidence, 1):
            record = f"[bold]{e.kind} {escape(e.id)}[/]\n{escape(_evidence_summary(e))}"
            table.add_row(str(i), f"{e.match}\n{e.score:.2f}", record, escape(e.why))
        console.print(table)
    decision = answer.trace.get("aspect_classifier")
    if decision:
        from chemground.reasoning.aspect_classifier import explain_decision

        console.print(f"[dim]aspect classifier: {escape(explain_decision(decision))}[/]")
    route = answer.trace.get("route") or {}
    if route.get("rule") not in (None, "override"):
        console.print(
            f"[dim]route: {escape(route.get('channel', ''))} ({escape(route.get('why', ''))})[/]"
        )
    console.print(
        f"[dim]method={answer.method} reasoner={answer.reasoner} aspect={answer.aspect} "
        f"time={answer.timings_ms.get('total', 0):.0f} ms[/]"
    )


def ask(
    ctx: typer.Context,
    question: str | None = typer.Argument(None, help="The question (omit with --batch)."),
    as_json: JSONOutput = False,
    batch: Path | None = typer.Option(
        None, "--batch", help='JSONL file of {"id", "question"}; one JSON answer per line.'
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="With --batch: write answers here (default stdout)."
    ),
    method: str = typer.Option(
        "auto",
        "--method",
        "-m",
        help="auto (the routing table picks: table, tools, routes or papers) | table | tools | "
        "routes | bm25 | dense | graph | lit | none.",
    ),
    reasoner: str = typer.Option(
        "extractive",
        "--reasoner",
        "-r",
        help="extractive | direct | cot | adaptive | adaptive-no-prototype | "
        "adaptive-no-grounding | rag-direct (all but extractive need an LLM).",
    ),
    parser: str = typer.Option(
        "rules", "--parser", help="Question parser: rules | llm (falls back to rules)."
    ),
    k: int | None = typer.Option(
        None,
        "-k",
        min=1,
        help="How many evidence records to retrieve (default: setting kb.top_k, 5).",
        show_default=False,
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
) -> None:
    """Answer a chemistry question from the knowledge base, with the evidence shown."""
    qa = _qa(ctx, llm_base_url, llm_model, parser)
    k = state(ctx).settings.kb.top_k if k is None else k
    if batch is not None:
        if question:
            raise ChemgroundError("give either a question or --batch FILE, not both")
        _batch(qa, batch, output, method, reasoner, k)
        return
    if output is not None:
        raise ChemgroundError("--output is for --batch; a single answer is printed")
    if not question:
        raise ChemgroundError(
            'give a question, e.g. chemground ask "what is the molecular weight of aspirin?", or '
            "--batch FILE"
        )
    answer = qa.ask(question, method=method, reasoner=reasoner, k=k)
    if as_json:
        print_json(answer.to_json())
    else:
        print_answer(answer)
    if answer.status in ("not_understood", "error"):
        raise typer.Exit(1)


def _batch(qa, path: Path, output: Path | None, method: str, reasoner: str, k: int) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if path.is_dir():
        raise ChemgroundError(f"{path} is a folder; --batch reads a JSONL file")
    if not path.exists():
        raise ChemgroundError(f"{path}: no such file")
    if output is not None:
        output_file(output, path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise ChemgroundError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from error
    sink = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115 - closed in the finally below
    progress = Progress(
        TextColumn("answering"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
    )
    errors = 0
    try:
        with progress:
            task = progress.add_task("answering", total=sum(1 for line in lines if line.strip()))
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                        raise ValueError('expected an object with a "question" string')
                    answer = qa.ask(
                        item["question"], method=method, reasoner=reasoner, k=k, id=item.get("id")
                    )
                    record = answer.to_json()
                except (ValueError, ChemgroundError) as error:
                    item_id = item.get("id") if isinstance(locals().get("item"), dict) else None
                    record = {
                        "id": item_id,
                        "question": None,
                        "answer": "",
                        "status": "error",
                        "error": f"line {number}: {error}",
                    }
                errors += record["status"] == "error"
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
                progress.advance(task)
                item = None
    finally:
        if output:
            sink.close()
    if errors:  # each is in the output with its line number; the exit status says so too
        err_console.print(f"{errors} of {progress.tasks[0].total} lines could not be answered")
        raise typer.Exit(1)


def retrieve(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="The question."),
    k: int | None = typer.Option(
        None,
        "-k",
        min=1,
        help="How many records (default: setting kb.top_k, 5).",
        show_default=False,
    ),
    method: str = typer.Option(
        "auto", "--method", "-m", help="auto | table | tools | routes | bm25 | dense."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Show how a question is parsed (QueryTuple) and which records it retrieves."""
    qa = _qa(ctx)
    k = state(ctx).settings.kb.top_k if k is None else k
    started = time.perf_counter()
    query, evidence = qa.retrieve(question, method=method, k=k)
    elapsed_ms = (time.perf_counter() - started) * 1000  # (it printed time=0 ms: none was kept)
    if as_json:
        print_json({"query": query.to_json(), "hits": [e.to_json() for e in evidence]})
        return
    console.print(f"level={query.level} aspect={query.aspect} input_format={query.input_format}")
    for m in query.mentions:
        status = f"→ {m.smiles} ({m.resolved_by})" if m.resolved else f"unresolved: {m.reason}"
        role = f" role={m.role.value}" if m.role else ""
        fix = f" corrected to {m.correction!r}" if m.correction else ""
        console.print(f"  mention {m.text!r} [{m.input_format}]{role}{fix} {escape(status)}")
    for p in query.problems:
        console.print(f"  [yellow]{escape(p)}[/]")
    print_answer(
        Answer(
            question=question,
            answer=f"{len(evidence)} hit(s)",
            evidence=evidence,
            method=method,
            reasoner="-",
            aspect=query.aspect.value if query.aspect else None,
            timings_ms={"total": round(elapsed_ms, 3)},
        )
    )
