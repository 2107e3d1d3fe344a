"""Making tool results plain JSON (numbers, strings, lists, dicts), whatever library made them.

Results cross a process boundary and end up in traces, JSONL datasets and prompts, so a
numpy float, a tuple or a pymatgen object must become plain JSON here; anything that
cannot is an error rather than a silent ``str()``.

``fields_json`` is the one way a dataclass becomes JSON (pydantic models use their own
``model_dump(mode="json")``): its fields in declaration order, a key renamed by the field's
``json_name`` metadata, so the JSON form is declared on the class instead of spelt out by a
hand-written ``to_json`` that must be kept in step with the fields.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any


class NotJSONable(TypeError):
    pass


def to_jsonable(value: Any, _depth: int = 0, fallback: Callable[[Any], Any] | None = None) -> Any:
    """``value`` as plain JSON data: NaN and infinities become None, numpy and pymatgen objects
    their JSON form.

    Args:
        value: what to convert.
        fallback: how to write any other object (e.g. ``str`` for CLI output); without it such
            an object is an error.

    Raises:
        NotJSONable: an object with no JSON form and no ``fallback``, or nesting deeper than 50.
    """
    if _depth > 50:
        raise NotJSONable("result nested too deeply")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_key(k): to_jsonable(v, _depth + 1, fallback) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, _depth + 1, fallback) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v, _depth + 1, fallback) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, Enum):
        return to_jsonable(value.value, _depth + 1, fallback)
    module = type(value).__module__
    if module == "numpy" or module.startswith("numpy."):
        if hasattr(value, "tolist"):
            return to_jsonable(value.tolist(), _depth + 1, fallback)
        return to_jsonable(value.item(), _depth + 1, fallback)
    if hasattr(value, "as_dict") and callable(value.as_dict):  # pymatgen / monty objects
        return to_jsonable(value.as_dict(), _depth + 1, fallback)
    if fallback is not None:
        return fallback(value)
    raise NotJSONable(f"a tool returned a {type(value).__name__}, which is not JSON data")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, Enum):
        return str(key.value)
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return str(key)


JSON_NAME = "json_name"


def json_name(name: str) -> dict[str, str]:
    """Field metadata that gives a dataclass field another key in its JSON form.

    Example: ``ret: Any = field(metadata=json_name("return"))``.
    """
    return {JSON_NAME: name}


def fields_json(obj: Any, *, omit_empty: bool = False) -> dict[str, Any]:
    """A dataclass instance's fields as a JSON-ready dict, in declaration order.

    A field's key is its ``json_name`` metadata when it has one, else its name. Values become
    plain JSON containers: a nested dataclass is written by its own ``to_json`` or ``to_dict``
    when it has one (else by ``fields_json``), an Enum by its value, a mapping (a ``Counter``
    too) as a dict, a tuple as a list; numbers and strings are kept as they are (no rounding, a
    NaN stays a NaN), so the result is what the fields say.

    Args:
        obj: a dataclass instance.
        omit_empty: leave out fields whose value is None or "".

    Returns:
        A new dict (its lists and dicts new too; other values are the fields' own).
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if omit_empty and (value is None or (isinstance(value, str) and value == "")):
            continue
        out[f.metadata.get(JSON_NAME, f.name)] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for method in ("to_json", "to_dict"):
            own = getattr(value, method, None)
            if callable(own):
                return own()
        return fields_json(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
