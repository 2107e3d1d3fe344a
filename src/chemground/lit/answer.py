"""Answers from papers: extractive snippets without an LLM, or a cited LLM answer.

Without an LLM the answer is the best-matching sentences of the top chunks, each with its
citation (document, page/section, character offsets), so nothing is said that the paper
does not say. With an LLM, the model sees the retrieved chunks labelled by id, must cite
the ids it uses, and must answer "Answer not available from the given context." when the
passages do not support an answer. Citations are validated and repaired (a model writes
"[doc-1a2b#0]" with brackets, the document id alone, a passage number); a reply whose citations
cannot be mapped to the passages given is re-asked once, then replaced by the extractive answer.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, field_validator

from chemground.chem.mentions import MentionFinder
from chemground.evidence import Evidence
from chemground.lit.retriever import SearchResult
from chemground.llm.base import LLM, LLMBadOutput, LLMDeadlineExceeded
from chemground.llm.prompts import render
from chemground.reasoning.answer import Answer
from chemground.reasoning.faithfulness import check_faithfulness, failed_check

NOT_AVAILABLE = "Answer not available from the given context."


@dataclass
class LitAnswer:
    question: str
    answer: str
    method: str  # extractive | llm
    evidence: list[Evidence]
    citations: list[str] = field(default_factory=list)
    supported: bool = True
    timings_ms: dict[str, float] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    notes: list[str] = field(default_factory=list)
    # the faithfulness report of an LLM answer (``reasoning.faithfulness``); None when extractive
    faithfulness: dict[str, Any] | None = None

    @property
    def faithful(self) -> bool:
        """Whether the faithfulness check found nothing unsupported (or did not run)."""
        return self.faithfulness is None or bool(self.faithfulness.get("supported"))

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "value": None if not self.supported else self.answer,
            "aspect": "literature",
            "method": self.method,
            "reasoner": self.method,
            "supported": self.supported,
            "citations": [self._citation(c) for c in self.citations],
            "evidence": [e.to_json() for e in self.evidence],
            "timings_ms": self.timings_ms,
            "usage": self.usage,
            "model": self.model,
            "notes": self.notes,
            "faithfulness": self.faithfulness,
        }

    def to_answer(self, retrieval: str | None = None) -> Answer:
        """The one ``Answer`` of ``chemground ask``, for ``lit ask --json`` and the API.

        Args:
            retrieval: the search method used (hybrid, bm25, ...), kept in the trace.

        Returns:
            An Answer with method ``lit``; the citations' places in the papers (document,
            page, character offsets) are in ``trace["citations"]``.
        """
        if not self.evidence:
            status = "no_evidence"
        elif not self.supported:
            status = "unsupported" if self.method == "llm" else "no_evidence"
        elif not self.faithful:
            status = "unsupported"
        else:
            status = "answered"
        trace: dict[str, Any] = {"citations": [self._citation(c) for c in self.citations]}
        if self.faithfulness is not None:
            trace["faithfulness"] = self.faithfulness
        if retrieval:
            trace["retrieval"] = {"method": retrieval}
        if self.model:
            trace["model"] = self.model
        return Answer(
            question=self.question,
            answer=self.answer,
            value=self.answer if self.supported else None,
            aspect="literature",
            status=status,
            evidence=self.evidence,
            citations=list(self.citations),
            method="lit",
            reasoner=self.method,
            timings_ms=dict(self.timings_ms),
            usage=dict(self.usage),
            notes=list(self.notes),
            trace=trace,
        )

    def _citation(self, chunk_id: str) -> dict[str, Any]:
        for e in self.evidence:
            if e.id == chunk_id:
                r = e.record
                return {
                    "chunk_id": chunk_id,
                    "document_id": r["document_id"],
                    "title": r.get("title"),
                    "path": r.get("path"),
                    "page": r.get("page"),
                    "page_end": r.get("page_end"),
                    "section": r.get("section"),
                    "start": r.get("snippet_start", r["start"]),
                    "end": r.get("snippet_end", r["end"]),
                    "chunk_start": r["start"],
                    "chunk_end": r["end"],
                    "location": r.get("location"),
                }
        return {"chunk_id": chunk_id}


def citation_label(evidence: Evidence) -> str:
    r = evidence.record
    title = r.get("title") or r.get("path", "").rsplit("/", 1)[-1]
    return f"[{evidence.id}] {title}, {r.get('location')}"


def answer_extractive(question: str, result: SearchResult, snippets: int = 3) -> LitAnswer:
    """The best sentence window of each of the top chunks, cited."""
    evidence = result.evidence
    if not evidence:
        return LitAnswer(
            question,
            NOT_AVAILABLE,
            "extractive",
            [],
            [],
            False,
            dict(result.timings_ms),
            notes=[*list(result.notes), "no passage matched the question"],
        )
    chosen = evidence[:snippets]
    lines = [f"{' '.join(e.record['snippet'].split())} [{e.id}]" for e in chosen]
    return LitAnswer(
        question,
        "\n".join(lines),
        "extractive",
        evidence,
        [e.id for e in chosen],
        True,
        dict(result.timings_ms),
        notes=list(result.notes),
    )


class _LLMAnswer(BaseModel):
    answer: str
    citations: list[str] = Field(default_factory=list)
    supported: bool = True

    @field_validator("citations", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        """A model may give one id as a string ("[doc-1#0]" or "doc-1#0, doc-1#2"): a list of
        them."""
        if isinstance(value, str):
            return [part for part in re.split(r"[,;\s]+", value) if part.strip()]
        if value is None:
            return []
        return value


# -- citations: what a model writes, mapped to the ids it was given
# ----------------------------------
#
# A model writes "[doc-3feffc5e69#0]" in the citation list (the brackets the prompt shows), quotes
# or
# spaces around it, a different case, the document id alone, or the passage's position ("[2]"). Each
# is mapped to a given id when exactly one fits; anything else is unknown. A fuzzy match (one or two
# characters off in the hex digest) is accepted only when it is unambiguous.

_BRACKETED = re.compile(r"\[([^\[\]\n]{1,200})\]")
_ID_LIKE = re.compile(r"doc[-_ ]?[0-9a-f]{4,}(?:\s*#\s*\d+)?", re.IGNORECASE)


def repair_citation(raw: str, allowed: list[str]) -> str | None:
    """The given id that ``raw`` (as the model wrote it) stands for, or None."""
    text = str(raw).strip().strip("[](){}<>\"'`*., ").strip()
    if not text:
        return None
    if text in allowed:
        return text
    folded = re.sub(r"\s+", "", text).lower().replace("doc_", "doc-").replace("doc ", "doc-")
    if folded.startswith("doc") and not folded.startswith("doc-"):
        folded = "doc-" + folded[3:]
    by_fold = {a.lower(): a for a in allowed}
    if folded in by_fold:
        return by_fold[folded]
    if re.fullmatch(r"#?\d{1,3}", folded):  # the passage's position in the context, 1-based
        position = int(folded.lstrip("#"))
        if folded.startswith("#"):  # "#3": the chunk number, when only one given chunk has it
            same = [a for a in allowed if a.endswith(f"#{position}")]
            return same[0] if len(same) == 1 else None
        return allowed[position - 1] if 1 <= position <= len(allowed) else None
    if "#" not in folded:  # the document alone: fine when one of its chunks was given
        same = [a for a in allowed if a.lower().split("#", 1)[0] == folded]
        return same[0] if len(same) == 1 else None
    from rapidfuzz import fuzz, process

    best = process.extract(folded, list(by_fold), scorer=fuzz.ratio, limit=2)
    if best and best[0][1] >= 90 and (len(best) == 1 or best[1][1] < best[0][1]):
        return by_fold[best[0][0]]
    return None


def repair_citations(
    answer: str, listed: list[str], allowed: list[str]
) -> tuple[str, list[str], list[str]]:
    """(answer text with its citations rewritten as ``[id]``, the ids cited, what could not be
    mapped).

    Citations come from the list and from bracketed ids in the text; a bracketed group may hold
    several ("[doc-1#0, doc-1#2]"). Bracketed text that does not look like a citation is left
    alone.
    """
    cited: list[str] = []
    unknown: list[str] = []

    def take(raw: str) -> str | None:
        fixed = repair_citation(raw, allowed)
        if fixed is None:
            if raw.strip() and raw.strip() not in unknown:
                unknown.append(raw.strip())
            return None
        if fixed not in cited:
            cited.append(fixed)
        return fixed

    def rewrite(match: re.Match) -> str:
        inner = match.group(1)
        parts = [p for p in re.split(r"[,;]\s*|\s+and\s+", inner) if p.strip()]
        looks_cited = all(
            _ID_LIKE.fullmatch(p.strip()) or re.fullmatch(r"#?\d{1,3}", p.strip()) for p in parts
        )
        if not parts or not (looks_cited or any(repair_citation(p, allowed) for p in parts)):
            return match.group(0)  # "[Cu(NH3)4]2+" and the like: not a citation
        fixed = [f for f in (take(p) for p in parts) if f]
        return "".join(f"[{f}]" for f in fixed)

    text = _BRACKETED.sub(rewrite, answer)
    for ref in _ID_LIKE.findall(
        text.replace("[", " ").replace("]", " ")
    ):  # ids written without brackets
        if repair_citation(ref, allowed) is None and ref not in unknown:
            unknown.append(ref)
    for raw in listed:
        take(raw)
    text = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    return text, cited, unknown


def context_block(evidence: list[Evidence], max_chars: int = 2400) -> str:
    return "\n\n".join(
        f"[{e.id}] ({e.record.get('title') or 'untitled'}, {e.record.get('location')})\n"
        f"{e.record['text'][:max_chars]}"
        for e in evidence
    )


def answer_with_llm(
    question: str,
    result: SearchResult,
    llm: LLM,
    context_k: int = 5,
    max_tokens: int = 512,
    finder: MentionFinder | None = None,
) -> LitAnswer:
    """A cited answer from the model, checked against the passages it was given.

    Citations are repaired (brackets, case, position, the document id alone) rather than
    refused; a reply whose citations cannot be mapped to the passages given is re-asked once,
    and if it is still unusable the extractive answer is returned, with a note saying why. The
    answer's numbers, structures and names must be in the passages given
    (``reasoning.faithfulness``); if not, its status is ``unsupported`` with a note per claim.

    Args:
        question: the question.
        result: the retrieved passages.
        llm: the model.
        context_k: how many passages the model is shown.
        max_tokens: the reply's completion limit.
        finder: the mention finder for compound names and SMILES in the answer (None: numbers
            and formulas only).

    Returns:
        The LitAnswer (method ``llm``, or ``extractive`` after a fallback).
    """
    evidence = result.evidence[:context_k]
    timings = dict(result.timings_ms)
    if not evidence:
        return LitAnswer(
            question,
            NOT_AVAILABLE,
            "llm",
            [],
            [],
            False,
            timings,
            model=llm.model,
            notes=[*list(result.notes), "no passage matched the question; the LLM was not asked"],
        )
    allowed = [e.id for e in evidence]
    repairs: list[str] = []

    def check(value: _LLMAnswer) -> _LLMAnswer:
        if value.answer.strip() == NOT_AVAILABLE or not value.supported:
            return value
        text, cited, unknown = repair_citations(value.answer, value.citations, allowed)
        if not cited:
            reason = (
                f"it cited ids that were not given: {unknown}" if unknown else "it cites no passage"
            )
            raise ValueError(
                f"a supported answer must cite the passages it uses, but {reason}; cite only "
                "these ids, "
                f"in square brackets: {', '.join(allowed)}"
            )
        if unknown:
            repairs.append(f"dropped citations that match no passage given: {unknown}")
        if text != value.answer.strip() or cited != value.citations:
            repairs.append("citations normalised to the passage ids")
        value.answer, value.citations = text, cited
        return value

    messages = [
        {"role": "system", "content": render("lit/answer_system")},
        {
            "role": "user",
            "content": render(
                "lit/answer",
                question=question,
                context=context_block(evidence),
                not_available=NOT_AVAILABLE,
            ),
        },
    ]
    before = llm.ledger.snapshot()
    started = time.perf_counter()
    notes = list(result.notes)
    if not llm.is_real_model:
        notes.append("answer from a scripted test LLM, not a model")
    try:
        with llm.answer_budget():
            value, response = llm.chat_json(
                messages, schema=_LLMAnswer, check=check, temperature=0.0, max_tokens=max_tokens
            )
    except (LLMBadOutput, LLMDeadlineExceeded) as error:
        timings["llm"] = round((time.perf_counter() - started) * 1000, 2)
        fallback = answer_extractive(question, result)
        fallback.timings_ms.update(timings)
        fallback.usage = llm.ledger.since(before).to_dict()
        fallback.model = llm.model
        fallback.notes = [
            *notes,
            f"the model's answer could not be used ({error}); the extractive answer is "
            "given instead",
        ]
        return fallback
    timings["llm"] = round((time.perf_counter() - started) * 1000, 2)
    supported = value.supported and value.answer.strip() != NOT_AVAILABLE
    answer = value.answer.strip() if supported else NOT_AVAILABLE
    notes += list(dict.fromkeys(repairs))
    report = None
    if supported:
        try:
            checked = check_faithfulness(answer, evidence, question=question, finder=finder)
        except Exception as error:  # the check must never lose the answer
            checked = failed_check(error)
        report = checked.to_json()
        notes += checked.notes()
    return LitAnswer(
        question,
        answer,
        "llm",
        result.evidence,
        value.citations if supported else [],
        supported,
        timings,
        llm.ledger.since(before).to_dict(),
        response.model,
        notes,
        report,
    )
