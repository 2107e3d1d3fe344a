"""LLM reasoners under hostile endpoints and garbage answers (issue 14), end to end through
``QA.ask`` against a local fake OpenAI server (real HTTP): the per-answer deadline, and the
check that an answer stands on the evidence before it is called ``answered``."""

from __future__ import annotations

import time

import pytest

from chemground.qa_factory import build_qa
from chemground.reasoning.answer import STATUSES, Answer
from chemground.settings import Settings
from chemground.workspace import Workspace
from tests.support.fake_openai import FakeOpenAIServer, Step

REACTION = "What forms when benzaldehyde reacts with benzohydrazide?"


def make_qa(small_kb_path, opsin, tmp_path, server, **llm):
    llm.setdefault("cache", False)
    llm.setdefault("max_retries", 1)
    s = Settings(
        kb={"path": small_kb_path},
        llm={"base_url": server.base_url, "model": "fake-chem-7b", **llm},
        cache_dir=tmp_path / "cache",
    )
    workspace = Workspace(s, readonly=True, opsin=opsin)
    qa = build_qa(workspace)
    qa.llm.backoff_base_s = 0.01
    return qa


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def qa(small_kb_path, opsin, tmp_path, server):
    server.steps.clear()
    return make_qa(small_kb_path, opsin, tmp_path, server)


# -- the answer's deadline
# --------------------------------------------------------------------------


def test_adaptive_reasoner_stops_at_the_answer_deadline(small_kb_path, opsin, tmp_path, server):
    server.steps.clear()
    server.queue(*[Step(text="thinking", delay_s=0.7)] * 3)
    qa = make_qa(small_kb_path, opsin, tmp_path, server, call_deadline_s=1.0, answer_deadline_s=1.2)
    qa.ask("What is the molecular weight of aspirin?")  # warm the parser and KB outside the timing
    started = time.monotonic()
    answer = qa.ask(REACTION, reasoner="adaptive")
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, (
        elapsed
    )  # one answer's budget (1.2 s), not 3 calls x 5 attempts x the read time-out
    assert answer.status == "error"
    assert (
        f"the model at {server.base_url} did not answer within the 1.2 s allowed for one answer"
        in answer.answer
    )
    assert answer.evidence  # the evidence is still shown


def test_each_answer_gets_a_fresh_budget(small_kb_path, opsin, tmp_path, server):
    server.steps.clear()
    server.queue(*[Step(text="Answer: 180.16 g/mol", delay_s=0.4)] * 3)
    qa = make_qa(small_kb_path, opsin, tmp_path, server, call_deadline_s=1.0, answer_deadline_s=0.8)
    statuses = [
        qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct").status
        for _ in range(3)
    ]
    assert statuses == ["answered"] * 3  # 3 x 0.4 s in all, but each answer has its own 0.8 s


def test_a_hung_endpoint_costs_one_call_deadline_not_retries_times_timeout(
    small_kb_path, opsin, tmp_path, server
):
    server.steps.clear()
    server.queue(*[Step(text="late", delay_s=3.0)] * 3)
    qa = make_qa(
        small_kb_path,
        opsin,
        tmp_path,
        server,
        call_deadline_s=1.0,
        timeout_s=120.0,
        max_retries=4,
    )
    qa.ask("What is the molecular weight of aspirin?")
    started = time.monotonic()
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="cot")
    assert time.monotonic() - started < 2.0
    assert answer.status == "error" and "did not answer within 1 s" in answer.answer


# -- answers checked against the evidence
# ------------------------------------------------------------

SUPPORTED = [
    ("What is the molecular weight of aspirin?", "Because [E1].\nAnswer: 180.16 g/mol", 180.16),
    ("What is the molecular weight of aspirin?", "Answer: about 180.2 g/mol", 180.2),
    ("What is the exact mass of aspirin?", "Answer: 180.0423 Da", 180.0423),
    (
        REACTION,
        "The reaction [E1] gives the hydrazone.\nAnswer: N'-benzylidenebenzohydrazide",
        ["O=C(NN=Cc1ccccc1)c1ccccc1"],
    ),
    (
        REACTION,
        "Answer: C1=CC=CC=C1C=NNC(=O)C1=CC=CC=C1",
        ["O=C(NN=Cc1ccccc1)c1ccccc1"],
    ),  # Kekulé form
    (
        "What solvent is used when benzaldehyde reacts with benzohydrazide?",
        "Answer: ethanol",
        ["ethanol"],
    ),
    (
        "What solvent is used when benzaldehyde reacts with benzohydrazide?",
        "Answer: The solvent is ethanol (CCO).",
        None,
    ),
    ("What is the yield when benzaldehyde reacts with benzohydrazide?", "Answer: 90%", 90.0),
    (
        "How long does the reaction of benzaldehyde with benzohydrazide take?",
        "Answer: 180 min",
        180.0,
    ),
    ("What is the molecular formula of caffeine?", "Answer: C8H10N4O2", "C8H10N4O2"),
    ("What is the SMILES of ethanol?", "Answer: CCO", "CCO"),
    ("What is the IUPAC name of CCO?", "Answer: ethanol", "ethanol"),
]


@pytest.mark.parametrize("question, reply, value", SUPPORTED)
def test_a_supported_answer_stays_answered(qa, server, question, reply, value):
    server.queue(reply)
    answer = qa.ask(question, reasoner="rag-direct")
    assert answer.status == "answered", (answer.notes, answer.trace.get("faithfulness"))
    if value is not None:
        assert answer.value == value
    assert answer.trace["faithfulness"]["supported"] is True
    assert not any(n.startswith("unsupported") for n in answer.notes)


UNSUPPORTED = [
    (
        "What is the molecular weight of aspirin?",
        "Answer: 512.7 g/mol",
        "512.7 is not in the evidence",
    ),
    ("What is the molecular weight of aspirin?", "Answer: ???", "empty or has no words or numbers"),
    ("What is the molecular weight of aspirin?", "Answer: zxq vbnm wert", "gives no number"),
    ("What is the molecular weight of aspirin?", "¯\\_(ツ)_/¯ ... ---", "no number"),
    (REACTION, "Answer: CC(C)(C)c1ccc(O)cc1", "not in the evidence: CC(C)(C)c1ccc(O)cc1"),
    (REACTION, "Answer: qwertyuiop asdfgh", "no compound in the answer could be recognised"),
    (
        "What solvent is used when benzaldehyde reacts with benzohydrazide?",
        "Answer: dimethyl sulfoxide",
        "not in the evidence: 'dimethyl sulfoxide'",
    ),
    (
        "What is the yield when benzaldehyde reacts with benzohydrazide?",
        "Answer: 42%",
        "42 is not in the evidence",
    ),
    (
        "What is the molecular formula of caffeine?",
        "Answer: C9H10N4O2",
        "not that of a compound in the evidence",
    ),
    ("What is the SMILES of ethanol?", "Answer: CCCCCCCCO", "not in the evidence"),
    # the real 1.5B model gave aspirin's exact mass as its molecular weight (issue 20 smoke run)
    (
        "What is the molecular weight of aspirin?",
        "Answer: 180.04 g/mol",
        "180.04 is not in the evidence",
    ),
    ("What is the exact mass of aspirin?", "Answer: 180.16", "180.16 is not in the evidence"),
]


@pytest.mark.parametrize("question, reply, why", UNSUPPORTED)
def test_garbage_or_an_unsupported_value_is_not_answered(qa, server, question, reply, why):
    server.queue(reply)
    answer = qa.ask(question, reasoner="rag-direct")
    assert answer.status == "unsupported"
    assert any(n.startswith("unsupported:") and why in n for n in answer.notes), answer.notes
    data = answer.to_json()  # the JSON shape is unchanged: a status string and notes
    assert data["status"] == "unsupported" and Answer.model_validate(data).status == "unsupported"


def test_unsupported_is_a_known_status():
    assert "unsupported" in STATUSES and "answered" in STATUSES


def test_a_declined_answer_is_still_no_evidence(qa, server):
    server.queue("Answer: not available from the given evidence")
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert answer.status == "no_evidence" and "faithfulness" not in answer.trace


def test_direct_answers_are_checked_against_what_was_retrieved(qa, server):
    server.queue("Answer: 180.16 g/mol", "Answer: 300 g/mol")
    good = qa.ask("What is the molecular weight of aspirin?", reasoner="direct")
    bad = qa.ask("What is the molecular weight of aspirin?", reasoner="direct")
    assert good.status == "answered" and good.citations == []
    assert bad.status == "unsupported"


def test_without_evidence_a_compound_value_must_follow_from_the_question_compound(qa, server):
    server.queue("Answer: 180.16 g/mol", "Answer: 42 g/mol")
    query = qa.parse("What is the molecular weight of aspirin?")
    reasoner = qa.reasoner("rag-direct")
    computed = reasoner.reason(query, [])
    made_up = reasoner.reason(query, [])
    assert computed.status == "answered"  # aspirin's weight follows from its resolved structure
    assert made_up.status == "unsupported"


def test_without_evidence_a_reaction_answer_rests_on_the_model_alone(qa, server):
    server.queue("Answer: N'-benzylidenebenzohydrazide")
    reasoned = qa.reasoner("rag-direct").reason(qa.parse(REACTION), [])
    assert reasoned.status == "unsupported" and any(
        "no evidence was retrieved" in n for n in reasoned.notes
    )


def test_empty_reply_is_an_error_answer(qa, server):
    server.queue(Step(body='{"choices": [{"message": {"content": ""}}]}'))
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert answer.status == "error" and "empty reply" in answer.answer


def test_garbage_endpoint_replies_are_error_answers_not_tracebacks(qa, server):
    server.queue(*[Step(body='{"choices": [null]}')] * 2)
    answer = qa.ask(REACTION, reasoner="cot")
    assert answer.status == "error" and "choices[0]" in answer.answer


def test_a_garbled_final_reply_is_dropped_from_the_cache(small_kb_path, opsin, tmp_path, server):
    server.steps.clear()
    server.queue("Answer: ???", "Answer: 180.16 g/mol")
    qa = make_qa(small_kb_path, opsin, tmp_path, server, cache=True)
    first = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    second = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert first.status == "unsupported" and first.trace["faithfulness"]["garbled"]
    assert (
        second.status == "answered" and second.value == 180.16
    )  # asked again, not replayed from the cache
    assert not second.trace["steps"][0]["cached"]


def test_a_runaway_reply_does_not_stall_the_reasoner(qa, server):
    server.queue("\n" * 600_000 + "Answer: " + " " * 200_000 + "180.16 g/mol")  # 1.4 MB as JSON
    started = time.monotonic()
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert (
        time.monotonic() - started < 5.0
    )  # the answer-line pattern was quadratic in runs of whitespace
    assert answer.status == "answered" and answer.value == 180.16
    assert len(answer.trace["steps"][0]["output"]) < 25_000  # the trace keeps the start of it


def test_a_fraction_becomes_a_percentage_only_for_a_yield_field():
    """A '100%' yield was accepted because the record held a 1.0 g amount (1.0 x 100)."""
    from chemground.evidence import Evidence
    from chemground.reasoning.faithfulness import Facts
    from chemground.reasoning.query import Aspect, QueryTuple

    record = {"reactants": [{"name": "benzaldehyde", "amount": "1.0 g"}], "yield_fraction": 0.85}
    evidence = [Evidence(kind="reaction", id="r1", score=1.0, record=record)]
    facts = Facts(
        evidence,
        query=QueryTuple(question="yield?", level="reaction", aspect=Aspect.YIELD),
    )
    assert facts.has_number(85.0, Aspect.YIELD)
    assert not facts.has_number(100.0, Aspect.YIELD)
