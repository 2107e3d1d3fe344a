"""Phrasings of the third round of hand-written user questions (issue 13), found on its dev split:
each was misread before; the aspect rules and reaction-class patterns now read them."""

from __future__ import annotations

import pytest

from chemground.reasoning.aspects import classify_aspect
from chemground.reasoning.query import Aspect
from chemground.reasoning.reaction_classes import find_classes


@pytest.mark.parametrize(
    "masked, aspect",
    [
        ("what does x stand for?", Aspect.SYNONYMS),
        ("x is short for what?", Aspect.SYNONYMS),
        ("what does x do to x?", Aspect.PRODUCT),
        ("initiator for x bromination of x", Aspect.CATALYST),
        ("which radical initiator is used with x?", Aspect.CATALYST),
    ],
)
def test_phrasings(masked, aspect):
    assert classify_aspect(masked) == aspect


@pytest.mark.parametrize(
    "question, class_id",
    [
        ("Which reagent installs a Cbz group?", "cbz_protection"),
        ("how do I introduce the Boc group on an amine?", "boc_protection"),
    ],
)
def test_installing_a_protecting_group_names_its_class(question, class_id):
    assert class_id in [
        c for found in find_classes(question) for c in found.reaction_class.class_ids
    ]
