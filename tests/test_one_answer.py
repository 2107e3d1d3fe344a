"""Every way of asking returns the one Answer: ``ask``, ``lit ask``, ``graph ask`` and
``agent ask`` print the same top-level JSON keys (issue 15), here against an LLM endpoint on
loopback that answers like a model would."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from chemground.cli import main
from chemground.reasoning.answer import Answer
from chemground.settings import get_settings
from tests.lit.papers import write_corpus
from tests.support.fake_openai import FakeOpenAIServer, Step

KEYS = set(Answer.model_fields)
CYPHER = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule {smiles: "
    "'Nc1ccccc1'}) RETURN r.id AS reaction_id, m.smiles AS reactant_smiles"
)


@pytest.fixture
def kb(small_kb_path, tmp_path, monkeypatch):
    path = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, path)
    monkeypatch.setenv("CHEMGROUND_KB", str(path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    return path


def _last_json(capsys) -> dict:
    out = capsys.readouterr().out
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def _llm(server) -> list[str]:
    return ["--llm-base-url", server.base_url, "--llm-model", "fake-model", "--json"]


def test_ask_lit_graph_and_agent_print_the_same_answer_keys(kb, tmp_path, capsys):
    answers = {}
    assert main(["ask", "molecular weight of aspirin", "--json"]) == 0
    answers["ask"] = _last_json(capsys)

    papers = write_corpus(tmp_path / "papers")
    assert main(["lit", "add", str(papers["text"]), "--no-dense", "--json"]) == 0
    capsys.readouterr()

    def lit_reply(payload):
        chunk = re.search(r"\[(doc-[0-9a-f]+#\d+)\]", payload["messages"][-1]["content"]).group(1)
        return Step(text=json.dumps({"answer": f"By oxidation [{chunk}].", "citations": [chunk]}))

    with FakeOpenAIServer(lit_reply) as server:
        code = main(["lit", "ask", "How is benzoic acid made?", "--method", "bm25", *_llm(server)])
        assert code == 0
    answers["lit ask"] = _last_json(capsys)

    assert main(["graph", "build", "--json"]) == 0
    capsys.readouterr()
    with FakeOpenAIServer() as server:
        server.queue(f"```cypher\n{CYPHER}\n```", '{"ok": true, "problems": []}')
        code = main(["graph", "ask", "Which reactants make aniline?", *_llm(server)])
        assert code == 0
    answers["graph ask"] = _last_json(capsys)

    with FakeOpenAIServer() as server:
        call = {"name": "cactus__CalculateTPSA", "arguments": {"compound_SMILES": "CCO"}}
        server.queue(Step(text=None, tool_calls=[call]), "The TPSA of ethanol is 20.23 Å².")
        code = main(
            ["agent", "ask", "TPSA of ethanol?", "--tools", "cactus/CalculateTPSA", *_llm(server)]
        )
        assert code == 0
    answers["agent ask"] = _last_json(capsys)

    for command, answer in answers.items():
        assert set(answer) == KEYS, command
        assert answer["status"] == "answered", (command, answer["answer"], answer["notes"])
        assert answer["evidence"] and answer["citations"], command
    assert answers["graph ask"]["method"] == "graph" and answers["graph ask"]["value"]
    assert answers["graph ask"]["trace"]["retrieval"]["query"].startswith("MATCH")
    assert answers["lit ask"]["method"] == "lit" and answers["agent ask"]["method"] == "agent"
    assert answers["agent ask"]["value"] == pytest.approx(20.23)
