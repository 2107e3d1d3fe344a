"""Importers: one reader per file format, one engine that writes (see ``base``).

``import_file`` picks the reader from ``--format`` or from the file name and content.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from chemground.chem.names import NameResolver
from chemground.errors import ImportFileError
from chemground.kb.importers.base import ImportSummary, Progress, run_import
from chemground.kb.importers.compounds import (
    CompoundImportSummary,
    read_obo,
    read_sdf,
    run_compound_import,
)
from chemground.kb.importers.ord import read_ord_file
from chemground.kb.importers.reaction_smiles import read_reaction_smiles_file
from chemground.kb.importers.tabular import ROLE_FIELDS, read_csv, read_jsonl
from chemground.kb.importers.textio import (
    check_encoding,
    open_binary,
    require_regular_file,
    sniff_encoding,
)
from chemground.kb.store import KnowledgeBase

REACTION_FORMATS = ("csv", "jsonl", "reaction-smiles", "ord")
COMPOUND_FORMATS = ("sdf", "obo")
FORMATS = REACTION_FORMATS + COMPOUND_FORMATS


def _first_line(path: Path, encoding: str | None = None) -> str:
    codec = sniff_encoding(path, encoding)
    try:
        with open_binary(path) as binary:
            handle = io.TextIOWrapper(binary, encoding=codec, errors="replace")
            try:
                return handle.readline(1 << 20)
            finally:
                handle.detach()
    except OSError as error:
        raise ImportFileError(f"{path}: cannot read: {error}") from None


def detect_format(path: Path, encoding: str | None = None) -> str:
    """The import format of ``path`` from its name and first line."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".pb", ".pbtxt", ".binpb", ".txtpb")):
        return "ord"
    if name.endswith((".sdf", ".sd", ".mol")):
        return "sdf"
    if name.endswith(".obo"):
        return "obo"
    if name.endswith((".smi", ".rsmi", ".txt")):
        return "reaction-smiles"
    first = _first_line(path, encoding)
    if name.endswith((".jsonl", ".ndjson", ".json")):
        try:
            record = json.loads(first) if first.strip() else {}
        except json.JSONDecodeError:
            record = {}
        if isinstance(record, dict) and (
            "reaction" in record or "inputs" in record or "reactions" in record
        ):
            return "ord"
        return "jsonl"
    if name.endswith((".csv", ".tsv")):
        header = {h.strip().lower() for h in first.replace("\t", ",").split(",")}
        if header & (set(ROLE_FIELDS) | {f"{r}_smiles" for r in ROLE_FIELDS}):
            return "csv"
        return "reaction-smiles"
    raise ImportFileError(
        f"{path}: cannot tell the format from the name; pass --format ({', '.join(FORMATS)})"
    )


def import_file(
    kb: KnowledgeBase,
    path: Path,
    *,
    fmt: str | None = None,
    resolver: NameResolver,
    strict: bool = False,
    skip_bad_rows: bool = False,
    dataset: str | None = None,
    progress: Progress | None = None,
    encoding: str | None = None,
) -> ImportSummary | CompoundImportSummary:
    """Import one file into ``kb`` (atomic, idempotent).

    ``encoding`` names the text encoding of a file that is neither UTF-8 nor marked by a
    byte-order mark; without it such a file is refused (see :mod:`.textio`)."""
    path = Path(path)
    if require_regular_file(path).st_size == 0:
        raise ImportFileError(f"{path}: empty file (0 bytes), nothing to import")
    check_encoding(encoding)
    fmt = fmt or detect_format(path, encoding)
    if fmt not in FORMATS:
        raise ImportFileError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "sdf":
        return run_compound_import(
            kb,
            read_sdf(path, encoding),
            path=path,
            fmt=fmt,
            skip_bad_rows=skip_bad_rows,
            progress=progress,
        )
    if fmt == "obo":
        return run_compound_import(
            kb,
            read_obo(path, encoding),
            path=path,
            fmt=fmt,
            skip_bad_rows=skip_bad_rows,
            progress=progress,
        )
    readers = {
        "csv": lambda: read_csv(path, dataset, encoding),
        "jsonl": lambda: read_jsonl(path, dataset, encoding),
        "reaction-smiles": lambda: read_reaction_smiles_file(path, dataset, encoding=encoding),
        "ord": lambda: read_ord_file(path, encoding),
    }
    return run_import(
        kb,
        readers[fmt](),
        path=path,
        fmt=fmt,
        resolver=resolver,
        strict=strict,
        skip_bad_rows=skip_bad_rows,
        progress=progress,
    )
