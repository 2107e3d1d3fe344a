"""``chemground graph ...``: build the reaction graph, query it, ask it questions, search routes."""

from __future__ import annotations

import typer
from rich.markup import escape
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
from chemground.errors import ChemgroundError, NotFoundError
from chemground.graph.backend import GraphBackend
from chemground.graph.config import GRAPH_FILE, graph_dir_for, open_graph

app = typer.Typer(
    help="Reaction knowledge graph: build, query, ask (Text2Cypher), routes.", no_args_is_help=True
)

BACKEND_HELP = "ladybug (embedded, default) or neo4j (CHEMGROUND_NEO4J_URL)."


def _summary_line(summary) -> str:
    c = summary.counts
    edges = sum(c.get("edges", {}).values())
    if summary.action == "unchanged":
        head = "Graph is up to date with the KB (nothing to do)"
    else:
        head = (
            f"{summary.action.capitalize()} build: +{summary.reactions_added:,} reactions, "
            f"+{summary.molecules_added:,} molecules, +{summary.edges_added:,} edges in "
            f"{summary.seconds:.1f} s "
            f"(export {summary.export_seconds:.1f} s, load {summary.load_seconds:.1f} s)"
        )
    text = (
        f"{head}. Graph {summary.location}: {c.get('molecules', 0):,} molecules, "
        f"{c.get('reactions', 0):,} "
        f"reactions, {edges:,} edges"
    )
    if summary.size_bytes:
        text += f", {summary.size_bytes / 1e6:,.1f} MB"
    if summary.skipped_participants:
        top = ", ".join(f"{name!r} ×{n}" for name, n in list(summary.top_skipped_names.items())[:5])
        text += (
            f". Left out {summary.skipped_participants:,} participants without a structure or "
            "compound "
            f"(e.g. {top})"
        )
    return text + "."


def ensure_graph(ctx: typer.Context, backend: str | None = None) -> None:
    """Build the embedded graph on first use (like the KB), saying so on stderr."""
    settings = state(ctx).settings
    graph_settings = settings.graph
    if (backend or graph_settings.backend) != "ladybug":
        return
    if (graph_dir_for(settings.kb.path, graph_settings) / GRAPH_FILE).exists():
        return
    from chemground.graph.build import build_graph

    with state(ctx).workspace() as ws:
        ws.kb  # noqa: B018 - builds the KB itself when it is missing
    err_console.print("[bold]Building the reaction graph[/] from the knowledge base (first use)…")
    summary = build_graph(settings.kb.path, backend="ladybug", settings=graph_settings)
    err_console.print(_summary_line(summary), highlight=False)


def open_for(ctx: typer.Context, backend: str | None) -> GraphBackend:
    ensure_graph(ctx, backend)
    settings = state(ctx).settings
    return open_graph(settings.kb.path, backend=backend, settings=settings.graph)


@app.command()
def build(
    ctx: typer.Context,
    full: bool = typer.Option(
        False, "--full", help="Rebuild from scratch instead of appending what is new."
    ),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
    as_json: JSONOutput = False,
) -> None:
    """Export the KB's reactions to the graph (incremental when the KB only grew; --full to
    redo)."""
    from chemground.graph.build import build_graph

    settings = state(ctx).settings
    with state(ctx).workspace() as ws:
        ws.kb  # noqa: B018 - opens (or builds) the KB before the progress bar starts
    with stage_progress(
        {"export": "read reactions from the KB", "load": "bulk-load nodes and edges"},
        enabled=not as_json,
    ) as progress:
        summary = build_graph(
            settings.kb.path,
            backend=backend,
            settings=settings.graph,
            full=full,
            progress=progress,
        )
    if as_json:
        print_json(summary.to_dict())
    else:
        console.print(_summary_line(summary), highlight=False)


@app.command()
def stats(
    ctx: typer.Context,
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
    as_json: JSONOutput = False,
) -> None:
    """Node and edge counts of the graph."""
    with open_for(ctx, backend) as graph:
        counts = graph.counts()
    data = {
        "backend": graph.name,
        "molecules": counts.molecules,
        "reactions": counts.reactions,
        "edges": counts.edges,
    }
    if as_json:
        print_json(data)
        return
    table = Table("what", "count", title=f"Reaction graph ({graph.name})")
    table.add_row("Molecule nodes", f"{counts.molecules:,}")
    table.add_row("Reaction nodes", f"{counts.reactions:,}")
    for rel, n in counts.edges.items():
        table.add_row(f"{rel} edges", f"{n:,}")
    console.print(table)


@app.command()
def schema() -> None:
    """The graph schema (what Text2Cypher shows the LLM)."""
    from chemground.graph.schema import describe_schema

    console.print(describe_schema(), highlight=False)


@app.command()
def query(
    ctx: typer.Context,
    cypher: str = typer.Argument(..., help="A read-only Cypher query."),
    limit: int = typer.Option(100, "--limit", min=1, help="Most rows to return."),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
    as_json: JSONOutput = False,
) -> None:
    """Run read-only Cypher (write and admin clauses are refused before execution).

    An edge written against the synthesis flow matches nothing; such edges are named in a
    warning (the query runs as written: ``graph ask`` is the command that corrects queries).
    """
    from chemground.graph.lexer import CypherSyntaxError
    from chemground.graph.patterns import direction_issues

    try:
        warnings = [issue.describe() for _, issue in direction_issues(cypher)]
    except CypherSyntaxError:
        warnings = []  # the engine reports the syntax error itself, in its own words
    with open_for(ctx, backend) as graph:
        result = graph.query(cypher, limit=limit)
    if warnings and not result.rows:
        warnings.append("the query returned no rows; flip the edge(s) named above")
    if as_json:
        print_json({**result.to_json(), "warnings": warnings})
        return
    for warning in warnings:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    _print_rows(
        result.columns, result.rows, f"{len(result.rows)}{'+' if result.truncated else ''} rows"
    )


def _print_rows(columns, rows, title: str) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*(str(row.get(c)) for c in columns))
    console.print(table)


@app.command()
def ask(
    ctx: typer.Context,
    question: str = typer.Argument(
        ..., help="A question about reactions, e.g. 'which reactions make Nc1ccccc1?'"
    ),
    mode: str = typer.Option(
        "one-shot-semantic",
        "--mode",
        help="zero-shot | one-shot-static | one-shot-random | one-shot-semantic",
    ),
    validate: bool = typer.Option(
        True, "--validate/--no-validate", help="Run the LLM checklist validator."
    ),
    max_corrections: int = typer.Option(3, "--max-corrections", min=0, max=3),
    limit: int = typer.Option(50, "--limit", min=1, help="Most rows to return."),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """Text2Cypher: an LLM writes Cypher for the question; it is checked, corrected and run
    read-only."""
    from chemground.qa_factory import build_qa

    settings = state(ctx).with_llm(llm_base_url, llm_model)
    with state(ctx).workspace_for(settings) as workspace, open_for(ctx, backend) as graph:
        answer = build_qa(workspace).ask_graph(
            question,
            mode=mode,
            validate=validate,
            max_corrections=max_corrections,
            limit=limit,
            graph=graph,
        )
    run = answer.trace.get("retrieval", {})
    if as_json:
        print_json(answer.to_json())  # the one Answer JSON of `chemground ask`
    else:
        console.print(
            f"[bold]Cypher[/] ({run.get('corrections', 0)} corrections, mode {mode}):\n"
            f"{escape(run.get('query', ''))}",
            highlight=False,
        )
        for fix in run.get("direction_fixes", []):
            console.print(f"[yellow]direction fixed:[/] {escape(fix)}", highlight=False)
        rows = answer.value or []
        if answer.status != "error":
            columns = list(rows[0]) if rows else []
            _print_rows(columns, rows, f"{len(rows)} rows")
        for problem in run.get("unresolved_checklist", []):
            console.print(f"[yellow]validator still reports:[/] {escape(problem)}", highlight=False)
    if answer.status == "error":
        raise ChemgroundError(
            run.get("error") or "the question could not be answered from the graph"
        )


@app.command()
def route(
    ctx: typer.Context,
    starts: list[str] = typer.Option(
        ..., "--from", help="Starting material (name, SMILES, InChIKey, CAS); repeatable."
    ),
    target: str | None = typer.Option(
        None, "--to", help="Target molecule; without it, list forward products."
    ),
    k: int = typer.Option(5, "-k", "--k", min=1, help="Most routes to return."),
    max_depth: int = typer.Option(3, "--max-depth", min=1, max=8, help="Most reaction steps."),
    all_products: bool = typer.Option(
        False, "--all-products", help="Also step through by-products, not only the main product."
    ),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
    as_json: JSONOutput = False,
) -> None:
    """Shortest reaction routes from starting materials to a target, or forward from one starting
    material."""
    from chemground.graph.resolve import molecule_key_for
    from chemground.graph.routes import find_routes, forward_products

    if target is not None and not target.strip():  # it became a forward search, silently
        raise ChemgroundError("--to is empty: name the target, or leave --to out to go forward")
    with state(ctx).workspace(readonly=True) as ws:
        start_keys = [molecule_key_for(s, ws.resolver, ws.kb) for s in starts]
        target_key = molecule_key_for(target, ws.resolver, ws.kb) if target else None
    with open_for(ctx, backend) as graph:
        if target_key:
            search = find_routes(
                graph, start_keys, target_key, k=k, max_depth=max_depth, main_only=not all_products
            )
        else:
            if len(start_keys) != 1:
                raise ChemgroundError("forward search takes exactly one --from")
            search = forward_products(
                graph, start_keys[0], max_depth=max_depth, limit=k, main_only=not all_products
            )
    if as_json:
        print_json(
            {
                "routes": [r.to_json() for r in search.routes],
                "found": search.found,
                "truncated": search.truncated,
                "explored_molecules": search.explored_molecules,
            }
        )
        return
    if not search.routes:
        what = f"to {target}" if target else "forward"
        raise NotFoundError(f"no route {what} within {max_depth} steps from {', '.join(starts)}")
    for i, r in enumerate(search.routes, start=1):
        console.print(
            f"{i}. ({r.length} step{'s' if r.length > 1 else ''}) {r.describe()}",
            highlight=False,
            markup=False,
        )
    if search.found > len(search.routes):
        console.print(
            f"showing {len(search.routes)} of {search.found} (raise -k for more)", highlight=False
        )
    if search.truncated:
        console.print(
            "[yellow]the search hit its size limit (very large neighbourhood); results may be "
            "incomplete[/]"
        )
