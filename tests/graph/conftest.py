"""Graph fixtures: the starter KB's graph, built once per session (a copy, so the KB fixture stays
clean)."""

from __future__ import annotations

import shutil

import pytest

from chemground.graph.build import build_graph
from chemground.graph.ladybug_backend import LadybugBackend
from chemground.settings import GraphSettings


@pytest.fixture(scope="session")
def graph_kb_path(small_kb_path, tmp_path_factory):
    target = tmp_path_factory.mktemp("graph-kb") / "kb.sqlite"
    shutil.copy(small_kb_path, target)
    build_graph(target, backend="ladybug", settings=GraphSettings(), full=True)
    return target


@pytest.fixture
def graph(graph_kb_path):
    backend = LadybugBackend(
        graph_kb_path.with_name(graph_kb_path.name + ".graph") / "graph.lbug", readonly=True
    )
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def starter_tasks(graph_kb_path):
    from chemground.graph.bench.generate import generate_tasks

    backend = LadybugBackend(
        graph_kb_path.with_name(graph_kb_path.name + ".graph") / "graph.lbug", readonly=True
    )
    try:
        return generate_tasks(backend, per_type=4, seed=7)
    finally:
        backend.close()
