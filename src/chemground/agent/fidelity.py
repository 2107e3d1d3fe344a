"""Execution fidelity: run every gold step with the gold parameters and compare with the gold
return.

No LLM is involved: this measures the tools themselves (same parameter order, same return
conventions, same numbers). Steps whose gold return is null (all materials steps of the
benchmark) cannot be compared; for them we report whether the call runs, using stand-in
input files (see :mod:`chemground.agent.fixtures`) where the gold names files that do not
exist.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.agent.compare import DEFAULT_REL_TOL, compare_return, gold_is_error
from chemground.agent.dataset import BenchItem
from chemground.agent.registry import ToolContext
from chemground.agent.runner import ToolRunner


@dataclass
class StepOutcome:
    item_id: str
    index: int
    tool: str
    status: str  # match | mismatch | no_gold_ran | no_gold_failed | unknown_tool
    how: str = ""
    error_kind: str | None = None
    error: str | None = None
    elapsed_ms: float = 0.0
    gold: Any = None
    ours: Any = None
    fixtures: list[str] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        return self.status in ("match", "mismatch")


@dataclass
class ToolRow:
    tool: str
    steps: int = 0
    comparable: int = 0
    matched: int = 0
    error_agreement: int = 0
    ran: int = 0
    failures: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    @property
    def fidelity(self) -> float | None:
        return self.matched / self.comparable if self.comparable else None


@dataclass
class FidelityReport:
    outcomes: list[StepOutcome]
    rel_tol: float = DEFAULT_REL_TOL

    def rows(self) -> list[ToolRow]:
        rows: dict[str, ToolRow] = {}
        for o in self.outcomes:
            row = rows.setdefault(o.tool, ToolRow(o.tool))
            row.steps += 1
            row.latencies.append(o.elapsed_ms)
            if o.comparable:
                row.comparable += 1
                row.matched += o.status == "match"
                row.error_agreement += o.status == "match" and o.how == "error"
            if o.status in ("match", "no_gold_ran") and o.error_kind is None:
                row.ran += 1
            if o.error_kind:
                row.failures[o.error_kind] += 1
            if o.status in ("mismatch", "no_gold_failed", "unknown_tool"):
                row.reasons[_reason(o)] += 1
        return sorted(rows.values(), key=lambda r: r.tool)

    def summary(self) -> dict[str, Any]:
        comparable = [o for o in self.outcomes if o.comparable]
        matched = sum(o.status == "match" for o in comparable)
        offline = [o for o in comparable if o.error_kind == "offline"]
        no_gold = [o for o in self.outcomes if o.status.startswith("no_gold")]
        latencies = [
            o.elapsed_ms for o in self.outcomes if o.error_kind not in ("arguments", "not_found")
        ]
        return {
            "steps": len(self.outcomes),
            "comparable_steps": len(comparable),
            "matched": matched,
            "fidelity": matched / len(comparable) if comparable else None,
            "offline_unanswerable": len(offline),
            "fidelity_excluding_offline": (
                matched / (len(comparable) - len(offline))
                if len(comparable) > len(offline)
                else None
            ),
            "error_agreement": sum(o.status == "match" and o.how == "error" for o in comparable),
            "no_gold_steps": len(no_gold),
            "no_gold_ran": sum(o.status == "no_gold_ran" for o in no_gold),
            "latency_ms_median": statistics.median(latencies) if latencies else None,
            "latency_ms_p95": _percentile(latencies, 95) if latencies else None,
            "rel_tol": self.rel_tol,
        }


def _reason(o: StepOutcome) -> str:
    if o.error_kind:
        text = (o.error or "").split(";")[0]
        return f"{o.error_kind}: {text[:90]}"
    return o.how[:100]


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def run_fidelity(
    items: Sequence[BenchItem],
    runner: ToolRunner,
    *,
    rel_tol: float = DEFAULT_REL_TOL,
    use_fixtures: bool = True,
    progress: Callable[[int], None] | None = None,
) -> FidelityReport:
    """Execute each gold step with its gold parameters and compare."""
    from chemground.agent.fixtures import prepare_inputs

    context = ToolContext(settings=runner.settings, files_dir=runner.files_dir)
    outcomes: list[StepOutcome] = []
    for item in items:
        for index, step in enumerate(item.chain):
            if step.tool not in runner.registry:
                outcomes.append(
                    StepOutcome(item.id, index, step.tool, "unknown_tool", how="no such tool")
                )
                continue
            made: list[str] = []
            if use_fixtures and step.ret is None:
                made = prepare_inputs(context, runner.registry.get(step.tool), step.params)
            result = runner.call(step.tool, step.params)
            outcome = StepOutcome(
                item.id,
                index,
                step.tool,
                "",
                error_kind=result.error_kind,
                error=result.error,
                elapsed_ms=result.elapsed_ms,
                gold=step.ret,
                ours=result.value if result.ok else None,
                fixtures=made,
            )
            if step.ret is None:
                outcome.status = "no_gold_ran" if result.ok else "no_gold_failed"
            else:
                comparison = compare_return(step.ret, result.ok, result.value, rel_tol)
                outcome.status = "match" if comparison.match else "mismatch"
                outcome.how = comparison.how
            outcomes.append(outcome)
        if progress:
            progress(1)
    return FidelityReport(outcomes, rel_tol)


def report_markdown(
    report: FidelityReport, title: str, threshold: float = 0.9, examples: int = 1
) -> str:
    """Per-tool table; every tool under ``threshold`` is listed with its failure reasons."""
    s = report.summary()
    lines = [f"### {title}", ""]
    if s["comparable_steps"]:
        lines.append(
            f"- gold steps with a gold return: {s['comparable_steps']}; matched: {s['matched']} "
            f"(**{s['fidelity']:.3f}**), of which {s['error_agreement']} are agreed refusals of "
            "bad input"
        )
        lines.append(
            "- steps that need an online service we do not have offline: "
            f"{s['offline_unanswerable']}; "
            f"fidelity on the rest: {s['fidelity_excluding_offline']:.3f}"
            if s["fidelity_excluding_offline"] is not None
            else ""
        )
    if s["no_gold_steps"]:
        lines.append(
            f"- steps with a null gold return (not comparable): {s['no_gold_steps']}; our tool "
            "ran: "
            f"{s['no_gold_ran']} ({s['no_gold_ran'] / s['no_gold_steps']:.3f})"
        )
    lines.append(
        f"- tool-call latency (worker process, incl. IPC): median {s['latency_ms_median']:.1f} ms, "
        f"p95 {s['latency_ms_p95']:.1f} ms"
    )
    lines.append("")
    rows = report.rows()
    has_gold = any(r.comparable for r in rows)
    if has_gold:
        lines += [
            "| tool | steps | matched | fidelity | main reasons for misses |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for r in rows:
            if not r.comparable:
                continue
            flag = " ⚠" if (r.fidelity or 0) < threshold else ""
            reasons = "; ".join(f"{reason} (×{n})" for reason, n in r.reasons.most_common(3))
            lines.append(
                f"| {r.tool}{flag} | {r.comparable} | {r.matched} | {r.fidelity:.3f} | {reasons} |"
            )
    else:
        lines += [
            "| tool | steps | ran | ran share | main reasons for failures |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for r in rows:
            share = r.ran / r.steps if r.steps else 0
            reasons = "; ".join(f"{reason} (×{n})" for reason, n in r.reasons.most_common(3))
            lines.append(f"| {r.tool} | {r.steps} | {r.ran} | {share:.2f} | {reasons} |")
    return "\n".join(line for line in lines if line is not None) + "\n"


def by_status(report: FidelityReport) -> dict[str, int]:
    return dict(Counter(o.status for o in report.outcomes))


def failing_examples(report: FidelityReport, tool: str, n: int = 3) -> list[dict[str, Any]]:
    out = []
    for o in report.outcomes:
        if o.tool == tool and o.status not in ("match", "no_gold_ran"):
            out.append(
                {"item": o.item_id, "how": o.how, "error": o.error, "gold": o.gold, "ours": o.ours}
            )
            if len(out) >= n:
                break
    return out


__all__ = [
    "FidelityReport",
    "StepOutcome",
    "by_status",
    "failing_examples",
    "gold_is_error",
    "report_markdown",
    "run_fidelity",
]
