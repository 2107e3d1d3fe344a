"""Building the reaction graph from the knowledge base: full rebuilds and incremental updates.

A full build writes a new graph file beside the old one and swaps it in only when it is
complete, so a failed or interrupted build leaves the previous graph untouched. An
incremental build appends the reactions (and their new molecules) added to the KB since the
last build, working on a copy that is swapped in the same way. A manifest records the KB
state the graph was built from, so an unchanged KB costs nothing to "rebuild".
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json
from chemground.errors import NotFoundError
from chemground.graph.backend import GraphBackend, GraphCounts
from chemground.graph.config import (
    GRAPH_FILE,
    MANIFEST_FILE,
    graph_dir_for,
    open_neo4j,
)
from chemground.graph.export import export_tables, kb_fingerprint
from chemground.graph.schema import SCHEMA_VERSION
from chemground.kb.backends import kb_exists, open_kb
from chemground.kb.store import KnowledgeBase
from chemground.progress import Progress
from chemground.settings import GraphSettings, get_settings


@dataclass
class BuildSummary:
    backend: str
    location: str
    action: str  # full | incremental | unchanged
    reactions_added: int = 0
    molecules_added: int = 0
    edges_added: int = 0
    skipped_participants: int = 0
    top_skipped_names: dict[str, int] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    size_bytes: int = 0
    seconds: float = 0.0
    export_seconds: float = 0.0
    load_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The summary as ``graph build --json`` prints it: its fields (``fields_json``)."""
        return fields_json(self)


def _manifest(fingerprint: dict[str, Any], kb_path: Path | str, max_rowid: int) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kb_path": str(kb_path),  # a database URL as shown: without its password
        "kb": fingerprint,
        "exported_max_rowid": max_rowid,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }


def _plan(manifest: dict[str, Any] | None, fingerprint: dict[str, Any], full: bool) -> str:
    if full or not manifest or manifest.get("schema_version") != SCHEMA_VERSION:
        return "full"
    old = manifest.get("kb", {})
    if old == fingerprint:
        return "unchanged"
    grew = (
        fingerprint["max_rowid"] >= old.get("max_rowid", 0)
        and fingerprint["reactions"] >= old.get("reactions", 0)
        and fingerprint["max_compound_id"] >= old.get("max_compound_id", 0)
    )
    return "incremental" if grew else "full"


def _counts_dict(counts: GraphCounts) -> dict[str, Any]:
    return {"molecules": counts.molecules, "reactions": counts.reactions, "edges": counts.edges}


def _fill(
    backend: GraphBackend,
    kb: KnowledgeBase,
    since_rowid: int,
    summary: BuildSummary,
    progress: Progress | None,
    existing: set[str] | None,
) -> int:
    started = time.perf_counter()
    tables = export_tables(
        kb, since_rowid=since_rowid, existing_molecules=existing, progress=progress
    )
    summary.export_seconds = round(time.perf_counter() - started, 3)
    if progress:
        progress(
            "load", 0, tables.molecules.num_rows + tables.reactions.num_rows + tables.edge_count
        )
    started = time.perf_counter()
    backend.load(tables, progress=progress)
    summary.load_seconds = round(time.perf_counter() - started, 3)
    summary.reactions_added = tables.reactions.num_rows
    summary.molecules_added = tables.molecules.num_rows
    summary.edges_added = tables.edge_count
    summary.skipped_participants = tables.skipped_participants
    summary.top_skipped_names = dict(list(tables.skipped_names.items())[:10])
    return tables.max_rowid


def graph_is_current(
    kb_path: Path, settings: GraphSettings | None = None, kb: KnowledgeBase | None = None
) -> bool:
    """True when the embedded graph of ``kb_path`` exists and was built from the KB as it is now."""
    folder = graph_dir_for(Path(kb_path), settings)
    target, manifest_path = folder / GRAPH_FILE, folder / MANIFEST_FILE
    if not target.exists() or not manifest_path.exists():
        return False
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return False
    own = kb is None
    kb = kb or open_kb(kb_path, readonly=True)
    try:
        return _plan(manifest, kb_fingerprint(kb), False) == "unchanged"
    finally:
        if own:
            kb.close()


def build_graph(
    kb_path: Path,
    *,
    backend: str | None = None,
    settings: GraphSettings | None = None,
    full: bool = False,
    progress: Progress | None = None,
) -> BuildSummary:
    """Build or update the reaction graph of the KB at ``kb_path``; returns what was done."""
    settings = settings or get_settings().graph
    backend = backend or settings.backend
    if not kb_exists(kb_path):
        raise NotFoundError(f"no knowledge base at {kb_path}; build it with `chemground kb build`")
    started = time.perf_counter()
    kb = open_kb(kb_path, readonly=True)
    try:
        if backend == "neo4j":
            summary = _build_neo4j(kb, kb_path, settings, full, progress)
        else:
            summary = _build_ladybug(kb, kb_path, graph_dir_for(kb_path, settings), full, progress)
    finally:
        kb.close()
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary


def _build_ladybug(
    kb: KnowledgeBase, kb_path: Path, folder: Path, full: bool, progress: Progress | None
) -> BuildSummary:
    from chemground.graph.ladybug_backend import LadybugBackend

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / GRAPH_FILE
    manifest_path = folder / MANIFEST_FILE
    manifest = (
        json.loads(manifest_path.read_text())
        if manifest_path.exists() and target.exists()
        else None
    )
    fingerprint = kb_fingerprint(kb)
    action = _plan(manifest, fingerprint, full)
    summary = BuildSummary("ladybug", str(target), action)
    if action == "unchanged":
        with LadybugBackend(target, readonly=True) as graph:
            summary.counts = _counts_dict(graph.counts())
        summary.size_bytes = target.stat().st_size
        return summary
    staging = folder / ".building"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    work = staging / GRAPH_FILE
    try:
        if action == "incremental":
            shutil.copy2(target, work)
            since = int(manifest["exported_max_rowid"])  # type: ignore[index]
        else:
            since = 0
        graph = LadybugBackend(work, readonly=False)
        try:
            if action == "full":
                graph.create_schema()
            existing = graph.molecule_keys() if action == "incremental" else None
            max_rowid = _fill(graph, kb, since, summary, progress, existing)
            summary.counts = _counts_dict(graph.counts())
        finally:
            graph.close()
        manifest_path.unlink(missing_ok=True)
        for old_file in folder.glob(GRAPH_FILE + "*"):
            old_file.unlink()
        for new_file in staging.iterdir():  # the graph file and anything the engine keeps beside it
            new_file.replace(folder / new_file.name)
        manifest_path.write_text(
            json.dumps(_manifest(fingerprint, kb.path, max(max_rowid, since)), indent=2)
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary.size_bytes = sum(p.stat().st_size for p in folder.glob(GRAPH_FILE + "*") if p.is_file())
    return summary


def _build_neo4j(
    kb: KnowledgeBase,
    kb_path: Path,
    settings: GraphSettings,
    full: bool,
    progress: Progress | None,
) -> BuildSummary:
    graph = open_neo4j(settings)
    try:
        manifest = graph.read_manifest()  # type: ignore[attr-defined]
        fingerprint = kb_fingerprint(kb)
        action = _plan(manifest, fingerprint, full)
        summary = BuildSummary("neo4j", settings.neo4j_url or "", action)
        if action != "unchanged":
            graph.create_schema()
            if action == "full":
                graph.clear()
                since, existing = 0, None
            else:
                since, existing = int(manifest["exported_max_rowid"]), graph.molecule_keys()  # type: ignore[index]
            max_rowid = _fill(graph, kb, since, summary, progress, existing)
            graph.write_manifest(_manifest(fingerprint, kb.path, max(max_rowid, since)))  # type: ignore[attr-defined]
        summary.counts = _counts_dict(graph.counts())
        return summary
    finally:
        graph.close()
