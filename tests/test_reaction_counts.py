"""Questions that ask how many reactions the knowledge base holds ("how many reactions use THF
as solvent?"): the count is the answer, counted over every record and not over the few listed,
and a count the search cannot narrow as asked says so."""

from __future__ import annotations

import pytest
from rdkit import Chem

from chemground.kb.records import Role
from chemground.kb.sqlite_store import SQLiteKB


@pytest.fixture(scope="module")
def reactions(small_kb_path):
    kb = SQLiteKB(small_kb_path)
    try:
        yield list(kb.iter_reactions())
    finally:
        kb.close()


def _holds(reaction, role: Role, test) -> bool:
    return any(
        p.smiles and (m := Chem.MolFromSmiles(p.smiles)) is not None and test(m)
        for p in reaction.by_role(role)
    )


def _has_element(symbol: str):
    return lambda m: any(a.GetSymbol() == symbol for a in m.GetAtoms())


def test_a_count_of_reactions_with_a_compound_in_a_role(ask_json, reactions):
    thf = Chem.MolToInchiKey(Chem.MolFromSmiles("C1CCOC1"))
    expected = sum(
        _holds(r, Role.SOLVENT, lambda m: Chem.MolToInchiKey(m) == thf) for r in reactions
    )
    assert expected > 5  # more than the records an answer lists
    out = ask_json("how many reactions use THF as solvent?")
    assert out["status"] == "answered" and out["value"] == expected
    assert f"holds {expected} reactions" in out["answer"]
    listed = ask_json("Which reactions in the KB use THF as the solvent?")
    assert f"({expected} in the knowledge base; the first" in listed["answer"]


def test_a_count_of_reactions_with_a_metal_catalyst(ask_json, reactions):
    """ "Pd catalysts" are every catalyst that holds palladium (Pd(PPh3)4, Pd(OAc)2), not only the
    bare metal of Pd/C: the count was of [Pd] alone."""
    expected = sum(_holds(r, Role.CATALYST, _has_element("Pd")) for r in reactions)
    bare = sum(_holds(r, Role.CATALYST, lambda m: Chem.MolToSmiles(m) == "[Pd]") for r in reactions)
    assert expected > bare > 0
    out = ask_json("how many reactions does the database have with Pd catalysts")
    assert out["status"] == "answered" and out["value"] == expected
    copper = sum(_holds(r, Role.CATALYST, _has_element("Cu")) for r in reactions)
    listed = ask_json("reactions with copper catalysts?")
    assert listed["status"] == "answered" and f"holds {copper} reactions" in listed["answer"]


def test_a_count_the_search_cannot_narrow_says_so(ask_json):
    out = ask_json("how many Pd-catalyzed couplings in the db?")
    assert out["status"] == "partial" and "not narrowed to 'couplings'" in out["answer"]


def test_a_count_of_a_named_class(ask_json, reactions):
    expected = sum(r.reaction_class == "Suzuki-Miyaura coupling" for r in reactions)
    assert expected > 0
    out = ask_json("how many Suzuki couplings are in the KB")
    assert out["status"] == "answered" and out["value"] == expected
    assert f"holds {expected} Suzuki coupling reactions" in out["answer"]


def test_a_class_word_of_a_compound_class_is_not_a_compound(ask_json):
    """'bromides' of "aryl bromides" was read as the bromide ion, and no reaction was found."""
    out = ask_json("which reactions use aryl bromides")
    assert out["status"] == "answered" and "an aryl bromide as reactant" in out["answer"]


def test_a_class_named_beside_a_compound_keeps_the_compound(ask_json):
    """'which reactions use a Pd catalyst and toluene?' listed every palladium reaction: the class
    search alone dropped toluene. The records are matched compound by compound, and the answer
    says what each holds."""
    out = ask_json("which reactions use a Pd catalyst and toluene?")
    assert out["status"] != "answered" or all("toluene" in e["why"] for e in out["evidence"])
    assert "toluene" in out["answer"]
