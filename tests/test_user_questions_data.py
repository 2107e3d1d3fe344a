"""The hand-written user-question benchmark data is well formed and its gold is right (no KB
needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "user_questions"
KINDS = {"compound_fact", "reaction", "property", "route", "out_of_scope", "trick"}
GOLD_TYPES = {
    "number",
    "bool",
    "formula",
    "inchikey",
    "smiles",
    "name_smiles",
    "names_any",
    "text_any",
    "smiles_set",
    "conditions",
    "reaction_ids",
    "route",
    "refuse",
}


def _read(name: str) -> list[dict]:
    return [
        json.loads(line)
        for line in (DATA / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return _read("questions.jsonl")


@pytest.fixture(scope="module")
def make_gold():
    spec = importlib.util.spec_from_file_location("uq_make_gold", DATA / "make_gold.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_well_formed_and_unique(items):
    assert len(items) >= 600
    ids = [x["id"] for x in items]
    assert len(ids) == len(set(ids))
    questions = [x["question"].strip().lower() for x in items]
    assert len(questions) == len(set(questions)), "a question appears twice"
    for x in items:
        assert set(x) >= {"id", "question", "style", "kind", "aspect", "gold", "source"}, x["id"]
        assert x["kind"] in KINDS, x["id"]
        assert x["gold"]["type"] in GOLD_TYPES, x["id"]
        assert x["question"].strip() and x["source"], x["id"]


def test_mix_of_kinds(items):
    kinds = {k: sum(x["kind"] == k for x in items) for k in KINDS}
    assert kinds["compound_fact"] + kinds["reaction"] > len(items) / 2
    assert all(n >= 15 for n in kinds.values()), kinds


def test_gold_smiles_parse(items):
    def smiles_of(gold: dict) -> list[str]:
        out = [gold["smiles"]] if "smiles" in gold else []
        for s in gold.get("sets", []):
            out += [c["smiles"] for c in s]
        out += [c["smiles"] for c in gold.get("solvents", [])]
        return out

    for x in items:
        for smiles in smiles_of(x["gold"]):
            m = Chem.MolFromSmiles(smiles)
            assert m is not None, (x["id"], smiles)
        if "inchikey" in x["gold"]:
            assert (
                Chem.MolToInchiKey(Chem.MolFromSmiles(x["gold"]["smiles"])) == x["gold"]["inchikey"]
            ), x["id"]


def test_numeric_gold_agrees_with_rdkit(items, make_gold):
    computed = make_gold.COMPOUND_ASPECTS | make_gold.PROPERTY_ASPECTS
    checked = 0
    for x in items:
        gold = x["gold"]
        if x["aspect"] not in computed or gold["type"] not in (
            "number",
            "formula",
            "inchikey",
            "bool",
        ):
            continue
        again = make_gold.property_gold(x["aspect"], gold["smiles"])
        if gold["type"] == "number":
            assert gold["value"] == pytest.approx(again["value"], abs=1e-3), x["id"]
            assert gold.get("any_of") == again.get("any_of"), x["id"]
        else:
            assert gold["value"] == again["value"], x["id"]
        checked += 1
    assert checked >= 150


def test_reaction_gold_comes_from_starter_records(items):
    from chemground.kb.starter import load_starter_set

    _, reactions = load_starter_set()
    ids = {r.id for r in reactions}
    for x in items:
        if x["source"].startswith("starter:") and x["gold"]["type"] not in (
            "reaction_ids",
            "route",
        ):
            assert x["source"][len("starter:") :] in ids, x["id"]
        if x["gold"]["type"] == "route":
            for route in x["gold"]["routes"]:
                assert all(step.startswith("starter:") and step[8:] in ids for step in route), x[
                    "id"
                ]


def test_split_is_disjoint_and_complete(items):
    dev, test = _read("dev.jsonl"), _read("test.jsonl")
    dev_ids, test_ids = {x["id"] for x in dev}, {x["id"] for x in test}
    assert not dev_ids & test_ids
    assert dev_ids | test_ids == {x["id"] for x in items}
    assert 0.65 <= len(dev) / len(items) <= 0.75
    for kind in KINDS:  # stratified: every kind on both sides
        assert any(x["kind"] == kind for x in dev) and any(x["kind"] == kind for x in test), kind


def test_split_is_reproducible(items, make_gold):
    dev, test = make_gold.split(items)
    assert [x["id"] for x in dev] == [x["id"] for x in _read("dev.jsonl")]
    assert [x["id"] for x in test] == [x["id"] for x in _read("test.jsonl")]
