"""Extractive answers (no LLM) for every aspect, read from evidence or computed exactly."""

from __future__ import annotations

import pytest

from chemground.qa import QA
from chemground.settings import Settings
from chemground.workspace import Workspace


@pytest.fixture(scope="module")
def qa(rules_qa):
    return rules_qa


@pytest.mark.parametrize(
    "question, value",
    [
        ("What is the molecular weight of CC(=O)Nc1ccc(O)cc1?", 151.16),
        (
            "What's the MW of 2,5-dichloropyrimidine",
            148.98,
        ),  # OPSIN-only name: computed from the structure
        ("What is the exact mass of caffeine?", 194.0804),
        ("What is the molecular formula of aspirin?", "C9H8O4"),
        ("SMILES for N,N-dimethylformamide?", "CN(C)C=O"),
        ("What is the IUPAC name of CC(=O)Oc1ccccc1C(=O)O?", "2-acetyloxybenzoic acid"),
    ],
)
def test_compound_aspects(qa, question, value):
    answer = qa.ask(question)
    assert answer.status == "answered", answer.answer
    assert answer.value == value
    assert answer.evidence and answer.evidence[0].match == "exact"


def test_synonyms_and_similar_compounds(qa):
    answer = qa.ask("What are other names for acetaminophen?")
    assert "paracetamol" in [n.lower() for n in answer.value]
    similar = qa.ask("compounds similar to ibuprofen")
    assert similar.status == "answered" and len(similar.value) >= 2
    assert all(e.match == "similar" for e in similar.evidence[1:])


@pytest.mark.parametrize(
    "question, aspect, check",
    [
        (
            "What forms when benzaldehyde reacts with benzohydrazide?",
            "product",
            lambda v: v[0] == "O=C(NN=Cc1ccccc1)c1ccccc1",
        ),
        (
            "How is N'-benzylidenebenzohydrazide made?",
            "reactants",
            lambda v: set(v) == {"O=Cc1ccccc1", "NNC(=O)c1ccccc1"},
        ),
        (
            "Which solvent is used in the Suzuki coupling of bromobenzene with phenylboronic acid?",
            "solvent",
            lambda v: "1,4-dioxane" in v,
        ),
        (
            "Which catalyst is used for the Suzuki coupling of bromobenzene with phenylboronic "
            "acid?",
            "catalyst",
            lambda v: any("palladium" in x.lower() or "pd" in x.lower() for x in v),
        ),
        (
            "At what temperature does salicylic acid react with acetic anhydride?",
            "temperature",
            lambda v: isinstance(v, float),
        ),
        ("How long does salicylic acid react with acetic anhydride?", "time", lambda v: v > 0),
        (
            "What is the yield of aspirin from salicylic acid and acetic anhydride?",
            "yield",
            lambda v: 0 < v <= 100,
        ),
        (
            "What conditions are used to react salicylic acid with acetic anhydride?",
            "conditions",
            lambda v: "temperature_c" in v,
        ),
        (
            "Which reactions involve HATU?",
            "reactions_involving",
            lambda v: all(x.startswith("starter:") for x in v),
        ),
    ],
)
def test_reaction_aspects(qa, question, aspect, check):
    answer = qa.ask(question)
    assert answer.aspect == aspect and answer.status == "answered", answer.answer
    assert check(answer.value), answer.value
    assert answer.citations and answer.citations[0].startswith("[reaction ")


def test_no_evidence_is_said_plainly_with_what_is_similar(qa):
    answer = qa.ask("What forms when 1-octanol reacts with 2-chloropyridine?")
    assert answer.status in ("partial", "no_evidence")
    assert (
        "No reaction in the knowledge base matches all of" in answer.answer
        or "holds no reaction" in answer.answer
    )


def test_unresolvable_and_unclear_questions(qa):
    answer = qa.ask("What is the MW of 3-frobnicyl-2,2-dizorbane?")
    assert answer.status == "not_understood" and "3-frobnicyl-2,2-dizorbane" in answer.answer
    unclear = qa.ask("What is the boiling point of the moon?")
    assert (
        unclear.status == "not_understood"
        and "could not tell what the question asks for" in unclear.answer
    )


def test_answer_json_has_the_contract_fields(qa):
    data = qa.ask("What is the molecular weight of aspirin?", id="q7").to_json()
    for key in (
        "id",
        "question",
        "answer",
        "value",
        "aspect",
        "evidence",
        "method",
        "reasoner",
        "timings_ms",
    ):
        assert key in data
    assert data["id"] == "q7" and data["value"] == 180.16
    assert set(data["evidence"][0]) >= {"kind", "id", "score", "match", "record"}
    assert data["timings_ms"]["total"] >= data["timings_ms"]["retrieve"]


def test_curated_descriptions_answer_describe_questions(qa):
    answer = qa.ask("Describe aspirin.")
    assert answer.status == "answered" and answer.aspect == "description"
    assert "salicylic" in answer.value.lower() or "analgesic" in answer.value.lower()
    assert qa.workspace.kb.get_meta("descriptions") is not None


def test_route_questions_use_the_reaction_graph(small_kb_path, tmp_path):
    from tests.conftest import copy_kb

    path = copy_kb(small_kb_path, tmp_path)  # the graph is built next to the KB on first use
    qa = QA(Workspace(Settings(kb={"path": path}, cache_dir=tmp_path / "cache"), readonly=True))
    answer = qa.ask("route from 4-nitrophenol to paracetamol in 3 steps")
    assert answer.aspect == "route" and answer.status == "answered"
    assert ["starter:nitro_hydrogenation-04", "starter:amine_acylation-01"] in answer.value
    assert answer.evidence[0].kind == "graph_path"
    # each step says how to run it: the partner reactant, reagents, catalyst, solvent, conditions
    assert "starter:amine_acylation-01: with acetic anhydride" in answer.answer
    assert "palladium on carbon" in answer.answer and "% yield" in answer.answer
    none = qa.ask("route from benzene to caffeine in 2 steps")
    assert none.status == "no_evidence" and "No route" in none.answer


def test_questions_about_papers_are_answered_from_their_passages(small_kb_path, tmp_path):
    from chemground.lit.library import Library
    from tests.conftest import copy_kb

    paper = tmp_path / "acetylides.txt"
    paper.write_text(
        "Magnesium acetylides\n\nThe compound MgCCMg differs from Grignard reagents because both "
        "acetylide carbons are bound to magnesium, which makes it far less nucleophilic.\n\n"
        "Unrelated paragraph about the weather in spring, which has nothing to do with chemistry.\n"
    )
    workspace = Workspace(
        Settings(kb={"path": copy_kb(small_kb_path, tmp_path)}, cache_dir=tmp_path / "cache")
    )
    Library(workspace, dense=False).add([paper], chunk_size=200, overlap=0)
    from chemground.qa_factory import build_qa

    qa = build_qa(workspace)
    (tmp_path / "empty").mkdir()
    empty = build_qa(
        Workspace(
            Settings(
                kb={"path": copy_kb(small_kb_path, tmp_path / "empty")},
                cache_dir=tmp_path / "cache",
            )
        )
    )
    unanswered = empty.ask("Why is MgCCMg different, per the papers?")  # no papers in this KB
    assert unanswered.status != "answered" and any(
        "chemground lit add" in n for n in unanswered.notes
    )
    answer = qa.ask("Why is MgCCMg different, per the papers?")
    assert answer.method == "lit" and answer.status == "answered"
    assert "less nucleophilic" in answer.answer and answer.evidence[0].kind == "chunk"
    assert (
        qa.ask("What is the molecular weight of aspirin?").method == "table"
    )  # table questions stay in the KB
