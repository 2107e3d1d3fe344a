"""The tool-learning metrics, as pure functions.

For one question, the agent's calling chain is compared with the gold chain:
- format validity: every step the model emitted was a well-formed call of a known tool;
- tool precision/recall/F1 over the multiset of tool names;
- parameter precision/recall/F1 over (tool, parameter position, value) triples of the calls
  paired with gold steps of the same tool, values compared as in execution fidelity;
- return precision/recall/F1 over the returns of the executed calls against the gold returns;
- pass rate: an LLM judge's verdict on the final answer against the reference.
Scores are averaged over questions (macro). Retrieval Recall@k is here too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.agent.compare import DEFAULT_REL_TOL, compare_values
from chemground.agent.dataset import GoldStep


@dataclass
class PredictedCall:
    """One call the agent made: tool, arguments as it gave them, and what came back."""

    tool: str
    params: Any
    ok: bool = True
    ret: Any = None
    well_formed: bool = True


@dataclass
class PRF:
    precision: float
    recall: float
    f1: float


def prf(true_positives: int, predicted: int, gold: int) -> PRF:
    """Precision, recall, F1; an empty prediction of an empty gold scores 1."""
    if predicted == 0 and gold == 0:
        return PRF(1.0, 1.0, 1.0)
    precision = true_positives / predicted if predicted else 0.0
    recall = true_positives / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def format_validity(calls: Sequence[PredictedCall], known_tools: set[str] | None = None) -> float:
    """1.0 when every emitted call was well formed (and names a known tool), else 0.0."""
    return float(
        all(c.well_formed and (known_tools is None or c.tool in known_tools) for c in calls)
    )


def tool_prf(predicted: Sequence[str], gold: Sequence[str]) -> PRF:
    overlap = sum((Counter(predicted) & Counter(gold)).values())
    return prf(overlap, len(predicted), len(gold))


def _pair(
    calls: Sequence[PredictedCall], gold: Sequence[GoldStep]
) -> list[tuple[PredictedCall, GoldStep]]:
    """Each predicted call paired with the first unused gold step of the same tool, in order."""
    used: set[int] = set()
    pairs = []
    for call in calls:
        for index, step in enumerate(gold):
            if index not in used and step.tool == call.tool:
                used.add(index)
                pairs.append((call, step))
                break
    return pairs


def positional(params: Any, names: Sequence[str] | None) -> dict[Any, Any]:
    """Parameters keyed by position (lists) or, given the parameter order, names mapped to
    positions."""
    if isinstance(params, (list, tuple)):
        return dict(enumerate(params))
    if isinstance(params, dict):
        if names is not None:
            order = {name: i for i, name in enumerate(names)}
            return {order.get(k, k): v for k, v in params.items() if v is not None}
        return dict(params)
    return {}


def param_prf(
    calls: Sequence[PredictedCall],
    gold: Sequence[GoldStep],
    parameter_names: dict[str, list[str]] | None = None,
    rel_tol: float = DEFAULT_REL_TOL,
) -> PRF:
    names = parameter_names or {}
    predicted_count = sum(len(positional(c.params, names.get(c.tool))) for c in calls)
    gold_count = sum(len(positional(s.params, names.get(s.tool))) for s in gold)
    matched = 0
    for call, step in _pair(calls, gold):
        ours = positional(call.params, names.get(call.tool))
        theirs = positional(step.params, names.get(step.tool))
        for key, value in theirs.items():
            if key in ours and compare_values(value, ours[key], rel_tol).match:
                matched += 1
    return prf(matched, predicted_count, gold_count)


def return_prf(
    calls: Sequence[PredictedCall], gold: Sequence[GoldStep], rel_tol: float = DEFAULT_REL_TOL
) -> PRF:
    executed = [c for c in calls if c.ok]
    used: set[int] = set()
    matched = 0
    for call in executed:
        for index, step in enumerate(gold):
            if index in used or step.tool != call.tool:
                continue
            if compare_values(step.ret, call.ret, rel_tol).match:
                used.add(index)
                matched += 1
                break
    return prf(matched, len(executed), len(gold))


@dataclass
class ItemScore:
    format_valid: float
    tool: PRF
    params: PRF
    returns: PRF
    passed: float | None = None  # judge verdict, when judged


def score_item(
    calls: Sequence[PredictedCall],
    gold: Sequence[GoldStep],
    *,
    known_tools: set[str] | None = None,
    parameter_names: dict[str, list[str]] | None = None,
    passed: bool | None = None,
    rel_tol: float = DEFAULT_REL_TOL,
) -> ItemScore:
    return ItemScore(
        format_valid=format_validity(calls, known_tools),
        tool=tool_prf([c.tool for c in calls], [s.tool for s in gold]),
        params=param_prf(calls, gold, parameter_names, rel_tol),
        returns=return_prf(calls, gold, rel_tol),
        passed=None if passed is None else float(passed),
    )


@dataclass
class Aggregate:
    n: int = 0
    values: dict[str, float] = field(default_factory=dict)


def aggregate(scores: Sequence[ItemScore]) -> dict[str, float | None]:
    """Macro averages over questions."""
    if not scores:
        return {}
    n = len(scores)

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    out: dict[str, float | None] = {
        "questions": float(n),
        "format_validity": mean([s.format_valid for s in scores]),
    }
    for name in ("tool", "params", "returns"):
        for part in ("precision", "recall", "f1"):
            out[f"{name}_{part}"] = mean([getattr(getattr(s, name), part) for s in scores])
    judged = [s.passed for s in scores if s.passed is not None]
    out["pass_rate"] = mean(judged) if judged else None
    return out


def retrieval_recall(
    gold_tools: Sequence[Sequence[str]], retrieved: Sequence[Sequence[str]]
) -> dict[str, float]:
    """Mean share of each question's distinct gold tools found in its retrieved list, and the share
    of
    questions with all of them found."""
    if len(gold_tools) != len(retrieved):
        raise ValueError("one retrieved list per question")
    recalls, complete = [], []
    for gold, found in zip(gold_tools, retrieved):
        wanted = set(gold)
        hit = wanted & set(found)
        recalls.append(len(hit) / len(wanted) if wanted else 1.0)
        complete.append(float(hit == wanted))
    n = len(recalls) or 1
    return {
        "recall": sum(recalls) / n,
        "all_found": sum(complete) / n,
        "questions": float(len(recalls)),
    }
