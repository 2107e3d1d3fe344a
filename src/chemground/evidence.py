"""Evidence: the one type every retrieval channel returns and every reasoner consumes.

A compound row, a reaction row, a graph path, a literature chunk or a tool result: each is an
``Evidence`` with a kind, a stable id, a score, whether it matched exactly or only by
similarity, the record itself and a short reason, so an answer can always show a chemist
what it stands on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

EvidenceKind = Literal[
    "compound", "reaction", "chunk", "graph_row", "graph_path", "tool_result", "computed"
]
MatchKind = Literal["exact", "similar"]


class Evidence(BaseModel):
    """One piece of evidence with where it came from and why it was retrieved."""

    kind: EvidenceKind
    id: str
    score: float
    match: MatchKind = "similar"
    record: dict[str, Any] = Field(default_factory=dict)
    why: str = ""
    retriever: str = ""  # table | bm25 | dense | hybrid | graph | lit | tool | computation
    provenance: dict[str, Any] = Field(default_factory=dict)

    def citation(self) -> str:
        """Short label used in answers, e.g. ``[reaction ord-4f03…]`` or ``[chunk doc3#12]``."""
        return f"[{self.kind} {self.id}]"

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
