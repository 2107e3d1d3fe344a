"""``chemground settings``: the effective settings, where each value comes from, and the presets."""

from __future__ import annotations

import typer

from chemground.cli.common import JSONOutput, console, print_json, state


def settings(
    ctx: typer.Context,
    describe: bool = typer.Option(
        False, "--describe", help="Add each field's description to the table."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Show the effective settings with their sources (flag, env, config file, preset, default;
    secrets masked) and the named presets (`chemground --preset NAME ...` or
    CHEMGROUND_PRESET)."""
    from rich.table import Table

    from chemground.settings import config_file_path, preset_description, preset_names

    current = state(ctx).settings
    rows = current.explain()
    presets = {name: preset_description(name) for name in preset_names()}
    if as_json:
        print_json(
            {
                "preset": current.preset,
                "config_file": str(config_file_path()),
                "settings": rows,
                "presets": presets,
            }
        )
        return
    table = Table(title=f"settings (config file: {config_file_path()})")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    table.add_column("source")
    if describe:
        table.add_column("description", overflow="fold")
    for row in rows:
        cells = [row["name"], "" if row["value"] is None else str(row["value"]), row["source"]]
        table.add_row(*cells, *([row["description"]] if describe else []))
    console.print(table)
    console.print("\n[bold]presets[/] (--preset NAME or CHEMGROUND_PRESET):")
    for name, description in presets.items():
        mark = " [green](in use)[/]" if name == current.preset else ""
        console.print(f"  [bold]{name}[/]{mark}: {description}", highlight=False)
