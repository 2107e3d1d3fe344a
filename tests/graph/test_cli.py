"""The graph CLI end to end on the starter KB (names resolved, write queries refused)."""

from __future__ import annotations

import json
import shutil

from chemground.cli import main


def test_build_route_query_and_bench(small_kb_path, tmp_path, monkeypatch, capsys):
    kb = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb)
    monkeypatch.setenv("CHEMGROUND_KB", str(kb))
    assert main(["graph", "build", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["action"] == "full" and summary["counts"]["reactions"] == 274
    assert main(["graph", "route", "--from", "nitrobenzene", "--to", "acetanilide", "--json"]) == 0
    routes = json.loads(capsys.readouterr().out)["routes"]
    assert routes[0]["length"] == 2 and routes[0]["molecules"][1]["name"] == "aniline"
    assert main(["graph", "query", "MATCH (m:Molecule) DETACH DELETE m"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert main(["graph", "ask", "what makes aniline?"]) == 2
    assert "needs an LLM" in capsys.readouterr().err
    tasks = tmp_path / "tasks.jsonl"
    assert main(["bench", "graph-generate", "-o", str(tasks), "--per-type", "2"]) == 0
    capsys.readouterr()
    assert main(["bench", "graph-run", "--tasks", str(tasks), "--reference", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["summary"]["all"]["n"] == 26 and result["summary"]["all"]["exact_answer"] == 1.0
    assert main(["bench", "graph-run", "--tasks", str(tasks)]) == 2
    assert "needs an LLM" in capsys.readouterr().err


def test_query_warns_about_an_edge_against_the_synthesis_flow(
    small_kb_path, tmp_path, monkeypatch, capsys
):
    """``graph query`` used to return 0 rows silently for a reversed edge (issue 20)."""
    kb = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb)
    monkeypatch.setenv("CHEMGROUND_KB", str(kb))
    assert main(["graph", "build", "--json"]) == 0
    capsys.readouterr()
    reversed_edge = "MATCH (r:Reaction)-[:REACTANT_OF]->(m:Molecule) RETURN count(*) AS n"
    assert main(["graph", "query", reversed_edge, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("against the synthesis flow" in w for w in data["warnings"])
    assert main(["graph", "query", reversed_edge]) == 0
    assert "against the synthesis flow" in " ".join(capsys.readouterr().err.split())
    right = "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction) RETURN count(*) AS n"
    assert main(["graph", "query", right, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == [] and data["rows"][0]["n"] > 0
