"""Choices a question offers for the fact it asks: "for the EDC/HOBt coupling of A with B, was
the solvent DMF or DCM?", "do I get 2- or 3-acetylthiophene?".

The options are candidates for the answer, not compounds the reaction must contain: matched as
constraints, no record holds both DMF and DCM, and the answer fell back to "no reaction matches
all of ...". They are taken out of the mentions a record must match, and a note names them; the
record's own solvent (or product) is then the answer, and the chemist sees which option it is.
"""

from __future__ import annotations

import itertools
import re

from chemground.chem.solvents import is_common_solvent
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple

# mentions joined as alternatives: "DMF or DCM", "DMF vs DCM", "THF, DMF or neat Et3N" (a run
# of commas counts only with an "or" in it: "toluene, EtOH, water" is a notebook's solvents)
_BETWEEN_OPTIONS = re.compile(r"\s*(,|,?\s*(or|vs\.?|versus))\s+(neat\s+)?", re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\b(or|vs\.?|versus)\b", re.IGNORECASE)
# "2- or 3-acetylthiophene": a choice of locant before one name
_LOCANT_CHOICE = re.compile(r"\b\d+-\s+or\s+$", re.IGNORECASE)
# the words that put the options to the asked role, just before the first option
_ROLE_WORDS = {
    Aspect.SOLVENT: r"solvents?|media|medium",  # "which solvent - THF, DMF or neat Et3N?"
    Aspect.CATALYST: r"catalysts?",
    Aspect.REAGENT: (
        r"reagents?|bases?|acids?|oxidants?|reductants?|(reducing|oxidi[sz]ing) agents?"
    ),
    Aspect.PRODUCT: r"products?|get|gets|give|gives|form|forms|obtain|isolate|end up with|is it",
}
_PARTICIPANT_WORDS = r"of|for|with|from|in|on|to|by|into|and|between|using"
_BEFORE_OPTIONS = 48  # characters before the first option searched for the role's words


def _runs(question: str, mentions: list[QueryMention]) -> list[list[QueryMention]]:
    """Runs of mentions joined as alternatives, in the question's order."""
    ordered = sorted(mentions, key=lambda m: m.start)
    runs: list[list[QueryMention]] = []
    for left, right in itertools.pairwise(ordered):
        if not _BETWEEN_OPTIONS.fullmatch(question[left.end : right.start]):
            continue
        if runs and runs[-1][-1] is left:
            runs[-1].append(right)
        else:
            runs.append([left, right])
    runs = [
        run
        for run in runs
        if any(_ALTERNATIVE.search(question[a.end : b.start]) for a, b in itertools.pairwise(run))
    ]
    for mention in ordered:
        if _LOCANT_CHOICE.search(question[: mention.start]) and not any(
            mention in run for run in runs
        ):
            runs.append([mention])
    return runs


def _offered_for(query: QueryTuple, run: list[QueryMention]) -> bool:
    """Whether the run of alternatives is offered as the answer to the asked role."""
    if query.aspect == Aspect.SOLVENT and all(
        m.smiles and is_common_solvent(m.smiles) for m in run
    ):
        return True
    words = _ROLE_WORDS.get(query.aspect)  # type: ignore[arg-type]
    if words is None:
        return False
    start = run[0].start
    if len(run) == 1:  # "2- or 3-acetylthiophene": the locants sit before the name
        start = _LOCANT_CHOICE.search(query.question[:start]).start()  # type: ignore[union-attr]
    before = query.question[max(0, start - _BEFORE_OPTIONS) : start].lower()
    # the role's word governs the options ("is the base K2CO3 or Cs2CO3", "do I get 2- or 3-"),
    # not a phrase that names participants ("which catalyst for the coupling of A or B")
    return bool(re.search(rf"\b({words})\b(?![^.?!]*\b({_PARTICIPANT_WORDS})\b)[^.?!]*$", before))


def without_offered_options(query: QueryTuple) -> QueryTuple:
    """``query`` without the compounds it offers as choices for its asked role, and with a note
    that names them.

    Args:
        query: a parsed question.

    Returns:
        The same query when it offers no choices (or asks no solvent, catalyst, reagent or
        product); otherwise a copy whose mentions leave the options out and whose problems say
        which they were.
    """
    if query.aspect not in (Aspect.SOLVENT, Aspect.CATALYST, Aspect.REAGENT, Aspect.PRODUCT):
        return query
    offered = [
        m for run in _runs(query.question, query.mentions) if _offered_for(query, run) for m in run
    ]
    if not offered:
        return query
    kept = [m for m in query.mentions if m not in offered]
    if not kept:
        return query  # "DMF or DCM?" and nothing else: the options are all the question names
    names = " or ".join(repr(m.text) for m in offered)
    note = (
        f"{names}: offered as the choice for the {query.aspect.value}, so not required "
        "of the reaction; the answer gives the record's"
    )
    return query.model_copy(update={"mentions": kept, "problems": [*query.problems, note]})
