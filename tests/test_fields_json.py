"""``fields_json``: the one way a dataclass becomes JSON (issue 16)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from chemground.agent.jsonsafe import fields_json, json_name


class Colour(Enum):
    RED = "red"


@dataclass
class Inner:
    a: int = 1


@dataclass
class Own:
    def to_json(self) -> dict[str, Any]:
        return {"own": True}


@dataclass
class Outer:
    ret: Any = field(default=None, metadata=json_name("return"))
    colour: Colour = Colour.RED
    counts: Counter = field(default_factory=Counter)
    spans: list[tuple[int, int]] = field(default_factory=list)
    inner: Inner = field(default_factory=Inner)
    own: Own = field(default_factory=Own)
    note: str = ""
    score: float = float("nan")


def test_fields_in_order_renamed_and_plain():
    data = fields_json(Outer(5, counts=Counter({"b": 2, "a": 1}), spans=[(0, 3)]))
    assert list(data) == ["return", "colour", "counts", "spans", "inner", "own", "note", "score"]
    assert data["colour"] == "red" and type(data["colour"]) is str
    assert type(data["counts"]) is dict and data["counts"] == {"b": 2, "a": 1}
    assert data["spans"] == [[0, 3]]
    assert data["inner"] == {"a": 1}
    assert data["own"] == {"own": True}  # a nested class's own JSON form wins
    # no rounding or NaN rewriting: the same text json.dumps gave for the fields
    assert json.dumps(data["score"]) == "NaN"


def test_omit_empty_leaves_out_none_and_empty_strings_only():
    data = fields_json(Outer(None, score=0.0), omit_empty=True)
    assert "return" not in data and "note" not in data
    assert data["score"] == 0.0 and data["counts"] == {}
