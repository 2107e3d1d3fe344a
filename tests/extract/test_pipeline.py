"""The extraction run end to end with scripted LLMs: check stage, validation, journal, storing."""

from __future__ import annotations

import json

import pytest

from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import (
    CHECK_REJECTED,
    INVALID,
    VALID,
    ExtractionRun,
    ExtractOptions,
    StoreOptions,
    store_records,
    write_records,
)
from chemground.extract.snippets import Snippet
from tests.extract.conftest import reaction

ESTER = (
    "ESTER: ethanol (10 mL) and acetic acid (5 g) were heated with sulfuric acid at 80 °C for 2 h "
    "to give ethyl acetate (85%)."
)
ESTER_RXN = reaction(
    ["ethanol", "acetic acid"],
    ["ethyl acetate"],
    catalysts=["sulfuric acid"],
    conditions={"temperature_c": 80, "time_h": 2, "ph": None},
    yield_percent=85,
)


def snip(text: str, doc: str = "patent-1", index: int = 0) -> Snippet:
    return Snippet(doc, index, text)


def run(llms, lookup, journal_path, snippets, **options):
    _, extract_llm, check_llm = llms
    journal = RunJournal(journal_path)
    try:
        return ExtractionRun(
            extract_llm, check_llm, lookup, journal, ExtractOptions(**options)
        ).run(snippets)
    finally:
        journal.close()


def test_a_clean_record_is_valid_with_structures(script_llms, lookup, tmp_path):
    llms = script_llms({"ESTER": [ESTER_RXN]})
    result = run(llms, lookup, tmp_path / "j.sqlite", [snip(ESTER)])
    [record] = result.records
    assert record.status == VALID and record.validation.valid
    by_name = {c.name: c for c in record.validation.compounds}
    assert by_name["ethyl acetate"].smiles == "CCOC(C)=O"
    assert by_name["ethyl acetate"].inchikey == "XEKOWRVHYACXOJ-UHFFFAOYSA-N"
    assert by_name["ethyl acetate"].formula == "C4H8O2" and by_name[
        "ethyl acetate"
    ].molecular_weight == pytest.approx(88.106, abs=0.01)
    assert result.counts.valid == 1 and result.counts.checked == 1 and result.counts.extracted == 1


def test_the_check_stage_can_empty_a_record(script_llms, lookup, tmp_path):
    text = "NOPROD: the mixture was stirred with ethanol (5 mL) at 25 °C for 1 h and filtered."
    llms = script_llms(
        {"NOPROD": [reaction(["ethanol"], ["ethanol"])]}, checks={"NOPROD": "rejected"}
    )
    result = run(llms, lookup, tmp_path / "j.sqlite", [snip(text)])
    [record] = result.records
    assert record.status == CHECK_REJECTED and record.final is None and record.validation is None
    assert record.check["verdict"] == "rejected" and record.check["issues"] == [
        "the text names no product"
    ]
    assert result.counts.invalid[CHECK_REJECTED] == 1 and result.counts.valid == 0


def test_the_check_stage_can_correct_a_record(script_llms, lookup, tmp_path):
    swapped = reaction(["ethyl acetate"], ["ethanol", "acetic acid"], catalysts=["sulfuric acid"])
    llms = script_llms({"ESTER": [swapped]}, checks={"ESTER": ESTER_RXN})
    [record] = run(llms, lookup, tmp_path / "j.sqlite", [snip(ESTER)]).records
    assert record.extracted.products == ["ethanol", "acetic acid"]
    assert record.final.products == ["ethyl acetate"] and record.check["verdict"] == "corrected"


def test_unresolved_names_make_the_reaction_invalid_and_are_listed(script_llms, lookup, tmp_path):
    text = (
        "WEIRD: frobnozzle blue (2 g) and ethanol (5 mL) were heated at 60 °C for 3 h to give "
        "ethyl acetate."
    )
    llms = script_llms({"WEIRD": [reaction(["frobnozzle blue", "ethanol"], ["ethyl acetate"])]})
    [record] = run(llms, lookup, tmp_path / "j.sqlite", [snip(text)]).records
    assert record.status == INVALID and record.reasons == ["unresolved"]
    assert record.validation.unresolved_names == ["frobnozzle blue"]
    assert any("frobnozzle blue" in m and "OPSIN" in m for m in record.validation.messages)


def test_a_product_element_no_input_supplies_is_implausible(script_llms, lookup, tmp_path):
    text = (
        "BROMO: benzene (10 g) was stirred in dichloromethane (20 mL) at 25 °C for 1 h to give "
        "bromobenzene."
    )
    llms = script_llms(
        {"BROMO": [reaction(["benzene"], ["bromobenzene"], solvents=["dichloromethane"])]}
    )
    [record] = run(llms, lookup, tmp_path / "j.sqlite", [snip(text)]).records
    assert record.status == INVALID and record.reasons == ["element_mismatch"]
    assert any("contains Br" in m for m in record.validation.messages)


def test_a_resumed_run_skips_finished_snippets(script_llms, lookup, tmp_path):
    other = (
        "OTHER: acetic acid (3 g) and ethanol (4 mL) were heated at 70 °C for 5 h to give "
        "ethyl acetate."
    )
    crash = (
        "CRASH: this snippet breaks the run (the LLM process dies) after 2 g of solid was stirred."
    )
    script, extract_llm, check_llm = script_llms(
        {
            "ESTER": [ESTER_RXN],
            "OTHER": [reaction(["acetic acid", "ethanol"], ["ethyl acetate"])],
            "CRASH": RuntimeError("simulated crash"),
        }
    )
    snippets = [snip(ESTER, index=0), snip(other, index=1), snip(crash, index=2)]
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(
            (script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", snippets, concurrency=1
        )
    assert sorted(script.asked) == [
        "check:ESTER",
        "check:OTHER",
        "extract:CRASH",
        "extract:ESTER",
        "extract:OTHER",
    ]
    assert len(RunJournal(tmp_path / "j.sqlite")) == 2  # both finished snippets were kept
    script.asked.clear()
    script.extractions["CRASH"] = []  # the next run gets through
    result = run(
        (script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", snippets, concurrency=1
    )
    assert script.asked == ["extract:CRASH"]  # finished snippets were not asked again
    assert result.counts.resumed == 2 and result.counts.done == 3 and result.counts.valid == 2
    assert result.counts.no_reaction == 1
    assert (
        result.resumed_usage["extract"].calls == 2
    )  # their spend is carried over from the journal


def test_a_new_model_does_not_reuse_the_journal(script_llms, lookup, tmp_path):
    script, extract_llm, check_llm = script_llms({"ESTER": [ESTER_RXN]})
    run((script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", [snip(ESTER)])
    extract_llm.model = "another-model"
    script.asked.clear()
    run((script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", [snip(ESTER)])
    assert script.asked == ["extract:ESTER", "check:ESTER"]


def test_unusable_output_twice_is_a_journaled_failure(script_llms, lookup, tmp_path):
    llms = script_llms({"GARBAGE": "I cannot help with that."})
    result = run(
        llms, lookup, tmp_path / "j.sqlite", [snip("GARBAGE: 5 g of ethanol was heated at 80 °C.")]
    )
    assert result.counts.failed["extract_failed"] == 1 and result.records == []
    journal = RunJournal(tmp_path / "j.sqlite")
    [outcome] = list(journal)
    assert outcome.status == "extract_failed" and "unusable output" in outcome.error


def test_llm_calls_run_concurrently_up_to_the_limit(script_llms, lookup, tmp_path):
    texts = {f"BATCH{i}X": [ESTER_RXN] for i in range(8)}
    script, extract_llm, check_llm = script_llms(texts, delay_s=0.05)
    snippets = [
        snip(f"{m}: ethanol (10 mL) was heated with acetic acid (2 g) at 80 °C.", index=i)
        for i, m in enumerate(texts)
    ]
    result = run(
        (script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", snippets, concurrency=3
    )
    assert result.counts.valid == 8
    assert 2 <= script.max_in_flight <= 3


def test_storing_keeps_the_snippet_and_document_and_is_idempotent(
    script_llms, lookup, kb_copy, resolver, tmp_path
):
    weird = (
        "WEIRD: frobnozzle blue (2 g) and ethanol (5 mL) were heated at 60 °C for 3 h to give "
        "ethyl acetate."
    )
    llms = script_llms(
        {
            "ESTER": [ESTER_RXN],
            "WEIRD": [reaction(["frobnozzle blue", "ethanol"], ["ethyl acetate"])],
        }
    )
    result = run(
        llms, lookup, tmp_path / "j.sqlite", [snip(ESTER, "US1234567"), snip(weird, "US7654321")]
    )
    records_path = tmp_path / "records.jsonl"
    write_records(records_path, result.records)
    assert [json.loads(line)["status"] for line in records_path.read_text().splitlines()] == [
        VALID,
        INVALID,
    ]
    before = kb_copy.stats().reactions
    summary = store_records(
        kb_copy,
        resolver,
        result.records,
        records_path=records_path,
        extract_model="m1",
        check_model="m2",
    )
    assert summary.reactions_added == 1 and kb_copy.stats().reactions == before + 1
    stored = next(r for r in kb_copy.iter_reactions() if r.dataset == "llm-extraction")
    assert stored.description == ESTER and stored.source == "US1234567"
    assert (
        stored.provenance["document_id"] == "US1234567"
        and stored.provenance["extract_model"] == "m1"
    )
    assert stored.conditions.temperature_c == 80 and stored.yield_percent == 85
    assert {p.name for p in stored.products} == {"ethyl acetate"} and all(
        p.resolved for p in stored.participants
    )
    assert stored.reaction_smiles == "CCO.CC(=O)O>O=S(=O)(O)O>CCOC(C)=O"
    again = store_records(
        kb_copy,
        resolver,
        result.records,
        records_path=records_path,
        extract_model="m1",
        check_model="m2",
    )
    assert again.reactions_added == 0 and kb_copy.stats().reactions == before + 1
    kept = store_records(
        kb_copy,
        resolver,
        result.records,
        records_path=records_path,
        extract_model="m1",
        check_model="m2",
        options=StoreOptions(keep_unresolved=True),
    )
    assert kept.reactions_added == 1 and kept.reactions_flagged == 1
    flagged = next(r for r in kb_copy.iter_reactions() if r.source == "US7654321")
    assert flagged.flags == ["unresolved reactant: frobnozzle blue"]


def test_ctrl_c_lets_calls_in_flight_finish_and_journals_them(
    script_llms, lookup, tmp_path, monkeypatch
):
    from chemground.extract import pipeline

    texts = {f"STOP{i}X": [ESTER_RXN] for i in range(6)}
    script, extract_llm, check_llm = script_llms(texts, delay_s=0.05)
    snippets = [
        snip(f"{m}: ethanol (10 mL) was heated with acetic acid (2 g) at 80 °C.", index=i)
        for i, m in enumerate(texts)
    ]
    real_wait = pipeline.wait
    calls = {"n": 0}

    def interrupted_wait(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(pipeline, "wait", interrupted_wait)
    result = run(
        (script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", snippets, concurrency=2
    )
    assert result.interrupted
    finished = len(RunJournal(tmp_path / "j.sqlite"))
    assert (
        1 <= finished < 6 and result.counts.done == finished
    )  # in-flight work kept, the rest not started
    monkeypatch.setattr(pipeline, "wait", real_wait)
    script.asked.clear()
    again = run(
        (script, extract_llm, check_llm), lookup, tmp_path / "j.sqlite", snippets, concurrency=2
    )
    assert not again.interrupted and again.counts.resumed == finished and again.counts.valid == 6
    assert len([a for a in script.asked if a.startswith("extract:")]) == 6 - finished
