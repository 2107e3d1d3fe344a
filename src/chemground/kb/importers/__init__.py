"""Importers: one reader per file format, one engine that writes (see ``base``).

``import_file`` picks the reader from ``--format`` or from the file name and content.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from chemground.chem.names import NameResolver
from chemground.errors import ImportFileError
from chemground.kb.importers.base import ImportSummary, Progress, run_import
from chemground.kb.importers.compounds import CompoundImportSummary, read_obo, read_sdf, run_compound_import
from chemground.kb.importers.ord import read_ord_file
from chemground.kb.importers.reaction_smiles import read_reaction_smiles_file
from chemground.kb.importers.tabular import ROLE_FIELDS, read_csv, read_jsonl
from chemground.kb.sqlite_store import SQLiteKB

REACTION_FORMATS = ("csv", "jsonl", "reaction-smiles", "ord")
COMPOUND_FORMATS = ("sdf", "obo")
FORMATS = REACTION_FORMATS + COMPOUND_FORMATS


def _first_line(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", errors="replace") as handle:
            return handle.readline()
    except (OSError, EOFError) as error:
        raise ImportFileError(f"{path}: cannot read: {error}") from error


def detect_format(path: Path) -> str:
    """The import format of ``path`` from its name and first line."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".pb", ".pbtxt")):
        return "ord"
    if name.endswith((".sdf", ".sd", ".mol")):
        return "sdf"
    if name.endswith(".obo"):
        return "obo"
    if name.endswith((".smi", ".rsmi", ".txt")):
        return "reaction-smiles"
    first = _first_line(path)
    if name.endswith((".jsonl", ".ndjson", ".json")):
        try:
            record = json.loads(first) if first.strip() else {}
        except json.JSONDecodeError:
            record = {}
        if isinstance(record, dict) and ("reaction" in record or "inputs" in record or "reactions" in record):
            return "ord"
        return "jsonl"
    if name.endswith((".csv", ".tsv")):
        header = {h.strip().lower() for h in first.replace("\t", ",").split(",")}
        if header & (set(ROLE_FIELDS) | {f"{r}_smiles" for r in ROLE_FIELDS}):
            return "csv"
        return "reaction-smiles"
    raise ImportFileError(f"{path}: cannot tell the format from the name; pass --format ({', '.join(FORMATS)})")


def import_file(
    kb: SQLiteKB,
    path: Path,
    *,
    fmt: str | None = None,
    resolver: NameResolver,
    strict: bool = False,
    skip_bad_rows: bool = False,
    dataset: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary | CompoundImportSummary:
    """Import one file into ``kb`` (atomic, idempotent)."""
    path = Path(path)
    if not path.exists():
        raise ImportFileError(f"{path}: no such file")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ImportFileError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "sdf":
        return run_compound_import(kb, read_sdf(path), path=path, fmt=fmt, skip_bad_rows=skip_bad_rows, progress=progress)
    if fmt == "obo":
        return run_compound_import(kb, read_obo(path), path=path, fmt=fmt, skip_bad_rows=skip_bad_rows, progress=progress)
    readers = {
        "csv": lambda: read_csv(path, dataset),
        "jsonl": lambda: read_jsonl(path, dataset),
        "reaction-smiles": lambda: read_reaction_smiles_file(path, dataset),
        "ord": lambda: read_ord_file(path),
    }
    return run_import(kb, readers[fmt](), path=path, fmt=fmt, resolver=resolver, strict=strict,
                      skip_bad_rows=skip_bad_rows, progress=progress)
