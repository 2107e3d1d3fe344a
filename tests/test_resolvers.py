"""The shared name -> structure chain: each resolver hits or passes, the first hit wins, and a
name none knows gets every resolver's reason, in order."""

from __future__ import annotations

import pytest

from chemground.chem import resolvers
from chemground.chem.names import DictionaryHit
from chemground.chem.opsin import OpsinResult
from chemground.chem.structure import structure_from_smiles
from chemground.errors import ExternalToolError, NameResolutionError

ETHANOL = structure_from_smiles("CCO")
METHYL = structure_from_smiles("[CH2]O")  # hydroxymethyl radical, filed under "methanol"
METHANOL = structure_from_smiles("CO")


class FakeDictionary:
    def __init__(self) -> None:
        self.names = {
            "ethanol": [DictionaryHit(1, ETHANOL, "ethanol", 1)],
            "methanol": [
                DictionaryHit(7, METHYL, "methanol", 2),
                DictionaryHit(2, METHANOL, "methanol", 1),
            ],
        }

    def lookup_name(self, normalized: str) -> list[DictionaryHit]:
        return self.names.get(normalized, [])

    def lookup_structure(self, structure) -> list[DictionaryHit]:
        return [DictionaryHit(1, ETHANOL, "ethanol", 1)] if structure == ETHANOL else []

    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]:
        return []

    def lookup_cas(self, cas: str) -> list[DictionaryHit]:
        return []


class FakeOpsin:
    def __init__(self, known: dict[str, str], broken: bool = False) -> None:
        self.known = known
        self.broken = broken

    def _result(self, name: str) -> OpsinResult:
        if self.broken:
            raise ExternalToolError("Java is not installed")
        if name in self.known:
            return OpsinResult(name, self.known[name], "")
        return OpsinResult(name, None, f"{name} is unparsable")

    def translate(self, name: str) -> OpsinResult:
        return self._result(name)

    def translate_many(self, names: list[str]) -> dict[str, OpsinResult]:
        return {name: self._result(name) for name in names}


class FakePubChem:
    def inchi_for_name(self, name: str):
        return (702, "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3") if name == "alcohol" else None


def chain(opsin=None, pubchem=None, errors_pass=True) -> resolvers.NameChain:
    dictionary = FakeDictionary()
    steps = [
        resolvers.DictionaryResolver(dictionary),
        resolvers.OpsinResolver(opsin, errors_pass=errors_pass),
        resolvers.PubChemResolver(pubchem),
    ]
    return resolvers.NameChain(steps, attach=dictionary)


def test_first_hit_wins_and_later_hits_get_the_dictionary_compound():
    names = chain(FakeOpsin({"ethan-1-ol": "OCC", "propan-1-ol": "CCCO"}), FakePubChem())
    assert names.resolve("Ethanol") == resolvers.NameHit(ETHANOL, "dictionary", 1, "ethanol")
    by_opsin = names.resolve("ethan-1-ol")
    assert (by_opsin.source, by_opsin.compound_id, by_opsin.structure) == ("opsin", 1, ETHANOL)
    assert names.resolve("propan-1-ol").compound_id is None  # not in the dictionary
    assert names.resolve("alcohol").source == "pubchem"


def test_a_name_no_resolver_knows_lists_each_reason_in_order():
    names = chain(FakeOpsin({}))
    found = names.attempt("wobble")
    assert found == resolvers.Unresolved(
        "wobble",
        (
            "not in the compound dictionary",
            "OPSIN: wobble is unparsable",
            "PubChem not asked (network off)",
        ),
    )
    with pytest.raises(NameResolutionError, match="could not resolve 'wobble': not in the comp"):
        names.resolve("wobble")
    assert "OPSIN disabled" in chain().attempt("wobble").reason


def test_batch_resolution_matches_one_by_one():
    names = chain(FakeOpsin({"propan-1-ol": "CCCO"}))
    many = names.resolve_many(["ethanol", "propan-1-ol", "wobble", "ethanol"])
    assert list(many) == ["ethanol", "propan-1-ol", "wobble"]
    for name, found in many.items():
        assert found == names.attempt(name)


def test_broken_opsin_passes_or_raises_as_the_caller_asks():
    passing = chain(FakeOpsin({}, broken=True))
    assert "OPSIN unavailable: Java is not installed" in passing.attempt("wobble").reason
    assert "OPSIN unavailable" in passing.resolve_many(["wobble"])["wobble"].reason
    with pytest.raises(ExternalToolError):
        chain(FakeOpsin({}, broken=True), errors_pass=False).attempt("wobble")


def test_opsin_structure_rdkit_rejects_is_a_miss():
    found = chain(FakeOpsin({"pentavalent": "C(C)(C)(C)(C)C"})).attempt("pentavalent")
    assert isinstance(found, resolvers.Unresolved)
    assert "OPSIN gave a structure RDKit rejects" in found.reason


def test_closed_shell_preference_is_the_callers_choice():
    dictionary = FakeDictionary()
    assert resolvers.DictionaryResolver(dictionary).resolve("methanol").compound_id == 7
    closed = resolvers.DictionaryResolver(dictionary, prefer_closed_shell=True).resolve("methanol")
    assert closed.compound_id == 2 and closed.notes  # the note says the name is shared
    with pytest.raises(resolvers.NotResolved):
        resolvers.DictionaryResolver(None).resolve("ethanol")
