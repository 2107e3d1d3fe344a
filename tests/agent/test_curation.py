"""Dataset curation with a scripted LLM: values come from the KB, every return is the real result
of executing the call, invented values and failing calls are dropped with a reason."""

from __future__ import annotations

import json
import re

from chemground.agent.compare import compare_values
from chemground.agent.curation import CurationConfig, build_bank, generate_dataset
from chemground.agent.dataset import load_benchmark
from chemground.agent.registry import default_registry
from chemground.agent.runner import ToolRunner
from chemground.llm import ScriptedLLM

TOOLS = [
    "cactus/CalculateTPSA",
    "chem_lib/calculate_compound_molar_mass",
    "chem_lib/acidity_calculation",
]


def scripted_curator():
    state = {"calls": 0}

    def offered(prompt):
        return json.loads(
            prompt.split("Offered values per parameter:\n", 1)[1].split("\n\nReply", 1)[0]
        )

    def arguments(prompt):
        state["calls"] += 1
        values = offered(prompt)
        if "acidity_calculation" in prompt:
            return {"pH": 3.0}
        args = {name: options[0] for name, options in values.items()}
        if state["calls"] == 3:  # the model invents a value: must be dropped
            args = {name: "CCCCCCCCCCCl" for name in values}
        return args

    def reply(messages):
        prompt = messages[-1]["content"]
        if "Choose one realistic call" in prompt or "Choose its arguments" in prompt:
            return json.dumps({"arguments": arguments(prompt)})
        if "design a multi-step chemistry task" in prompt:
            names = re.findall(r"^- ([\w_]+/[\w_]+)\(", prompt, re.MULTILINE)
            return json.dumps({"tools": names[:2], "task": "compute two properties"})
        if "Write the question" in prompt:
            first = re.search(r"^1\. [^(]+\((\{.*?\})\) ->", prompt, re.MULTILINE)
            values = json.loads(first.group(1)).values()
            return json.dumps(
                {"query": "Please compute this for " + ", ".join(str(v) for v in values) + "."}
            )
        raise AssertionError(prompt[:80])

    return ScriptedLLM(reply)


def test_bank_holds_real_values(small_kb):
    import random

    bank = build_bank(small_kb, random.Random(0), compounds=50, reactions=20)
    assert len(bank.values["smiles"]) >= 30 and bank.values["element"][0] == "H"
    assert all("-->" in r for r in bank.values["reaction"])
    smiles = bank.values["smiles"][0]
    assert (
        small_kb.execute("SELECT count(*) FROM compounds WHERE smiles = ?", (smiles,)).fetchone()[0]
        == 1
    )


def test_generated_items_are_real_executions(agent_settings, small_kb, tmp_path):
    config = CurationConfig(single=6, multiple=2, seed=1, tools=TOOLS, split=(0.5, 0.25, 0.25))
    with ToolRunner(settings=agent_settings, files_dir=tmp_path / "files") as runner:
        summary = generate_dataset(
            scripted_curator(), config, tmp_path / "out", runner=runner, kb=small_kb
        )
    assert summary["dropped"] >= 1 and any(
        "not among the offered real values" in r
        for r in [
            json.loads(line)["reason"]
            for line in (tmp_path / "out" / "dropped.jsonl").read_text().splitlines()
        ]
    )
    assert summary["kept"] >= 5 and sum(summary["splits"].values()) == summary["kept"]
    items = []
    for split in ("train", "dev", "test"):
        path = tmp_path / "out" / f"{split}.jsonl"
        if path.read_text().strip():
            items += load_benchmark(path)
    assert len(items) == summary["kept"]
    registry = default_registry()
    multi = [i for i in items if len(i.chain) > 1]
    assert multi, "a multi-tool item was generated"
    for item in items:
        for step in item.chain:
            assert isinstance(step.params, list)  # the benchmark's positional format
            assert compare_values(
                step.ret, registry.call_in_process(step.tool, step.params)
            ).match  # the real result
        assert str(item.chain[0].params[0]) in item.query
