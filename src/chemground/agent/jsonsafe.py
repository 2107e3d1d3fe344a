"""Making tool results plain JSON (numbers, strings, lists, dicts), whatever library made them.

Results cross a process boundary and end up in traces, JSONL datasets and prompts, so a
numpy float, a tuple or a pymatgen object must become plain JSON here; anything that
cannot is an error rather than a silent ``str()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
