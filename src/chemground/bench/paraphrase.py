"""LLM paraphrasing of benchmark questions, keeping every entity verbatim."""

from __future__ import annotations

from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render


class Paraphraser:
    """Callable(question, entities) -> rewritten question, or None when the model drops an
    entity."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def __call__(self, question: str, entities: list[str]) -> str | None:
        prompt = render(
            "bench/paraphrase", question=question, entities="\n".join(f"- {e}" for e in entities)
        )
        try:
            text = self.llm.chat(
                [{"role": "user", "content": prompt}], temperature=0.7
            ).text.strip()
        except LLMError:
            return None
        text = text.strip().strip('"').splitlines()[0].strip() if text else ""
        return text if text and all(e in text for e in entities) else None
