"""CLI JSON output is strict JSON: NaN and infinities are null (``bench run --json`` printed NaN,
which jq and JavaScript refuse; issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

from chemground.cli.common import print_json


def test_nan_and_infinity_become_null_and_other_objects_strings(capsys):
    print_json({"accuracy": float("nan"), "scores": [0.5, float("inf")], "file": Path("/x/y")})
    out = capsys.readouterr().out
    assert "NaN" not in out and "Infinity" not in out
    assert json.loads(out) == {"accuracy": None, "scores": [0.5, None], "file": "/x/y"}
