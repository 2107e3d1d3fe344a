"""Issue 20: the faithfulness check on every LLM answer (``reasoning.faithfulness``).

Numbers, structures and names in an LLM's answer must appear in, or be computable from, the
evidence; otherwise the answer is ``unsupported`` with a note naming each claim and its kind,
and the report is ``Answer.trace["faithfulness"]``. The unit tests below check the claims; the
path tests (scripted LLM) show the check is wired into each LLM path: the table-RAG reasoners,
literature answers, Text2Cypher answers, the CoT agent and HE-MCTS.
"""

from __future__ import annotations

import json

import pytest

from chemground.evidence import Evidence
from chemground.llm import ScriptedLLM
from chemground.reasoning.faithfulness import check_faithfulness, number_claims
from chemground.settings import Settings
from chemground.workspace import Workspace

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def tool_evidence(tool: str, result, smiles: str = ASPIRIN) -> Evidence:
    """A successful tool call as the agents record it (``ToolResult.evidence()``)."""
    return Evidence(
        kind="tool_result",
        id=f"{tool}#0123456789",
        score=1.0,
        match="exact",
        record={
            "tool": tool,
            "arguments": {"compound_SMILES": smiles},
            "ok": True,
            "elapsed_ms": 12.5,
            "result": result,
        },
        why=f"computed by {tool}",
        retriever="tool",
        provenance={"tool": tool},
    )


@pytest.fixture(scope="module")
def workspace(small_kb_path, opsin, tmp_path_factory):
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("cache"))
    with Workspace(settings, readonly=True, opsin=opsin) as ws:
        yield ws


@pytest.fixture(scope="module")
def finder(workspace):
    from chemground.chem.mentions import MentionFinder

    return MentionFinder(workspace.resolver)


# -- claims ---------------------------------------------------------------------------------------


def test_number_claims_skip_citations_names_formulas_and_list_positions():
    text = (
        "1. The QED of aspirin [E1] is approximately 0.985; its formula C9H8O4 and "
        "2-chloropyridine aside, MW 180.16 g/mol at 80-90 °C for 2 h [doc-3feffc5e69#0]."
    )
    claims = {c.text: c for c in number_claims(text)}
    assert set(claims) == {"0.985", "180.16", "80", "90", "2"}
    assert "qed" in claims["0.985"].label and claims["0.985"].decimals == 3
    assert claims["180.16"].unit == "g/mol" and "weight" in claims["180.16"].label
    assert claims["90"].unit == "°C" and claims["2"].unit == "h"


def test_the_qed_case_contradicts_the_tool_result():
    """The real 1.5B model's CoT agent: "QED approximately 0.985", its tool said 0.550."""
    evidence = [tool_evidence("cactus/CalculateQED", 0.5501217966938848)]
    report = check_faithfulness(
        "The QED of aspirin is approximately 0.985.",
        evidence,
        question="What is the QED of aspirin?",
    )
    assert not report.supported and report.kinds == ["contradicts-evidence"]
    (claim,) = report.unsupported
    assert claim.text == "0.985" and claim.expected == pytest.approx(0.5501, abs=1e-4)
    assert claim.source == "cactus/CalculateQED#0123456789"
    assert "0.550" in claim.reason and "qed" in claim.reason
    assert report.corrected_answer == "The QED of aspirin is approximately 0.550."
    assert any("[contradicts-evidence]" in n and "0.985" in n for n in report.notes())


@pytest.mark.parametrize(
    "answer, tool, result",
    [
        ("The QED of aspirin is 0.55.", "cactus/CalculateQED", 0.5501217966938848),
        ("The QED is about 0.6", "cactus/CalculateQED", 0.5501217966938848),
        ("MW 180.16 g/mol", "cactus/CalculateMolWt", 180.159),
        ("The molecular weight is 180.2 g/mol.", "cactus/CalculateMolWt", 180.159),
        ("Its TPSA is 63.6 Å².", "cactus/CalculateTPSA", 63.60),
        # not the tool's result, but computed from the structure the tool was given
        ("Aspirin (180.16 g/mol) has a logP of 1.31.", "cactus/CalculateLogP", 1.3101),
    ],
)
def test_a_faithful_answer_is_not_flagged(answer, tool, result):
    report = check_faithfulness(answer, [tool_evidence(tool, result)], question="Aspirin?")
    assert report.supported, report.to_json()
    assert report.claims and all(c.supported for c in report.claims)


@pytest.mark.parametrize(
    "answer, corrected",
    [
        ("The molecular weight of aspirin is 180.04 g/mol.", "is 180.16 g/mol."),
        ("The molecular weight of aspirin is 180.04.", "is 180.16."),
        ("Aspirin's molecular weight: 180.04 Da", "weight: 180.16 Da"),
    ],
)
def test_an_exact_mass_is_no_molecular_weight(answer, corrected):
    """The 1.5B model gave the exact mass (the ExactMolWt tool's result) as the weight."""
    evidence = [tool_evidence("rdkit/CalculateExactMolWt", 180.042259)]
    report = check_faithfulness(answer, evidence, question="?")
    assert report.kinds == ["contradicts-evidence"], report.to_json()
    assert report.corrected_answer.endswith(corrected)  # the weight of the tool's structure
    exact = check_faithfulness("Its exact mass is 180.04 Da.", evidence, question="?")
    assert exact.supported and check_faithfulness("It is 180.04 Da.", evidence).supported


def test_a_made_up_number_is_not_in_the_evidence():
    report = check_faithfulness(
        "Aspirin melts at 212 °C.", [tool_evidence("cactus/CalculateQED", 0.55)], question="?"
    )
    assert report.kinds == ["number-not-in-evidence"]


def test_numbers_of_the_question_and_tool_arguments():
    evidence = [
        Evidence(
            kind="tool_result",
            id="convert#1",
            score=1.0,
            record={"tool": "convert", "arguments": {"grams": 42.0}, "ok": True, "result": 0.5},
        )
    ]
    given = check_faithfulness("2.5 mol is 0.5 of it", evidence, question="What is 2.5 mol?")
    assert given.supported  # 2.5 is the question's
    echoed = check_faithfulness("42.0 g is 0.5 mol", evidence, question="?")
    assert echoed.kinds == ["number-not-in-evidence"]  # the model's own argument proves nothing


def test_a_structure_not_in_the_evidence_is_flagged(finder):
    evidence = [tool_evidence("cactus/CalculateQED", 0.55)]
    ok = check_faithfulness(
        f"The QED of {ASPIRIN} is 0.55.", evidence, question="QED?", finder=finder
    )
    assert ok.supported and any(c.kind == "structure" and c.supported for c in ok.claims)
    bad = check_faithfulness(
        "The QED of CC(C)Cc1ccc(cc1)C(C)C(=O)O is 0.55.", evidence, question="QED?", finder=finder
    )
    assert bad.kinds == ["structure-not-in-evidence"]


def test_a_smiles_in_brackets_is_read(finder):
    """The real 0.5B model wrote "aspirin (CC(=O)Oc1ccccc1C(=O)O) is approximately 0.5501...":
    the bracketed SMILES is the tool's structure, not a made-up one."""
    evidence = [tool_evidence("cactus/CalculateQED", 0.5501217966938848)]
    report = check_faithfulness(
        "The QED drug-likeness of aspirin (CC(=O)Oc1ccccc1C(=O)O) is approximately "
        "0.5501217966938848.",
        evidence,
        question="What is the QED drug-likeness of aspirin?",
        finder=finder,
    )
    assert report.supported, report.to_json()
    # a caffeine SMILES that lost its last methyl is another compound
    other = check_faithfulness(
        "Caffeine (CN1C=NC2=C1C(=O)N(C(=O)N2C)) has QED 0.55.", evidence, finder=finder
    )
    assert "structure-not-in-evidence" in other.kinds


def test_a_name_not_in_the_evidence_is_flagged(finder):
    evidence = [tool_evidence("cactus/CalculateQED", 0.55)]
    # aspirin is not written in the evidence, but it is the structure the tool was given
    by_structure = check_faithfulness(
        "The QED of aspirin is 0.55.", evidence, question="QED of this?", finder=finder
    )
    assert by_structure.supported, by_structure.to_json()
    named = [c for c in by_structure.claims if c.kind == "name"]
    assert named and named[0].source == "cactus/CalculateQED#0123456789"
    other = check_faithfulness(
        "The QED of caffeine is 0.55.", evidence, question="QED of this?", finder=finder
    )
    assert other.kinds == ["name-not-in-evidence"]
    assert "'caffeine'" in other.unsupported[0].reason
    assert other.corrected_answer is None  # nothing in the evidence says which compound instead


def test_a_name_the_question_gives_is_not_a_claim(finder):
    report = check_faithfulness(
        "The QED of caffeine is 0.55.",
        [tool_evidence("cactus/CalculateQED", 0.55)],
        question="What is the QED of caffeine?",
        finder=finder,
    )
    assert report.supported


def test_a_name_written_in_the_passages_or_naming_their_compound(finder):
    passage = Evidence(
        kind="chunk",
        id="doc-1#0",
        score=1.0,
        record={"text": "Acetylsalicylic acid was made from salicylic acid in 85 % yield."},
    )
    ok = check_faithfulness(
        "Aspirin was made in 85% yield.", [passage], question="How?", finder=finder
    )
    assert ok.supported, ok.to_json()
    bad = check_faithfulness(
        "Aspirin was made from phenol in 85% yield.", [passage], question="How?", finder=finder
    )
    assert bad.kinds == ["name-not-in-evidence"]


def test_a_formula_answer_without_a_formula_gives_no_value():
    """The real 0.5B model answered "caffeine" to "What is the molecular formula of caffeine?"."""
    from chemground.reasoning.query import Aspect, QueryTuple

    query = QueryTuple(question="Formula of caffeine?", level="compound", aspect=Aspect.FORMULA)
    record = {"name": "caffeine", "formula": "C8H10N4O2", "smiles": "Cn1cnc2c1c(=O)n(C)c(=O)n2C"}
    evidence = [Evidence(kind="compound", id="c1", score=1.0, record=record)]
    assert check_faithfulness("caffeine", evidence, query=query).kinds == ["no-value"]
    assert check_faithfulness("C9H10N4O2", evidence, query=query).kinds == [
        "formula-not-in-evidence"
    ]
    assert check_faithfulness("C8H10N4O2", evidence, query=query).supported


def test_a_wrong_formula_is_one_claim_not_also_a_name(qa):
    """The 0.5B model's adaptive reasoner answered "C6H12O" for caffeine: one formula claim
    (the finder also reads the formula as a compound; it is not blamed twice)."""
    scripted(qa, ["1. Read the formula.", grounded("E1 is caffeine.", "C6H12O")])
    answer = qa.ask("What is the molecular formula of caffeine?", reasoner="adaptive")
    assert answer.status == "unsupported"
    assert answer.trace["faithfulness"]["kinds"] == ["formula-not-in-evidence"]


def test_a_name_is_no_molecular_weight(qa):
    """The real 0.5B model's adaptive reasoner answered "aspirin" to "What is the molecular
    weight of aspirin?"; the name is in the evidence, but it is not a weight."""
    scripted(qa, ["1. Read the weight.", grounded("E1 is aspirin.", "aspirin")])
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="adaptive")
    assert answer.status == "unsupported" and answer.trace["faithfulness"]["kinds"] == ["no-value"]


def test_no_evidence_and_garbage():
    assert check_faithfulness("???", []).kinds == ["garbled"]
    assert check_faithfulness("0.55", []).kinds == ["no-evidence"]
    assert check_faithfulness("0.55", [], require_evidence=False).supported


# -- the table-RAG reasoners (rag-direct, cot, adaptive, direct) ----------------------------------


@pytest.fixture
def qa(workspace):
    from chemground.qa_factory import build_qa

    qa = build_qa(workspace)
    qa._cache.clear()
    return qa


def grounded(fact: str, answer: str) -> str:
    """The adaptive reasoner's schema-constrained reply."""
    return json.dumps({"facts": [{"record": "E1", "fact": fact}], "answer": answer})


def scripted(qa, replies):
    qa.llm = ScriptedLLM(replies)
    qa._cache = {k: v for k, v in qa._cache.items() if not k.startswith("reasoner:")}
    return qa.llm


@pytest.mark.parametrize(
    "reasoner, replies",
    [
        ("rag-direct", ["Answer: 512.7 g/mol"]),
        ("direct", ["Answer: 512.7 g/mol"]),
        ("cot", ["Aspirin [E1] weighs a lot.\nAnswer: 512.7 g/mol"]),
        ("adaptive", ["1. Read the weight.", grounded("E1 gives it.", "512.7 g/mol")]),
    ],
)
def test_table_reasoners_are_checked(qa, reasoner, replies):
    scripted(qa, replies)
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner=reasoner)
    assert answer.status == "unsupported", answer.notes
    report = answer.trace["faithfulness"]
    assert not report["supported"] and report["kinds"] == ["contradicts-evidence"]
    assert any(
        "512.7 is not in the evidence" in n and "[contradicts-evidence]" in n for n in answer.notes
    )


def test_a_value_is_rewritten_as_written_not_as_a_prefix(qa):
    """The real 0.5B model gave aspirin's exact mass with all its digits, 180.042258736, for its
    molecular weight: the rewrite puts the weight in its place (not '180.159258736')."""
    scripted(qa, ["Answer: 180.042258736"])
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    report = answer.trace["faithfulness"]
    assert answer.status == "unsupported" and report["kinds"] == ["contradicts-evidence"]
    assert report["claims"][0]["text"] == "180.042258736"
    assert report["corrected_answer"] == "180.159"
    assert "it gives 180.159 for the molecular weight" in report["reason"]


def test_a_table_answer_with_a_made_up_side_claim(qa):
    scripted(qa, ["Answer: 180.16 g/mol; aspirin melts at 512 °C"])
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert answer.value == 180.16 and answer.status == "unsupported"
    kinds = {c["text"]: c.get("problem") for c in answer.trace["faithfulness"]["claims"]}
    assert kinds["180.16"] is None and kinds["512 °C"] == "number-not-in-evidence"


def test_a_faithful_table_answer_is_answered(qa):
    scripted(qa, ["Because [E1].\nAnswer: The molecular weight of aspirin is 180.16 g/mol."])
    answer = qa.ask("What is the molecular weight of aspirin?", reasoner="rag-direct")
    assert answer.status == "answered", answer.notes
    assert answer.trace["faithfulness"]["supported"]


def test_extractive_answers_are_not_checked(qa):
    answer = qa.ask("What is the molecular weight of aspirin?")
    assert answer.status == "answered" and "faithfulness" not in answer.trace


# -- literature answers -------------------------------------------------------------------------


def lit_reply(answer: str) -> str:
    return json.dumps({"answer": answer, "citations": ["doc-3feffc5e69#0"], "supported": True})


def test_literature_answers_are_checked(finder):
    from chemground.lit.answer import answer_with_llm
    from tests.test_local_llm import lit_result

    faithful = answer_with_llm(
        "How is aspirin made?",
        lit_result(),
        ScriptedLLM(
            [lit_reply("From salicylic acid and acetic anhydride at 85 °C [doc-3feffc5e69#0].")]
        ),
        finder=finder,
    ).to_answer()
    assert faithful.status == "answered", faithful.notes
    assert faithful.trace["faithfulness"]["supported"]
    made_up = answer_with_llm(
        "How is aspirin made?",
        lit_result(),
        ScriptedLLM([lit_reply("From phenol at 150 °C [doc-3feffc5e69#0].")]),
        finder=finder,
    ).to_answer()
    assert made_up.status == "unsupported"
    kinds = made_up.trace["faithfulness"]["kinds"]
    assert set(kinds) == {"name-not-in-evidence", "number-not-in-evidence"}
    assert any("'phenol'" in n and "[name-not-in-evidence]" in n for n in made_up.notes)


def test_extractive_literature_answers_are_not_checked():
    from chemground.lit.answer import answer_extractive
    from tests.test_local_llm import lit_result

    answer = answer_extractive("How is aspirin made?", lit_result()).to_answer()
    assert answer.status == "answered" and "faithfulness" not in answer.trace


# -- the CoT agent and HE-MCTS ------------------------------------------------------------------


@pytest.fixture
def runner(small_kb_path, tmp_path):
    from chemground.agent.runner import ToolRunner

    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")
    with ToolRunner(settings=settings, files_dir=tmp_path / "files") as runner:
        yield runner


QED_CALL = json.dumps(
    {
        "tool": "cactus/CalculateQED(compound_SMILES: string)",
        "arguments": {"compound_SMILES": ASPIRIN},
    }
)


def test_the_qed_case_end_to_end_in_the_cot_agent(runner, finder):
    """The CoT agent's reply replayed exactly: tool QED 0.550, final text "approximately 0.985"."""
    from chemground.agent.cot import CoTAgent

    llm = ScriptedLLM(
        [QED_CALL, json.dumps({"final_answer": "The QED of aspirin is approximately 0.985."})]
    )
    agent = CoTAgent(llm, runner, tools=["cactus/CalculateQED"], native_tools=False, finder=finder)
    result = agent.run("What is the QED of aspirin?")
    assert result.steps[0].result.value == pytest.approx(0.550, abs=0.001)
    assert result.status == "unsupported"
    report = result.trace["faithfulness"]
    assert report["kinds"] == ["contradicts-evidence"]
    (claim,) = [c for c in report["claims"] if not c["supported"]]
    assert claim["text"] == "0.985" and claim["expected"] == pytest.approx(0.550, abs=0.001)
    assert report["corrected_answer"] == "The QED of aspirin is approximately 0.550."
    answer = result.to_answer()
    assert answer.status == "unsupported" and answer.trace["faithfulness"] == report
    assert any("0.985" in n and "[contradicts-evidence]" in n for n in answer.notes)
    assert any(
        n == "the evidence says: The QED of aspirin is approximately 0.550." for n in answer.notes
    )


def test_a_faithful_cot_agent_answer_names_its_compound(runner, finder):
    from chemground.agent.cot import CoTAgent

    llm = ScriptedLLM([QED_CALL, json.dumps({"final_answer": "The QED of aspirin is 0.55."})])
    agent = CoTAgent(llm, runner, tools=["cactus/CalculateQED"], native_tools=False, finder=finder)
    result = agent.run("What is the QED of this drug: CC(=O)Oc1ccccc1C(=O)O?")
    assert result.status == "answered", result.trace["faithfulness"]
    claims = result.trace["faithfulness"]["claims"]
    assert {c["kind"] for c in claims} == {"name", "number"} and all(c["supported"] for c in claims)


def test_the_agent_through_qa_uses_the_question_parser_finder(workspace, small_kb_path):
    from chemground.qa_factory import build_qa

    qa = build_qa(workspace)
    qa.llm = ScriptedLLM([QED_CALL, json.dumps({"final_answer": "The QED of ibuprofen is 0.55."})])
    answer = qa.ask_agent("What is the QED of aspirin?", tools=["cactus/CalculateQED"])
    assert answer.status == "unsupported", answer.trace.get("faithfulness")
    assert answer.trace["faithfulness"]["kinds"] == ["name-not-in-evidence"]


def test_hemcts_answers_are_checked(runner, finder):
    from chemground.agent.mcts import HEMCTSAgent, MCTSConfig
    from tests.agent.test_agents import mcts_llm

    found = HEMCTSAgent(
        mcts_llm(policy=["cactus/CalculateTPSA"]),
        runner,
        config=MCTSConfig(k=1, max_depth=2, max_iterations=2),
        tools=["cactus/CalculateTPSA"],
        finder=finder,
    ).run("TPSA of ethanol (CCO)?")
    assert found.status == "answered" and found.trace["faithfulness"]["supported"]
    # the final answer (a TPSA, 20.23) is not what the only tool run (MolWt) returned
    other = HEMCTSAgent(
        mcts_llm(),
        runner,
        config=MCTSConfig(k=1, max_depth=1, max_iterations=3),
        tools=["cactus/CalculateMolWt"],
        finder=finder,
    ).run("Exact mass of ethanol (CCO)?")
    assert other.status == "unsupported"
    assert other.trace["faithfulness"]["kinds"] == ["number-not-in-evidence"]


def test_a_wrong_name_beside_the_questions_smiles_is_flagged(qa):
    """The real 1.5B model's rag-direct answer to "What IUPAC name corresponds to O[As](O)O?"
    was "arsine; O[As](O)O" for a record naming arsorous acid: the name is not in the evidence,
    and the question's own SMILES beside it does not make it so."""
    scripted(qa, ["Answer: arsine; CC(=O)Oc1ccccc1C(=O)O"])
    answer = qa.ask("What is the IUPAC name of CC(=O)Oc1ccccc1C(=O)O?", reasoner="rag-direct")
    assert answer.status == "unsupported", answer.notes
    report = answer.trace["faithfulness"]
    assert report["kinds"] == ["name-not-in-evidence"]
    assert [c["text"] for c in report["claims"] if not c["supported"]] == ["arsine"]


def test_a_right_name_beside_the_questions_smiles_is_answered(qa):
    scripted(qa, ["Answer: 2-acetyloxybenzoic acid (CC(=O)Oc1ccccc1C(=O)O) [E1]"])
    answer = qa.ask("What is the IUPAC name of CC(=O)Oc1ccccc1C(=O)O?", reasoner="rag-direct")
    assert answer.status == "answered", answer.notes
