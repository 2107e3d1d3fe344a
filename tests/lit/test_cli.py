"""The `chemground lit` and `chemground bench lit-run` commands, end to end (real HTTP for the
LLM)."""

from __future__ import annotations

import json
import re

import pytest

from chemground.cli import main
from chemground.lit.qac.schema import NEGATIVE_ANSWER, QACRecord, write_qac_csv
from chemground.settings import get_settings
from tests.lit.papers import write_corpus
from tests.support.fake_openai import FakeOpenAIServer, Step


@pytest.fixture
def env(kb_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    kb_copy.close()  # the CLI opens the file itself
    return write_corpus(tmp_path / "papers")


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith(("{", "["))]


def test_add_reports_bad_files_keeps_going_and_is_idempotent(env, tmp_path, capsys):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(env["pdf"].read_bytes()[:600])
    code = main(
        ["lit", "add", str(env["pdf"]), str(broken), str(env["text"]), "--no-dense", "--json"]
    )
    data = _json_lines(capsys.readouterr().out)[-1]
    assert code == 1  # not every file could be added
    assert [f["status"] for f in data["files"]] == ["added", "failed", "added"]
    assert "corrupt or unreadable PDF" in data["files"][1]["error"]
    assert data["index"]["chunks"] >= 2 and data["index"]["dense"] is False
    code = main(["lit", "add", str(env["pdf"]), str(env["text"]), "--no-dense", "--json"])
    again = _json_lines(capsys.readouterr().out)[-1]
    assert code == 0 and again["unchanged"] == 2 and again["added"] == 0

    assert main(["lit", "list", "--json"]) == 0
    listed = _json_lines(capsys.readouterr().out)[-1]
    assert {d["format"] for d in listed} == {"pdf", "text"}
    pdf_id = next(d["id"] for d in listed if d["format"] == "pdf")
    assert main(["lit", "show", f"{pdf_id}#0", "--json"]) == 0
    shown = _json_lines(capsys.readouterr().out)[-1]
    assert shown["document_id"] == pdf_id and shown["page"] == 1

    assert (
        main(
            [
                "lit",
                "search",
                "Which metal gave toluene as a side product?",
                "--method",
                "bm25",
                "--json",
            ]
        )
        == 0
    )
    found = _json_lines(capsys.readouterr().out)[-1]
    assert "Platinum" in found["evidence"][0]["record"]["text"]
    assert main(["lit", "remove", pdf_id]) == 0
    capsys.readouterr()
    assert main(["lit", "remove", pdf_id]) == 2  # a clear error, not a traceback
    assert "no document" in capsys.readouterr().err


def test_ask_without_llm_gives_cited_snippets(env, capsys):
    main(["lit", "add", str(env["xml"]), str(env["text"]), "--no-dense", "--json"])
    capsys.readouterr()
    assert (
        main(["lit", "ask", "How is benzoic acid made from toluene?", "--method", "bm25", "--json"])
        == 0
    )
    answer = _json_lines(capsys.readouterr().out)[-1]
    assert answer["method"] == "lit" and answer["reasoner"] == "extractive"
    assert answer["status"] == "answered"
    first = answer["trace"]["citations"][0]
    assert first["chunk_id"] == answer["citations"][0]
    assert first["chunk_id"] in answer["answer"] and first["document_id"].startswith("doc-")
    assert first["start"] < first["end"] and "toluene" in answer["answer"].lower()


def test_ask_with_an_llm_endpoint_cites_chunk_ids(env, capsys):
    main(["lit", "add", str(env["xml"]), str(env["text"]), "--no-dense", "--json"])
    capsys.readouterr()

    def respond(payload):
        prompt = payload["messages"][-1]["content"]
        chunk_id = re.search(r"\[(doc-[0-9a-f]+#\d+)\]", prompt).group(1)
        return Step(
            text=json.dumps(
                {
                    "answer": f"By oxidising toluene with KMnO4 [{chunk_id}].",
                    "citations": [chunk_id],
                    "supported": True,
                }
            )
        )

    with FakeOpenAIServer(respond) as server:
        code = main(
            [
                "lit",
                "ask",
                "How is benzoic acid made?",
                "--method",
                "bm25",
                "--json",
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "fake-model",
            ]
        )
        assert (
            len(server.requests) == 1
            and "Answer not available" in server.requests[0]["body"]["messages"][-1]["content"]
        )
    answer = _json_lines(capsys.readouterr().out)[-1]
    assert code == 0 and answer["reasoner"] == "llm" and answer["trace"]["model"] == "fake-model"
    assert answer["citations"][0] in answer["answer"] and answer["status"] == "answered"


def test_bench_lit_run_scores_retrieval_and_judged_answers(env, tmp_path, capsys):
    chunks = [
        "Toluene is oxidised to benzoic acid by potassium permanganate in water at reflux for "
        "four hours.",
        "Palladium on carbon hydrogenates benzaldehyde to benzyl alcohol in ethanol at room "
        "temperature.",
        "Aspirin is made from salicylic acid and acetic anhydride with a little sulfuric acid as "
        "catalyst.",
    ]
    records = [
        QACRecord(
            chunks[0],
            "Explanatory",
            "What oxidises toluene to benzoic acid?",
            "Potassium permanganate.",
            "Easy",
            [chunks[0]],
            [(0, len(chunks[0]))],
            [chunks[1]],
        ),
        QACRecord(
            chunks[1],
            "Causal",
            "Which solvent is used to hydrogenate benzaldehyde over palladium?",
            "Ethanol.",
            "Medium",
            [chunks[1]],
            [(0, len(chunks[1]))],
            [chunks[2]],
        ),
        QACRecord(
            chunks[2],
            "Causal",
            "What is the melting point of aspirin made from salicylic acid?",
            NEGATIVE_ANSWER,
            "Negative",
            [chunks[2]],
            [(0, len(chunks[2]))],
            [chunks[0]],
        ),
    ]
    csv_path = tmp_path / "set.csv"
    write_qac_csv(csv_path, records)

    def respond(payload):
        prompt = payload["messages"][-1]["content"]
        if prompt.startswith("TASK: judge_correctness"):
            prediction = re.search(r"Predicted answer: (.*)", prompt).group(1)
            reference = re.search(r"Reference answer: (.*)", prompt).group(1)
            same = prediction.split()[0].lower().strip(".") == reference.split()[0].lower().strip(
                "."
            )
            return Step(text=json.dumps({"score": 1.0 if same else 0.0, "reason": "test"}))
        if "Context passages" in prompt:
            chunk_id = re.search(r"\[(doc-[0-9a-f]+#\d+)\]", prompt).group(1)
            question = re.search(r"Question: (.*)", prompt).group(1)
            answer = {"What oxidises": "Potassium permanganate", "Which solvent": "Ethanol"}.get(
                question[:13]
            )
            if answer is None:
                return Step(
                    text=json.dumps(
                        {"answer": NEGATIVE_ANSWER, "citations": [], "supported": False}
                    )
                )
            return Step(
                text=json.dumps(
                    {
                        "answer": f"{answer} [{chunk_id}].",
                        "citations": [chunk_id],
                        "supported": True,
                    }
                )
            )
        return Step(text="I think it is water.")  # the no-context baseline

    out = tmp_path / "bench.json"
    with FakeOpenAIServer(respond) as server:
        code = main(
            [
                "bench",
                "lit-run",
                str(csv_path),
                "--methods",
                "bm25,hybrid",
                "--no-dense",
                "--no-mentions",
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "fake-model",
                "--out",
                str(out),
                "--json",
            ]
        )
    assert code == 0
    data = json.loads(out.read_text())
    assert data["corpus_chunks"] == 3 and data["scored_queries"] == 3
    assert data["retrieval"]["bm25"]["recall@1"] == pytest.approx(1.0)
    answers = data["answers"]
    assert answers["baseline"]["accuracy"] == pytest.approx(0.0)
    assert answers["rag"]["accuracy"] == pytest.approx(
        1.0
    )  # the negative counts only with score >= 0.7
    assert answers["by_group"]["difficulty:Negative"]["rag"] == pytest.approx(1.0)
    assert data["answer_model"] == "fake-model"


def test_qac_generate_over_http_then_import(env, tmp_path, capsys):
    from tests.lit.test_qac import Responder, needs_dense

    if needs_dense.args[0]:
        pytest.skip(needs_dense.kwargs["reason"])
    assert (
        main(
            [
                "lit",
                "add",
                str(env["pdf"]),
                str(env["xml"]),
                "--chunk-size",
                "250",
                "--overlap",
                "0",
                "--json",
            ]
        )
        == 0
    )
    capsys.readouterr()
    responder = Responder()
    out = tmp_path / "qac" / "set.csv"
    with FakeOpenAIServer(lambda payload: Step(text=responder(payload["messages"]))) as server:
        code = main(
            [
                "lit",
                "qac-generate",
                "--out",
                str(out),
                "--samples",
                "3",
                "--workers",
                "2",
                "--json",
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "fake-model",
            ]
        )
    summary = _json_lines(capsys.readouterr().out)[-1]
    assert code == 0 and summary["model"] == "fake-model" and summary["kept"] > 0
    assert summary["dropped"] == {"hallucination": 1}
    assert (
        out.exists()
        and out.with_name("set_neg.csv").exists()
        and out.with_name("set_multi.csv").exists()
    )
    assert (
        main(["lit", "qac-import", str(out), "--json", "--out", str(tmp_path / "set.jsonl")]) == 0
    )
    imported = _json_lines(capsys.readouterr().out)[-1]
    assert imported["records"] == summary["kept"] and imported["reasoning_types"] == {
        "Causal": summary["kept"]
    }
    lines = (tmp_path / "set.jsonl").read_text().splitlines()
    assert len(lines) == summary["kept"] and json.loads(lines[0])["judge_model"] == "fake-model"


def test_search_reranks_with_an_llm_endpoint_and_refuses_an_unknown_reranker(env, capsys):
    main(["lit", "add", str(env["pdf"]), str(env["xml"]), str(env["text"]), "--no-dense", "--json"])
    capsys.readouterr()

    def respond(payload):
        passage = payload["messages"][-1]["content"].split("Question:", 1)[0]
        return Step(text=json.dumps({"score": 9 if "KMnO4" in passage else 2}))

    question = "What was toluene heated with in water?"
    with FakeOpenAIServer(respond) as server:
        code = main(
            [
                "lit",
                "search",
                question,
                "--method",
                "bm25",
                "--json",
                "--rerank",
                "llm",
                "--rerank-depth",
                "3",
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "fake-model",
            ]
        )
        scored = len(server.requests)
    data = _json_lines(capsys.readouterr().out)[-1]
    assert code == 0 and 1 <= scored <= 3
    top = data["evidence"][0]
    assert "KMnO4" in top["record"]["text"] and top["retriever"] == "bm25+llm" and top["score"] == 9
    assert "rerank" in data["timings_ms"]
    assert main(["lit", "search", question, "--rerank", "cohere"]) != 0
    assert "unknown re-ranker 'cohere'" in capsys.readouterr().err


def test_search_ask_and_index_of_an_empty_library_say_so(env, capsys):
    """A fresh install has no papers: each literature command names the problem and the fix
    (bm25s cannot index an empty corpus; this was an AttributeError traceback)."""
    for argv in (
        ["lit", "search", "why is the Grignard run in dry ether?"],
        ["lit", "ask", "why is the Grignard run in dry ether?"],
        ["lit", "index", "--no-dense"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "holds no papers" in err and "chemground lit add" in err and "Traceback" not in err


def _err(capsys) -> str:
    """stderr with the console's line wrapping undone."""
    return " ".join(capsys.readouterr().err.split())


def test_qac_import_out_is_checked_and_its_folders_created(tmp_path, capsys):
    source = tmp_path / "set.csv"
    write_qac_csv(
        source,
        [QACRecord("Toluene was oxidised.", "Causal", "Why?", "Because.", "Easy", ["a"], [(0, 7)])],
    )
    before = source.read_bytes()
    # --out is the input: refused, the CSV kept (it was silently overwritten)
    assert main(["lit", "qac-import", str(source), "--out", str(source)]) == 2
    assert "is also the input" in _err(capsys) and source.read_bytes() == before
    # --out is a folder: a usage error (IsADirectoryError before)
    assert main(["lit", "qac-import", str(source), "--out", str(tmp_path)]) == 2
    assert "is a directory" in _err(capsys)
    # --out in folders that do not exist yet: created (FileNotFoundError before)
    out = tmp_path / "new" / "sub" / "set.jsonl"
    assert main(["lit", "qac-import", str(source), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["question"] == "Why?"
    # a folder as the input is named as one ("no such file" before)
    assert main(["lit", "qac-import", str(tmp_path)]) == 2
    assert "is a folder, not a file" in _err(capsys)


def test_qac_import_of_a_latin1_csv_names_the_byte_and_takes_encoding(tmp_path, capsys):
    source = tmp_path / "latin.csv"
    source.write_bytes(
        "chunk,Question,Answer,Context\ncaf\u00e9,Why?,B.,\"['a']\"\n".encode("latin-1")
    )
    assert main(["lit", "qac-import", str(source)]) == 2
    err = _err(capsys)
    assert "Traceback" not in err and "not valid UTF-8 text at byte 33" in err
    assert main(["lit", "qac-import", str(source), "--encoding", "latin-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 1
