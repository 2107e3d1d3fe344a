"""``chemground kb ...``: build, inspect and fill the knowledge base."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from chemground.cli.common import (
    JSONOutput,
    console,
    err_console,
    print_json,
    stage_progress,
    state,
)
from chemground.cli.extract import extract
from chemground.errors import ChemgroundError
from chemground.kb.importers import FORMATS, import_file
from chemground.kb.importers.base import ImportSummary

app = typer.Typer(help="Build, inspect and fill the knowledge base.", no_args_is_help=True)
app.command("extract")(extract)


@app.command()
def stats(ctx: typer.Context, as_json: JSONOutput = False) -> None:
    """Counts of compounds, names, reactions and where they came from."""
    with state(ctx).workspace(readonly=False) as ws:
        s = ws.kb.stats()
    data = s.__dict__
    if as_json:
        print_json(data)
        return
    table = Table(title=f"Knowledge base {s.path}", show_header=False)
    table.add_row("compounds", f"{s.compounds:,} ({s.compounds_with_structure:,} with a structure)")
    table.add_row("compound names", f"{s.compound_names:,}")
    table.add_row(
        "reactions", f"{s.reactions:,} ({s.flagged_reactions:,} flagged: unresolved participants)"
    )
    table.add_row("participants", f"{s.participants:,}")
    if s.documents:
        table.add_row("documents / chunks", f"{s.documents:,} / {s.chunks:,}")
    table.add_row("file size", f"{s.size_bytes / 1e6:,.1f} MB")
    dictionary = s.meta.get("dictionary")
    if dictionary:
        table.add_row(
            "compound dictionary",
            f"{dictionary}: {int(s.meta.get('dictionary_compounds', 0)):,} compounds",
        )
    if "abbreviations" in s.meta:
        table.add_row(
            "curated names",
            f"{s.meta['abbreviations']} laboratory abbreviations; "
            f"{s.meta.get('descriptions', 0)} compound descriptions",
        )
    if "starter_reactions" in s.meta:
        table.add_row(
            "starter reactions", f"{s.meta['starter_reactions']} curated textbook reactions"
        )
    console.print(table)
    if s.reactions_by_source:
        by = Table("reaction dataset", "reactions", title="Reactions by dataset")
        for name, count in s.reactions_by_source.items():
            by.add_row(name, f"{count:,}")
        console.print(by)


@app.command()
def build(
    ctx: typer.Context,
    force: bool = typer.Option(
        False,
        "--force",
        help="Replace an existing knowledge base (it is kept until the new one is complete).",
    ),
) -> None:
    """Build a fresh knowledge base: the compound dictionary plus the starter reactions."""
    from chemground.kb.backends import build_kb_at, kb_exists

    location = state(ctx).settings.kb.path
    if kb_exists(location) and not force:
        raise ChemgroundError(f"{location} already exists; pass --force to rebuild it")
    with stage_progress(
        {
            "structures": "dictionary structures",
            "compounds": "copy compounds",
            "compound_names": "copy names",
            "reactions": "copy reactions",
        }
    ) as progress:
        kb = build_kb_at(location, progress=progress, replace=force)
    s = kb.stats()
    kb.close()
    console.print(
        f"Built {s.path}: {s.compounds:,} compounds, {s.reactions:,} reactions "
        f"in {s.meta.get('built_seconds', '?')} s ({s.size_bytes / 1e6:,.0f} MB)."
    )


@app.command()
def migrate(
    source: Path = typer.Option(..., "--from", help="The SQLite KB file to copy."),
    target: str = typer.Option(
        ..., "--to", help="postgresql://user@host:port/dbname (a database without a KB)."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Copy a SQLite KB into PostgreSQL (RDKit cartridge), with progress; ids and order are kept."""
    from chemground.kb.backends import migrate as migrate_kb
    from chemground.kb.sqlite_store import SQLiteKB

    labels = {
        "meta": "meta",
        "compounds": "compounds",
        "compound_keys": "alias keys",
        "compound_names": "compound names",
        "imports": "import ledger",
        "reactions": "reactions",
        "documents": "papers",
        "chunks": "paper chunks",
        "chunk_mentions": "compounds named in papers",
    }
    with (
        SQLiteKB(source, readonly=True) as kb,
        stage_progress(labels, enabled=not as_json) as progress,
    ):
        counts = migrate_kb(kb, target, progress=progress)
    if as_json:
        print_json(counts)
        return
    console.print(
        f"Copied {source} into {target.split('@')[-1]}: {counts.get('compounds', 0):,} compounds, "
        f"{counts.get('reactions', 0):,} reactions in {counts['seconds']} s.",
        highlight=False,
    )


@app.command("import")
def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="Files to import (each one atomically).", exists=False
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help=f"One of: {', '.join(FORMATS)} (default: from the file)."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Skip reactions with a participant that cannot be resolved."
    ),
    skip_bad_rows: bool = typer.Option(
        False, "--skip-bad-rows", help="Import the readable rows of a file with bad rows."
    ),
    dataset: str | None = typer.Option(
        None, "--dataset", help="Dataset label for CSV/JSONL/reaction-SMILES rows."
    ),
    encoding: str | None = typer.Option(
        None,
        "--encoding",
        help="Text encoding of the files (e.g. latin-1, cp1252, utf-16) when they are neither "
        "UTF-8 nor marked by a byte-order mark; such files are refused without it.",
    ),
    as_json: JSONOutput = False,
) -> None:
    """Import reactions (CSV, JSONL, reaction SMILES, ORD) or compounds (SDF, ChEBI OBO)."""
    failures = 0
    with state(ctx).workspace() as ws:
        for path in files:
            try:
                with stage_progress(
                    {
                        "read": f"read {path.name}",
                        "structures": "structures",
                        "names": "names",
                        "write": "write",
                    },
                    enabled=not as_json,
                ) as progress:
                    summary = import_file(
                        ws.kb,
                        path,
                        fmt=fmt,
                        resolver=ws.resolver,
                        strict=strict,
                        skip_bad_rows=skip_bad_rows,
                        dataset=dataset,
                        progress=progress,
                        encoding=encoding,
                    )
            except ChemgroundError as error:
                failures += 1
                err_console.print(f"[bold red]error:[/] {error}", highlight=False)
                if as_json:
                    print_json({"path": str(path), "error": str(error)})
                continue
            ws.kb.update_structure_index()  # substructure pre-screen for the new compounds (SQLite)
            if as_json:
                print_json(summary.to_dict())
            else:
                _print_summary(summary)
    if failures:
        raise typer.Exit(2)


def _print_summary(summary) -> None:
    d = summary.to_dict()
    if isinstance(summary, ImportSummary):
        line = (
            f"[bold]{Path(d['path']).name}[/]: {d['rows_read']:,} rows read, "
            f"{d['reactions_added']:,} reactions added "
            f"({d['reactions_flagged']:,} flagged), {d['reactions_unchanged']:,} already present, "
            f"{d['reactions_skipped']:,} skipped, {d['compounds_added']:,} compounds added "
            f"in {d['seconds']:.1f} s ({d['reactions_per_second']:,.0f} rows/s)"
        )
        if d["already_imported"]:
            line += " — already imported, nothing changed"
        console.print(line, highlight=False)
        refiled = d.get("roles_reassigned") or {}
        if refiled:
            rules = ", ".join(f"{rule} {n:,}" for rule, n in refiled.items())
            console.print(
                f"  reactants re-filed as reagents, solvents or catalysts: "
                f"{sum(refiled.values()):,} ({rules}; see provenance.role_changes)",
                highlight=False,
            )
        unresolved = d["unresolved_names"]
        if unresolved:
            shown = ", ".join(f"{name!r} ×{count}" for name, count in list(unresolved.items())[:15])
            more = f" … and {len(unresolved) - 15} more" if len(unresolved) > 15 else ""
            console.print(
                f"  unresolved names ({sum(unresolved.values()):,} mentions, {len(unresolved):,} "
                "distinct): "
                f"{shown}{more}",
                highlight=False,
            )
    else:
        console.print(
            f"[bold]{Path(d['path']).name}[/]: {d['records_read']:,} records read, "
            f"{d['compounds_added']:,} compounds "
            f"added, {d['compounds_enriched']:,} enriched, {d['descriptions_added']:,} "
            "descriptions added, "
            f"skipped: {d['skipped'] or 'none'}",
            highlight=False,
        )
    for error in d["errors"][:20]:
        console.print(
            f"  skipped bad row at line {error['line']}: {error['message']}", highlight=False
        )
