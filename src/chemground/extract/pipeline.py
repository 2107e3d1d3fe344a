"""The extraction run: snippets -> (extract, check) with concurrent LLM calls -> validation -> KB.

Each snippet is worked on by one thread (stage 1, then stage 2 for each record); the number
of threads is the concurrency limit, and the OpenAI-compatible client caps requests as well.
Finished snippets go to the run journal at once, so an interrupted run resumes where it
stopped. Validation (structures, element checks) runs in the calling thread as results
arrive, so the counts shown while running are final. Storing goes through the import engine
(``run_import``), which gives extracted reactions the same identity, idempotency and
all-or-nothing writes as file imports.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json
from chemground.chem.names import NameResolver
from chemground.errors import ChemgroundError
from chemground.extract.journal import RunJournal, SnippetOutcome, run_fingerprint, snippet_key
from chemground.extract.resolve import ExtractedNameResolver
from chemground.extract.schema import ExtractedReaction
from chemground.extract.snippets import Snippet
from chemground.extract.stages import MeteredLLM, check_reaction, extract_reactions, prompts_text
from chemground.extract.validate import (
    ELEMENT_MISMATCH,
    INCOMPLETE,
    UNRESOLVED,
    Validation,
    validate_reaction,
)
from chemground.kb.importers.base import (
    ImportSummary,
    RawParticipant,
    RawReaction,
    content_id,
    run_import,
)
from chemground.kb.records import Conditions, Role
from chemground.kb.store import KnowledgeBase
from chemground.llm.base import LLM, LLMBadOutput, LLMError, LLMUnavailable, Usage

# Record statuses
VALID = "valid"
INVALID = "invalid"
CHECK_REJECTED = "check_rejected"
CHECK_FAILED = "check_failed"


@dataclass
class ExtractOptions:
    concurrency: int = 4
    json_mode: bool = True
    max_tokens: int | None = None
    check: bool = True  # stage 2; off only for experiments (the CLI always checks)


@dataclass
class RunCounts:
    """Live counts of a run (shown in the progress bar and the summary)."""

    snippets: int = 0
    done: int = 0
    resumed: int = 0
    extracted: int = 0
    no_reaction: int = 0
    checked: int = 0
    corrected: int = 0
    valid: int = 0
    invalid: Counter = field(default_factory=Counter)
    failed: Counter = field(default_factory=Counter)
    warnings: Counter = field(default_factory=Counter)

    def line(self) -> str:
        invalid = ", ".join(f"{k} {v}" for k, v in self.invalid.most_common()) or "0"
        text = (
            f"extracted {self.extracted} · checked {self.checked} (corrected {self.corrected}) · "
            f"valid {self.valid} · invalid: {invalid}"
        )
        if self.failed:
            text += " · failed: " + ", ".join(f"{k} {v}" for k, v in self.failed.most_common())
        return text

    def to_dict(self) -> dict[str, Any]:
        """The counts for ``extract run --json`` and the benchmark record: the fields, each
        Counter as a plain dict (``fields_json``)."""
        return fields_json(self)


@dataclass
class RecordResult:
    """One extracted record after the check and validation stages."""

    snippet: Snippet
    index: int
    extracted: ExtractedReaction
    check: dict[str, Any] | None
    final: ExtractedReaction | None
    validation: Validation | None
    status: str
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "snippet_id": self.snippet.id,
            "document_id": self.snippet.doc_id,
            "record": self.index,
            "status": self.status,
            "reasons": self.reasons,
            "extracted": self.extracted.model_dump(),
            "check": self.check,
            "final": self.final.model_dump() if self.final else None,
            "validation": self.validation.to_dict() if self.validation else None,
        }


@dataclass
class RunResult:
    counts: RunCounts
    records: list[RecordResult]
    usage: dict[str, Usage]  # spent in this run, per stage
    resumed_usage: dict[
        str, Usage
    ]  # spent by earlier runs on the snippets resumed from the journal
    interrupted: bool = False
    seconds: float = 0.0

    def usage_dict(self) -> dict[str, Any]:
        total = Usage()
        for usage in list(self.usage.values()) + list(self.resumed_usage.values()):
            total.add(usage)
        return {
            "this_run": {k: v.to_dict() for k, v in self.usage.items()},
            "resumed_from_journal": {k: v.to_dict() for k, v in self.resumed_usage.items()},
            "total": total.to_dict(),
        }


# Called with the running counts after each snippet (the CLI's live table).
CountsReport = Callable[[RunCounts], None]


class ExtractionRun:
    """One extraction run over snippets (see the module docstring)."""

    def __init__(
        self,
        extract_llm: LLM,
        check_llm: LLM,
        lookup: ExtractedNameResolver,
        journal: RunJournal,
        options: ExtractOptions | None = None,
        progress: CountsReport | None = None,
    ) -> None:
        self.extract_llm = MeteredLLM(extract_llm)
        self.check_llm = MeteredLLM(check_llm)
        self.lookup = lookup
        self.journal = journal
        self.options = options or ExtractOptions()
        self.progress = progress
        self.fingerprint = run_fingerprint(
            extract_llm.model, check_llm.model if self.options.check else "-", prompts_text()
        )
        self.counts = RunCounts()
        self.records: list[RecordResult] = []
        self._resumed_usage = {"extract": Usage(), "check": Usage()}
        self.last_error = ""

    # -- the LLM stages (worker threads) --------------------------------------------------------
    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"json_mode": self.options.json_mode}
        if self.options.max_tokens:
            params["max_tokens"] = self.options.max_tokens
        return params

    def process_snippet(self, snippet: Snippet) -> SnippetOutcome:
        """Stage 1 and 2 for one snippet. LLMBadOutput is an outcome; other LLM errors propagate."""
        outcome = SnippetOutcome(snippet.id, snippet.doc_id, "extracted")
        with self.extract_llm.measure() as spent:
            try:
                reactions, _ = extract_reactions(self.extract_llm, snippet, **self._params())
            except LLMBadOutput as error:
                reactions, outcome.status, outcome.error = [], "extract_failed", str(error)
        outcome.usage["extract"] = spent.to_dict()
        if outcome.status == "extracted" and not reactions:
            outcome.status = "no_reaction"
        with self.check_llm.measure() as spent:
            for reaction in reactions:
                entry: dict[str, Any] = {"extracted": reaction.model_dump(), "check": None}
                if self.options.check:
                    try:
                        result, _ = check_reaction(
                            self.check_llm, snippet, reaction, **self._params()
                        )
                        entry["check"] = result.model_dump()
                    except LLMBadOutput as error:
                        entry["check"] = {
                            "verdict": "failed",
                            "reaction": None,
                            "issues": [str(error)],
                        }
                outcome.records.append(entry)
        outcome.usage["check"] = spent.to_dict()
        return outcome

    # -- validation (calling thread) ------------------------------------------------------------
    def _absorb(self, snippet: Snippet, outcome: SnippetOutcome, resumed: bool) -> None:
        c = self.counts
        c.done += 1
        if resumed:
            c.resumed += 1
            for stage, usage in outcome.usage.items():
                self._resumed_usage.setdefault(stage, Usage()).add(Usage(**usage_fields(usage)))
        if outcome.status == "extract_failed":
            c.failed["extract_failed"] += 1
        elif outcome.status == "no_reaction":
            c.no_reaction += 1
        for index, entry in enumerate(outcome.records):
            c.extracted += 1
            extracted = ExtractedReaction.model_validate(entry["extracted"])
            check = entry.get("check")
            result = RecordResult(snippet, index, extracted, check, None, None, VALID)
            if check is None:
                result.final = extracted
            elif check["verdict"] == "failed":
                c.failed[CHECK_FAILED] += 1
                result.status, result.reasons = CHECK_FAILED, [CHECK_FAILED]
            else:
                c.checked += 1
                if check["verdict"] == "rejected":
                    result.status, result.reasons = CHECK_REJECTED, [CHECK_REJECTED]
                    c.invalid[CHECK_REJECTED] += 1
                else:
                    c.corrected += int(check["verdict"] == "corrected")
                    result.final = ExtractedReaction.model_validate(check["reaction"])
            if result.final is not None:
                result.validation = validate_reaction(result.final, self.lookup)
                for warning in result.validation.warnings:
                    c.warnings[warning] += 1
                if result.validation.valid:
                    c.valid += 1
                else:
                    result.status, result.reasons = INVALID, list(result.validation.reasons)
                    for reason in result.reasons:
                        c.invalid[reason] += 1
            self.records.append(result)
        if self.progress:
            self.progress(self.counts)

    # -- the run ----------------------------------------------------------------------------------
    def run(self, snippets: Iterable[Snippet]) -> RunResult:
        started = time.perf_counter()
        todo: list[tuple[str, Snippet]] = []
        seen: set[str] = set()
        for snippet in snippets:
            key = snippet_key(snippet, self.fingerprint)
            if key not in seen:
                seen.add(key)
                todo.append((key, snippet))
        self.counts.snippets = len(todo)
        if self.progress:
            self.progress(self.counts)
        pending: list[tuple[str, Snippet]] = []
        for key, snippet in todo:
            outcome = self.journal.get(key)
            if outcome is None:
                pending.append((key, snippet))
            else:
                self._absorb(snippet, outcome, resumed=True)
        interrupted = self._run_pending(pending)
        # concurrent calls finish in any order: the records follow the snippets' input order,
        # so the review file and the store are the same from run to run
        position = {id(snippet): i for i, (_, snippet) in enumerate(todo)}
        self.records.sort(key=lambda r: (position.get(id(r.snippet), len(todo)), r.index))
        return RunResult(
            self.counts,
            self.records,
            {
                "extract": self.extract_llm.ledger.snapshot(),
                "check": self.check_llm.ledger.snapshot(),
            },
            self._resumed_usage,
            interrupted,
            time.perf_counter() - started,
        )

    def _run_pending(self, pending: list[tuple[str, Snippet]]) -> bool:
        """Work through ``pending``; returns True when interrupted (Ctrl-C) before the end."""
        if not pending:
            return False
        workers = max(1, self.options.concurrency)
        queue = list(reversed(pending))
        running: dict[Future, tuple[str, Snippet]] = {}
        interrupted = False
        fatal: BaseException | None = None
        executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="extract")
        try:
            while queue or running:
                while queue and len(running) < workers * 2 and not interrupted and fatal is None:
                    key, snippet = queue.pop()
                    running[executor.submit(self.process_snippet, snippet)] = (key, snippet)
                if not running:
                    break
                try:
                    done, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                except KeyboardInterrupt:
                    if interrupted:  # a second Ctrl-C: abandon the calls in flight
                        raise
                    interrupted = True
                    for future in list(running):
                        if future.cancel():
                            running.pop(future)
                    continue
                for future in done:
                    key, snippet = running.pop(future)
                    try:
                        outcome = future.result()
                    except LLMUnavailable as error:
                        fatal = fatal or error
                        for other in list(running):
                            if other.cancel():
                                running.pop(other)
                        continue
                    except (
                        LLMError
                    ) as error:  # a transient failure after retries: retried on the next run
                        self.counts.failed["llm_error"] += 1
                        self.counts.done += 1
                        self.last_error = str(error)
                        if self.progress:
                            self.progress(self.counts)
                        continue
                    except Exception as error:
                        # any other failure ends the run, but only after the snippets already
                        # finished (in this same batch, under load) are in the journal
                        fatal = fatal or error
                        for other in list(running):
                            if other.cancel():
                                running.pop(other)
                        continue
                    self.journal.put(key, outcome)
                    self._absorb(snippet, outcome, resumed=False)
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
        if fatal is not None:
            raise fatal
        return interrupted


def usage_fields(data: dict[str, Any]) -> dict[str, Any]:
    """Usage constructor arguments from ``Usage.to_dict()`` output."""
    return {
        k: data.get(k, 0)
        for k in (
            "prompt_tokens",
            "completion_tokens",
            "calls",
            "cached_calls",
            "cost_usd",
            "latency_s",
        )
    } | {"estimated": bool(data.get("estimated"))}


# -- storing
# ----------------------------------------------------------------------------------------


@dataclass
class StoreOptions:
    dataset: str = "llm-extraction"
    keep_unresolved: bool = False
    keep_implausible: bool = False


def storable(record: RecordResult, options: StoreOptions) -> bool:
    """Valid records always; invalid ones only for the reasons the user chose to keep."""
    if record.status == VALID:
        return True
    if record.status != INVALID or record.validation is None:
        return False
    allowed = {UNRESOLVED} if options.keep_unresolved else set()
    if options.keep_implausible:
        allowed.add(ELEMENT_MISMATCH)
    return INCOMPLETE not in record.reasons and set(record.reasons) <= allowed


def raw_reaction(
    record: RecordResult, extract_model: str, check_model: str, dataset: str
) -> RawReaction:
    """The import engine's row for one record: resolved structures go in as SMILES with their
    names."""
    assert record.final is not None and record.validation is not None
    final, validation, snippet = record.final, record.validation, record.snippet
    participants = [
        RawParticipant(role=Role(c.role), name=c.name, smiles=c.smiles)
        for c in validation.compounds
    ]
    reaction_smiles = None
    if all(c.smiles for c in validation.compounds):

        def side(roles: tuple[str, ...]) -> str:
            return ".".join(c.smiles for c in validation.compounds if c.role in roles)  # type: ignore[misc]

        reaction_smiles = (
            f"{side(('reactant',))}>{side(('catalyst', 'solvent'))}>{side(('product',))}"
        )
    key = json.dumps(final.model_dump(), sort_keys=True)
    return RawReaction(
        participants=participants,
        id=content_id("extract", snippet.doc_id, snippet.text_hash, record.index, key),
        source=snippet.doc_id,
        dataset=dataset,
        title=snippet.title,
        description=snippet.text,
        reaction_smiles=reaction_smiles,
        conditions=Conditions(
            temperature_c=final.conditions.temperature_c,
            time_h=final.conditions.time_h,
            ph=final.conditions.ph,
        ),
        yield_percent=final.yield_percent,
        operations=[{"details": step} for step in final.operations],
        notes=final.remark,
        provenance={
            "document_id": snippet.doc_id,
            "snippet_id": snippet.id,
            "snippet_source": snippet.source,
            "extract_model": extract_model,
            "check_model": check_model,
            "check": {k: v for k, v in (record.check or {}).items() if k != "reaction"},
            "validation": {
                "reasons": validation.reasons,
                "warnings": validation.warnings,
                "messages": validation.messages,
            },
        },
    )


def write_records(path: Path, records: list[RecordResult]) -> None:
    """Every record with its status, reasons and resolved compounds (JSON Lines, for review)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.writelines(
            json.dumps(record.to_dict(), ensure_ascii=False) + "\n" for record in records
        )
    tmp.replace(path)


def store_records(
    kb: KnowledgeBase,
    resolver: NameResolver,
    records: list[RecordResult],
    *,
    records_path: Path,
    extract_model: str,
    check_model: str,
    options: StoreOptions | None = None,
    progress=None,
) -> ImportSummary:
    """Store the storable records in one transaction through the import engine.

    Records kept despite an implausible element balance get a flag saying so, in the same
    transaction (the engine itself flags unresolved participants).
    """
    options = options or StoreOptions()
    chosen = [r for r in records if storable(r, options)]
    rows = [raw_reaction(r, extract_model, check_model, options.dataset) for r in chosen]
    implausible = {
        row.id: r.validation.messages
        for row, r in zip(rows, chosen)
        if r.validation is not None and ELEMENT_MISMATCH in r.validation.reasons
    }
    if not records_path.exists():
        raise ChemgroundError(
            f"{records_path} is missing: write the run's records before storing them"
        )
    with kb.transaction():
        before = {rid for rid in implausible if kb.has_reaction(rid)}
        summary = run_import(
            kb, rows, path=records_path, fmt="llm-extraction", resolver=resolver, progress=progress
        )
        for reaction_id, messages in implausible.items():
            if reaction_id in before:
                continue
            flags = kb.reaction_flags(reaction_id)
            flags += [f"implausible: {m}" for m in messages if "contains" in m]
            kb.set_reaction_flags(reaction_id, flags)
    return summary
