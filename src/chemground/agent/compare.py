"""Is a tool's return the same as the benchmark's gold return?

Numbers agree within a relative tolerance; strings agree after normalisation (Unicode
compatibility forms, so ``H₂O`` meets ``H2O``, case, whitespace, a final full stop), with
the numbers inside them compared by tolerance too; SMILES agree when they are the same
structure; lists agree element by element and mappings key by key. When our tool refuses
an input, that agrees with a gold return only if the gold return is itself the original
tool's error message (the benchmark records errors as strings).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

DEFAULT_REL_TOL = 1e-4

# Phrases of the original tools' error messages, as recorded in the benchmark's returns.
ERROR_PHRASES = (
    "error",
    "invalid",
    "wrong argument",
    "not yet implemented",
    "not a valid",
    "please input",
    "multiple smiles strings detected",
    "cas number not found",
    "no pubchem entry",
    "input error",
    "could not find",
    "not found",
    "tool error",
)

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@dataclass
class Comparison:
    match: bool
    how: str  # number | string | structure | list | mapping | boolean | error | mismatch reason


def gold_is_error(value: Any) -> bool:
    """Whether a gold return is the original tool's error message rather than a result."""
    if not isinstance(value, str):
        return False
    text = value.lower()
    if text.startswith("cas number") and "found, but" in text:
        return False  # a CAS number with a controlled-chemical warning is a result
    return any(phrase in text for phrase in ERROR_PHRASES)


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().strip()
    text = re.sub(r"\s+", " ", text)
    return text.rstrip(".").strip()


def numbers_close(a: float, b: float, rel_tol: float = DEFAULT_REL_TOL) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=1e-12)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _strings_equal(a: str, b: str, rel_tol: float) -> bool:
    na, nb = _normalise(a), _normalise(b)
    if na == nb:
        return True
    numbers_a, numbers_b = _NUMBER.findall(na), _NUMBER.findall(nb)
    if len(numbers_a) != len(numbers_b) or not numbers_a:
        return False
    if _NUMBER.sub("#", na) != _NUMBER.sub("#", nb):
        return False
    return all(numbers_close(float(x), float(y), rel_tol) for x, y in zip(numbers_a, numbers_b))


def _same_structure(a: str, b: str) -> bool | None:
    from chemground.chem.structure import looks_like_smiles, structure_from_smiles
    from chemground.errors import ChemgroundError

    if not (looks_like_smiles(a) and looks_like_smiles(b)):
        return None
    try:
        return structure_from_smiles(a).inchikey == structure_from_smiles(b).inchikey
    except ChemgroundError:
        return None


def compare_values(gold: Any, ours: Any, rel_tol: float = DEFAULT_REL_TOL) -> Comparison:
    """Compare a successful return with the gold return."""
    if isinstance(gold, float) and math.isnan(
        gold
    ):  # the benchmark writes missing values as NaN; we write null
        ok = ours is None or (isinstance(ours, float) and math.isnan(ours))
        return Comparison(ok, "missing value" if ok else "gold is missing (NaN)")
    if isinstance(gold, bool) or isinstance(ours, bool):
        ok = isinstance(gold, bool) and isinstance(ours, bool) and gold == ours
        return Comparison(ok, "boolean" if ok else "boolean differs")
    gold_number, our_number = _as_number(gold), _as_number(ours)
    if (
        gold_number is not None
        and our_number is not None
        and not (isinstance(gold, str) and isinstance(ours, str))
    ):
        ok = numbers_close(gold_number, our_number, rel_tol)
        return Comparison(
            ok, "number" if ok else f"number differs ({gold_number:g} vs {our_number:g})"
        )
    if isinstance(gold, str) and isinstance(ours, str):
        if _strings_equal(gold, ours, rel_tol):
            return Comparison(True, "string")
        same = _same_structure(gold.strip(), ours.strip())
        if same:
            return Comparison(True, "structure")
        return Comparison(False, "string differs")
    if isinstance(gold, (list, tuple)) and isinstance(ours, (list, tuple)):
        if len(gold) != len(ours):
            return Comparison(False, f"list length differs ({len(gold)} vs {len(ours)})")
        for g, o in zip(gold, ours):
            result = compare_values(g, o, rel_tol)
            if not result.match:
                return Comparison(False, f"list item: {result.how}")
        return Comparison(True, "list")
    if isinstance(gold, dict) and isinstance(ours, dict):
        if set(map(str, gold)) != set(map(str, ours)):
            missing = sorted(set(map(str, gold)) - set(map(str, ours)))
            extra = sorted(set(map(str, ours)) - set(map(str, gold)))
            return Comparison(False, f"keys differ (missing {missing[:3]}, extra {extra[:3]})")
        ours_by_key = {str(k): v for k, v in ours.items()}
        for key, value in gold.items():
            result = compare_values(value, ours_by_key[str(key)], rel_tol)
            if not result.match:
                return Comparison(False, f"key {key!r}: {result.how}")
        return Comparison(True, "mapping")
    if gold is None and ours is None:
        return Comparison(True, "null")
    return Comparison(False, f"type differs ({type(gold).__name__} vs {type(ours).__name__})")


def compare_return(
    gold: Any, ours_ok: bool, ours: Any, rel_tol: float = DEFAULT_REL_TOL
) -> Comparison:
    """Compare one executed step with the gold return (errors count only against gold errors)."""
    if not ours_ok:
        return Comparison(
            gold_is_error(gold), "error" if gold_is_error(gold) else "our call failed"
        )
    if gold_is_error(gold) and not isinstance(ours, str):
        return Comparison(False, "gold is an error message")
    return compare_values(gold, ours, rel_tol)
