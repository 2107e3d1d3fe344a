"""The extraction benchmark on hand-made gold files in both dataset formats, with scripted LLMs."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from typer.testing import CliRunner

from chemground.cli import app
from chemground.extract import gold as gold_data
from chemground.extract.bench import gold_ceiling, run_extraction_bench
from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import ExtractOptions
from tests.extract.conftest import reaction

P1 = (
    "ESTER: ethanol (10 mL) and acetic acid (5 g) were heated at 80 °C for 2 h to give ethyl "
    "acetate (85%)."
)
P2 = (
    "ANILIDE: aniline (1 g) and acetic anhydride (2 mL) were stirred at 25 °C for 1 h to give the "
    "title compound."
)


def ord_component(name, role, smiles=None, amount=None):
    identifiers = [{"type": "NAME", "value": name}] + (
        [{"type": "SMILES", "value": smiles}] if smiles else []
    )
    out = {"identifiers": identifiers, "reactionRole": role}
    return out


def ord_reaction(
    rid, text, inputs, products, temperature=None, ambient=False, hours=None, yield_=None
):
    reaction = {
        "reactionId": rid,
        "notes": {"procedureDetails": text},
        "inputs": {"m1": {"components": inputs}},
        "outcomes": [
            {
                "products": [
                    {
                        **p,
                        "measurements": [
                            {
                                "type": "YIELD",
                                "details": "PERCENTYIELD",
                                "percentage": {"value": yield_},
                            }
                        ],
                    }
                    if yield_ is not None
                    else p
                    for p in products
                ]
            }
        ],
        "conditions": {},
    }
    if temperature is not None:
        reaction["conditions"]["temperature"] = {
            "setpoint": {"value": temperature, "units": "CELSIUS"}
        }
    if ambient:
        reaction["conditions"]["temperature"] = {"control": {"type": "AMBIENT"}}
    if hours is not None:
        reaction["outcomes"][0]["reactionTime"] = {"value": hours, "units": "HOUR"}
    return reaction


@pytest.fixture
def gold_dir(tmp_path):
    root = tmp_path / "reactions"
    (root / "ord_text2json_llm_organic_synthesis").mkdir(parents=True)
    (root / "ord_uspto_grants").mkdir()
    r1 = ord_reaction(
        "ord-1",
        P1,
        [
            ord_component("ethanol", "REACTANT"),
            ord_component("acetic acid", "REACTANT"),
            ord_component("sulfuric acid", "CATALYST"),
        ],
        [ord_component("ethyl acetate", "PRODUCT")],
        temperature=80,
        hours=2,
        yield_=85,
    )
    r2 = ord_reaction(
        "ord-2",
        P2,
        [
            ord_component("aniline", "REACTANT"),
            ord_component("acetic anhydride", "REACTANT"),
            ord_component("dichloromethane", "SOLVENT"),
        ],
        [ord_component("title compound", "PRODUCT")],
        ambient=True,
        hours=1,
    )
    text2json = {
        "test_data": [
            {
                "reaction_id": r["reactionId"],
                "instruction": r["notes"]["procedureDetails"],
                "output": json.dumps(
                    {k: v for k, v in r.items() if k in ("inputs", "conditions", "outcomes")}
                ),
            }
            for r in (r1, r2)
        ],
        "train_data": [],
    }
    with gzip.open(
        root / "ord_text2json_llm_organic_synthesis" / "OrdAlpaca_test.json.gz", "wt"
    ) as handle:
        json.dump(text2json, handle)
    # grants: full records with SMILES (the acetanilide product has a SMILES but only a label as
    # name)
    g2 = ord_reaction(
        "ord-2",
        P2,
        [
            ord_component("aniline", "REACTANT", "Nc1ccccc1"),
            ord_component("acetic anhydride", "REACTANT", "CC(=O)OC(C)=O"),
        ],
        [ord_component("title compound", "PRODUCT", "CC(=O)Nc1ccccc1")],
        ambient=True,
    )
    with gzip.open(root / "ord_uspto_grants" / "ord_uspto_grants_13501.jsonl.gz", "wt") as handle:
        handle.write(json.dumps({"dataset_name": "uspto-test", "reaction": g2}) + "\n")
    return root


def test_gold_loading_both_formats(gold_dir):
    found = gold_data.find_datasets(gold_dir)
    text2json = gold_data.load(gold_data.TEXT2JSON, found[gold_data.TEXT2JSON])
    assert [g.id for g in text2json] == ["ord-1", "ord-2"]
    first = text2json[0]
    assert (first.temperature_c, first.time_h, first.yield_percent) == (80.0, 2.0, 85.0)
    assert [(c.role, c.name) for c in first.compounds][-1] == ("product", "ethyl acetate")
    assert text2json[1].temperature_c == gold_data.AMBIENT_C
    [grant] = gold_data.load(gold_data.USPTO_GRANTS, found[gold_data.USPTO_GRANTS])
    assert grant.by_role("product")[0].smiles == "CC(=O)Nc1ccccc1"


def test_gold_ceiling_counts(gold_dir, lookup):
    records = gold_data.load(
        gold_data.TEXT2JSON, gold_data.find_datasets(gold_dir)[gold_data.TEXT2JSON]
    )
    report = gold_ceiling(records, lookup)
    assert (
        report["reactions"] == 2
        and report["all_participants_resolved"] == 1
        and report["kept_by_filter"] == 1
    )
    assert report["roles"]["product"] == {
        "mentions": 2,
        "resolved": 1,
        "share": 0.5,
        "labels": 1,
        "no_name": 0,
        "distinct_names": 2,
        "distinct_resolved": 1,
        "distinct_share": 0.5,
    }
    assert report["roles"]["reactant"]["share"] == 1.0 and report["reasons"] == {"unresolved": 1}
    assert report["unresolved_examples"]["product"] == [("title compound", 1)]


def test_end_to_end_scores_with_a_scripted_llm(gold_dir, lookup, script_llms, tmp_path):
    records = gold_data.load(
        gold_data.TEXT2JSON, gold_data.find_datasets(gold_dir)[gold_data.TEXT2JSON]
    )
    # ESTER: right compounds but the catalyst is put among the reactants, temperature right, time
    # wrong.
    ester = reaction(
        ["EtOH", "acetic acid", "sulfuric acid"],
        ["ethyl acetate"],
        conditions={"temperature_c": 82, "time_h": 3, "ph": None},
        yield_percent=85,
    )
    # ANILIDE: the check stage corrects a missing product name to the real one (gold has only a
    # label).
    anilide = reaction(
        ["aniline", "acetic anhydride"],
        ["acetanilide"],
        solvents=["dichloromethane"],
        conditions={"temperature_c": 25, "time_h": 1, "ph": None},
    )
    _, extract_llm, check_llm = script_llms({"ESTER": [ester], "ANILIDE": [anilide]})
    report = run_extraction_bench(
        records,
        extract_llm,
        check_llm,
        lookup,
        RunJournal(tmp_path / "j.sqlite"),
        ExtractOptions(concurrency=2),
    )
    roles = report["checked"]["roles"]
    # reactants: gold {ethanol, acetic acid} + {aniline, acetic anhydride}; predicted 3 + 2; 4
    # matched
    assert (roles["reactant"]["tp"], roles["reactant"]["predicted"], roles["reactant"]["gold"]) == (
        4,
        5,
        4,
    )
    assert roles["reactant"]["precision"] == 0.8 and roles["reactant"]["recall"] == 1.0
    # products: "ethyl acetate" matches; "acetanilide" does not match the label "title compound"
    assert (roles["product"]["tp"], roles["product"]["predicted"], roles["product"]["gold"]) == (
        1,
        2,
        2,
    )
    assert (roles["catalyst"]["tp"], roles["catalyst"]["gold"]) == (0, 1)
    assert (roles["solvent"]["tp"], roles["solvent"]["gold"]) == (1, 1)
    fields = report["checked"]["fields"]
    assert fields["temperature_c"] == {
        "gold": 2,
        "correct": 2,
        "missing": 0,
        "spurious": 0,
        "accuracy": 1.0,
    }
    assert fields["time_h"]["correct"] == 1 and fields["yield_percent"]["correct"] == 1
    assert report["survived"] == 2 and report["survival_rate"] == 1.0
    assert report["real_models"] is False  # never to be mistaken for a model's result


def test_bench_cli_gold_only(gold_dir, small_kb_path, tmp_path):
    kb = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb)
    result = CliRunner().invoke(
        app,
        ["--kb", str(kb), "bench", "extract-run", "--data", str(gold_dir), "--gold-only", "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report[gold_data.TEXT2JSON]["kept_by_filter"] == 1
    assert report[gold_data.USPTO_GRANTS]["structure_agreement"] == {
        "compared": 2,
        "same_inchikey": 2,
    }
