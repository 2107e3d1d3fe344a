"""The table-RAG benchmark: generation, scoring, the runner (resumable), out-of-corpus KB."""

from __future__ import annotations

import json

import pytest

from chemground.agent.jsonsafe import fields_json
from chemground.bench.generate import (
    TABLE_RAG_TASKS,
    generate,
    perturb_name,
    random_smiles,
    read_items,
    write_items,
    write_ooc_kb,
)
from chemground.bench.paraphrase import Paraphraser
from chemground.bench.run import run, summarise
from chemground.bench.scoring import best_match_f1, numeric_match, score_answer, smiles_similarity
from chemground.bench.templates import TEMPLATES
from chemground.chem.opsin import Opsin
from chemground.chem.structure import structure_from_smiles
from chemground.kb.sqlite_store import SQLiteKB
from chemground.llm import ScriptedLLM
from chemground.qa import QA
from chemground.settings import Settings
from chemground.workspace import Workspace


def test_at_least_twenty_templates_per_task():
    for task in TABLE_RAG_TASKS:
        assert len(TEMPLATES[task]) >= 20, task
        assert len(set(TEMPLATES[task])) == len(TEMPLATES[task])


def test_generation_is_seeded_and_keeps_sources(small_kb, tmp_path):
    a = generate(small_kb, per_task=6, seed=7)
    b = generate(small_kb, per_task=6, seed=7)
    assert [fields_json(i) for i in a] == [fields_json(i) for i in b]
    assert generate(small_kb, per_task=6, seed=8)[0].question != a[0].question or len(a) == 0
    tasks = {(i.task, i.input_format) for i in a}
    for task in (
        "product",
        "reactant",
        "temperature",
        "solvent",
        "catalyst",
        "weight",
        "name_conversion",
    ):
        assert (task, "iupac") in tasks and (task, "smiles") in tasks
    for item in a:
        if item.source["kind"] == "reaction":
            small_kb.get_reaction(item.source["id"])  # exists
        else:
            small_kb.get_compound(int(item.source["id"]))
        for entity in item.entities:
            assert entity["text"] in item.question
            if item.input_format == "smiles" and entity["smiles"]:
                assert (
                    structure_from_smiles(entity["text"]).inchikey
                    == structure_from_smiles(entity["smiles"]).inchikey
                )
    path = tmp_path / "bench.jsonl"
    write_items(a, path)
    assert [fields_json(i) for i in read_items(path)] == [fields_json(i) for i in a]


def test_random_smiles_keep_the_structure():
    import random

    rng = random.Random(1)
    variants = {random_smiles("CC(=O)Nc1ccc(O)cc1", rng) for _ in range(10)}
    assert len(variants) > 1
    assert {structure_from_smiles(v).smiles for v in variants} == {"CC(=O)Nc1ccc(O)cc1"}


def test_perturbation_records_the_original(small_kb):
    items = generate(
        small_kb, per_task=10, seed=3, tasks=("weight",), formats=("iupac",), perturb=1.0
    )
    perturbed = [i for i in items if i.perturbed]
    assert len(perturbed) >= 8
    for item in perturbed:
        entity = item.entities[0]
        assert entity["original"] != entity["text"] and entity["text"] in item.question
    import random

    assert perturb_name("benzaldehyde", random.Random(0)) != "benzaldehyde"


def test_paraphrase_keeps_entities_or_is_rejected(small_kb):
    llm = ScriptedLLM(
        lambda messages: (
            "Could you tell me the molar mass of "
            + messages[0]["content"].split("- ", 1)[1].splitlines()[0]
            + "?"
        )
    )
    items = generate(
        small_kb,
        per_task=3,
        seed=1,
        tasks=("weight",),
        formats=("iupac",),
        paraphrase=Paraphraser(llm),
    )
    assert items and all(
        i.paraphrased and i.question.startswith("Could you tell me") for i in items
    )
    dropping = Paraphraser(ScriptedLLM(lambda messages: "What is its weight?"))
    items = generate(
        small_kb, per_task=3, seed=1, tasks=("weight",), formats=("iupac",), paraphrase=dropping
    )
    assert not any(i.paraphrased for i in items)


def test_out_of_corpus_kb_lacks_the_sources(small_kb_path, small_kb, tmp_path):
    items = generate(small_kb, per_task=4, seed=2, tasks=("product", "weight"))
    target = tmp_path / "ooc.sqlite"
    removed = write_ooc_kb(small_kb_path, items, target)
    ooc = SQLiteKB(target, readonly=True)
    for item in items:
        if item.source["kind"] == "reaction":
            assert not ooc.has_reaction(item.source["id"])
        else:
            assert ooc.get_compounds([int(item.source["id"])]) == {}
    assert removed["reactions_removed"] > 0 and removed["compounds_removed"] > 0
    assert ooc.stats().reactions == small_kb.stats().reactions - removed["reactions_removed"]
    ooc.close()


def test_scoring_on_hand_made_cases():
    assert smiles_similarity("OCC", "CCO") == 1.0
    assert 0 < smiles_similarity("CCO", "CCCO") < 1
    assert smiles_similarity("not smiles", "CCO") == 0.0
    assert (
        numeric_match(180.16, 180.157, "weight") == 1.0
        and numeric_match(181.0, 180.16, "weight") == 0.0
    )
    assert (
        numeric_match([80.0], 78.0, "temperature") == 1.0
        and numeric_match(90, 78.0, "temperature") == 0.0
    )
    assert numeric_match(2.3, 2.0, "time") == 0.0 and numeric_match(2.15, 2.0, "time") == 1.0
    assert best_match_f1(["a", "b"], ["a"], lambda p, g: float(p == g)) == pytest.approx(2 / 3)
    gold_product = {"smiles": ["CCOC(C)=O"], "names": ["ethyl acetate"]}
    assert score_answer("product", "iupac", gold_product, ["CCOC(C)=O", "O"], "") == 1.0
    assert score_answer("product", "iupac", gold_product, None, "") == 0.0
    resolve = {"thf": "K1", "tetrahydrofuran": "K1", "dmf": "K2"}.get
    gold = {"names": ["tetrahydrofuran"], "smiles": ["C1CCOC1"]}
    assert score_answer("solvent", "iupac", gold, ["THF".lower()], "", resolve) == 1.0
    assert score_answer("solvent", "iupac", gold, ["dmf"], "", resolve) == 0.0
    assert score_answer("name_conversion", "smiles", {"text": "ethanol"}, "ethanol", "") == 1.0
    assert score_answer("name_conversion", "iupac", {"smiles": ["CCO"]}, "OCC", "") == 1.0
    assert (
        0
        < score_answer(
            "description",
            "iupac",
            {"text": "a colourless volatile liquid solvent"},
            "a volatile liquid",
            "",
        )
        < 1
    )


@pytest.fixture(scope="module")
def qa(small_kb_path, tmp_path_factory):
    opsin = Opsin(tmp_path_factory.mktemp("opsin") / "cache.sqlite")
    workspace = Workspace(
        Settings(kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("c")),
        readonly=True,
        opsin=opsin,
    )
    yield QA(workspace)
    opsin.close()


def test_runner_scores_summarises_and_resumes(qa, small_kb, tmp_path):
    items = generate(small_kb, per_task=3, seed=5)
    out = tmp_path / "run"
    first = run(items[:10], qa, method="table", reasoner="extractive", out_dir=out)
    assert first.items == 10
    summary = run(items, qa, method="table", reasoner="extractive", out_dir=out)
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(items)  # the first 10 were not answered again
    assert summary.items == len(items) and summary.overall >= 80
    assert (out / "summary.md").read_text().startswith("method=table reasoner=extractive")
    assert (out / "summary.png").stat().st_size > 1000
    row = json.loads(lines[0])
    assert {"score", "rank", "gold", "value", "source"} <= set(row)


def test_summary_pearson_and_overall():
    rows = [
        {"task": "weight", "input_format": "iupac", "score": s, "rank": r}
        for s, r in [(1.0, 1), (1.0, 2), (0.0, None), (0.0, 9)]
    ]
    summary = summarise(rows, "table", "extractive")
    assert summary.overall == pytest.approx(50.0)
    assert summary.pearson == pytest.approx(1.0)


def test_catalogue_codes_are_not_used_as_question_names():
    from chemground.bench.generate import _good_name

    assert not any(
        _good_name(code) for code in ("agn-pc-00yifv", "NSC 12345", "CHEMBL25", "AKOS005066383")
    )
    assert all(
        _good_name(name) for name in ("but-2-ene", "vitamin b12", "2,4-dinitrophenol", "aspirin")
    )


@pytest.mark.parametrize("per_task", ["0", "-1"])
def test_bench_generate_refuses_fewer_than_one_item_per_task(small_kb_path, tmp_path, per_task):
    """--per-task 0 exited 0 having written nothing, with a wrong reason."""
    from chemground.cli import main

    out = tmp_path / "bench.jsonl"
    code = main(
        ["--kb", str(small_kb_path), "bench", "generate", "-o", str(out), "--per-task", per_task]
    )
    assert code == 2 and not out.exists()


def test_bench_run_refuses_an_unknown_method_or_reasoner_before_running(
    small_kb_path, small_kb, tmp_path, capsys
):
    """-m bogus exited 0 and wrote a result set with every item scored 0."""
    from chemground.cli import main

    bench = tmp_path / "bench.jsonl"
    write_items(generate(small_kb, per_task=1, seed=1, tasks=("weight",)), bench)

    def refused(flag: str) -> str:
        code = main(["--kb", str(small_kb_path), "bench", "run", str(bench), flag, "bogus"])
        assert code == 2
        return " ".join(capsys.readouterr().err.split())

    methods = refused("-m")
    assert "unknown method 'bogus'; choose one of: auto, table" in methods
    assert methods.endswith(", none")
    assert "unknown reasoner 'bogus'; choose one of: extractive" in refused("-r")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.jsonl"]  # no result folder
