"""Compound classes in questions -> SMARTS and role, and the search they lead to."""

from __future__ import annotations

import pytest
from rdkit import Chem

from chemground.kb.functional_groups import GROUPS, match_group_question
from chemground.kb.records import Role


@pytest.mark.parametrize(
    ("question", "group", "role"),
    [
        ("Which reactions in the KB use a boronic acid?", "boronic acid", Role.REACTANT),
        ("reactions in the KB that use a boronic acid", "boronic acid", Role.REACTANT),
        ("List couplings with aryl bromides", "aryl bromide", Role.REACTANT),
        ("Which reactions give an aldehyde?", "aldehyde", Role.PRODUCT),
        ("Show reactions that form esters", "ester", Role.PRODUCT),
        ("reactions run in pyridine", "pyridine", Role.SOLVENT),
        ("Which reactions use a pyridine as the catalyst?", "pyridine", Role.CATALYST),
        ("Which reactions start from acid chlorides?", "acid chloride", Role.REACTANT),
    ],
)
def test_class_and_role_are_read(question, group, role):
    found = match_group_question(question)
    assert found is not None and (found.group, found.role) == (group, role)
    assert Chem.MolFromSmarts(found.smarts) is not None


@pytest.mark.parametrize(
    "question", ["What is the boiling point of ethanol?", "What is a boronic acid?", ""]
)
def test_other_questions_do_not_match(question):
    assert match_group_question(question) is None


def test_every_pattern_is_valid_smarts():
    assert all(Chem.MolFromSmarts(smarts) is not None for smarts in GROUPS.values())


def test_the_question_finds_the_suzuki_couplings(small_kb):
    found = match_group_question("Which reactions in the KB use a boronic acid?")
    hits = small_kb.search_reactions_by_structure(found.smarts, roles=[found.role], limit=100)
    assert hits and all(small_kb.get_reaction(h.reaction_id).reaction_class for h in hits)
    assert {
        "suzuki" in (small_kb.get_reaction(h.reaction_id).title or "").lower() for h in hits
    } == {True}


@pytest.mark.parametrize(
    "question",
    [
        "Which reactions use diisopropyl azodicarboxylate?",
        "Which reactions use sodium borohydride?",
        "reactions with 1-ethyl-3-(3-dimethylaminopropyl)carbodiimide",
    ],
)
def test_a_class_word_that_ends_a_compound_name_is_that_compound(question):
    assert match_group_question(question) is None
