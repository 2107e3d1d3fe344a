"""Getting JSON out of model replies: fences, chatter around the object, single quotes,
trailing commas and truncation are repaired (json-repair); an empty or hopeless reply is a
clear error, not a guess.

Repair is bounded: json-repair is slow on long or deeply nested garbage (a 2 MB reply took
minutes), so only a candidate of at most ``MAX_REPAIR_CHARS`` characters nested at most
``MAX_REPAIR_DEPTH`` deep is repaired; valid JSON of any size still parses."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
MAX_REPAIR_CHARS = 100_000
MAX_REPAIR_DEPTH = 64


class JSONParseError(ValueError):
    """The text holds no usable JSON value."""


def _candidate(text: str) -> str:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return text.strip()
    start = min(starts)
    closing = "}" if text[start] == "{" else "]"
    end = text.rfind(closing)
    return text[start : end + 1] if end > start else text[start:]


def parse_json(text: str) -> Any:
    """The JSON value in ``text`` (an object or array), repairing common breakage."""
    if text is None or not text.strip():
        raise JSONParseError("the reply was empty")
    candidate = _candidate(text)
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise JSONParseError("the reply's JSON is nested too deeply") from None
    if not any(c in candidate for c in "{["):
        raise JSONParseError(f"no JSON object or array in the reply: {text[:120]!r}")
    if len(candidate) > MAX_REPAIR_CHARS:
        raise JSONParseError(
            f"the reply is not valid JSON and too long to repair ({len(candidate):,} characters)"
        )
    if _depth(candidate) > MAX_REPAIR_DEPTH:
        raise JSONParseError(
            f"the reply is not valid JSON and nested too deeply to repair (over {MAX_REPAIR_DEPTH} "
            "levels)"
        )
    import json_repair  # only a broken reply needs it (~10 ms to import)

    try:
        value = json_repair.loads(candidate)
    except Exception as error:
        raise JSONParseError(f"unrepairable JSON: {str(error)[:200]}") from None
    if value in ("", None) or (
        isinstance(value, (dict, list)) and not value and candidate.strip() not in ("{}", "[]")
    ):
        raise JSONParseError(f"no usable JSON in the reply: {text[:120]!r}")
    return value


def _depth(text: str) -> int:
    """Deepest nesting of brackets outside strings (a cheap bound, not a parse)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth = max(0, depth - 1)
    return deepest
