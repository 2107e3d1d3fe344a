"""Second-stage re-rankers: one small interface, so the hybrid search can hand its top
candidates to whichever model a user has.

A re-ranker reads the question and each candidate passage together (a first-stage retriever
scores them apart), which is what separates a chunk that *states* the answer from its
neighbours that share its vocabulary. :class:`LLMReranker` does this the way PaperQA2 scores
evidence: one prompt per passage asking for a 0-10 relevance score, on any
OpenAI-compatible endpoint. Re-ranking reorders only the first ``depth`` fused candidates;
ties (and passages a re-ranker could not score) keep the first stage's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from chemground.errors import ChemgroundError

DEFAULT_DEPTH = 20
PASSAGE_CHARS = (
    1500  # of a passage shown to an LLM re-ranker (a 2,000-character chunk, about 400 tokens)
)


@runtime_checkable
class Reranker(Protocol):
    """Scores passages for a question; higher is more relevant. ``None`` for a passage it could
    not score (it then keeps its first-stage place below the scored ones' ties)."""

    name: str

    def score(self, question: str, passages: Sequence[str]) -> list[float | None]: ...


def rerank_order(first_stage: Sequence[int], scores: Sequence[float | None]) -> list[int]:
    """Indices of ``first_stage`` reordered by ``scores`` (higher first); ties and unscored
    passages keep their first-stage order, unscored ones after every scored one.

    Args:
        first_stage: candidate ids in first-stage order.
        scores: one score (or None) per candidate.

    Returns:
        The candidate ids in re-ranked order.

    Raises:
        ChemgroundError: when the two lengths differ.
    """
    if len(first_stage) != len(scores):
        raise ChemgroundError(f"{len(scores)} re-ranker scores for {len(first_stage)} candidates")
    keyed = sorted(
        range(len(first_stage)), key=lambda i: (scores[i] is None, -(scores[i] or 0.0), i)
    )
    return [first_stage[i] for i in keyed]


class _Relevance(BaseModel):
    score: float = Field(ge=0, le=10)


class LLMReranker:
    """PaperQA2-style relevance scoring by an LLM: each (question, passage) pair is rated 0-10
    by the model in its own prompt (pointwise: a small model copes with one passage at a time,
    and the scores of a pair are cached by the client, so a repeated question costs nothing).

    Args:
        llm: a :class:`chemground.llm.base.LLM` (any OpenAI-compatible endpoint).
        workers: pairs scored at once (a hosted endpoint gains from more; a local llama.cpp
            server with one slot does not).
        passage_chars: how much of each passage the model reads.
    """

    name = "llm"

    def __init__(self, llm, *, workers: int = 1, passage_chars: int = PASSAGE_CHARS) -> None:
        if workers < 1:
            raise ChemgroundError("an LLM re-ranker needs at least one worker")
        self.llm = llm
        self.workers = workers
        self.passage_chars = passage_chars
        self.errors: list[str] = []

    def score(self, question: str, passages: Sequence[str]) -> list[float | None]:
        """One 0-10 score per passage; None where the model's reply was unusable or the call
        failed (the reason is kept in ``errors``)."""
        if not question.strip():
            raise ChemgroundError("empty question")
        if self.workers == 1 or len(passages) < 2:
            return [self._one(question, p) for p in passages]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(lambda p: self._one(question, p), passages))

    def _one(self, question: str, passage: str) -> float | None:
        from chemground.llm.base import LLMError
        from chemground.llm.prompts import render

        text = " ".join(passage.split())[: self.passage_chars]
        prompt = render("lit/rerank_relevance", question=question, passage=text)
        try:
            value, _ = self.llm.chat_json(
                [{"role": "user", "content": prompt}],
                schema=_Relevance,
                temperature=0.0,
                max_tokens=24,
            )
        except LLMError as error:
            self.errors.append(str(error)[:200])
            return None
        return float(value.score)
