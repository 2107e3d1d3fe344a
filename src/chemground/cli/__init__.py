"""The ``chemground`` command line: a thin layer over the Python API.

Every sub-command lives in its own module and is registered here. Errors a user can act on
(``ChemgroundError``) print one clear line and exit with status 2; nothing prints a traceback
unless ``--debug`` is given.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Optional

import rich.markup
import typer

from chemground import __version__
from chemground.cli import ask, compound, kb, search, serve
from chemground.cli.common import CLIState, err_console
from chemground.errors import ChemgroundError
from chemground.settings import get_settings

app = typer.Typer(
    name="chemground",
    help="Grounded chemistry question answering: every answer comes with evidence you can check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.command("ask")(ask.ask)
app.command("retrieve")(ask.retrieve)
app.command("compound")(compound.compound)
app.command("search")(search.search)
app.add_typer(kb.app, name="kb")
app.command("serve")(serve.serve)

# Areas still being built register themselves when their module exists.
_GROUPS = {
    "graph": ("chemground.cli.graph", "Reaction knowledge graph: build, ask (Text2Cypher), routes."),
    "lit": ("chemground.cli.lit", "Literature RAG: add papers, ask, QAC datasets."),
    "tools": ("chemground.cli.tools", "Chemistry tool pool: list and call tools."),
    "agent": ("chemground.cli.agent", "Tool-using agent (chain of thought, tree search)."),
    "bench": ("chemground.cli.bench", "Benchmarks: generate and run."),
    "llm": ("chemground.cli.llm", "Local models: serve a GGUF file with llama.cpp, inspect GGUF files."),
}
for _name, (_module, _help) in _GROUPS.items():
    try:
        _mod = importlib.import_module(_module)
    except ModuleNotFoundError as _error:
        if _error.name != _module:
            raise
        continue
    app.add_typer(_mod.app, name=_name, help=_help)

_debug = False


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chemground {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    kb_path: Optional[Path] = typer.Option(
        None, "--kb", help="Knowledge-base file (default: per-user data dir; env CHEMGROUND_KB).",
        show_default=False,
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    global _debug
    _debug = debug
    settings = get_settings()
    if kb_path is not None:
        settings = settings.with_overrides(kb_path=kb_path.expanduser())
    ctx.obj = CLIState(settings=settings)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning ChemgroundErrors into one-line messages (exit 2)."""
    try:
        app(args=argv, prog_name="chemground")
    except SystemExit as exit_:  # typer/click finished (normal end, --help, usage error)
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except ChemgroundError as error:
        if _debug:
            raise
        err_console.print(f"[bold red]error:[/] {rich.markup.escape(str(error))}", highlight=False)  # ids like [doc-1#0] stay
        return 2
    except KeyboardInterrupt:
        err_console.print("interrupted")
        return 130
    return 0


def entry() -> None:
    sys.exit(main())
