"""Reactions by compound class: "which reactions in the KB use a boronic acid?".

A question that names a class of compounds (boronic acid, aryl bromide, aldehyde, ...) rather
than a compound is answered by a substructure search over the reaction participants in the role
the question implies (``kb.functional_groups`` reads the class and the role; the KB searches,
with the RDKit cartridge on PostgreSQL or a fingerprint pre-screen on SQLite).
"""

from __future__ import annotations

from chemground.evidence import Evidence
from chemground.kb.functional_groups import match_group_question
from chemground.kb.structure_search import MAX_RESULTS
from chemground.protocols import Retrieval
from chemground.reasoning.aspects import count_asked
from chemground.reasoning.query import QueryTuple
from chemground.reasoning.reaction_classes import indefinite_article
from chemground.retrieval.records import reaction_record

SEARCH_LIMIT = 50  # reactions counted; the answer lists the first k


class CompoundClassRetriever:
    """The reactions with a participant of the class asked for, in the role asked for."""

    name = "structure"

    def __init__(self, kb) -> None:
        self.kb = kb

    def retrieve(self, query: QueryTuple, k: int = 5) -> Retrieval:
        """Evidence: one ``reaction`` per match (its matching participants in ``why``).

        Args:
            query: the parsed question (its text names the class).
            k: how many reactions to return; the notes give the total found.

        Returns:
            A Retrieval whose notes say how many reactions matched and by which SMARTS; empty
            when the question names no compound class.
        """
        asked = match_group_question(query.question)
        if asked is None:
            return Retrieval()
        # "how many reactions use a boronic acid?": count them all (up to the search's cap)
        limit = MAX_RESULTS if count_asked(query.question) else SEARCH_LIMIT
        matches = self.kb.search_reactions_by_structure(
            asked.smarts, roles=[asked.role], limit=limit
        )
        counted = {
            "class_matches_in_kb": len(matches),
            "class_search_capped": len(matches) >= limit,
            "group": asked.group,
        }
        shown = matches[: max(k, 1)]
        reactions = self.kb.get_reactions([m.reaction_id for m in shown])
        article = indefinite_article(asked.group)
        evidence = []
        for match in shown:
            reaction = reactions.get(match.reaction_id)
            if reaction is None:
                continue
            names = sorted({p.smiles for p in match.participants})
            evidence.append(
                Evidence(
                    kind="reaction",
                    id=match.reaction_id,
                    score=1.0,
                    match="exact",
                    record=reaction_record(reaction),
                    why=f"has {article} {asked.group} as {asked.role.value}: {', '.join(names)}",
                    retriever="structure",
                    provenance={"smarts": asked.smarts, "role": asked.role.value, **counted},
                )
            )
        total = f"{len(matches)}{'+' if len(matches) >= limit else ''}"
        notes = [
            f"{total} reactions in the knowledge base have {article} {asked.group}"
            + ("" if asked.group.endswith(asked.role.value) else f" as {asked.role.value}")
            + f" (substructure {asked.smarts})"
        ]
        trace = {
            "group": asked.group,
            "smarts": asked.smarts,
            "role": asked.role.value,
            "matches": len(matches),
        }
        return Retrieval(evidence, notes, trace)
