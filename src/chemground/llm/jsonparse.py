"""Getting JSON out of model replies: fences, chatter around the object, single quotes,
trailing commas and truncation are repaired (json-repair); an empty or hopeless reply is a
clear error, not a guess."""

from __future__ import annotations

import json
import re
from typing import Any

import json_repair

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


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
    return text[start:end + 1] if end > start else text[start:]


def parse_json(text: str) -> Any:
    """The JSON value in ``text`` (an object or array), repairing common breakage."""
    if text is None or not text.strip():
        raise JSONParseError("the reply was empty")
    candidate = _candidate(text)
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    if not any(c in candidate for c in "{["):
        raise JSONParseError(f"no JSON object or array in the reply: {text[:120]!r}")
    try:
        value = json_repair.loads(candidate)
    except Exception as error:  # noqa: BLE001 - json-repair raises assorted errors on hopeless input
        raise JSONParseError(f"unrepairable JSON: {error}") from error
    if value in ("", None) or (isinstance(value, (dict, list)) and not value and candidate.strip() not in ("{}", "[]")):
        raise JSONParseError(f"no usable JSON in the reply: {text[:120]!r}")
    return value
