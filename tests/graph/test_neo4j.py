"""The Neo4j backend against a real server; skipped unless CHEMGROUND_NEO4J_URL is set."""

from __future__ import annotations

import os
import shutil

import pytest

from chemground.graph.bench.generate import canonical_rows
from chemground.graph.build import build_graph
from chemground.graph.config import open_graph
from chemground.graph.readonly import ReadOnlyViolation
from chemground.settings import Settings

pytestmark = pytest.mark.skipif(
    not os.environ.get("CHEMGROUND_NEO4J_URL"),
    reason="no Neo4j server configured (set CHEMGROUND_NEO4J_URL, _USER, _PASSWORD to run the "
    "Neo4j backend tests)",
)


def test_neo4j_holds_the_same_graph_as_the_embedded_backend(
    graph, starter_tasks, small_kb_path, tmp_path
):
    kb = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb)
    settings = Settings().graph  # CHEMGROUND_NEO4J_URL, _USER, _PASSWORD
    summary = build_graph(kb, backend="neo4j", settings=settings, full=True)
    assert summary.counts["reactions"] == 274
    with open_graph(kb, backend="neo4j", settings=settings) as neo:
        assert neo.counts() == graph.counts()
        for task in starter_tasks:
            rows = neo.query(task["reference_cypher"], limit=100_000).rows
            keys = [task["path_key"]] if task["path_key"] else []
            assert canonical_rows(rows, keys) == canonical_rows(task["gold"]["rows"], keys), task[
                "id"
            ]
        with pytest.raises(ReadOnlyViolation):
            neo.query("MATCH (m:Molecule) DETACH DELETE m")
