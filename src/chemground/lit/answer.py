"""Answers from papers: extractive snippets without an LLM, or a cited LLM answer.

Without an LLM the answer is the best-matching sentences of the top chunks, each with its
citation (document, page/section, character offsets), so nothing is said that the paper
does not say. With an LLM, the model sees the retrieved chunks labelled by id, must cite
the ids it uses, and must answer "Answer not available from the given context." when the
passages do not support an answer; citations of ids it was not given are rejected.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from chemground.evidence import Evidence
from chemground.lit.retriever import SearchResult
from chemground.llm.base import LLM
from chemground.llm.prompts import render

NOT_AVAILABLE = "Answer not available from the given context."
_CITATION = re.compile(r"\[(doc-[0-9a-f]+#\d+)\]")


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

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question, "answer": self.answer, "value": None if not self.supported else self.answer,
            "aspect": "literature", "method": self.method, "reasoner": self.method, "supported": self.supported,
            "citations": [self._citation(c) for c in self.citations],
            "evidence": [e.to_json() for e in self.evidence], "timings_ms": self.timings_ms,
            "usage": self.usage, "model": self.model, "notes": self.notes,
        }

    def _citation(self, chunk_id: str) -> dict[str, Any]:
        for e in self.evidence:
            if e.id == chunk_id:
                r = e.record
                return {"chunk_id": chunk_id, "document_id": r["document_id"], "title": r.get("title"),
                        "path": r.get("path"), "page": r.get("page"), "page_end": r.get("page_end"),
                        "section": r.get("section"), "start": r.get("snippet_start", r["start"]),
                        "end": r.get("snippet_end", r["end"]), "chunk_start": r["start"], "chunk_end": r["end"],
                        "location": r.get("location")}
        return {"chunk_id": chunk_id}


def citation_label(evidence: Evidence) -> str:
    r = evidence.record
    title = r.get("title") or r.get("path", "").rsplit("/", 1)[-1]
    return f"[{evidence.id}] {title}, {r.get('location')}"


def answer_extractive(question: str, result: SearchResult, snippets: int = 3) -> LitAnswer:
    """The best sentence window of each of the top chunks, cited."""
    evidence = result.evidence
    if not evidence:
        return LitAnswer(question, NOT_AVAILABLE, "extractive", [], [], False, dict(result.timings_ms),
                         notes=list(result.notes) + ["no passage matched the question"])
    chosen = evidence[:snippets]
    lines = [f"{' '.join(e.record['snippet'].split())} [{e.id}]" for e in chosen]
    return LitAnswer(question, "\n".join(lines), "extractive", evidence, [e.id for e in chosen], True,
                     dict(result.timings_ms), notes=list(result.notes))


class _LLMAnswer(BaseModel):
    answer: str
    citations: list[str] = Field(default_factory=list)
    supported: bool = True


def context_block(evidence: list[Evidence], max_chars: int = 2400) -> str:
    return "\n\n".join(f"[{e.id}] ({e.record.get('title') or 'untitled'}, {e.record.get('location')})\n"
                       f"{e.record['text'][:max_chars]}" for e in evidence)


def answer_with_llm(question: str, result: SearchResult, llm: LLM, context_k: int = 5) -> LitAnswer:
    evidence = result.evidence[:context_k]
    timings = dict(result.timings_ms)
    if not evidence:
        return LitAnswer(question, NOT_AVAILABLE, "llm", [], [], False, timings, model=llm.model,
                         notes=list(result.notes) + ["no passage matched the question; the LLM was not asked"])
    allowed = {e.id for e in evidence}

    def check(value: _LLMAnswer) -> _LLMAnswer:
        cited = list(dict.fromkeys([*value.citations, *_CITATION.findall(value.answer)]))
        unknown = [c for c in cited if c not in allowed]
        if unknown:
            raise ValueError(f"cited ids that were not given: {unknown}; cite only {sorted(allowed)}")
        if value.supported and not cited and value.answer.strip() != NOT_AVAILABLE:
            raise ValueError("a supported answer must cite at least one passage id in square brackets")
        value.citations = cited
        return value

    messages = [
        {"role": "system", "content": render("lit/answer_system")},
        {"role": "user", "content": render("lit/answer", question=question, context=context_block(evidence),
                                           not_available=NOT_AVAILABLE)},
    ]
    before = llm.ledger.snapshot()
    started = time.perf_counter()
    value, response = llm.chat_json(messages, schema=_LLMAnswer, check=check, temperature=0.0)
    timings["llm"] = round((time.perf_counter() - started) * 1000, 2)
    supported = value.supported and value.answer.strip() != NOT_AVAILABLE
    answer = value.answer.strip() if supported else NOT_AVAILABLE
    notes = list(result.notes)
    if not llm.is_real_model:
        notes.append("answer from a scripted test LLM, not a model")
    return LitAnswer(question, answer, "llm", result.evidence, value.citations if supported else [], supported,
                     timings, llm.ledger.since(before).to_dict(), response.model, notes)
