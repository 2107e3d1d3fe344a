"""``chemground lit ...``: add papers, search and ask them, generate and import QAC datasets."""

from __future__ import annotations

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

app = typer.Typer(help="Literature RAG: add papers, ask, QAC datasets.", no_args_is_help=True)

_INDEX_LABELS = {"bm25": "index: BM25 views", "dense": "index: embed sentence windows"}


def _library(ctx: typer.Context, dense: bool | None = None):
    from chemground.lit.library import Library

    if dense is None:
        dense = state(ctx).settings.lit.dense
    return Library(state(ctx).workspace(), dense=dense)


@app.command()
def add(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(
        ..., help="Files or folders (PDF, JATS/TEI XML, HTML, text)."
    ),
    chunk_size: int | None = typer.Option(
        None,
        "--chunk-size",
        help="Largest chunk, in characters (default: setting lit.chunk_size, 2000).",
        show_default=False,
    ),
    overlap: int | None = typer.Option(
        None,
        "--overlap",
        help="Characters repeated between neighbouring chunks (default: lit.overlap, 200).",
        show_default=False,
    ),
    fmt: str | None = typer.Option(
        None, "--format", help="pdf, xml, html or text (default: from the file)."
    ),
    encoding: str | None = typer.Option(
        None,
        "--encoding",
        help="Encoding of text (and HTML) files that are neither UTF-8 nor marked by a "
        "byte-order mark, e.g. latin-1 or cp1252; such files are refused without it.",
    ),
    max_file_mb: float | None = typer.Option(
        None,
        "--max-file-mb",
        help="Refuse files larger than this (MB; default: lit.max_file_mb, 50).",
        show_default=False,
    ),
    mentions: bool = typer.Option(
        True, "--mentions/--no-mentions", help="Index compound names/SMILES in chunks."
    ),
    index: bool = typer.Option(
        True, "--index/--no-index", help="Update the search index afterwards."
    ),
    dense: bool | None = typer.Option(
        None,
        "--dense/--no-dense",
        help="Embed sentence windows for dense search (default: lit.dense, on).",
        show_default=False,
    ),
    as_json: JSONOutput = False,
) -> None:
    """Add papers to the knowledge base (each file atomically; bad files are reported, the rest
    go on)."""
    library = _library(ctx, dense)
    lit = state(ctx).settings.lit
    with stage_progress({"files": "papers", **_INDEX_LABELS}, enabled=not as_json) as progress:
        summary = library.add(
            paths,
            chunk_size=lit.chunk_size if chunk_size is None else chunk_size,
            overlap=lit.overlap if overlap is None else overlap,
            find_mentions=mentions,
            fmt=fmt,
            progress=progress,
            encoding=encoding,
            max_file_mb=lit.max_file_mb if max_file_mb is None else max_file_mb,
        )
        if index and (summary.changed or not library.index_dir.exists()):
            library.index(progress)
    data = summary.to_dict()
    if library.last_build is not None:
        data["index"] = library.last_build.to_dict()
    if library.dense_note:
        data["notes"] = [library.dense_note]
    for skipped in summary.skipped:  # warnings, on stderr also with --json
        err_console.print(
            f"[bold yellow]skipped[/] {skipped.path}: {skipped.reason}", highlight=False
        )
    if as_json:
        print_json(data)
    else:
        for f in summary.files:
            name = Path(f.path).name
            if f.status == "failed":
                err_console.print(f"[bold red]failed[/] {f.error}", highlight=False)
            else:
                detail = f"{f.chunks} chunks" + (f", {f.pages} pages" if f.pages else "")
                if f.status != "unchanged":
                    clean = f.cleaning
                    detail += (
                        f", {f.mentions} compound mentions; removed "
                        f"{clean.get('citations', 0)} citation "
                        f"markers, "
                        f"{clean.get('reference_blocks', 0) + clean.get('reference_entries', 0)} "
                        f"reference blocks, {clean.get('running_lines', 0)} header/footer lines"
                    )
                console.print(
                    f"[bold]{f.status}[/] {name} → {f.document_id} ({detail})"
                    + (f" — {f.note}" if f.note else ""),
                    highlight=False,
                )
        console.print(
            f"{data['added']} added, {data['updated']} updated, {data['unchanged']} unchanged, "
            f"{data['failed']} failed"
            + (f", {len(summary.skipped)} skipped" if summary.skipped else "")
            + f"; {data['chunks_added']} chunks in {data['seconds']:.1f} s",
            highlight=False,
        )
        if library.last_build is not None:
            b = library.last_build
            console.print(
                f"index: {b.chunks} chunks, {b.windows} sentence windows, "
                f"dense {'yes' if b.dense else 'no'} "
                f"({b.seconds_bm25:.1f} s BM25, {b.seconds_dense:.1f} s dense)",
                highlight=False,
            )
        if library.dense_note:
            err_console.print(library.dense_note, highlight=False)
    if summary.count("failed"):
        raise typer.Exit(1)  # the other files were added; the exit status says not all were


@app.command("list")
def list_(ctx: typer.Context, as_json: JSONOutput = False) -> None:
    """Papers in the knowledge base."""
    library = _library(ctx, dense=False)
    docs = library.store.documents()
    rows = [
        {
            "id": d.id,
            "title": d.title,
            "format": d.format,
            "pages": d.n_pages,
            "path": d.path,
            "chunks": len(library.store.chunks_of(d.id)),
            "characters": len(d.text),
            "added_at": d.added_at,
        }
        for d in docs
    ]
    if as_json:
        print_json(rows)
        return
    table = Table("id", "title", "format", "pages", "chunks", "path", title=f"{len(rows)} papers")
    for r in rows:
        table.add_row(
            r["id"],
            (r["title"] or "")[:60],
            r["format"],
            str(r["pages"] or ""),
            str(r["chunks"]),
            r["path"],
        )
    console.print(table)


@app.command()
def show(
    ctx: typer.Context,
    item: str = typer.Argument(..., help="A document id or a chunk id (doc-…#n)."),
    as_json: JSONOutput = False,
) -> None:
    """Show a paper (its chunks) or one chunk (its text, place and compound mentions)."""
    store = _library(ctx, dense=False).store
    if "#" in item:
        chunk = store.chunk(item)
        data = {**chunk.__dict__, "location": chunk.location(), "mentions": store.mentions_of(item)}
        if as_json:
            print_json(data)
        else:
            console.print(f"[bold]{chunk.id}[/] ({chunk.location()})", highlight=False)
            console.print(chunk.text, highlight=False, markup=False)
            if data["mentions"]:
                console.print(
                    "compounds: " + ", ".join(sorted({m["mention"] for m in data["mentions"]})),
                    highlight=False,
                )
        return
    document = store.document(item)
    chunks = store.chunks_of(item)
    if as_json:
        print_json(
            {
                "id": document.id,
                "title": document.title,
                "path": document.path,
                "format": document.format,
                "pages": document.n_pages,
                "metadata": document.metadata,
                "chunks": [
                    {"id": c.id, "location": c.location(), "start": c.start, "end": c.end}
                    for c in chunks
                ],
            }
        )
        return
    console.print(
        f"[bold]{document.id}[/] {document.title or ''} ({document.path})", highlight=False
    )
    for c in chunks:
        console.print(f"  {c.id}: {c.location()}", highlight=False)


@app.command()
def remove(
    ctx: typer.Context,
    document_ids: list[str] = typer.Argument(..., help="Document ids to remove."),
) -> None:
    """Remove papers (with their chunks and mentions) from the knowledge base."""
    store = _library(ctx, dense=False).store
    for document_id in document_ids:
        store.delete(document_id)
        console.print(f"removed {document_id}")


@app.command()
def index(
    ctx: typer.Context,
    rebuild: bool = typer.Option(False, "--rebuild", help="Rebuild even if the index is current."),
    dense: bool | None = typer.Option(
        None,
        "--dense/--no-dense",
        help="Embed sentence windows for dense search (default: lit.dense, on).",
        show_default=False,
    ),
    as_json: JSONOutput = False,
) -> None:
    """Build or refresh the search index over the papers' chunks."""
    library = _library(ctx, dense)
    with stage_progress(_INDEX_LABELS, enabled=not as_json) as progress:
        built = library.index(progress, rebuild=rebuild)
    stats = library.last_build.to_dict() if library.last_build else None
    data = {
        "folder": str(library.index_dir),
        "chunks": len(built),
        "dense": built.has_dense,
        "built": stats,
        "notes": [library.dense_note] if library.dense_note else [],
    }
    if as_json:
        print_json(data)
    else:
        console.print(
            f"index at {library.index_dir}: {len(built)} chunks, "
            f"dense {'yes' if built.has_dense else 'no'}" + ("" if stats else " (already current)"),
            highlight=False,
        )


def _reranker(
    ctx, rerank: str | None, llm_base_url: str | None = None, llm_model: str | None = None
):
    """The second stage asked for with --rerank: ``llm`` scores the top candidates with the
    configured OpenAI-compatible endpoint (PaperQA2-style relevance)."""
    if rerank in (None, "", "none"):
        return None
    if rerank != "llm":
        raise ChemgroundError(f"unknown re-ranker {rerank!r}; use llm or none")
    from chemground.llm.config import llm_from_settings
    from chemground.retrieval.rerank import LLMReranker

    cli = state(ctx)
    settings = cli.with_llm(llm_base_url, llm_model)
    return LLMReranker(llm_from_settings(settings))


def _search(
    ctx,
    question: str,
    k: int,
    method: str,
    dense: bool,
    *,
    reranker=None,
    rerank_depth: int = 20,
    expand: bool = False,
):
    dense = dense and method in ("hybrid", "dense")
    if dense:
        from chemground.retrieval.onnx_encoder import load_in_background

        load_in_background()  # the question's encoder starts while the index loads (issue 17)
    library = _library(ctx, dense)
    with stage_progress(
        _INDEX_LABELS
    ) as progress:  # on stderr: only shown if the index must be rebuilt
        retriever = library.retriever(
            progress, reranker=reranker, rerank_depth=rerank_depth, expand=expand
        )
    return retriever.search(question, k=k, method=method)


@app.command()
def search(
    ctx: typer.Context,
    question: str = typer.Argument(...),
    k: int = typer.Option(5, "-k", help="How many chunks."),
    method: str = typer.Option("hybrid", "--method", help="hybrid, bm25, dense or mentions."),
    rerank: str | None = typer.Option(
        None, "--rerank", help="Second stage: llm (needs an endpoint) or none."
    ),
    rerank_depth: int = typer.Option(20, "--rerank-depth", help="Candidates the re-ranker scores."),
    expand: bool = typer.Option(
        False,
        "--expand/--no-expand",
        help="Add synonyms and abbreviations of the compounds named to the query.",
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """The chunks that best match a question (with why each was found)."""
    reranker = _reranker(ctx, rerank, llm_base_url, llm_model)
    result = _search(
        ctx,
        question,
        k,
        method,
        dense=True,
        reranker=reranker,
        rerank_depth=rerank_depth,
        expand=expand,
    )
    if as_json:
        print_json(
            {
                "question": question,
                "method": method,
                "evidence": [e.to_json() for e in result.evidence],
                "mentions": [m.__dict__ for m in result.mentions],
                "timings_ms": result.timings_ms,
                "notes": result.notes,
            }
        )
        return
    for note in result.notes:
        err_console.print(note, highlight=False)
    for e in result.evidence:
        console.print(
            f"[bold]{e.id}[/] {e.record.get('title') or ''} — {e.record['location']} "
            f"(score {e.score:.4g})",
            highlight=False,
        )
        console.print(f"  {' '.join(e.record['snippet'].split())}", highlight=False, markup=False)
        console.print(f"  [dim]{e.why}[/]", highlight=False)


@app.command()
def ask(
    ctx: typer.Context,
    question: str = typer.Argument(...),
    k: int = typer.Option(5, "-k", help="Chunks given to the answer."),
    method: str = typer.Option(
        "hybrid", "--method", help="Retrieval: hybrid, bm25, dense or mentions."
    ),
    use_llm: bool | None = typer.Option(
        None, "--llm/--no-llm", help="Answer with the LLM (default: when one is configured)."
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    rerank: str | None = typer.Option(
        None, "--rerank", help="Second stage: llm (the same endpoint) or none."
    ),
    rerank_depth: int = typer.Option(20, "--rerank-depth", help="Candidates the re-ranker scores."),
    expand: bool = typer.Option(
        False, "--expand/--no-expand", help="Add synonyms of the compounds named to the query."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Answer from the papers: cited snippets without an LLM, a cited answer with one."""
    from chemground.qa_factory import build_qa

    cli = state(ctx)
    cli.settings = cli.with_llm(llm_base_url, llm_model)
    reranker = _reranker(ctx, rerank)  # cli.settings already carries --llm-base-url/--llm-model
    with (
        cli.workspace_for(cli.settings, readonly=False) as workspace,
        stage_progress(_INDEX_LABELS) as progress,
    ):  # on stderr: only shown if the index must be rebuilt
        answer = build_qa(workspace).ask_papers(
            question,
            k=k,
            retrieval=method,
            use_llm=use_llm,
            reranker=reranker,
            rerank_depth=rerank_depth,
            expand=expand,
            progress=progress,
        )
    if as_json:  # the one Answer JSON of `chemground ask`
        print_json(answer.to_json())
        return
    for note in answer.notes:
        err_console.print(note, highlight=False)
    console.print(answer.answer, highlight=False, markup=False)
    cited = {e.id: e for e in answer.evidence}
    shown = [cited[c] for c in answer.citations if c in cited] or (
        answer.evidence if answer.status != "answered" else []
    )
    if shown:
        from chemground.lit.answer import citation_label

        console.print("\n[bold]Sources[/]")
        for e in shown:
            console.print("  " + citation_label(e), highlight=False, markup=False)


@app.command("qac-generate")
def qac_generate(
    ctx: typer.Context,
    out: Path = typer.Option(..., "--out", "-o", help="CSV to write (ChemLit-QA columns)."),
    documents: list[str] | None = typer.Option(
        None, "--document", "-d", help="Only these document ids."
    ),
    max_chunks: int | None = typer.Option(
        None, "--max-chunks", help="Stop after this many chunks."
    ),
    samples: int = typer.Option(
        5, "--samples", help="Answers sampled per question for semantic entropy."
    ),
    negatives: bool = typer.Option(
        True, "--negatives/--no-negatives", help="Also write a negative set."
    ),
    multihop: bool = typer.Option(
        True, "--multihop/--no-multihop", help="Also write multi-hop questions."
    ),
    workers: int = typer.Option(4, "--workers", help="Chunks processed at the same time."),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """Generate and filter question-answer-context triples from the papers' chunks (needs an LLM).

    Resumable: per-chunk results are kept in OUT.work.jsonl, so an interrupted run continues.
    """
    from chemground.lit.qac.pipeline import QACConfig, run_pipeline
    from chemground.llm.config import llm_from_settings

    cli = state(ctx)
    cli.settings = cli.with_llm(llm_base_url, llm_model)
    llm = llm_from_settings(cli.settings)
    library = _library(ctx, dense=True)
    if not library.dense:
        raise ChemgroundError(
            f"QAC generation needs chunk embeddings (similar chunks): {library.dense_note}"
        )
    config = QACConfig(
        samples=samples,
        negatives=negatives,
        multihop=multihop,
        workers=workers,
        max_chunks=max_chunks,
        documents=documents or None,
    )
    labels = {
        "chunks": "chunks",
        "score": "quality scores",
        "entropy": "semantic entropy",
        "negatives": "negatives",
        "multihop": "multi-hop",
        **_INDEX_LABELS,
    }
    with stage_progress(labels, enabled=not as_json) as progress:
        summary = run_pipeline(library, llm, out, config, progress=progress)
    if as_json:
        print_json(summary.to_dict())
    else:
        for line in summary.lines():
            console.print(line, highlight=False)


@app.command("qac-import")
def qac_import(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="A CSV in the ChemLit-QA layout."),
    out: Path | None = typer.Option(
        None,
        "--out",
        dir_okay=False,
        help="Write the records as JSON lines (missing folders are created).",
    ),
    encoding: str | None = typer.Option(
        None,
        "--encoding",
        help="The CSV's text encoding (default: UTF-8, or what a byte-order mark says).",
        show_default=False,
    ),
    as_json: JSONOutput = False,
) -> None:
    """Read a ChemLit-QA style CSV, check it, and summarise it (optionally convert to JSONL)."""
    import json

    from chemground.lit.qac.schema import read_qac_csv, summarise

    if out is not None:
        output_file(out, path)  # not the CSV itself (it was replaced), its folder made
    records = read_qac_csv(path, encoding=encoding)
    data = summarise(records)
    data["path"] = str(path)
    if out is not None:
        try:
            with out.open("w", encoding="utf-8") as handle:
                for record in records:
                    handle.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        except OSError as error:
            raise ChemgroundError(f"{out}: cannot write: {error.strerror or error}") from None
        data["written"] = str(out)
    if as_json:
        print_json(data)
        return
    console.print(
        f"{path.name}: {data['records']} records ({data['negatives']} negative), "
        f"{data['chunks']} distinct chunks",
        highlight=False,
    )
    for key in ("reasoning_types", "difficulties"):
        console.print(
            f"  {key.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in data[key].items()),
            highlight=False,
        )
