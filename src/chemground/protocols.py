"""What a channel of ``QA`` is: a retriever that finds evidence and a reasoner that answers.

Every channel (the table KB, tools, routes, Text2Cypher, papers) is a ``Retriever`` registered
with ``QA.register_retriever``; every way of answering (extractive, the LLM reasoners) is a
``Reasoner`` registered with ``QA.register_reasoner``. A retriever may return a plain list of
``Evidence`` or a ``Retrieval``, which is that list plus the notes and trace of the search (a
failed Cypher run, a refused tool call), so that nothing it learned is lost on the way to the
``Answer``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from chemground.evidence import Evidence

if TYPE_CHECKING:
    from chemground.reasoning.extractive import Reasoned
    from chemground.reasoning.query import QueryTuple


class Retrieval(list):
    """The evidence a retriever found (this list), with notes for the user and a trace.

    Args:
        evidence: the evidence, best first.
        notes: what the user should know about the search ("the generated Cypher failed: ...").
        trace: the search's own steps and parameters, kept in ``Answer.trace["retrieval"]``.
    """

    def __init__(
        self,
        evidence: Iterable[Evidence] = (),
        notes: Iterable[str] = (),
        trace: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(evidence)
        self.notes = list(notes)
        self.trace = dict(trace or {})


@runtime_checkable
class Retriever(Protocol):
    """A channel's search: the evidence for a parsed question, best first."""

    name: str

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        """At most about ``k`` pieces of evidence (a ``Retrieval`` to add notes and a trace)."""
        ...


@runtime_checkable
class Reasoner(Protocol):
    """A way of answering from evidence: extractive (no LLM) or one of the LLM reasoners."""

    def reason(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:
        """The answer text, its typed value, a status and the evidence ids it cites."""
        ...
