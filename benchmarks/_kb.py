"""The benchmark KB: full dictionary + starter set + the shared patent reactions, built once."""

from __future__ import annotations

import sys
from pathlib import Path

from _common import SHARED_DATA

from chemground.chem.names import NameResolver
from chemground.chem.opsin import Opsin
from chemground.kb.build import build_kb
from chemground.kb.importers import import_file

DEFAULT_KB = Path("/tmp/chemground-bench/kb-full.sqlite")


def reaction_files() -> list[Path]:
    ord_dir = SHARED_DATA / "reactions" / "ord_uspto_grants" / "original_pb"
    files = sorted(ord_dir.glob("*.pb.gz")) if ord_dir.is_dir() else []
    revisit = SHARED_DATA / "reactions" / "uspto_revisit" / "input.csv"
    if revisit.is_file():
        files.append(revisit)
    return files


def full_kb(path: Path = DEFAULT_KB) -> Path:
    """Path of the benchmark KB, building it (about 1-2 minutes) if it does not exist."""
    if path.exists():
        return path
    files = reaction_files()
    if not files:
        sys.exit(
            f"shared data not found at {SHARED_DATA}; the benchmark needs ../shared/data/reactions"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    for stale in tmp.parent.glob(tmp.name + "*"):
        stale.unlink()
    kb = build_kb(tmp)
    opsin = Opsin(path.parent / "opsin-cache.sqlite")
    resolver = NameResolver(kb, opsin)
    for file in files:
        summary = import_file(
            kb, file, resolver=resolver, dataset="uspto_revisit" if file.suffix == ".csv" else None
        )
        print(f"  imported {file.name}: {summary.reactions_added} reactions", file=sys.stderr)
    kb.checkpoint()  # also ends the background checkpointer and its connection
    kb.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    kb.connection.execute("PRAGMA journal_mode = DELETE")
    kb.close()
    opsin.close()
    tmp.rename(path)
    return path
