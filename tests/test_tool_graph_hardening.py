"""Hardening of the tool worker, the tool files folder, graph queries and read-only commands (issue
14).

- a tool that allocates past the worker's memory limit ends in a clear error and a fresh worker;
- tool file paths cannot leave the files folder through a symbolic link;
- a graph query that allocates without bound (``collect`` over 2e8 values) or runs too long
  is stopped in its own process, and this process neither grows nor stalls;
- read-only commands (``compound``, a read-only workspace's route questions) write nothing
  beside the knowledge base.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import time
from pathlib import Path

import pytest

from chemground.agent import artifacts
from chemground.agent.registry import ToolContext, ToolRegistry, default_registry
from chemground.agent.runner import DEFAULT_MEMORY_MB, ToolRunner, default_memory_mb
from chemground.agent.validation import ToolError
from chemground.settings import Settings, get_settings
from tests.conftest import copy_kb

# --- 1. the tool worker's memory limit ------------------------------------------------------------


@pytest.fixture
def test_runner(small_kb_path, tmp_path):
    registry = ToolRegistry()
    for module in ["chemground.agent.tools.cactus", "tests.agent.slow_tools"]:
        registry.register_module(module)
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")
    with ToolRunner(
        registry=registry, settings=settings, files_dir=tmp_path / "files", memory_mb=768
    ) as runner:
        yield runner


@pytest.mark.parametrize("how", ["python", "numpy"])
def test_a_tool_past_the_memory_limit_gets_a_clear_error_and_a_fresh_worker(test_runner, how):
    assert test_runner.call("testing/hog", [16, how]).value == 16
    first = test_runner._process.pid
    started = time.perf_counter()
    result = test_runner.call("testing/hog", [4000, how])
    assert time.perf_counter() - started < 20
    assert not result.ok and result.error_kind == "memory"
    assert "tool testing/hog ran out of memory (limit 768 MB)" in result.error
    assert test_runner._process is None  # replaced: the next call starts a fresh worker
    after = test_runner.call("cactus/CalculateMolWt", ["O"])
    assert after.ok and test_runner._process.pid != first


def test_a_worker_killed_by_a_failed_allocation_is_reported_as_out_of_memory(test_runner):
    result = test_runner.call("testing/oom_abort", [1])
    assert (
        not result.ok
        and result.error_kind == "memory"
        and "ran out of memory (limit 768 MB)" in result.error
    )
    assert test_runner.call("cactus/CalculateMolWt", ["O"]).ok


def test_a_plain_crash_is_still_a_crash(test_runner):
    result = test_runner.call("testing/crash", [3])
    assert not result.ok and result.error_kind == "crashed"


def test_the_worker_runs_under_the_limit(test_runner):
    assert test_runner.call("cactus/CalculateMolWt", ["O"]).ok
    with open(f"/proc/{test_runner._process.pid}/limits") as handle:
        line = next(row for row in handle if row.startswith("Max address space"))
    assert line.split()[3] == str(768 * 2**20)


def test_the_memory_limit_is_configurable(monkeypatch, tmp_path):
    monkeypatch.delenv("CHEMGROUND_TOOL_MEMORY_MB", raising=False)
    get_settings.cache_clear()
    assert default_memory_mb() == DEFAULT_MEMORY_MB == 3072
    monkeypatch.setenv("CHEMGROUND_TOOL_MEMORY_MB", "1500")
    get_settings.cache_clear()
    assert default_memory_mb() == 1500
    assert ToolRunner(files_dir=tmp_path).memory_mb == 1500
    assert ToolRunner(files_dir=tmp_path, memory_mb=0).memory_mb == 0  # 0: no limit


def test_real_materials_and_graph_tools_run_under_the_default_limit(small_kb_path, tmp_path):
    settings = Settings(kb={"path": copy_kb(small_kb_path, tmp_path)}, cache_dir=tmp_path / "cache")
    with ToolRunner(settings=settings, files_dir=tmp_path / "files") as runner:
        assert runner.memory_mb == DEFAULT_MEMORY_MB
        made = runner.call(
            "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
            [
                "Fm-3m",
                [[4.61, 0, 0], [0, 4.61, 0], [0, 0, 4.61]],
                ["Li", "O"],
                [[0.25, 0.25, 0.25], [0, 0, 0]],
                "li2o.json",
            ],
        )
        assert made.ok, made.error
        symmetry = runner.call("Crystal_Structure_Manipulation/analyze_symmetry", ["li2o.json"])
        assert symmetry.ok and symmetry.value["space_group_number"] == 225
        vasp = runner.call("Basic_Functionality/create_vasp_input_files", ["li2o.json", "vasp/"])
        assert vasp.ok and "INCAR" in vasp.value["files"]
        # the embedded graph engine reserves most of the machine by default; under the limit it must
        # fit
        rows = runner.call(
            "chemground/query_reaction_graph", ["MATCH (m:Molecule) RETURN count(m) AS n"]
        )
        assert rows.ok, rows.error
        assert rows.value[0]["n"] > 100


# --- 2. tool file paths stay in the files folder -------------------------------------------------


@pytest.fixture
def files_ctx(small_kb_path, tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (files / "link").symlink_to(outside, target_is_directory=True)
    ctx = ToolContext(
        settings=Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache"), files_dir=files
    )
    registry = default_registry()
    registry.call_in_process(
        "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
        [
            "Fm-3m",
            [[4.61, 0, 0], [0, 4.61, 0], [0, 0, 4.61]],
            ["Li", "O"],
            [[0.25, 0.25, 0.25], [0, 0, 0]],
            "li2o.json",
        ],
        ctx,
    )
    return ctx, registry, outside


def test_a_write_through_a_link_out_of_the_folder_is_refused(files_ctx):
    ctx, registry, outside = files_ctx
    for tool, args in [
        (
            "Structure_Mainpulation_and_Analysis/get_primitive_structure",
            ["li2o.json", "link/evil_lattice.json"],
        ),
        ("Basic_Functionality/write_structure_to_file", ["li2o.json", "link/evil.cif"]),
        ("IO_Operations/handle_cif", ["li2o.json", "link/evil.cif"]),
        ("Basic_Functionality/create_vasp_input_files", ["li2o.json", "link/vasp/"]),
    ]:
        with pytest.raises(ToolError, match="leads outside the tool files folder"):
            registry.call_in_process(tool, args, ctx)
    assert list(outside.iterdir()) == []


def test_a_read_through_a_link_out_of_the_folder_is_refused(files_ctx):
    ctx, registry, outside = files_ctx
    shutil.copy(ctx.files_dir / "li2o.json", outside / "secret.json")
    (ctx.files_dir / "secret.cif").symlink_to(outside / "secret.json")
    for name in ("link/secret.json", "secret.cif"):
        with pytest.raises(ToolError, match="leads outside the tool files folder"):
            registry.call_in_process("Crystal_Structure_Manipulation/analyze_symmetry", [name], ctx)


def test_a_link_planted_at_the_target_name_is_refused_and_its_target_untouched(files_ctx):
    ctx, registry, outside = files_ctx
    victim = outside / "victim.json"
    victim.write_text("precious")
    (ctx.files_dir / "out.json").symlink_to(victim)
    with pytest.raises(
        ToolError, match="leads outside"
    ):  # the name itself resolves outside: refused
        registry.call_in_process(
            "Structure_Mainpulation_and_Analysis/get_primitive_structure",
            ["li2o.json", "out.json"],
            ctx,
        )
    assert victim.read_text() == "precious"


def test_a_folder_holding_a_link_out_is_refused_for_reading_and_writing(files_ctx):
    ctx, registry, outside = files_ctx
    victim = outside / "INCAR"
    victim.write_text("ENCUT = 1\n")
    folder = ctx.files_dir / "runs"
    folder.mkdir()
    (folder / "INCAR").symlink_to(victim)
    with pytest.raises(ToolError, match="symbolic link 'runs/INCAR' that leads outside"):
        registry.call_in_process("IO_Operations/handle_vasp", ["runs/"], ctx)
    with pytest.raises(ToolError, match="leads outside"):
        registry.call_in_process(
            "Basic_Functionality/create_vasp_input_files", ["li2o.json", "runs/"], ctx
        )
    assert victim.read_text() == "ENCUT = 1\n"


def test_links_inside_the_folder_still_work(files_ctx):
    ctx, registry, _ = files_ctx
    (ctx.files_dir / "data").mkdir()
    (ctx.files_dir / "alias").symlink_to(ctx.files_dir / "data", target_is_directory=True)
    written = registry.call_in_process(
        "Basic_Functionality/write_structure_to_file", ["li2o.json", "alias/li2o.cif"], ctx
    )
    assert written["path"] == "data/li2o.cif" and (ctx.files_dir / "data" / "li2o.cif").is_file()
    summary = registry.call_in_process(
        "Crystal_Structure_Manipulation/analyze_symmetry", ["alias/li2o.cif"], ctx
    )
    assert summary["space_group_number"] == 225
    assert not [p for p in ctx.files_dir.rglob("*.tmp")]


def test_resolve_refuses_links_out_and_keeps_the_dotdot_rule(files_ctx):
    ctx, _, _outside = files_ctx
    with pytest.raises(artifacts.ArtifactError, match="leads outside the tool files folder"):
        artifacts.resolve(ctx, "link/x.json")
    with pytest.raises(artifacts.ArtifactError, match=r"may not contain '\.\.'"):
        artifacts.resolve(ctx, "../x.json")
    assert artifacts.resolve(ctx, "/etc/passwd") == ctx.files_dir.resolve() / "etc" / "passwd"


# --- 3. graph queries: memory and time limits ----------------------------------------------------


@pytest.fixture(scope="module")
def graph_path(small_kb_path, tmp_path_factory):
    from chemground.graph.build import build_graph
    from chemground.settings import GraphSettings

    kb = copy_kb(small_kb_path, tmp_path_factory.mktemp("hardening-graph"))
    build_graph(kb, settings=GraphSettings(), full=True)
    return kb.with_name(kb.name + ".graph") / "graph.lbug"


@pytest.fixture
def limited_graph(graph_path):
    from chemground.graph.ladybug_backend import LadybugBackend

    graph = LadybugBackend(graph_path, readonly=True, query_memory_mb=768)
    yield graph
    graph.close()


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_an_unbounded_collect_is_stopped_with_a_clear_error(limited_graph):
    from chemground.graph.backend import GraphLimitError, GraphQueryError

    before = _peak_rss_mb()
    started = time.perf_counter()
    with pytest.raises(GraphLimitError, match=r"ran out of memory \(limit 768 MB\)") as info:
        limited_graph.query("UNWIND range(1, 200000000) AS x RETURN collect(x)", timeout_s=30)
    assert isinstance(info.value, GraphQueryError)  # Text2Cypher treats it like any engine error
    assert time.perf_counter() - started < 30
    with pytest.raises(GraphLimitError, match="ran out of memory"):
        limited_graph.query("UNWIND range(1, 20000000) AS x RETURN collect(x)", timeout_s=30)
    assert _peak_rss_mb() - before < 200  # the query's memory was never this process's
    assert limited_graph.query("MATCH (m:Molecule) RETURN count(m) AS n").rows[0]["n"] > 100


def test_a_long_query_is_stopped_at_its_time_limit(limited_graph):
    from chemground.graph.backend import GraphLimitError

    started = time.perf_counter()
    with pytest.raises(GraphLimitError, match="did not finish within 1 s"):
        limited_graph.query(
            "UNWIND range(1, 30000) AS a UNWIND range(1, 30000) AS b WITH a, b WHERE a * b < 0 "
            "RETURN count(*)",
            timeout_s=1,
        )
    assert time.perf_counter() - started < 10
    assert limited_graph.query("RETURN 1 AS one").rows == [{"one": 1}]


def test_sandboxed_results_match_in_process_results(limited_graph):
    from chemground.graph.backend import GraphQueryError

    query = (
        "MATCH p = (m:Molecule)-[:REACTANT_OF]->(r:Reaction) RETURN p, m, r.id AS id, "
        "r.yield_percent AS y "
        "ORDER BY id, m.key LIMIT 5"
    )
    sandboxed = limited_graph.query(query)
    in_process = limited_graph.query(query, trusted=True)
    assert sandboxed.columns == in_process.columns and sandboxed.rows == in_process.rows
    assert limited_graph.query("MATCH (m:Molecule) RETURN m.key AS k", limit=3).truncated
    with pytest.raises(GraphQueryError, match="Table Nope does not exist"):
        limited_graph.query("MATCH (m:Nope) RETURN m")


def test_the_graph_query_memory_limit_is_configurable(graph_path, monkeypatch):
    from chemground.graph.ladybug_backend import LadybugBackend
    from chemground.settings import GraphSettings

    assert GraphSettings().query_memory_mb == 2048
    monkeypatch.setenv("CHEMGROUND_GRAPH_QUERY_MEMORY_MB", "0")
    with LadybugBackend(graph_path) as graph:
        assert graph.query_memory_mb == 0
        graph.query("RETURN 1 AS one")
        assert graph._sandbox is None  # 0: queries run in this process, without a limit


def test_the_graph_opens_under_an_address_space_limit(graph_path, tmp_path):
    """The engine's defaults reserve ~80% of RAM and 8 TB of address space; under a limit they are
    sized to fit."""
    import subprocess
    import sys

    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))\n"
        "from chemground.graph.ladybug_backend import LadybugBackend\n"
        f"g = LadybugBackend({str(graph_path)!r}, readonly=True, query_memory_mb=512)\n"
        "print(g.counts().molecules, g.query('MATCH (m:Molecule) RETURN count(m) AS "
        "n').rows[0]['n'])\n"
        "g.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    counted, queried = done.stdout.split()
    assert counted == queried and int(counted) > 100


# --- 5. read-only commands write nothing beside the KB -------------------------------------------


def _beside(kb: Path) -> set[str]:
    # SQLite's own -wal/-shm files belong to the engine's locking, not to chemground
    return {p.name for p in kb.parent.iterdir() if not p.name.endswith(("-wal", "-shm"))}


def test_a_read_only_route_question_writes_nothing_beside_the_kb(small_kb_path, tmp_path):
    from chemground.qa import QA
    from chemground.workspace import Workspace

    folder = tmp_path / "kb"
    folder.mkdir()
    kb = copy_kb(small_kb_path, folder)
    before = _beside(kb)
    cache = tmp_path / "cache"
    with Workspace(Settings(kb={"path": kb}, cache_dir=cache), readonly=True) as ws:
        answer = QA(ws).ask("route from 4-nitrophenol to paracetamol in 3 steps")
        assert answer.status == "answered" and answer.evidence[0].kind == "graph_path"
    assert _beside(kb) == before
    assert list((cache / "graphs").glob("kb.sqlite-*/graph.lbug"))  # its own copy, in the cache dir
    # a second read-only workspace reuses that copy (the build finds it unchanged)
    with Workspace(Settings(kb={"path": kb}, cache_dir=cache), readonly=True) as ws:
        assert QA(ws).ask("route from 4-nitrophenol to paracetamol in 3 steps").status == "answered"
    assert len(list((cache / "graphs").iterdir())) == 1


def test_a_read_only_workspace_uses_an_up_to_date_graph_beside_the_kb(small_kb_path, tmp_path):
    from chemground.graph.build import build_graph
    from chemground.retrieval.graph import GraphAccess
    from chemground.settings import GraphSettings
    from chemground.workspace import Workspace

    kb = copy_kb(small_kb_path, tmp_path)
    build_graph(kb, settings=GraphSettings())
    beside = kb.with_name(kb.name + ".graph")
    cache = tmp_path / "cache"
    with Workspace(Settings(kb={"path": kb}, cache_dir=cache), readonly=True) as ws:
        access = GraphAccess(ws)
        assert Path(access.graph().path).parent == beside
        access.graph().close()
    assert not (cache / "graphs").exists()
    # a stale graph beside the KB is left alone: the workspace builds its own copy in the cache
    manifest = json.loads((beside / "manifest.json").read_text())
    manifest["kb"]["reactions"] -= 1
    (beside / "manifest.json").write_text(json.dumps(manifest))
    stamp = (beside / "graph.lbug").stat().st_mtime_ns
    with Workspace(Settings(kb={"path": kb}, cache_dir=cache), readonly=True) as ws:
        access = GraphAccess(ws)
        assert Path(access.graph().path).parent.parent == cache / "graphs"
        access.graph().close()
    assert (beside / "graph.lbug").stat().st_mtime_ns == stamp


def test_compound_opens_the_kb_read_only(small_kb_path, tmp_path, monkeypatch, capsys):
    import chemground.kb.backends as backends
    from chemground.cli import main
    from chemground.settings import get_settings

    kb = copy_kb(small_kb_path, tmp_path)
    monkeypatch.setenv("CHEMGROUND_KB", str(kb))
    get_settings.cache_clear()
    opened = []
    real = backends.open_kb

    def spy(location, readonly=False):  # every workspace opens its KB through open_kb
        opened.append(readonly)
        return real(location, readonly=readonly)

    monkeypatch.setattr(backends, "open_kb", spy)
    before = _beside(kb)
    stamp = kb.stat().st_mtime_ns
    assert main(["compound", "aspirin", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["formula"] == "C9H8O4"
    assert opened == [True]
    assert _beside(kb) == before and kb.stat().st_mtime_ns == stamp


def test_no_graph_process_outlives_its_backend(graph_path):
    from chemground.graph.ladybug_backend import LadybugBackend

    graph = LadybugBackend(graph_path, readonly=True, query_memory_mb=512)
    graph.query("RETURN 1 AS one")
    process = graph._sandbox._process
    assert process.poll() is None
    graph.close()
    assert process.poll() is not None
    assert os.path.exists(graph_path)
