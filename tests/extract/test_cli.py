"""``kb extract`` over real HTTP against the fake OpenAI-compatible server, resumed on a second
run."""

from __future__ import annotations

import json
import shutil

import pytest
import typer
from typer.testing import CliRunner

from chemground.cli.extract import extract
from chemground.kb.sqlite_store import SQLiteKB
from chemground.settings import get_settings
from tests.extract.conftest import reaction
from tests.support.fake_openai import FakeOpenAIServer, Step

PARAGRAPH = (
    "Example 1\n\nEthanol (10 mL) and acetic acid (5 g) were heated with sulfuric acid at 80 °C "
    "for 2 h "
    "to give ethyl acetate (4.1 g, 85%).\n\nThe invention is useful.\n"
)
RECORD = reaction(
    ["ethanol", "acetic acid"],
    ["ethyl acetate"],
    catalysts=["sulfuric acid"],
    conditions={"temperature_c": 80, "time_h": 2, "ph": None},
    yield_percent=85,
)


def responder(payload):
    user = payload["messages"][1]["content"]
    if "Record to check:" in user:
        record = json.loads(user.split("Record to check:\n", 1)[1])
        return Step(
            text=json.dumps({"verdict": "ok", "reaction": record, "issues": []}),
            usage={"prompt_tokens": 900, "completion_tokens": 150, "total_tokens": 1050},
        )
    return Step(
        text=json.dumps({"reactions": [RECORD]}),
        usage={"prompt_tokens": 700, "completion_tokens": 120, "total_tokens": 820},
    )


@pytest.fixture
def cli(small_kb_path, tmp_path, monkeypatch):
    kb = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb)
    monkeypatch.setenv("CHEMGROUND_KB", str(kb))
    monkeypatch.setenv("CHEMGROUND_LLM_COST_PER_1K_INPUT", "0.001")
    monkeypatch.setenv("CHEMGROUND_LLM_COST_PER_1K_OUTPUT", "0.002")
    get_settings.cache_clear()
    app = typer.Typer()
    app.command()(extract)
    return app, kb


def test_extract_command_runs_stores_and_resumes(cli, tmp_path):
    app, kb_path = cli
    doc = tmp_path / "patent.txt"
    doc.write_text(PARAGRAPH, encoding="utf-8")
    args = [
        str(doc),
        "--extract-model",
        "small-model",
        "--check-model",
        "big-model",
        "--run-dir",
        str(tmp_path / "run"),
        "--json",
    ]
    with FakeOpenAIServer(responder) as server:
        first = CliRunner().invoke(app, [*args, "--llm-base-url", server.base_url])
        assert first.exit_code == 0, first.output
        summary = json.loads(first.stdout.strip().splitlines()[-1])
        assert [r["body"]["model"] for r in server.requests] == ["small-model", "big-model"]
        fmt = server.requests[0]["body"]["response_format"]  # JSON constrained by the schema
        assert fmt["type"] == "json_object" and "reactions" in fmt["schema"]["properties"]
        assert summary["counts"]["valid"] == 1 and summary["stored"]["reactions_added"] == 1
        usage = summary["usage"]["this_run"]
        assert (
            usage["extract"]["prompt_tokens"] == 700 and usage["check"]["completion_tokens"] == 150
        )
        assert summary["usage"]["total"]["cost_usd"] == pytest.approx(
            0.7 * 0.001 + 0.12 * 0.002 + 0.9 * 0.001 + 0.15 * 0.002
        )
        second = CliRunner().invoke(app, [*args, "--llm-base-url", server.base_url])
        assert second.exit_code == 0, second.output
        assert len(server.requests) == 2  # resumed from the journal: no new request
        again = json.loads(second.stdout.strip().splitlines()[-1])
        assert again["counts"]["resumed"] == 1 and again["stored"]["reactions_added"] == 0
        assert again["usage"]["total"]["total_tokens"] == 700 + 120 + 900 + 150
    kb = SQLiteKB(kb_path, readonly=True)
    stored = [r for r in kb.iter_reactions() if r.dataset == "llm-extraction"]
    assert len(stored) == 1 and stored[0].title == "Example 1" and stored[0].source == "patent.txt"
    assert "ethyl acetate (4.1 g, 85%)" in stored[0].description
    assert stored[0].provenance["check_model"] == "big-model"
    kb.close()
    lines = (tmp_path / "run" / "records.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["status"] == "valid"


def test_extract_command_without_an_llm_says_what_to_set(cli, tmp_path):
    app, _ = cli
    doc = tmp_path / "patent.txt"
    doc.write_text(PARAGRAPH, encoding="utf-8")
    result = CliRunner().invoke(app, [str(doc), "--run-dir", str(tmp_path / "run")])
    assert result.exit_code != 0
    assert "CHEMGROUND_LLM_BASE_URL" in str(result.exception)
    # the option this command names its model with (it said --llm-model, which it rejects)
    assert "--extract-model" in str(result.exception)
    assert "--llm-model" not in str(result.exception)
