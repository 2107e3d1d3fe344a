"""Running the graph benchmark: predict a query per task, execute it, score it, classify its errors.

The prediction is either Text2Cypher with a real LLM or, as a sanity check, the reference
query itself (which must score 1.0 everywhere: it is how the gold answers were made).
The error taxonomy names what went wrong in a task:

- ``invalid_query``: the final query was refused, never compiled or failed;
- ``direction_violation``: the model's first query had an edge against the synthesis flow
  (fixed deterministically afterwards, but counted: it is the model's error);
- ``endpoint_anchoring``: a molecule named in the question is missing from the final query or
  attached to the wrong end of the pattern;
- ``missing_components``: a gold column has no counterpart in the answer;
- ``empty_result``: the query ran and returned nothing while the gold answer is not empty.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chemground.graph.backend import GraphBackend, GraphQueryError
from chemground.graph.bench.metrics import extract_paths, path_scores, retrieval_score, text_metrics
from chemground.graph.lexer import CypherSyntaxError
from chemground.graph.patterns import analyse, direction_issues
from chemground.graph.readonly import ReadOnlyViolation

ERROR_TYPES = (
    "invalid_query",
    "direction_violation",
    "endpoint_anchoring",
    "missing_components",
    "empty_result",
)
_ANCHOR_PROPS = ("smiles", "name", "inchikey", "key")


@dataclass
class Prediction:
    query: str
    rows: list[dict[str, Any]]
    ok: bool
    first_query: str = ""
    error: str | None = None
    error_kind: str | None = None
    corrections: int = 0
    direction_fixes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)


def _anchor_values(smiles: str) -> set[str]:
    """The literals that name an anchor: its SMILES and its InChIKey (the node key a linked
    query anchors on), lower case."""
    from chemground.chem.structure import try_structure_from_smiles

    structure = try_structure_from_smiles(smiles)
    values = {smiles.lower()}
    if structure is not None and structure.inchikey:
        values.add(structure.inchikey.lower())
    return values


def anchoring_problems(task: dict[str, Any], query: str) -> list[str]:
    """Anchors of the task that ``query`` leaves out or attaches to the wrong end of an edge."""
    try:
        patterns = analyse(query)
    except CypherSyntaxError:
        return ["query cannot be read"]
    problems = []
    for anchor in task.get("anchors", []):
        values = _anchor_values(str(anchor["value"]))
        bound = {
            var
            for var, prop, literal in patterns.anchors
            if prop in _ANCHOR_PROPS and str(literal).lower() in values
        }
        if not bound:
            problems.append(f"{anchor['slot']} {anchor['value']} is not in the query")
            continue
        placed = False
        for rel in patterns.rels:
            if anchor["rel_type"] not in rel.types:
                continue
            end = rel.source if anchor["end"] == "source" else rel.target
            if rel.direction == "none":
                ends = {rel.left.var, rel.right.var}
                placed = placed or bool(bound & ends)
            elif end is not None and end.var in bound:
                placed = True
        if not placed:
            problems.append(
                f"{anchor['slot']} is not on the {anchor['end']} of {anchor['rel_type']}"
            )
    return problems


def score_prediction(
    task: dict[str, Any], prediction: Prediction, reaction_ids: set[str], embedder=None
) -> dict[str, Any]:
    gold = task["gold"]
    scores: dict[str, Any] = {
        "id": task["id"],
        "task_type": task["task_type"],
        "level": task.get("level"),
        "ok": prediction.ok,
        "query": prediction.query,
        "error": prediction.error,
        "corrections": prediction.corrections,
        "seconds": round(prediction.seconds, 3),
    }
    scores.update(text_metrics(prediction.query, task["reference_cypher"]))
    errors: list[str] = []
    if not prediction.ok:
        errors.append("invalid_query")
        scores.update({"precision": 0.0, "recall": 0.0, "f1": 0.0})
    else:
        path_key = task.get("path_key")
        retrieval = retrieval_score(
            prediction.rows,
            gold["rows"],
            gold["columns"],
            skip_keys=[path_key] if path_key else [],
            embedder=embedder,
        )
        scores.update(
            {
                "precision": retrieval.precision,
                "recall": retrieval.recall,
                "f1": retrieval.f1,
                "per_key": retrieval.per_key,
            }
        )
        if retrieval.unmatched_gold_keys:
            errors.append("missing_components")
        if not prediction.rows and gold["rows"]:
            errors.append("empty_result")
    if task.get("path_key"):
        gold_paths = extract_paths(gold["rows"], reaction_ids)
        predicted = extract_paths(prediction.rows, reaction_ids) if prediction.ok else set()
        scores.update(path_scores(predicted, gold_paths))
        if prediction.ok and set(gold["columns"]) <= {task["path_key"]}:
            # The paths are the whole answer (routes of at most L steps): score the result by them,
            # not by the empty set of other columns.
            scores.update(
                {
                    "precision": scores["path_precision"],
                    "recall": scores["path_recall"],
                    "f1": scores["path_f1"],
                }
            )
    try:
        if direction_issues(prediction.first_query or prediction.query):
            errors.append("direction_violation")
    except CypherSyntaxError:
        pass
    if prediction.query and anchoring_problems(task, prediction.query):
        errors.append("endpoint_anchoring")
    scores["errors"] = errors
    scores["exact_answer"] = (
        prediction.ok and scores.get("f1") == 1.0 and scores.get("path_f1", 1.0) == 1.0
    )
    return scores


def prediction_of(result) -> Prediction:
    """What the benchmark scores of one Text2Cypher run (a ``Text2CypherResult``)."""
    return Prediction(
        result.query,
        result.rows,
        result.ok,
        first_query=result.first_query,
        error=result.error,
        error_kind=result.error_kind,
        corrections=result.corrections,
        direction_fixes=result.direction_fixes,
        seconds=result.seconds,
        usage=result.usage,
    )


def reference_prediction(graph: GraphBackend, task: dict[str, Any]) -> Prediction:
    """The sanity "model": the task's own reference query, executed."""
    try:
        result = graph.query(task["reference_cypher"], limit=100_000)
    except (GraphQueryError, ReadOnlyViolation) as error:
        return Prediction(
            task["reference_cypher"], [], False, error=str(error), error_kind="invalid"
        )
    return Prediction(
        task["reference_cypher"],
        result.rows,
        True,
        first_query=task["reference_cypher"],
        seconds=result.elapsed_ms / 1000,
    )


def all_reaction_ids(graph: GraphBackend) -> set[str]:
    return {
        row["id"] for row in graph.query("MATCH (r:Reaction) RETURN r.id AS id", limit=10**8).rows
    }


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def summarise(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """Means per task type, per level and overall, with error counts."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in scores:
        groups[item["task_type"]].append(item)
        groups[f"level:{item.get('level')}"].append(item)
        groups["all"].append(item)
    out = {}
    metrics = (
        "bleu",
        "meteor",
        "rouge_l",
        "precision",
        "recall",
        "f1",
        "path_precision",
        "path_recall",
        "path_f1",
        "partial_path_recall",
    )
    for name, items in groups.items():
        row: dict[str, Any] = {"n": len(items)}
        for metric in metrics:
            row[metric] = _mean([i[metric] for i in items if metric in i])
        row["exact_answer"] = _mean([float(i["exact_answer"]) for i in items])
        row["errors"] = {e: sum(e in i["errors"] for i in items) for e in ERROR_TYPES}
        out[name] = row
    return out


def run_benchmark(
    tasks: list[dict[str, Any]],
    graph: GraphBackend,
    predict: Callable[[dict[str, Any]], Prediction],
    progress=None,
    embedder=None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    reaction_ids = all_reaction_ids(graph)
    scores = []
    if progress:
        progress("tasks", 0, len(tasks))
    for task in tasks:
        scores.append(score_prediction(task, predict(task), reaction_ids, embedder=embedder))
        if progress:
            progress("tasks", 1, None)
    return scores, summarise(scores)
