"""Generating benchmark tasks from a reaction graph: sample anchors, fill templates, execute
references.

Sampling is seeded and independent of the engine's row order (candidates are sorted first),
so the same graph and seed always give the same tasks. A candidate becomes a task only when
its reference query returns between 1 and ``max_gold_rows`` rows.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chemground.errors import ChemgroundError
from chemground.graph.backend import GraphBackend
from chemground.graph.bench.tasks import ROLE_WORD, TASK_BY_NAME, TASK_TYPES, TaskType
from chemground.jsonl import read_jsonl

AGENT_RELS = tuple(ROLE_WORD)


def canonical_rows(rows: list[dict[str, Any]], ordered_keys: Iterable[str] = ()) -> list[str]:
    """Rows as sorted JSON strings; lists become sorted (set semantics) except ``ordered_keys``
    (paths)."""
    ordered = set(ordered_keys)
    out = []
    for row in rows:
        clean = {}
        for key, value in row.items():
            if isinstance(value, list) and key not in ordered:
                value = sorted(value, key=lambda v: json.dumps(v, sort_keys=True, default=str))
            clean[key] = value
        out.append(json.dumps(clean, sort_keys=True, default=str))
    return sorted(out)


def _candidates(graph: GraphBackend, task: TaskType) -> list[dict[str, Any]]:
    rels = AGENT_RELS if "{rel}" in task.sampler else (None,)
    out = []
    for rel in rels:
        sampler = task.sampler.replace("{rel}", rel) if rel else task.sampler
        for row in graph.query(sampler, limit=200_000).rows:
            out.append({**row, "rel": rel} if rel else dict(row))
    out.sort(key=lambda r: json.dumps(r, sort_keys=True))
    return out


def make_task(
    task: TaskType, values: dict[str, Any], template_index: int, number: int, graph: GraphBackend
) -> dict[str, Any]:
    fill = {**values}
    if values.get("rel"):
        fill["role"] = ROLE_WORD[values["rel"]]
    question = task.templates[template_index].format(**fill)
    reference = task.reference(values)
    result = graph.query(reference, limit=100_000)
    anchors = [
        {
            "slot": a.slot,
            "value": values[a.slot],
            "rel_type": values["rel"] if a.rel_type == "{rel}" else a.rel_type,
            "end": a.end,
        }
        for a in task.anchors
    ]
    return {
        "id": f"{task.name}-{number:03d}",
        "task_type": task.name,
        "level": task.level,
        "question": question,
        "template_index": template_index,
        "values": values,
        "anchors": anchors,
        "reference_cypher": reference,
        "path_key": task.path_key,
        "gold": {"columns": result.columns, "rows": result.rows},
    }


def generate_tasks(
    graph: GraphBackend,
    *,
    per_type: int = 20,
    seed: int = 0,
    max_gold_rows: int = 30,
    types: Iterable[str] | None = None,
    progress=None,
) -> list[dict[str, Any]]:
    """Up to ``per_type`` tasks of every type (fewer where the graph has fewer usable anchors)."""
    chosen = [TASK_BY_NAME[t] for t in types] if types else list(TASK_TYPES)
    unknown = set(types or ()) - set(TASK_BY_NAME)
    if unknown:
        raise ChemgroundError(
            f"unknown task types {sorted(unknown)}; known: {', '.join(TASK_BY_NAME)}"
        )
    tasks: list[dict[str, Any]] = []
    if progress:
        progress("tasks", 0, per_type * len(chosen))
    for task in chosen:
        rng = random.Random(f"{seed}:{task.name}")
        candidates = _candidates(graph, task)
        rng.shuffle(candidates)
        made = 0
        for values in candidates[: per_type * 20]:
            if made >= per_type:
                break
            item = make_task(task, values, rng.randrange(len(task.templates)), made + 1, graph)
            if not 1 <= len(item["gold"]["rows"]) <= max_gold_rows:
                continue
            tasks.append(item)
            made += 1
            if progress:
                progress("tasks", 1, None)
    return tasks


def task_counts(tasks: list[dict[str, Any]]) -> dict[str, int]:
    counts = Counter(t["task_type"] for t in tasks)
    return {t.name: counts.get(t.name, 0) for t in TASK_TYPES}


def write_tasks(tasks: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task, ensure_ascii=False) + "\n")
    tmp.replace(path)


def read_tasks(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise ChemgroundError(
            f"no benchmark file at {path}; make one with `chemground bench graph-generate`"
        )
    tasks = []
    for number, task in read_jsonl(path):
        if not isinstance(task, dict):
            raise ChemgroundError(f"{path}:{number}: a task must be a JSON object")
        missing = {"id", "task_type", "question", "reference_cypher", "gold"} - set(task)
        if missing:
            raise ChemgroundError(f"{path}:{number}: task lacks {sorted(missing)}")
        tasks.append(task)
    return tasks
