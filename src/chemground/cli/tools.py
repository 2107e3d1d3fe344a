"""``chemground tools list|show|call|search``: the chemistry tool pool from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from chemground.cli.common import JSONOutput, console, print_json, state
from chemground.errors import ChemgroundError

app = typer.Typer(
    help="Chemistry tool pool: list, inspect, search and call tools.", no_args_is_help=True
)


@app.command("list")
def list_tools(
    as_json: JSONOutput = False,
    namespace: str | None = typer.Option(
        None, "--namespace", "-n", help="Only tools of this namespace."
    ),
) -> None:
    """List the tools with their signatures."""
    from chemground.agent.registry import default_registry

    registry = default_registry()
    manifests = registry.manifests(namespace)
    if namespace and not manifests:
        raise ChemgroundError(
            f"no namespace {namespace!r}; namespaces: {', '.join(registry.namespaces())}"
        )
    if as_json:
        print_json([m.to_json() for m in manifests])
        return
    table = Table(title=f"{len(manifests)} tools", title_justify="left")
    table.add_column("tool", no_wrap=True)
    table.add_column("parameters")
    table.add_column("returns")
    table.add_column("description")
    for m in manifests:
        params = ", ".join(
            f"{p.name}: {p.type}" + (f" [{p.unit}]" if p.unit else "") + ("" if p.required else "?")
            for p in m.parameters
        )
        flag = " [yellow](online)[/]" if m.needs_network else ""
        table.add_row(
            m.name + flag,
            params,
            m.returns.type,
            m.description[:110] + ("…" if len(m.description) > 110 else ""),
        )
    console.print(table)


@app.command("show")
def show_tool(
    name: str = typer.Argument(..., help="Tool name, e.g. cactus/CalculateLogP."),
) -> None:
    """Show one tool's full manifest (JSON)."""
    from chemground.agent.registry import default_registry

    manifest = default_registry().get(name)
    data = manifest.to_json()
    data["openai_schema"] = manifest.openai_tool()
    print_json(data)


def _positive_seconds(value: float | None) -> float | None:
    """``--timeout`` checked when the options are parsed: a limit must be more than 0 s."""
    if value is not None and not value > 0:  # also refuses nan
        raise typer.BadParameter(f"{value:g} is not a time limit: give seconds, more than 0")
    return value


@app.command("call")
def call_tool(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Tool name, e.g. cactus/CalculateLogP."),
    args: str = typer.Option(
        "{}",
        "--args",
        "-a",
        help="Arguments as JSON: an object {name: value} or a list in parameter order.",
    ),
    files_dir: Path | None = typer.Option(
        None,
        "--files-dir",
        exists=True,
        file_okay=False,
        help="An existing folder the tool reads and writes files in (default: the current folder).",
    ),
    timeout: float | None = typer.Option(
        None,
        "--timeout",
        callback=_positive_seconds,
        help="Time limit in seconds, more than 0 (default: the tool's).",
    ),
    memory_mb: int | None = typer.Option(
        None,
        "--memory-mb",
        min=0,
        help="Memory limit of the tool worker in MB (default "
        "3072 or CHEMGROUND_TOOL_MEMORY_MB; 0 for none).",
    ),
    as_json: JSONOutput = False,
) -> None:
    """Validate the arguments against the manifest and run the tool (in a worker process with time
    and memory limits)."""
    from chemground.agent.runner import ToolRunner
    from chemground.cli.common import build_progress

    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as error:
        raise ChemgroundError(f"--args is not valid JSON: {error}") from None
    settings = state(ctx).settings
    with ToolRunner(
        settings=settings,
        files_dir=(files_dir or Path.cwd()).resolve(),
        timeout_s=timeout,
        kb_progress=build_progress(),
        memory_mb=memory_mb,
    ) as runner:
        result = runner.call(name, arguments)
    if as_json:
        print_json(result.to_json())
    elif result.ok:
        value = result.value
        console.print(
            value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False),
            highlight=False,
        )
    if not result.ok:
        raise ChemgroundError(f"{result.tool}: {result.error}")


@app.command("search")
def search_tools(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="What you want to do, in words."),
    k: int = typer.Option(5, "-k", help="How many tools."),
    method: str = typer.Option("hybrid", "--method", help="bm25, dense or hybrid."),
    as_json: JSONOutput = False,
) -> None:
    """The tools best suited to a request (BM25, dense MiniLM, or both fused)."""
    from chemground.agent.retriever import ToolRetriever

    retriever = ToolRetriever(cache_dir=state(ctx).settings.cache_dir)
    hits = retriever.search(query, k=k, method=method)
    if as_json:
        print_json([{"tool": name, "score": score} for name, score in hits])
        return
    for name, score in hits:
        console.print(f"{score:8.4f}  {name}", highlight=False)
