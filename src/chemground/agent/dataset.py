"""The tool-learning benchmark's JSONL format: one question with its gold calling chain per line.

``{"id": ..., "query": "...", "calling_chain": [{"tool": "ns/name", "params": [...] or {...},
"return": ...}, ...]}``. Reading checks every line and says which line is wrong and why;
writing is atomic (a temporary file renamed into place).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json, json_name
from chemground.errors import ChemgroundError
from chemground.jsonl import read_jsonl


class DatasetError(ChemgroundError):
    pass


@dataclass
class GoldStep:
    tool: str
    params: Any
    ret: Any = field(metadata=json_name("return"))  # the dataset's key


@dataclass
class BenchItem:
    id: str
    query: str
    chain: list[GoldStep]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tools(self) -> list[str]:
        return [step.tool for step in self.chain]

    @property
    def final_return(self) -> Any:
        return self.chain[-1].ret if self.chain else None

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "query": self.query,
            "calling_chain": [fields_json(s) for s in self.chain],
        }
        data.update(self.meta)
        return data


def parse_item(data: Any, where: str) -> BenchItem:
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    for key in ("query", "calling_chain"):
        if key not in data:
            raise DatasetError(f"{where}: missing {key!r}")
    if not isinstance(data["query"], str) or not data["query"].strip():
        raise DatasetError(f"{where}: 'query' must be a non-empty string")
    chain = data["calling_chain"]
    if not isinstance(chain, list) or not chain:
        raise DatasetError(f"{where}: 'calling_chain' must be a non-empty list")
    steps = []
    for number, step in enumerate(chain, 1):
        if not isinstance(step, dict) or "tool" not in step or "params" not in step:
            raise DatasetError(f"{where}: step {number} needs 'tool' and 'params'")
        if not isinstance(step["params"], (list, dict)):
            raise DatasetError(f"{where}: step {number} 'params' must be a list or an object")
        steps.append(GoldStep(str(step["tool"]), step["params"], step.get("return")))
    meta = {k: v for k, v in data.items() if k not in ("id", "query", "calling_chain")}
    return BenchItem(str(data.get("id", where)), data["query"], steps, meta)


def load_benchmark(path: Path, limit: int | None = None) -> list[BenchItem]:
    """Items of a benchmark JSONL file (blank lines skipped)."""
    path = Path(path)
    items = []
    for number, data in read_jsonl(path, error=DatasetError):
        items.append(parse_item(data, f"{path.name}:{number}"))
        if limit is not None and len(items) >= limit:
            break
    if not items:
        raise DatasetError(f"{path} holds no items")
    return items


def write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> int:
    """Write rows atomically; returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    with open(tmp, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    os.replace(tmp, path)
    return count
