"""The ``chemground`` command line: a thin layer over the Python API.

Every sub-command lives in its own module and is registered here. Errors a user can act on
(``ChemgroundError``) print one clear line and exit with status 2; nothing prints a traceback
unless ``--debug`` is given.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import click
import typer
import typer.main

from chemground import __version__
from chemground.errors import ChemgroundError

# Every command, by name: (module, attribute, one-line help). A command's module is imported only
# when that command runs (or when --help lists commands in full), so `chemground ask` does not pay
# for the graph, literature, tools, extraction and benchmark code (start-up was ~1.3 s, issue 16).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "ask": ("chemground.cli.ask", "ask", "Answer a chemistry question, with the evidence shown."),
    "retrieve": (
        "chemground.cli.ask",
        "retrieve",
        "Show the evidence records a question retrieves.",
    ),
    "compound": (
        "chemground.cli.compound",
        "compound",
        "Look up one compound: names, identifiers, properties.",
    ),
    "search": (
        "chemground.cli.search",
        "search",
        "Structure search: substructure, similarity, exact; by reaction role.",
    ),
    "kb": ("chemground.cli.kb", "app", "Build, inspect and fill the knowledge base."),
    "serve": ("chemground.cli.serve", "serve", "Serve the HTTP API and the web page."),
    "graph": (
        "chemground.cli.graph",
        "app",
        "Reaction knowledge graph: build, ask (Text2Cypher), routes.",
    ),
    "lit": ("chemground.cli.lit", "app", "Literature RAG: add papers, ask, QAC datasets."),
    "tools": ("chemground.cli.tools", "app", "Chemistry tool pool: list and call tools."),
    "agent": ("chemground.cli.agent", "app", "Tool-using agent (chain of thought, tree search)."),
    "bench": ("chemground.cli.bench", "app", "Benchmarks: generate and run."),
    "settings": (
        "chemground.cli.settings",
        "settings",
        "Show the effective settings, where each comes from, and the presets.",
    ),
    "llm": (
        "chemground.cli.llm",
        "app",
        "Local models: serve a GGUF file with llama.cpp, inspect GGUF files.",
    ),
}


def load_command(name: str) -> click.Command:
    """The click command for ``name``, importing its module now.

    Args:
        name: a key of ``COMMANDS``.

    Returns:
        The command (a group for sub-apps such as ``kb``), named ``name``.

    Raises:
        KeyError: ``name`` is not a chemground command.
    """
    module, attribute, help_text = COMMANDS[name]
    target = getattr(importlib.import_module(module), attribute)
    if isinstance(target, typer.Typer):
        target.info.help = target.info.help or help_text
        command = typer.main.get_group(target)
    else:
        single = typer.Typer(add_completion=False, rich_markup_mode="rich")
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    return command


class LazyCommands(typer.core.TyperGroup):
    """The root group: lists every command from ``COMMANDS`` and imports only the one that runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        return load_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_text) for name, (_, _, help_text) in COMMANDS.items()])


app = typer.Typer(
    name="chemground",
    cls=LazyCommands,
    help="Grounded chemistry question answering: every answer comes with evidence you can check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_debug = False


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chemground {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    kb_path: Path | None = typer.Option(
        None,
        "--kb",
        help="Knowledge-base file (default: per-user data dir; env CHEMGROUND_KB).",
        show_default=False,
    ),
    preset: str | None = typer.Option(
        None,
        "--preset",
        help="Start from a named settings preset (offline, local-llm, server; env "
        "CHEMGROUND_PRESET); see `chemground settings`.",
        show_default=False,
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    from chemground.cli.common import CLIState, settings_from_flags

    global _debug
    _debug = debug
    ctx.obj = CLIState(settings=settings_from_flags(preset=preset, kb_path=kb_path))


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
        import rich.markup

        from chemground.cli.common import err_console

        err_console.print(
            f"[bold red]error:[/] {rich.markup.escape(str(error))}", highlight=False
        )  # ids like [doc-1#0] stay
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def entry() -> None:
    sys.exit(main())
