"""``chemground ask`` / ``retrieve`` on the command line: human, JSON and batch output."""

from __future__ import annotations

import json

import pytest

from chemground.cli import main
from chemground.settings import get_settings


@pytest.fixture
def kb_env(small_kb_path, monkeypatch):
    monkeypatch.setenv("CHEMGROUND_KB", str(small_kb_path))
    get_settings.cache_clear()


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_human_output_has_answer_then_evidence(kb_env, capsys):
    code, out, _ = run(capsys, "ask", "What forms when benzaldehyde reacts with benzohydrazide?")
    flat = " ".join(out.split())
    assert code == 0
    assert flat.startswith("Product: N'-benzylidenebenzohydrazide")
    assert "Evidence" in out and "starter:imine_formation-01" in flat


def test_ask_json(kb_env, capsys):
    code, out, _ = run(
        capsys, "ask", "What is the molecular weight of CC(=O)Nc1ccc(O)cc1?", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["value"] == 151.16 and data["aspect"] == "molecular_weight"
    assert data["method"] == "table" and data["reasoner"] == "extractive"


def test_ask_batch_keeps_order_and_ids(kb_env, capsys, tmp_path):
    path = tmp_path / "questions.jsonl"
    lines = [
        {"id": "a", "question": "MW of aspirin?"},
        "not json",
        {"id": "c", "question": "smiles for caffeine"},
        {"id": "d", "question": "What forms when benzaldehyde reacts with benzohydrazide?"},
    ]
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    code, out, err = run(capsys, "ask", "--batch", str(path))
    answers = [json.loads(line) for line in out.splitlines()]
    # every line is answered in order; the one bad line makes the exit status 1 (it was 0)
    assert code == 1 and "1 of 4 lines could not be answered" in err
    assert [a["id"] for a in answers] == ["a", None, "c", "d"]
    assert (
        answers[0]["value"] == 180.16
        and answers[1]["status"] == "error"
        and "line 2" in answers[1]["error"]
    )
    assert answers[3]["value"][0] == "O=C(NN=Cc1ccccc1)c1ccccc1"


def test_ask_batch_refuses_bad_files_before_answering(kb_env, capsys, tmp_path):
    """Found by a first-use crash hunt: '-o' equal to the input replaced the questions with the
    answers; a folder, a missing folder or a non-UTF-8 file were tracebacks; a question given
    with --batch was silently ignored."""
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "a", "question": "MW of aspirin?"}) + "\n")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"question": "caf\xe9"}\n')
    cases = [
        (["--batch", str(questions), "-o", str(questions)], "is also the input"),
        (["--batch", str(questions), "-o", str(tmp_path)], "is a folder"),
        (["--batch", str(tmp_path)], "is a folder; --batch reads a JSONL file"),
        (["--batch", str(latin)], "not UTF-8 text"),
        (["MW of aspirin?", "--batch", str(questions)], "either a question or --batch"),
    ]
    for args, message in cases:
        code, _out, err = run(capsys, "ask", *args)
        assert code == 2 and message in " ".join(err.split()) and "Traceback" not in err, args
    assert json.loads(questions.read_text())["question"] == "MW of aspirin?"
    made = tmp_path / "new" / "sub" / "answers.jsonl"
    code, _, _ = run(capsys, "ask", "--batch", str(questions), "-o", str(made))
    assert code == 0 and json.loads(made.read_text())["id"] == "a"


def test_retrieve_json_shows_query_and_hits(kb_env, capsys):
    code, out, _ = run(
        capsys,
        "retrieve",
        "Which solvent for bromobenzene and phenylboronic acid?",
        "-k",
        "3",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["query"]["aspect"] == "solvent" and len(data["hits"]) == 3
    assert [m["text"] for m in data["query"]["mentions"]] == ["bromobenzene", "phenylboronic acid"]


def test_retrieve_takes_its_default_k_from_the_kb_settings(kb_env, capsys, monkeypatch):
    monkeypatch.setenv("CHEMGROUND_KB__TOP_K", "2")
    get_settings.cache_clear()
    question = "Which solvent for bromobenzene and phenylboronic acid?"
    code, out, _ = run(capsys, "retrieve", question, "--json")
    assert code == 0 and len(json.loads(out)["hits"]) == 2
    code, out, _ = run(capsys, "retrieve", question, "-k", "4", "--json")  # the flag wins
    assert code == 0 and len(json.loads(out)["hits"]) == 4


def test_unclear_question_exits_nonzero(kb_env, capsys):
    code, out, _ = run(capsys, "ask", "What is the boiling point of the moon?")
    assert code == 1 and "could not tell what the question asks for" in " ".join(out.split())


@pytest.mark.parametrize(
    "args, message",
    [
        (["retrieve", "MW of aspirin?", "-k", "0"], "Invalid value for '-k'"),
        (["ask", "MW of aspirin?", "-k", "-3"], "Invalid value for '-k'"),
        (["compound", "aspirin", "--reactions", "-1"], "Invalid value for '--reactions'"),
        (["graph", "query", "MATCH (n) RETURN n", "--limit", "0"], "Invalid value for '--limit'"),
        (
            ["agent", "ask", "MW of aspirin?", "--max-steps", "-1"],
            "Invalid value for '--max-steps'",
        ),
        (["graph", "route", "--from", "benzene", "--to", " "], "--to is empty"),
    ],
)
def test_counts_and_limits_below_their_range_are_refused(kb_env, capsys, args, message):
    """-k 0 returned nothing, --reactions -1 dropped the last reaction (a Python slice), --limit
    0 returned every row, --max-steps -1 'found no answer within -1 tool calls', and an empty
    --to became a forward search: each exited 0."""
    code, _out, err = run(capsys, *args)
    assert code == 2 and message in " ".join(err.split()), (args, err)
