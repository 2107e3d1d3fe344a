"""Text2Cypher against a real LLM: zero-shot against one-shot exemplars, with and without entity
linking and the validator, on a stratified subset of the graph benchmark.

Run (a llama.cpp server on loopback, see README "Local models"):

    python benchmarks/graph_text2cypher.py --llm-base-url http://127.0.0.1:8011/v1 \
        --llm-model qwen2.5-coder-1.5b-instruct --per-type 2 \
        --configs zero-shot,one-shot-semantic+link

Tasks: ``generate_tasks(per_type, seed=0)`` over the graph of the default KB (all 13 task types,
so the subset is stratified by type). Each configuration is ``MODE[+link][-validate]``. Every
scored item is appended to ``benchmarks/results/text2cypher/<model>/<config>.jsonl`` as soon as
it is done, with its seconds and token usage, and a re-run skips the items already there: an
interrupted run resumes. The table goes to the "text2cypher" section of results/graph.md.

Metrics: executability = share of items whose final query ran (read-only, parsed, no error);
result F1 = per-column value F1 against the gold rows (path F1 where paths are the answer);
exact = F1 1.0 (and path F1 1.0).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

from graph_common import REPO, machine_note, write_section

from chemground.graph.bench.generate import generate_tasks
from chemground.graph.bench.run import all_reaction_ids, prediction_of, score_prediction
from chemground.graph.config import open_graph
from chemground.graph.linking import compounds_of
from chemground.graph.text2cypher import Text2Cypher
from chemground.jsonl import read_jsonl
from chemground.llm.openai_client import OpenAICompatibleLLM
from chemground.qa import QA
from chemground.settings import get_settings
from chemground.workspace import Workspace

OUT_DIR = REPO / "benchmarks" / "results" / "text2cypher"


def parse_config(text: str) -> tuple[str, bool, bool]:
    """'one-shot-semantic+link-validate' -> (mode, link, validate)."""
    validate = not text.endswith("-validate")
    text = text.removesuffix("-validate")
    link = text.endswith("+link")
    return text.removesuffix("+link"), link, validate


def done_items(path: Path) -> dict[str, dict]:
    """Items an earlier run scored, by id (a last line torn by a killed run is redone)."""
    if not path.exists():
        return {}
    return {item["id"]: item for _, item in read_jsonl(path, torn_tail_ok=True)}


def run_config(config, tasks, graph, llm, ids, out_path, parser) -> list[dict]:
    mode, link, validate = parse_config(config)
    pipeline = Text2Cypher(graph, llm, mode=mode, validate=validate)
    done = done_items(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    todo = [t for t in tasks if t["id"] not in done]
    print(f"{config}: {len(done)} done, {len(todo)} to run", flush=True)
    with out_path.open("a", encoding="utf-8") as handle:
        for number, task in enumerate(todo, start=1):
            started = time.perf_counter()
            compounds = None
            if link:
                compounds = compounds_of(parser.parse(task["question"]))
            result = pipeline.run(task["question"], compounds)
            if result.error and "cannot reach the LLM endpoint" in result.error:
                # not the model's failure: stop here, so a re-run resumes with this item
                raise SystemExit(f"{config}: {result.error}")
            prediction = prediction_of(result)
            scores = score_prediction(task, prediction, ids)
            scores["wall_s"] = round(time.perf_counter() - started, 1)
            scores["usage"] = result.usage
            scores["config"] = config
            # what the model wrote and what was corrected, for reading a failure afterwards
            scores["exemplar"] = result.exemplar_id
            scores["first_query"] = result.first_query
            scores["anchor_fixes"] = result.anchor_fixes
            scores["trace"] = result.trace
            handle.write(json.dumps(scores, ensure_ascii=False, default=str) + "\n")
            handle.flush()
            done[task["id"]] = scores
            print(
                f"  [{number}/{len(todo)}] {task['id']}: ok={result.ok} f1={scores['f1']:.2f} "
                f"{scores['wall_s']} s",
                flush=True,
            )
    return [done[t["id"]] for t in tasks if t["id"] in done]


def summary_row(config: str, items: list[dict]) -> list[str]:
    def mean(key, pick=items):
        values = [float(i[key]) for i in pick if i.get(key) is not None]
        return f"{statistics.fmean(values):.3f}" if values else "–"

    multi = [i for i in items if i.get("level") == "multi"]
    tokens = [
        (i.get("usage") or {}).get("prompt_tokens", 0)
        + (i.get("usage") or {}).get("completion_tokens", 0)
        for i in items
    ]
    return [
        config,
        str(len(items)),
        mean("ok"),
        mean("f1"),
        mean("path_f1", multi),
        mean("exact_answer"),
        f"{statistics.median(i['wall_s'] for i in items):.1f}" if items else "–",
        f"{statistics.fmean(tokens):.0f}" if tokens else "–",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-base-url", required=True)
    parser.add_argument("--llm-model", required=True)
    parser.add_argument("--per-type", type=int, default=2)
    parser.add_argument("--configs", default="zero-shot,one-shot-semantic+link")
    parser.add_argument("--kb", type=Path, default=None, help="KB whose graph is used (default KB)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--timeout-s", type=float, default=600.0)
    args = parser.parse_args()

    settings = get_settings()
    kb_path = args.kb or Path(settings.kb.path)
    workspace = Workspace(settings)
    qa = QA(workspace)
    llm = OpenAICompatibleLLM(
        args.llm_base_url,
        args.llm_model,
        temperature=0.0,
        max_tokens=args.max_tokens,
        timeout_s=args.timeout_s,
        call_deadline_s=args.timeout_s,
        max_retries=1,
        cache_path=None,
    )
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    model_dir = OUT_DIR / re.sub(r"[^A-Za-z0-9._-]+", "_", Path(args.llm_model).name)
    results = {}
    started = time.perf_counter()
    with open_graph(kb_path) as graph:
        tasks = generate_tasks(graph, per_type=args.per_type, seed=0)
        ids = all_reaction_ids(graph)
        print(f"{len(tasks)} tasks over the graph of {kb_path}", flush=True)
        for config in configs:
            results[config] = run_config(
                config, tasks, graph, llm, ids, model_dir / f"{config}.jsonl", qa
            )
    header = [
        "configuration",
        "n",
        "executability",
        "result F1",
        "path F1 (multi)",
        "exact",
        "median s / item",
        "tokens / item",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(summary_row(c, items)) + " |" for c, items in results.items()]
    types = sorted({t["task_type"] for t in tasks}, key=[t["task_type"] for t in tasks].index)
    per_type = ["| task type | " + " | ".join(results) + " |", "| --- |" + " ---: |" * len(results)]
    for name in types:
        cells = []
        for items in results.values():
            pick = [i for i in items if i["task_type"] == name]
            cells.append(f"{statistics.fmean(i['f1'] for i in pick):.2f}" if pick else "–")
        per_type.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(
        [
            f"## Text2Cypher with a real model: {args.llm_model}",
            "",
            machine_note(),
            f"{len(tasks)} tasks: `generate_tasks(per_type={args.per_type}, seed=0)` over the "
            f"default KB's graph (all task types). Configurations: MODE[+link][-validate]; "
            f"`+link` = entity linking (the question's compounds resolved by our resolver and "
            f"given to the model as parameters), `-validate` = no validator/corrector loop. "
            f"Temperature 0, max_tokens {args.max_tokens}, no response cache, llama.cpp on 1 "
            f"thread. Per-item records: `benchmarks/results/text2cypher/`.",
            "",
            *lines,
            "",
            "Result F1 per task type:",
            "",
            *per_type,
            "",
            f"Whole run (this invocation) {time.perf_counter() - started:.0f} s.",
            "",
            "Script: `python benchmarks/graph_text2cypher.py --llm-base-url URL --llm-model M`.",
        ]
    )
    write_section("text2cypher", text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
