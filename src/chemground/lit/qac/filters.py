"""The arithmetic of QAC filtering: drop rules and penalised semantic entropy.

Drop rules (as published for ChemLit-QA), over the whole generated set:
- answer relevancy, faithfulness and question faithfulness: drop a question whose score is
  below mean - 0.5 x standard deviation of that score (population SD, ddof=0);
- hallucination: drop a question whose score is above 0.1;
- penalised semantic entropy: drop a question whose value is above Q3 + 1.5 x IQR of the
  questions of the same difficulty (quartiles by linear interpolation, numpy's default).
A missing score (the judge failed) drops the question under that rule.

Semantic entropy (Kuhn et al. 2023; Farquhar et al. 2024): sample several answers, group
them into clusters of answers that entail each other in both directions, and take the
entropy of the cluster frequencies, -sum p_c ln p_c. A question whose sampled answers
disagree in meaning is ambiguous or not well supported. Our penalty: answers in clusters
that contradict the reference answer are worse than merely different ones, so
``penalised = entropy + penalty x (fraction of sampled answers in such clusters)``
(penalty 1.0 by default).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

MEAN_MINUS_SD_RULES = ("answer_relevancy", "faithfulness", "question_faithfulness")
HALLUCINATION_MAX = 0.1
SD_FACTOR = 0.5
IQR_FACTOR = 1.5
CONTRADICTION_PENALTY = 1.0


def mean_minus_half_sd(values: Sequence[float | None]) -> float | None:
    """The lower bound mean - 0.5 SD over the known values (None when there are none)."""
    known = np.array([v for v in values if v is not None], dtype=float)
    if not len(known):
        return None
    return float(known.mean() - SD_FACTOR * known.std(ddof=0))


def upper_fence(values: Sequence[float]) -> float:
    """Q3 + 1.5 IQR."""
    q1, q3 = np.percentile(np.asarray(values, dtype=float), [25, 75])
    return float(q3 + IQR_FACTOR * (q3 - q1))


@dataclass
class FilterReport:
    kept: list[int] = field(default_factory=list)
    dropped: dict[int, list[str]] = field(default_factory=dict)  # index -> rules it failed
    thresholds: dict[str, float | dict[str, float] | None] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for rules in self.dropped.values():
            for rule in rules:
                out[rule] += 1
        return dict(out)


def apply_drop_rules(
    scores: Sequence[dict[str, float | None]],
    entropies: Sequence[float | None],
    difficulties: Sequence[str],
) -> FilterReport:
    """Which questions survive the drop rules; ``scores[i]`` has the four judge scores of question
    i."""
    n = len(scores)
    if not (len(entropies) == len(difficulties) == n):
        raise ValueError("one score dict, entropy and difficulty per question")
    report = FilterReport()
    failed: dict[int, list[str]] = defaultdict(list)
    for rule in MEAN_MINUS_SD_RULES:
        bound = mean_minus_half_sd([s.get(rule) for s in scores])
        report.thresholds[rule] = bound
        for i, s in enumerate(scores):
            value = s.get(rule)
            if value is None or (bound is not None and value < bound):
                failed[i].append(rule)
    report.thresholds["hallucination"] = HALLUCINATION_MAX
    for i, s in enumerate(scores):
        value = s.get("hallucination")
        if value is None or value > HALLUCINATION_MAX:
            failed[i].append("hallucination")
    fences: dict[str, float] = {}
    by_difficulty: dict[str, list[int]] = defaultdict(list)
    for i, difficulty in enumerate(difficulties):
        by_difficulty[difficulty].append(i)
    for difficulty, members in by_difficulty.items():
        known = [entropies[i] for i in members if entropies[i] is not None]
        if known:
            fences[difficulty] = upper_fence(known)
        for i in members:
            value = entropies[i]
            if value is None or (difficulty in fences and value > fences[difficulty]):
                failed[i].append("semantic_entropy")
    report.thresholds["semantic_entropy"] = fences
    report.dropped = dict(failed)
    report.kept = [i for i in range(n) if i not in failed]
    return report


# -- semantic entropy ---------------------------------------------------------------------------
def cluster_by_entailment(
    answers: Sequence[str], entails: Callable[[str, str], bool]
) -> list[list[int]]:
    """Greedy clustering: an answer joins the first cluster whose first member entails it and
    is entailed by it (bidirectional entailment = same meaning), else starts a new cluster."""
    clusters: list[list[int]] = []
    for i, answer in enumerate(answers):
        for cluster in clusters:
            representative = answers[cluster[0]]
            if entails(representative, answer) and entails(answer, representative):
                cluster.append(i)
                break
        else:
            clusters.append([i])
    return clusters


def semantic_entropy(cluster_sizes: Sequence[int]) -> float:
    total = sum(cluster_sizes)
    if total <= 0:
        raise ValueError("no sampled answers")
    return float(-sum((n / total) * math.log(n / total) for n in cluster_sizes if n))


def penalised_semantic_entropy(
    cluster_sizes: Sequence[int],
    contradicting: Sequence[bool],
    penalty: float = CONTRADICTION_PENALTY,
) -> float:
    """Entropy plus ``penalty`` x the fraction of answers in clusters that contradict the
    reference."""
    if len(cluster_sizes) != len(contradicting):
        raise ValueError("one contradiction flag per cluster")
    total = sum(cluster_sizes)
    mass = sum(n for n, bad in zip(cluster_sizes, contradicting) if bad) / total if total else 0.0
    return semantic_entropy(cluster_sizes) + penalty * mass
