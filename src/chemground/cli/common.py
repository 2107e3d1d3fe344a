"""Shared CLI plumbing: consoles, the per-invocation state, progress bars, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from chemground.errors import ChemgroundError
from chemground.settings import Settings, get_settings

if TYPE_CHECKING:  # imported when used: the KB, RDKit and OPSIN layers (~60 ms), rich.progress
    from rich.progress import Progress

    from chemground.workspace import Workspace

# Options that many commands take, declared once (issue 16: --llm-base-url was declared 13 times,
# --json 29 times, with drifting help texts). Use as ``llm_base_url: LLMBaseURL = None``.
LLMBaseURL = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        help="OpenAI-compatible endpoint (default: CHEMGROUND_LLM_BASE_URL or the config file).",
        show_default=False,
    ),
]
LLMModel = Annotated[
    str | None,
    typer.Option(
        "--llm-model",
        help="Model name at that endpoint (default: CHEMGROUND_LLM_MODEL or the config file).",
        show_default=False,
    ),
]
JSONOutput = Annotated[
    bool, typer.Option("--json", help="Print JSON on stdout (for scripts) instead of tables.")
]

console = Console()
err_console = Console(stderr=True)


def output_file(path: Path, *inputs: Path | None) -> Path:
    """A file a command is about to write, checked before any work is done: not a folder, not
    one of the command's own inputs (it was overwritten while being read: ``ask --batch q.jsonl
    -o q.jsonl`` replaced the questions by the answers), in a folder that can be written (made
    if missing).

    Args:
        path: the file to write.
        *inputs: the files the command reads (None for one not given).

    Returns:
        ``path``.

    Raises:
        ChemgroundError: it is a folder, one of the inputs, or its folder cannot be made or
            written to.
    """
    import os

    if path.is_dir():
        raise ChemgroundError(f"{path} is a folder; give the name of a file to write")
    for source in inputs:
        if source is not None and path.exists() and source.exists() and path.samefile(source):
            raise ChemgroundError(
                f"{path} is also the input: writing it would overwrite what is being read; "
                "choose another output file"
            )
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ChemgroundError(
            f"cannot make the folder {folder} for {path}: {error.strerror}"
        ) from error
    if not os.access(folder, os.W_OK):
        raise ChemgroundError(f"cannot write {path}: the folder {folder} is not writable")
    return path


def settings_from_flags(
    *,
    preset: str | None = None,
    kb_path: Path | None = None,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    base: Settings | None = None,
) -> Settings:
    """The one place where the global CLI flags become settings (flags beat everything else).

    Args:
        preset: ``--preset``: start from this named preset (the environment and the config
            file still rank above it).
        kb_path: ``--kb``.
        llm_base_url: ``--llm-base-url`` of the command.
        llm_model: ``--llm-model`` of the command.
        base: the settings to apply the flags to (default: the process-wide settings, or the
            preset's when ``preset`` is given).

    Returns:
        The settings with the flags given (not None) applied.

    Raises:
        ConfigError: ``preset`` names no preset.
    """
    if base is None:
        base = Settings.from_preset(preset) if preset else get_settings()
    return base.with_overrides(
        kb={"path": kb_path.expanduser() if kb_path is not None else None},
        llm={"base_url": llm_base_url, "model": llm_model},
    )


@dataclass
class CLIState:
    settings: Settings = field(default_factory=get_settings)

    def with_llm(self, llm_base_url: str | None, llm_model: str | None = None) -> Settings:
        """This invocation's settings with one command's ``--llm-base-url`` / ``--llm-model``.

        Args:
            llm_base_url: the endpoint flag (None: not given).
            llm_model: the model flag (None: not given).

        Returns:
            The settings with the flags given applied.
        """
        return settings_from_flags(
            llm_base_url=llm_base_url, llm_model=llm_model, base=self.settings
        )

    def workspace(self, readonly: bool = False) -> Workspace:
        from chemground.workspace import Workspace

        return Workspace(self.settings, readonly=readonly, build_progress=build_progress())

    def workspace_for(self, settings: Settings, readonly: bool = True) -> Workspace:
        from chemground.workspace import Workspace

        return Workspace(settings, readonly=readonly, build_progress=build_progress())


def state(ctx: typer.Context) -> CLIState:
    obj = ctx.find_root().obj
    if obj is None:
        obj = ctx.find_root().obj = CLIState()
    return obj


def print_json(data: Any) -> None:
    """JSON on stdout, nothing else (so it can be piped); NaN and infinities become null, as
    strict JSON readers (jq, JavaScript) refuse them (``bench run --json`` printed NaN)."""
    from chemground.agent.jsonsafe import to_jsonable

    plain = to_jsonable(data, fallback=str)
    sys.stdout.write(json.dumps(plain, ensure_ascii=False, allow_nan=False) + "\n")


class StageProgress:
    """Adapts the (stage, advance, total) callbacks of long jobs to one Rich bar per stage."""

    def __init__(self, progress: Progress, labels: dict[str, str]) -> None:
        self.progress = progress
        self.labels = labels
        self.tasks: dict[str, int] = {}

    def __call__(self, stage: str, advance: int, total: int | None) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(self.labels.get(stage, stage), total=total)
        elif total is not None:
            self.progress.update(self.tasks[stage], total=total)
        if advance:
            self.progress.advance(self.tasks[stage], advance)


@contextmanager
def stage_progress(labels: dict[str, str], enabled: bool = True) -> Iterator[StageProgress | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    with progress:
        yield StageProgress(progress, labels)


def build_progress():
    """Progress for the one-time build of the default KB (printed on stderr)."""

    def report(stage: str, advance: int, total: int | None) -> None:
        nonlocal bar
        if bar is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            err_console.print(
                "[bold]Building the knowledge base[/] (first run only): the compound dictionary "
                "from the "
                "'chemicals' package plus the starter reactions…"
            )
            bar = StageProgress(
                Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=err_console,
                    transient=True,
                ),
                {"structures": "dictionary structures"},
            )
            bar.progress.start()
        bar(stage, advance, total)
        task = bar.tasks.get(stage)
        if task is not None and bar.progress.tasks[task].finished:
            bar.progress.stop()

    bar: StageProgress | None = None
    return report
