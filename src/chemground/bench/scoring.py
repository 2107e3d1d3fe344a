"""Scoring answers of the table-RAG benchmark against standardised gold answers.

As published: ROUGE-L for names and descriptions, RDKit Tanimoto similarity for SMILES
answers, numeric match within a tolerance for weights and conditions. Names that resolve to
a structure are compared by structure first (an answer "ethyl acetate" for gold "EtOAc"
scores 1). Every score is in [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rouge_score import rouge_scorer

from chemground.chem.fingerprints import tanimoto
from chemground.chem.structure import structure_from_smiles
from chemground.errors import ChemgroundError
from chemground.retrieval.fuzzy import rouge_l

TOLERANCE = {
    "weight": ("abs", 0.1),  # g/mol
    "temperature": ("abs", 5.0),  # °C
    "time": ("rel", 0.10),
    "yield": ("abs", 5.0),  # percentage points
}
_ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)

Resolve = Callable[[str], str | None]  # name -> InChIKey, or None


def numeric_match(predicted: Any, gold: float, kind: str) -> float:
    try:
        value = float(predicted[0] if isinstance(predicted, list) else predicted)
    except (TypeError, ValueError, IndexError):
        return 0.0
    mode, tolerance = TOLERANCE[kind]
    limit = tolerance if mode == "abs" else tolerance * abs(gold)
    return 1.0 if abs(value - gold) <= limit + 1e-9 else 0.0


def smiles_similarity(a: str, b: str) -> float:
    """Tanimoto of two SMILES (1.0 for identical structures), 0 when one does not parse."""
    try:
        sa, sb = structure_from_smiles(a), structure_from_smiles(b)
    except ChemgroundError:
        return 0.0
    if sa.inchikey == sb.inchikey:
        return 1.0
    return tanimoto(sa.smiles, sb.smiles)


def best_match_f1(
    predicted: list[Any], gold: list[Any], similarity: Callable[[Any, Any], float]
) -> float:
    """Soft F1: mean best similarity of each gold item (recall) and each predicted item
    (precision)."""
    if not predicted or not gold:
        return 0.0
    matrix = [[similarity(p, g) for g in gold] for p in predicted]
    precision = sum(max(row) for row in matrix) / len(predicted)
    recall = sum(max(matrix[i][j] for i in range(len(predicted))) for j in range(len(gold))) / len(
        gold
    )
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def name_similarity(a: str, b: str, resolve: Resolve | None) -> float:
    if resolve is not None:
        ka, kb = resolve(a), resolve(b)
        if ka and kb:
            return 1.0 if ka == kb else 0.0
    return rouge_l(a.lower(), b.lower())


def text_rouge(predicted: str, gold: str) -> float:
    return _ROUGE.score(gold, predicted)["rougeL"].fmeasure


def score_answer(
    task: str,
    input_format: str,
    gold: dict[str, Any],
    value: Any,
    text: str,
    resolve: Resolve | None = None,
) -> float:
    """The score of one answer (its typed ``value`` and its ``text``) against the gold answer."""
    if value is None and not text:
        return 0.0
    if task in TOLERANCE:
        return numeric_match(value, gold["value"], task) if value is not None else 0.0
    if task in ("product", "reactant"):
        predicted = (
            value if isinstance(value, list) else ([value] if isinstance(value, str) else [])
        )
        predicted = [p for p in predicted if isinstance(p, str) and p]
        gold_smiles = gold.get("smiles") or []
        if task == "product":  # the main product must be among what was predicted
            return max(
                (smiles_similarity(p, g) for p in predicted for g in gold_smiles[:1]), default=0.0
            )
        return best_match_f1(predicted, gold_smiles, smiles_similarity)
    if task in ("solvent", "catalyst"):
        predicted = value if isinstance(value, list) else [str(value)] if value else []
        gold_names = gold.get("names") or []
        return best_match_f1(
            [str(p) for p in predicted], gold_names, lambda p, g: name_similarity(p, g, resolve)
        )
    if task == "name_conversion":
        if input_format == "iupac":  # name -> SMILES
            predicted = (
                value
                if isinstance(value, str)
                else (value[0] if isinstance(value, list) and value else "")
            )
            return smiles_similarity(predicted, gold["smiles"][0]) if predicted else 0.0
        predicted = str(value or text)
        return name_similarity(predicted, gold["text"], resolve)
    if task == "description":
        return text_rouge(str(value or text), gold["text"])
    if task == "formula":
        return 1.0 if str(value or text).replace(" ", "") == gold["text"] else 0.0
    if task == "synonyms":
        predicted = (value if isinstance(value, list) else [str(value or text)])[:5]
        gold_names = {n.lower() for n in gold["names"]}
        hits = sum(1 for p in predicted if str(p).lower() in gold_names)
        return hits / len(predicted) if predicted else 0.0
    raise ValueError(f"no scoring rule for task {task!r}")
