"""Substituents written as formulas inside a name (issue 13): "4-F-phenol", "p-MeO-
benzaldehyde", "2-Cl-4-NO2-aniline". Before, the fuzzy stage read the first as phenol and the
second as 4-hydroxybenzaldehyde (a few edits away): a wrong structure for a name that is clear
to any chemist."""

from __future__ import annotations

import pytest

from chemground.chem.names import expanded_substituents


@pytest.mark.parametrize(
    ("name", "expanded"),
    [
        ("4-F-phenol", "4-fluorophenol"),
        ("p-MeO-benzaldehyde", "p-methoxybenzaldehyde"),
        ("2-Cl-4-NO2-aniline", "2-chloro-4-nitroaniline"),
        ("3-CF3-benzoic acid", "3-(trifluoromethyl)benzoic acid"),
        ("4-bromoanisole", "4-bromoanisole"),  # nothing abbreviated
        ("N-Boc-4-bromoaniline", "N-Boc-4-bromoaniline"),  # Boc is a protecting group's name
    ],
)
def test_expanded_substituents(name, expanded):
    assert expanded_substituents(name) == expanded


@pytest.mark.parametrize(
    ("question", "smiles"),
    [
        ("4-F-phenol + MeI, K2CO3 - product?", "Oc1ccc(F)cc1"),
        ("MW of p-MeO-benzaldehyde", "COc1ccc(C=O)cc1"),
    ],
)
def test_a_mention_with_abbreviated_substituents_is_the_named_compound(rules_qa, question, smiles):
    from rdkit import Chem

    mention = rules_qa.parse(question).mentions[0]
    assert Chem.CanonSmiles(mention.smiles) == Chem.CanonSmiles(smiles)
    assert mention.resolved_by != "fuzzy"


def test_an_unbalanced_set_of_ions_from_opsin_is_a_misreading(rules_qa):
    # OPSIN read "toluen diisocyanate" as toluene beside two cyanate anions (C9H8N2O2-2)
    query = rules_qa.parse("toluen diisocyanate formula?")
    assert all("[N-]" not in (m.smiles or "") for m in query.mentions)
