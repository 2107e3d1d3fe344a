"""The extraction benchmark: LLM runs scored against gold, and the validation ceiling on gold.

``run_extraction_bench`` sends gold paragraphs through the real pipeline (both LLM stages,
journal, validation) and scores the checked records, and the stage-1 records for comparison,
against the gold. ``gold_ceiling`` needs no LLM: it runs the validation stage on the gold
records themselves, which bounds what any extraction can keep on this data.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from chemground.chem.structure import structure_from_smiles
from chemground.errors import StructureError
from chemground.extract.gold import GoldRecord
from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import VALID, ExtractionRun, ExtractOptions, RecordResult
from chemground.extract.resolve import ExtractedNameResolver
from chemground.extract.schema import EXTRACTED_ROLES, ExtractedReaction
from chemground.extract.scoring import ROLES, Scoreboard, Tolerances
from chemground.extract.validate import UNRESOLVED, validate_reaction
from chemground.kb.importers.base import is_generic_name
from chemground.kb.records import Role
from chemground.llm.base import LLM


def _key_of(lookup: ExtractedNameResolver) -> Callable[[str], str | None]:
    def key_of(name: str) -> str | None:
        check = lookup.resolve(name)
        return check.structure.inchikey if check.structure is not None else None

    return key_of


def run_extraction_bench(
    records: Sequence[GoldRecord],
    extract_llm: LLM,
    check_llm: LLM,
    lookup: ExtractedNameResolver,
    journal: RunJournal,
    options: ExtractOptions | None = None,
    tolerances: Tolerances | None = None,
    progress=None,
) -> dict[str, Any]:
    """Extract, check and validate every gold paragraph, then score against the gold."""
    run = ExtractionRun(extract_llm, check_llm, lookup, journal, options, progress)
    result = run.run([r.snippet() for r in records])
    by_snippet: dict[str, list[RecordResult]] = defaultdict(list)
    for record in result.records:
        by_snippet[record.snippet.doc_id].append(record)
    key_of = _key_of(lookup)
    checked, stage1 = Scoreboard(tolerances or Tolerances()), Scoreboard(tolerances or Tolerances())
    survived = 0
    for gold in records:
        results = sorted(by_snippet.get(gold.id, []), key=lambda r: r.index)
        finals = [r for r in results if r.final is not None]
        index = checked.add(gold, [r.final for r in finals], key_of)  # type: ignore[misc]
        if index is not None and finals[index].status == VALID:
            survived += 1
        stage1.add(gold, [r.extracted for r in results], key_of)
    n = len(records)
    return {
        "dataset": records[0].dataset if records else "",
        "snippets": n,
        "extract_model": extract_llm.model,
        "check_model": check_llm.model,
        "real_models": extract_llm.is_real_model and check_llm.is_real_model,
        "checked": checked.to_dict(),
        "stage1": stage1.to_dict(),
        "survived": survived,
        "survival_rate": round(survived / n, 4) if n else 0.0,
        "counts": result.counts.to_dict(),
        "usage": result.usage_dict(),
        "interrupted": result.interrupted,
        "seconds": round(result.seconds, 2),
    }


def gold_as_extraction(gold: GoldRecord) -> ExtractedReaction:
    """The gold record in the extraction schema (names only; name-less gold components are skipped).

    Built without the schema's name validators: gold names include labels ("title compound")
    and the point is to see how the validation stage treats them.
    """
    roles: dict[str, list[str]] = {role.field: [] for role in EXTRACTED_ROLES}
    for c in gold.compounds:
        if c.name and c.name not in roles[Role(c.role).field]:
            roles[Role(c.role).field].append(c.name)
    return ExtractedReaction.model_construct(
        **roles,
        operations=[],
        remark="",
        yield_percent=gold.yield_percent,
        conditions=ExtractedReaction.model_fields["conditions"].default_factory(),
    )


def gold_ceiling(
    records: Sequence[GoldRecord],
    lookup: ExtractedNameResolver,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The validation stage run on gold names: what share resolves, and what the filter would
    keep."""
    started = time.perf_counter()
    # Resolve every distinct name once, in bulk (OPSIN is asked in batches).
    lookup.resolve_many(dict.fromkeys(c.name for r in records for c in r.compounds if c.name))
    resolve_seconds = time.perf_counter() - started
    mentions: dict[str, Counter] = {role: Counter() for role in ROLES}
    distinct: dict[str, dict[str, bool]] = {role: {} for role in ROLES}
    sources: Counter = Counter()
    reasons: Counter = Counter()
    warnings: Counter = Counter()
    agreement: Counter = Counter()
    all_resolved = kept = element_checked = 0
    for done, gold in enumerate(records, start=1):
        for c in gold.compounds:
            m = mentions[c.role]
            m["total"] += 1
            if not c.name:
                m["no_name"] += 1
                continue
            check = lookup.resolve(c.name)
            distinct[c.role][c.name] = check.resolved
            if is_generic_name(c.name):
                m["label"] += 1
            if check.resolved:
                m["resolved"] += 1
                sources[check.source] += 1
                if c.smiles and check.structure is not None:
                    _agree(agreement, c.smiles, check.structure.inchikey)
        validation = validate_reaction(gold_as_extraction(gold), lookup)
        has_nameless = any(not c.name for c in gold.compounds)
        if not validation.unresolved_names and not has_nameless:
            all_resolved += 1
        if validation.valid and not has_nameless:
            kept += 1
        for reason in validation.reasons:
            reasons[reason] += 1
        if has_nameless:
            reasons["gold component without a name"] += 1
        for warning in validation.warnings:
            warnings[warning] += 1
        if UNRESOLVED not in validation.reasons and not has_nameless:
            element_checked += 1
        if progress:
            progress(done)
    n = len(records)
    per_role = {}
    for role in ROLES:
        m = mentions[role]
        d = distinct[role]
        per_role[role] = {
            "mentions": m["total"],
            "resolved": m["resolved"],
            "share": round(m["resolved"] / m["total"], 4) if m["total"] else 0.0,
            "labels": m["label"],
            "no_name": m["no_name"],
            "distinct_names": len(d),
            "distinct_resolved": sum(d.values()),
            "distinct_share": round(sum(d.values()) / len(d), 4) if d else 0.0,
        }
    return {
        "dataset": records[0].dataset if records else "",
        "reactions": n,
        "roles": per_role,
        "all_participants_resolved": all_resolved,
        "all_resolved_share": round(all_resolved / n, 4) if n else 0.0,
        "kept_by_filter": kept,
        "kept_share": round(kept / n, 4) if n else 0.0,
        "reasons": dict(reasons.most_common()),
        "warnings": dict(warnings),
        "sources": dict(sources.most_common()),
        "element_checked": element_checked,
        "structure_agreement": dict(agreement) if agreement else None,
        "unresolved_examples": _unresolved_examples(records, lookup),
        "seconds": round(time.perf_counter() - started, 2),
        "resolve_seconds": round(resolve_seconds, 2),
    }


def _agree(counter: Counter, smiles: str, key: str) -> None:
    try:
        gold_key = structure_from_smiles(smiles).inchikey
    except StructureError:
        counter["gold_smiles_invalid"] += 1
        return
    counter["compared"] += 1
    if gold_key == key:
        counter["same_inchikey"] += 1
    elif gold_key[:14] == key[:14]:
        counter["same_skeleton_only"] += 1
    else:
        counter["different"] += 1


def _unresolved_examples(
    records: Sequence[GoldRecord], lookup: ExtractedNameResolver, top: int = 15
) -> dict[str, list]:
    out: dict[str, Counter] = {role: Counter() for role in ROLES}
    for gold in records:
        for c in gold.compounds:
            if c.name and not lookup.resolve(c.name).resolved:
                out[c.role][c.name] += 1
    return {role: counter.most_common(top) for role, counter in out.items()}
