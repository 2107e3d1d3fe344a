"""Table retrieval: identity whatever the notation, typos, multi-compound ranking, roles."""

from __future__ import annotations

import pytest

from chemground.chem.names import normalize_name
from chemground.kb.importers import import_file
from chemground.kb.records import Conditions, Participant, Reaction, Role
from chemground.qa import QA
from chemground.settings import Settings
from chemground.workspace import Workspace


def make_qa(kb_path, opsin, tmp_path, readonly=True):
    workspace = Workspace(
        Settings(kb={"path": kb_path}, cache_dir=tmp_path / "cache"), readonly=readonly, opsin=opsin
    )  # share one JVM across tests
    return QA(workspace)


@pytest.fixture
def qa(small_kb_path, opsin, tmp_path):
    return make_qa(small_kb_path, opsin, tmp_path)


PARACETAMOL = [
    "N-(4-hydroxyphenyl)acetamide",
    "paracetamol",
    "acetaminophen",
    "CC(=O)Nc1ccc(O)cc1",
    "Oc1ccc(NC(C)=O)cc1",
    "C(C)(=O)NC1=CC=C(O)C=C1",
    "paracetamo1l".replace("1", ""),
]


@pytest.mark.parametrize(
    "template",
    [
        "What is the molecular weight of {}?",
        "What is the formula of {}?",
        "Give the SMILES of {}.",
        "What are other names for {}?",
    ],
)
def test_every_notation_finds_the_same_compound_record(qa, template):
    tops = {name: qa.retrieve(template.format(name))[1][0].id for name in PARACETAMOL}
    assert len(set(tops.values())) == 1, tops


BENZ = [
    ("benzaldehyde", "benzohydrazide"),
    ("Benzaldehyde", "benzoic acid hydrazide"),
    ("O=Cc1ccccc1", "NNC(=O)c1ccccc1"),
    ("C1=CC=C(C=C1)C=O", "C1=CC=C(C=C1)C(=O)NN"),
    ("benzaldehyd", "benzohydrazide"),
    ("benzaldehyde", "benzohydrazid"),
]


@pytest.mark.parametrize("a, b", BENZ)
def test_every_notation_and_typos_find_the_same_reaction(qa, a, b):
    query, evidence = qa.retrieve(f"What forms when {a} reacts with {b}?")
    assert evidence[0].id == "starter:imine_formation-01", (
        query.mentions,
        [e.id for e in evidence],
    )
    assert evidence[0].match == "exact"


def test_reaction_with_all_question_compounds_ranks_first(qa):
    _, evidence = qa.retrieve("What is the product of bromobenzene and phenylboronic acid?", k=10)
    assert evidence[0].id.startswith("starter:suzuki_coupling") and evidence[0].match == "exact"
    assert all(e.score < evidence[0].score for e in evidence[1:])
    assert "2 of 2 question compounds" in evidence[0].why


def test_the_role_asked_decides(qa):
    _, made = qa.retrieve("How is acetanilide made?")
    product_roles = [p["name"] for p in made[0].record["products"]]
    assert "acetanilide" in [n.lower() for n in product_roles]
    _, used = qa.retrieve("What does acetanilide give when treated with nitric acid?")
    assert any((p["name"] or "").lower() == "acetanilide" for p in used[0].record["reactants"])


def test_aspect_prefers_reactions_that_hold_the_data(small_kb_path, opsin, tmp_path):
    from tests.conftest import copy_kb

    path = copy_kb(small_kb_path, tmp_path)
    qa = make_qa(path, opsin, tmp_path, readonly=False)
    kb = qa.workspace.kb
    a = kb.lookup_name(normalize_name("phenol"))[0].compound_id
    b = kb.lookup_name(normalize_name("benzyl bromide"))[0].compound_id
    with kb.transaction():
        for rid, temp in (("t:a-no-temperature", None), ("t:b-with-temperature", 60.0)):
            kb.add_reaction(
                Reaction(
                    id=rid,
                    participants=[
                        Participant(role=Role.REACTANT, name="phenol", compound_id=a),
                        Participant(role=Role.REACTANT, name="benzyl bromide", compound_id=b),
                    ],
                    conditions=Conditions(temperature_c=temp),
                )
            )
    answer = qa.ask("At what temperature does phenol react with benzyl bromide?", k=10)
    ids = [e.id for e in answer.evidence]
    assert ids.index("t:b-with-temperature") < ids.index("t:a-no-temperature")
    assert answer.evidence[0].record["temperature_c"] is not None


def test_salt_form_is_found_as_similar_compound(qa):
    _, evidence = qa.retrieve("compounds similar to sodium benzoate", k=10)
    assert any(e.record.get("smiles") == "O=C(O)c1ccccc1" and "parent" in e.why for e in evidence)


def test_no_reaction_gives_a_plain_answer_with_similar_evidence(qa):
    answer = qa.ask("What forms when 1-octanol reacts with benzohydrazide?")
    assert answer.status in ("partial", "no_evidence")
    assert (
        "No reaction in the knowledge base matches all of" in answer.answer
        or "no reaction" in answer.answer.lower()
    )


def test_shared_patent_reactions_are_found_by_name_and_by_smiles(
    shared_data, small_kb_path, opsin, tmp_path
):
    from chemground.bench.generate import generate
    from tests.conftest import copy_kb

    path = copy_kb(small_kb_path, tmp_path)
    shard = (
        shared_data
        / "reactions"
        / "ord_uspto_grants"
        / "original_pb"
        / "ord_dataset-cb9f452f8418479ab5fd99c835dbe015.pb.gz"
    )
    qa = make_qa(path, opsin, tmp_path, readonly=False)
    import_file(qa.workspace.kb, shard, resolver=qa.workspace.resolver)
    items = [
        i
        for i in generate(
            qa.workspace.kb, per_task=25, seed=3, tasks=("product", "reactant", "solvent")
        )
        if not i.source["id"].startswith("starter:")
    ]
    assert len(items) >= 100
    hits = 0
    for item in items:
        _, evidence = qa.retrieve(item.question, k=5)
        hits += item.source["id"] in [e.id for e in evidence]
    assert hits / len(items) >= 0.9, hits / len(items)
