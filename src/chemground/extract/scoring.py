"""Scoring extracted reactions against gold records.

Compounds are matched one-to-one within a role: first by structure (the InChIKey after
resolution: gold SMILES where the dataset has them, else the resolved gold name), then, for
what is left, by normalised name, so a name no resolver knows can still count when it is
written the same way. Precision, recall and F1 are micro-averaged over all snippets. When a
snippet yields several predicted reactions, the one that best matches the gold (products
first) is scored. Temperature, time and yield count as right within a tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.names import normalize_name
from chemground.chem.structure import structure_from_smiles
from chemground.errors import StructureError
from chemground.extract.gold import GoldRecord
from chemground.extract.schema import EXTRACTED_ROLES, ExtractedReaction
from chemground.kb.records import Role

ROLES = tuple(role.value for role in EXTRACTED_ROLES)


@dataclass(frozen=True)
class Item:
    """A compound to match: its name and, when known, its InChIKey."""

    name: str
    key: str | None = None

    @property
    def norm(self) -> str:
        return normalize_name(self.name)


def match_count(gold: Sequence[Item], pred: Sequence[Item]) -> int:
    """Size of a one-to-one matching: equal InChIKeys first, then equal normalised names."""
    gold_left = list(gold)
    pred_left = list(pred)
    matched = 0
    for p in list(pred_left):
        if p.key is None:
            continue
        g = next((g for g in gold_left if g.key == p.key), None)
        if g is not None:
            gold_left.remove(g)
            pred_left.remove(p)
            matched += 1
    for p in list(pred_left):
        g = next((g for g in gold_left if g.norm and g.norm == p.norm), None)
        if g is not None:
            gold_left.remove(g)
            pred_left.remove(p)
            matched += 1
    return matched


def dedupe(items: Sequence[Item]) -> list[Item]:
    """One item per compound (same InChIKey, or same normalised name when no key)."""
    out: list[Item] = []
    for item in items:
        if any(
            (item.key and o.key == item.key) or (item.norm and o.norm == item.norm) for o in out
        ):
            continue
        out.append(item)
    return out


@dataclass
class PRF:
    tp: int = 0
    n_pred: int = 0
    n_gold: int = 0

    def add(self, tp: int, n_pred: int, n_gold: int) -> None:
        self.tp += tp
        self.n_pred += n_pred
        self.n_gold += n_gold

    @property
    def precision(self) -> float:
        return self.tp / self.n_pred if self.n_pred else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.n_gold if self.n_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "predicted": self.n_pred,
            "gold": self.n_gold,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass
class Tolerances:
    temperature_c: float = 5.0
    time_rel: float = 0.10
    time_abs_h: float = 0.1
    yield_points: float = 1.0

    def time_ok(self, pred: float, gold: float) -> bool:
        return abs(pred - gold) <= max(self.time_rel * abs(gold), self.time_abs_h)


@dataclass
class FieldAccuracy:
    gold: int = 0  # snippets whose gold has a value
    correct: int = 0  # ... and the prediction is within tolerance
    missing: int = 0  # ... and the prediction has none
    spurious: int = 0  # gold has none, the prediction has one

    @property
    def accuracy(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "gold": self.gold,
            "correct": self.correct,
            "missing": self.missing,
            "spurious": self.spurious,
            "accuracy": round(self.accuracy, 4),
        }


KeyOf = Callable[[str], "str | None"]  # name -> InChIKey (None when it does not resolve)


@dataclass
class Scoreboard:
    """Micro-averaged scores over many snippets."""

    tolerances: Tolerances = field(default_factory=Tolerances)
    roles: dict[str, PRF] = field(default_factory=lambda: {r: PRF() for r in ROLES})
    all_roles: PRF = field(default_factory=PRF)
    any_role: PRF = field(default_factory=PRF)  # role ignored: was the compound found at all?
    fields: dict[str, FieldAccuracy] = field(
        default_factory=lambda: {
            "temperature_c": FieldAccuracy(),
            "time_h": FieldAccuracy(),
            "yield_percent": FieldAccuracy(),
        }
    )
    snippets: int = 0
    with_prediction: int = 0
    multiple_predictions: int = 0

    def gold_items(self, gold: GoldRecord, role: str, key_of: KeyOf) -> list[Item]:
        items = []
        for c in gold.by_role(role):
            key = _smiles_key(c.smiles) if c.smiles else None
            name = c.name or c.smiles or ""
            if key is None and c.name:
                key = key_of(c.name)
            if name:
                items.append(Item(name, key))
        return dedupe(items)

    @staticmethod
    def pred_items(pred: ExtractedReaction | None, role: str, key_of: KeyOf) -> list[Item]:
        if pred is None:
            return []
        return dedupe([Item(name, key_of(name)) for name in getattr(pred, Role(role).field)])

    def best(
        self, gold: GoldRecord, preds: Sequence[ExtractedReaction], key_of: KeyOf
    ) -> int | None:
        """Index of the predicted reaction that matches the gold best (products, then all roles)."""
        if not preds:
            return None

        def quality(index: int) -> tuple[int, int, int]:
            tp = {
                r: match_count(
                    self.gold_items(gold, r, key_of), self.pred_items(preds[index], r, key_of)
                )
                for r in ROLES
            }
            return tp["product"], sum(tp.values()), -len(preds[index].names())

        return max(range(len(preds)), key=quality)

    def add(
        self, gold: GoldRecord, preds: Sequence[ExtractedReaction], key_of: KeyOf
    ) -> int | None:
        """Score one snippet; returns the index of the prediction scored (None when there was
        none)."""
        self.snippets += 1
        index = self.best(gold, preds, key_of)
        pred = preds[index] if index is not None else None
        if preds:
            self.with_prediction += 1
        if len(preds) > 1:
            self.multiple_predictions += 1
        all_gold: list[Item] = []
        all_pred: list[Item] = []
        for role in ROLES:
            g = self.gold_items(gold, role, key_of)
            p = self.pred_items(pred, role, key_of)
            tp = match_count(g, p)
            self.roles[role].add(tp, len(p), len(g))
            self.all_roles.add(tp, len(p), len(g))
            all_gold += g
            all_pred += p
        g_any, p_any = dedupe(all_gold), dedupe(all_pred)
        self.any_role.add(match_count(g_any, p_any), len(p_any), len(g_any))
        self._fields(gold, pred)
        return index

    def _fields(self, gold: GoldRecord, pred: ExtractedReaction | None) -> None:
        t = self.tolerances
        values = {
            "temperature_c": (
                gold.temperature_c,
                pred.conditions.temperature_c if pred else None,
                lambda p, g: abs(p - g) <= t.temperature_c,
            ),
            "time_h": (gold.time_h, pred.conditions.time_h if pred else None, t.time_ok),
            "yield_percent": (
                gold.yield_percent,
                pred.yield_percent if pred else None,
                lambda p, g: abs(p - g) <= t.yield_points,
            ),
        }
        for name, (g, p, ok) in values.items():
            acc = self.fields[name]
            if g is None:
                acc.spurious += int(p is not None)
            else:
                acc.gold += 1
                if p is None:
                    acc.missing += 1
                elif ok(p, g):
                    acc.correct += 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "snippets": self.snippets,
            "with_prediction": self.with_prediction,
            "multiple_predictions": self.multiple_predictions,
            "roles": {r: prf.to_dict() for r, prf in self.roles.items()},
            "all_roles": self.all_roles.to_dict(),
            "any_role": self.any_role.to_dict(),
            "fields": {k: v.to_dict() for k, v in self.fields.items()},
            "tolerances": self.tolerances.__dict__,
        }


def _smiles_key(smiles: str) -> str | None:
    try:
        return structure_from_smiles(smiles).inchikey
    except StructureError:
        return None
