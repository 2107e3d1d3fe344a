"""Running the table-RAG benchmark: answer every item, score it, summarise, chart.

Parallel (a thread pool: LLM calls wait on the network) and resumable: each finished item is
appended to ``results.jsonl`` at once, and a re-run skips the ids already there.
"""

from __future__ import annotations

import json
import math
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.bench.generate import BenchItem
from chemground.bench.scoring import score_answer
from chemground.errors import ChemgroundError
from chemground.jsonl import read_jsonl

RECALL_KS = (1, 3, 5, 10)


@dataclass
class RunSummary:
    method: str
    reasoner: str
    items: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    overall: float = float("nan")
    pearson: float = float("nan")
    usage: dict[str, Any] = field(default_factory=dict)


def _rank(source_id: str, evidence_ids: list[str]) -> int | None:
    return evidence_ids.index(source_id) + 1 if source_id in evidence_ids else None


def answer_item(qa, item: BenchItem, method: str, reasoner: str, k: int, resolve) -> dict[str, Any]:
    try:
        answer = qa.ask(
            item.question, method=method, reasoner=reasoner, k=max(k, max(RECALL_KS)), id=item.id
        )
    except ChemgroundError as error:
        return {
            "id": item.id,
            "task": item.task,
            "input_format": item.input_format,
            "status": "error",
            "error": str(error),
            "score": 0.0,
            "rank": None,
        }
    evidence_ids = [e.id for e in answer.evidence]
    score = score_answer(
        item.task, item.input_format, item.answer, answer.value, answer.answer, resolve
    )
    return {
        "id": item.id,
        "task": item.task,
        "aspect": item.aspect,
        "input_format": item.input_format,
        "question": item.question,
        "gold": item.answer,
        "answer": answer.answer,
        "value": answer.value,
        "status": answer.status,
        "score": round(score, 4),
        "rank": _rank(item.source["id"], evidence_ids),
        "source": item.source,
        "evidence_ids": evidence_ids[:10],
        "timings_ms": answer.timings_ms,
        "usage": answer.usage,
        "perturbed": item.perturbed,
        "paraphrased": item.paraphrased,
    }


def run(
    items: list[BenchItem],
    qa,
    *,
    method: str,
    reasoner: str,
    out_dir: Path,
    k: int = 5,
    workers: int = 1,
    resolve: Callable[[str], str | None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if results_path.exists():
        # a last line cut by a killed run is skipped: that item is answered again
        for _number, row in read_jsonl(results_path, torn_tail_ok=True):
            done[row["id"]] = row
    todo = [item for item in items if item.id not in done]
    lock = threading.Lock()
    if progress:
        progress(len(done), len(items))
    with open(results_path, "a", encoding="utf-8") as sink:

        def record(row: dict[str, Any]) -> None:
            with lock:
                done[row["id"]] = row
                sink.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                sink.flush()
                if progress:
                    progress(len(done), len(items))

        if workers <= 1:
            for item in todo:
                record(answer_item(qa, item, method, reasoner, k, resolve))
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                futures = [
                    pool.submit(answer_item, qa, item, method, reasoner, k, resolve)
                    for item in todo
                ]
                for future in as_completed(futures):
                    record(future.result())
    rows = [done[item.id] for item in items if item.id in done]
    summary = summarise(rows, method, reasoner)
    (out_dir / "summary.md").write_text(summary_markdown(summary), encoding="utf-8")
    (out_dir / "summary.json").write_text(
        json.dumps(summary.__dict__, indent=2, default=str), encoding="utf-8"
    )
    chart(summary, out_dir / "summary.png")
    return summary


def _pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def summarise(
    rows: list[dict[str, Any]], method: str, reasoner: str, recall_k: int = 5
) -> RunSummary:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["task"], row["input_format"])].append(row)
    table = []
    for (task, fmt), members in sorted(groups.items()):
        entry = {
            "task": task,
            "input_format": fmt,
            "n": len(members),
            "score": 100 * sum(r["score"] for r in members) / len(members),
            "errors": sum(1 for r in members if r.get("status") == "error"),
        }
        for k in RECALL_KS:
            entry[f"recall@{k}"] = sum(
                1 for r in members if r.get("rank") and r["rank"] <= k
            ) / len(members)
        table.append(entry)
    summary = RunSummary(method, reasoner, len(rows), table)
    if table:
        summary.overall = sum(e["score"] for e in table) / len(table)
    recalls = [1.0 if r.get("rank") and r["rank"] <= recall_k else 0.0 for r in rows]
    summary.pearson = _pearson(recalls, [r["score"] for r in rows])
    usage: dict[str, float] = defaultdict(float)
    for row in rows:
        for key in ("prompt_tokens", "completion_tokens", "calls", "cost_usd"):
            usage[key] += (row.get("usage") or {}).get(key, 0) or 0
    summary.usage = dict(usage)
    return summary


def summary_markdown(summary: RunSummary) -> str:
    header = ["task", "format", "n", "score"] + [f"R@{k}" for k in RECALL_KS]
    lines = [
        f"method={summary.method} reasoner={summary.reasoner} items={summary.items}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for e in summary.rows:
        lines.append(
            f"| {e['task']} | {e['input_format']} | {e['n']} | {e['score']:.1f} | "
            + " | ".join(f"{e[f'recall@{k}']:.3f}" for k in RECALL_KS)
            + " |"
        )
    lines += [
        "",
        f"Overall score (mean of task x format scores): {summary.overall:.1f}",
        f"Pearson correlation of Recall@5 and score over items: {summary.pearson:.3f}",
    ]
    if summary.usage.get("calls"):
        lines.append(
            f"LLM usage: {summary.usage['calls']:.0f} calls, {summary.usage['prompt_tokens']:.0f} "
            "prompt + "
            f"{summary.usage['completion_tokens']:.0f} completion tokens, "
            f"${summary.usage['cost_usd']:.4f}"
        )
    return "\n".join(lines) + "\n"


def chart(summary: RunSummary, path: Path) -> None:
    """Bar chart of the score per task and input format, with Recall@5 as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{e['task']}\n{e['input_format']}" for e in summary.rows]
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.7), 4))
    ax.bar(range(len(labels)), [e["score"] for e in summary.rows], color="#4c72b0", label="score")
    ax.plot(
        range(len(labels)),
        [100 * e["recall@5"] for e in summary.rows],
        "o-",
        color="#dd8452",
        label="Recall@5 (x100)",
    )
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylim(0, 105)
    ax.set_title(f"{summary.method} + {summary.reasoner}: overall {summary.overall:.1f}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
