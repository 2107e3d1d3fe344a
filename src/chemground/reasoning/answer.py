"""The answer a user gets: text, typed value, the evidence it stands on, and a trace.

Paper-qa style: one object carries the answer with its evidence, citations, timings, token
usage and cost, and the intermediate steps, so the CLI, the HTTP API and the benchmarks all
report the same thing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from chemground.evidence import Evidence

# "unsupported": an LLM answered, but its answer is garbled or a value or claim of it is not in
# (nor derivable from) the evidence; the notes name each claim and its kind, and the report is
# trace["faithfulness"] (see reasoning.faithfulness).
STATUSES = ("answered", "partial", "no_evidence", "not_understood", "unsupported", "error")


class Answer(BaseModel):
    id: str | None = None
    question: str
    answer: str
    value: Any = None
    aspect: str | None = None
    level: str | None = None
    status: str = "answered"
    evidence: list[Evidence] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list)
    method: str = "table"
    reasoner: str = "extractive"
    query: dict[str, Any] = Field(default_factory=dict)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    trace: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
