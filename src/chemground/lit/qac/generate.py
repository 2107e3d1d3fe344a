"""One chunk through the QAC chain: usefulness, reasoning types, one question per type,
context alignment, difficulty, judge scores and penalised semantic entropy.

Every step is one prompt (``llm/prompts/lit/qac_*.txt``, our own wording) answered as JSON
and validated; a step whose reply stays unusable after the client's one re-ask drops that
question with the reason recorded, never silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, field_validator

from chemground.agent.jsonsafe import fields_json
from chemground.lit.qac.filters import (
    cluster_by_entailment,
    penalised_semantic_entropy,
    semantic_entropy,
)
from chemground.lit.qac.schema import DIFFICULTIES, REASONING_TYPES
from chemground.lit.sentences import sentence_spans
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render

_INTERROGATIVES = ("what", "why", "how", "which", "when", "where", "who", "whom", "whose")


# -- reply shapes ---------------------------------------------------------------------------------
class Usefulness(BaseModel):
    useful: bool
    reason: str = ""
    topic: list[str] = Field(default_factory=list)


class ReasoningTypes(BaseModel):
    types: list[str] = Field(default_factory=list)

    @field_validator("types")
    @classmethod
    def known(cls, value: list[str]) -> list[str]:
        by_lower = {t.lower(): t for t in REASONING_TYPES}
        unknown = [v for v in value if v.strip().lower() not in by_lower]
        if unknown:
            raise ValueError(
                f"unknown reasoning types {unknown}; choose from {list(REASONING_TYPES)}"
            )
        return list(dict.fromkeys(by_lower[v.strip().lower()] for v in value))


class Generated(BaseModel):
    question: str | None = None
    answer: str | None = None
    context: list[str] = Field(default_factory=list)


class Difficulty(BaseModel):
    difficulty: str

    @field_validator("difficulty")
    @classmethod
    def known(cls, value: str) -> str:
        match = {d.lower(): d for d in DIFFICULTIES}.get(value.strip().lower())
        if match is None:
            raise ValueError(f"difficulty must be one of {list(DIFFICULTIES)}")
        return match


class Score(BaseModel):
    score: float
    reason: str = ""

    @field_validator("score")
    @classmethod
    def unit(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("score must be between 0 and 1")
        return value


class Sampled(BaseModel):
    answer: str


class Entailment(BaseModel):
    entails: bool
    contradicts: bool = False


# -- alignment
# ----------------------------------------------------------------------------------------
def align_context(
    sentences: list[str], chunk: str, min_score: float = 85.0
) -> list[tuple[int, int]] | None:
    """Start/end offsets in ``chunk`` of each context sentence: exact, then with any
    whitespace, then fuzzy (rapidfuzz, score >= ``min_score``) snapped to whole sentences.
    None when a sentence is not in the chunk (the model invented or rewrote it)."""
    from rapidfuzz import fuzz

    spans: list[tuple[int, int]] = []
    chunk_sentences = sentence_spans(chunk)
    for sentence in sentences:
        sentence = sentence.strip()
        if not sentence:
            continue
        start = chunk.find(sentence)
        if start >= 0:
            spans.append((start, start + len(sentence)))
            continue
        words = sentence.split()
        pattern = r"\s*".join(re.escape(w) for w in words)
        match = re.search(pattern, chunk)
        if match:
            spans.append((match.start(), match.end()))
            continue
        alignment = fuzz.partial_ratio_alignment(sentence, chunk, score_cutoff=min_score)
        if alignment is None:
            return None
        lo, hi = alignment.dest_start, alignment.dest_end
        covering = [(s, e) for s, e in chunk_sentences if s < hi and e > lo]
        spans.append((covering[0][0], covering[-1][1]) if covering else (lo, hi))
    return spans or None


def keywords_of(question: str) -> list[str]:
    """The question words (ChemLit-QA's Keywords column holds these, e.g. ['how'])."""
    words = re.findall(r"[A-Za-z]+", question.lower())
    return list(dict.fromkeys(w for w in words if w in _INTERROGATIVES))


# -- the chain
# ---------------------------------------------------------------------------------------
@dataclass
class Candidate:
    reasoning_type: str
    question: str = ""
    answer: str = ""
    context: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    difficulty: str = ""
    scores: dict[str, float | None] = field(default_factory=dict)
    entropy: float | None = None
    se_penalized: float | None = None
    clusters: list[int] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    error: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Candidate:
        """A candidate from its JSON form (``fields_json``, which writes each span as a list)."""
        data = dict(data)
        data["spans"] = [tuple(s) for s in data.get("spans", [])]
        return cls(**data)


class QACGenerator:
    """Runs the per-chunk chain with one LLM (thread-safe: it keeps no per-chunk state)."""

    def __init__(self, llm: LLM, samples: int = 5, sample_temperature: float = 1.0) -> None:
        if samples < 2:
            raise ValueError("semantic entropy needs at least two sampled answers")
        self.llm = llm
        self.samples = samples
        self.sample_temperature = sample_temperature

    def _ask(self, prompt: str, schema: type[BaseModel], **values: Any) -> Any:
        value, _ = self.llm.chat_json(
            [{"role": "user", "content": render(prompt, **values)}], schema=schema, temperature=0.0
        )
        return value

    def usefulness(self, chunk: str) -> Usefulness:
        return self._ask("lit/qac_usefulness", Usefulness, chunk=chunk)

    def reasoning_types(self, chunk: str) -> list[str]:
        return self._ask("lit/qac_reasoning_types", ReasoningTypes, chunk=chunk).types

    def candidate(self, chunk: str, reasoning_type: str) -> Candidate | None:
        """Question, answer and aligned context for one type; None if the type does not apply."""
        generated = self._ask(f"lit/qac_generate_{reasoning_type.lower()}", Generated, chunk=chunk)
        if (
            not generated.question
            or not generated.answer
            or str(generated.question).strip().lower() == "nan"
        ):
            return None
        candidate = Candidate(
            reasoning_type,
            generated.question.strip(),
            generated.answer.strip(),
            [s.strip() for s in generated.context if s.strip()],
        )
        candidate.keywords = keywords_of(candidate.question)
        spans = align_context(candidate.context, chunk)
        if not candidate.context or spans is None:
            candidate.error = "context not found in the chunk (not copied from it)"
            return candidate
        candidate.spans = spans
        candidate.context = [chunk[s:e] for s, e in spans]  # the chunk's own words
        return candidate

    def judge(self, candidate: Candidate, chunk: str) -> None:
        candidate.difficulty = self._ask(
            "lit/qac_difficulty",
            Difficulty,
            question=candidate.question,
            answer=candidate.answer,
            chunk=chunk,
        ).difficulty
        context = " ".join(candidate.context)
        scores = {
            "answer_relevancy": (
                "lit/qac_judge_answer_relevancy",
                {"question": candidate.question, "answer": candidate.answer},
            ),
            "faithfulness": (
                "lit/qac_judge_faithfulness",
                {"context": context, "answer": candidate.answer},
            ),
            "hallucination": (
                "lit/qac_judge_hallucination",
                {"context": context, "answer": candidate.answer},
            ),
            "question_faithfulness": (
                "lit/qac_judge_question_faithfulness",
                {"context": context, "question": candidate.question},
            ),
        }
        for key, (prompt, values) in scores.items():
            candidate.scores[key] = self._ask(prompt, Score, **values).score

    def entropy(self, candidate: Candidate, chunk: str) -> None:
        answers = []
        for i in range(self.samples):
            response = self.llm.chat_json(
                [
                    {
                        "role": "user",
                        "content": render(
                            "lit/qac_sample_answer", chunk=chunk, question=candidate.question
                        ),
                    }
                ],
                schema=Sampled,
                temperature=self.sample_temperature,
                sample=i + 1,
            )[0]
            answers.append(response.answer.strip())
        verdicts: dict[tuple[str, str], Entailment] = {}

        def relation(a: str, b: str) -> Entailment:
            if (a, b) not in verdicts:
                verdicts[(a, b)] = (
                    Entailment(entails=True)
                    if a == b
                    else self._ask(
                        "lit/qac_entailment", Entailment, question=candidate.question, a=a, b=b
                    )
                )
            return verdicts[(a, b)]

        clusters = cluster_by_entailment(answers, lambda a, b: relation(a, b).entails)
        contradicting = [relation(candidate.answer, answers[c[0]]).contradicts for c in clusters]
        sizes = [len(c) for c in clusters]
        candidate.clusters = sizes
        candidate.entropy = semantic_entropy(sizes)
        candidate.se_penalized = penalised_semantic_entropy(sizes, contradicting)

    def run_chunk(self, chunk: str) -> dict[str, Any]:
        """Everything generated for one chunk (JSON-ready, for the resumable work file)."""
        out: dict[str, Any] = {
            "useful": False,
            "topic": [],
            "types": [],
            "candidates": [],
            "errors": [],
        }
        try:
            verdict = self.usefulness(chunk)
        except LLMError as error:
            out["errors"].append(f"usefulness: {error}")
            return out
        out["useful"], out["topic"] = verdict.useful, verdict.topic[:2]
        if not verdict.useful:
            return out
        try:
            out["types"] = self.reasoning_types(chunk)
        except LLMError as error:
            out["errors"].append(f"reasoning types: {error}")
            return out
        for reasoning_type in out["types"]:
            try:
                candidate = self.candidate(chunk, reasoning_type)
                if candidate is None:
                    continue
                if candidate.error is None:
                    self.judge(candidate, chunk)
                    self.entropy(candidate, chunk)
            except LLMError as error:
                candidate = Candidate(reasoning_type, error=f"{type(error).__name__}: {error}")
            out["candidates"].append(fields_json(candidate))
        return out
