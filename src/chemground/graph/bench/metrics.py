"""Scoring generated Cypher against the reference: text overlap, retrieved answers and paths.

- Text: BLEU (sacrebleu), METEOR (nltk) and ROUGE-L (rouge-score) over Cypher tokens.
  METEOR's WordNet synonym stage is switched off (no WordNet offline, and Cypher tokens have
  no English synonyms); its exact and Porter-stem stages and the fragmentation penalty are
  nltk's own.
- Retrieval: answers are compared per key (column). Keys are normalised (lower case, trim,
  camelCase -> snake_case, leading ``var.`` dropped, trailing name/names dropped) and matched
  in three stages: exact, Porter stem, then MiniLM embedding similarity above a threshold.
  Per matched key: precision/recall/F1 of the sets of values; a gold key with no match
  scores 0. Two queries that return the same answers under different column names and
  different text therefore score 1.0.
- Paths: ordered reaction-id paths (a list column, a path value or r1/r2 id columns) give
  exact-path precision/recall/F1 and partial path recall (longest common subsequence).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.graph.backend import is_path
from chemground.graph.lexer import CypherSyntaxError, metric_tokens

EMBEDDING_THRESHOLD = 0.75


# -- text metrics --------------------------------------------------------------------------
class _NoWordNet:
    """Stands in for nltk's WordNet reader: no synonyms (see module docstring)."""

    @staticmethod
    def synsets(_word: str, *args: Any, **kwargs: Any) -> list:
        return []


class _CypherTokenizer:
    """rouge-score tokenizer interface over Cypher tokens (its default drops punctuation)."""

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return _tokens(text)


def _tokens(text: str) -> list[str]:
    try:
        return metric_tokens(text)
    except CypherSyntaxError:
        return text.split()


def bleu(generated: str, reference: str) -> float:
    from sacrebleu.metrics import BLEU

    metric = BLEU(tokenize="none", effective_order=True)
    return (
        metric.sentence_score(" ".join(_tokens(generated)), [" ".join(_tokens(reference))]).score
        / 100.0
    )


def meteor(generated: str, reference: str) -> float:
    from nltk.translate.meteor_score import meteor_score

    return float(meteor_score([_tokens(reference)], _tokens(generated), wordnet=_NoWordNet()))


def rouge_l(generated: str, reference: str) -> float:
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"], tokenizer=_CypherTokenizer())
    return scorer.score(reference, generated)["rougeL"].fmeasure


def text_metrics(generated: str, reference: str) -> dict[str, float]:
    if not generated.strip():
        return {"bleu": 0.0, "meteor": 0.0, "rouge_l": 0.0}
    return {
        "bleu": bleu(generated, reference),
        "meteor": meteor(generated, reference),
        "rouge_l": rouge_l(generated, reference),
    }


# -- keys ----------------------------------------------------------------------------------
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalize_key(key: str) -> str:
    """'productNames' -> 'product', 'p.smiles' -> 'smiles', ' Reaction_ID ' -> 'reaction_id'."""
    text = key.strip()
    if "." in text and "(" not in text:
        text = text.rsplit(".", 1)[1]
    text = _CAMEL.sub("_", text).lower()
    text = re.sub(r"[^a-z0-9]+", "_", text).strip("_")
    for suffix in ("_names", "_name", "names", "name"):
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)].rstrip("_")
            break
    return text or key.strip().lower()


def _stem_key(key: str) -> str:
    from nltk.stem import PorterStemmer

    stemmer = PorterStemmer()
    return "_".join(stemmer.stem(part) for part in key.split("_") if part)


@dataclass
class KeyMatch:
    gold: str
    predicted: str | None
    stage: str | None  # exact | stem | embedding | number | None


def match_keys(
    gold_keys: Sequence[str],
    predicted_keys: Sequence[str],
    embedder=None,
    threshold: float = EMBEDDING_THRESHOLD,
) -> list[KeyMatch]:
    """One predicted key per gold key (each used once): exact, then stem, then embedding
    similarity."""
    gold_norm = {g: normalize_key(g) for g in gold_keys}
    pred_norm = {p: normalize_key(p) for p in predicted_keys}
    free = list(predicted_keys)
    matches: dict[str, KeyMatch] = {}
    for stage, view in (("exact", lambda k: k), ("stem", _stem_key)):
        for g in gold_keys:
            if g in matches:
                continue
            target = view(gold_norm[g])
            for p in free:
                if view(pred_norm[p]) == target:
                    matches[g] = KeyMatch(g, p, stage)
                    free.remove(p)
                    break
    left = [g for g in gold_keys if g not in matches]
    if left and free:
        if embedder is None:
            from chemground.retrieval.embeddings import Embedder

            embedder = Embedder()
        gold_vec = embedder.encode([gold_norm[g].replace("_", " ") for g in left])
        pred_vec = embedder.encode([pred_norm[p].replace("_", " ") for p in free])
        sims = gold_vec @ pred_vec.T
        pairs = sorted(
            ((float(sims[i, j]), i, j) for i in range(len(left)) for j in range(len(free))),
            reverse=True,
        )
        used_g, used_p = set(), set()
        for sim, i, j in pairs:
            if sim < threshold:
                break
            if i in used_g or j in used_p:
                continue
            used_g.add(i)
            used_p.add(j)
            matches[left[i]] = KeyMatch(left[i], free[j], "embedding")
    return [matches.get(g, KeyMatch(g, None, None)) for g in gold_keys]


# -- values --------------------------------------------------------------------------------
def _norm_value(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else round(float(value), 2)
    if isinstance(value, str):
        text = value.strip()
        return text.lower() if text else None
    return None if value is None else str(value)


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [v for item in value for v in _flatten(item)]
    if isinstance(value, dict):
        for key in ("smiles", "id", "key", "name"):
            if value.get(key) is not None:
                return [_norm_value(value[key])]
        return []
    normalised = _norm_value(value)
    return [] if normalised is None else [normalised]


def expand_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Whole nodes returned as values become one column per property (``p`` -> ``p_smiles``...)."""
    out = []
    for row in rows:
        flat: dict[str, Any] = {}
        for key, value in row.items():
            if (
                isinstance(value, dict)
                and not is_path(value)
                and ("label" in value or "type" in value)
            ):
                for prop, v in value.items():
                    if prop not in ("label", "type"):
                        flat[f"{key}_{prop}"] = v
            else:
                flat[key] = value
        out.append(flat)
    return out


def value_sets(rows: list[dict[str, Any]]) -> dict[str, set[Any]]:
    sets: dict[str, set[Any]] = {}
    for row in rows:
        for key, value in row.items():
            sets.setdefault(key, set()).update(_flatten(value))
    return sets


def prf(predicted: set[Any], gold: set[Any]) -> tuple[float, float, float]:
    if not predicted and not gold:
        return 1.0, 1.0, 1.0
    hit = len(predicted & gold)
    precision = hit / len(predicted) if predicted else 0.0
    recall = hit / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


@dataclass
class RetrievalScore:
    precision: float
    recall: float
    f1: float
    per_key: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmatched_gold_keys: list[str] = field(default_factory=list)


def _single_numbers(
    matches: list[KeyMatch], gold_sets: dict[str, set[Any]], pred_sets: dict[str, set[Any]]
) -> bool:
    """True when one unmatched gold column and one predicted column both hold only numbers."""
    if len(matches) != 1 or matches[0].predicted is not None or len(pred_sets) != 1:
        return False
    values = [*gold_sets[matches[0].gold], *next(iter(pred_sets.values()))]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )


def retrieval_score(
    predicted_rows: list[dict[str, Any]],
    gold_rows: list[dict[str, Any]],
    gold_columns: Sequence[str] | None = None,
    skip_keys: Iterable[str] = (),
    embedder=None,
) -> RetrievalScore:
    """Macro-averaged per-key precision/recall/F1 of ``predicted_rows`` against ``gold_rows``."""
    gold_sets = value_sets(gold_rows)
    skip = set(skip_keys)
    gold_keys = [k for k in (gold_columns or list(gold_sets)) if k not in skip and gold_sets.get(k)]
    pred_rows = expand_rows(predicted_rows)
    pred_sets = value_sets(pred_rows)
    pred_keys = list(dict.fromkeys(k for row in pred_rows for k in row))
    if not gold_keys:
        return RetrievalScore(1.0, 1.0, 1.0) if not pred_rows else RetrievalScore(0.0, 1.0, 0.0)
    per_key: dict[str, dict[str, Any]] = {}
    unmatched = []
    matches = match_keys(gold_keys, pred_keys, embedder=embedder)
    if _single_numbers(matches, gold_sets, pred_sets):
        # One number on each side is the answer itself (a count), whatever its column is called:
        # ``count(DISTINCT r)`` and ``reaction_count`` name the same thing.
        matches = [KeyMatch(gold_keys[0], pred_keys[0], "number")]
    for match in matches:
        if match.predicted is None:
            unmatched.append(match.gold)
            per_key[match.gold] = {
                "matched": None,
                "stage": None,
                "precision": 0.0,
                "recall": 0.0,
                "f1": 0.0,
            }
            continue
        p, r, f = prf(pred_sets.get(match.predicted, set()), gold_sets[match.gold])
        per_key[match.gold] = {
            "matched": match.predicted,
            "stage": match.stage,
            "precision": p,
            "recall": r,
            "f1": f,
        }
    n = len(gold_keys)
    return RetrievalScore(
        sum(v["precision"] for v in per_key.values()) / n,
        sum(v["recall"] for v in per_key.values()) / n,
        sum(v["f1"] for v in per_key.values()) / n,
        per_key,
        unmatched,
    )


# -- paths ---------------------------------------------------------------------------------
def extract_paths(rows: list[dict[str, Any]], reaction_ids: set[str]) -> set[tuple[str, ...]]:
    """Ordered reaction-id paths in ``rows``: list columns, path values, or id columns in order."""
    paths: set[tuple[str, ...]] = set()
    for row in rows:
        found = None
        scalars = []
        for value in row.values():
            if is_path(value):
                found = tuple(
                    n["id"] for n in value["nodes"] if n.get("label") == "Reaction" and "id" in n
                )
                break
            if (
                isinstance(value, list)
                and value
                and all(isinstance(v, str) and v in reaction_ids for v in value)
            ):
                found = tuple(value)
                break
            if isinstance(value, str) and value in reaction_ids:
                scalars.append(value)
        if found is None and scalars:
            found = tuple(scalars)
        if found:
            paths.add(found)
    return paths


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def path_scores(predicted: set[tuple[str, ...]], gold: set[tuple[str, ...]]) -> dict[str, float]:
    p, r, f = prf(predicted, gold)
    partial = (
        sum(max((_lcs(g, q) / len(g) for q in predicted), default=0.0) for g in gold) / len(gold)
        if gold
        else 1.0
    )
    return {"path_precision": p, "path_recall": r, "path_f1": f, "partial_path_recall": partial}
