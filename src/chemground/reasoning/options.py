"""Choices a question offers for the fact it asks: "for the EDC/HOBt coupling of A with B, was
the solvent DMF or DCM?", "do I get 2- or 3-acetylthiophene?".

The options are candidates for the answer, not compounds the reaction must contain: matched as
constraints, no record holds both DMF and DCM, and the answer fell back to "no reaction matches
all of ...". They are taken out of the mentions a record must match, and a note names them; the
record's own solvent (or product) is then the answer, and the chemist sees which option it is.

A yes/no question checks one choice the same way: "did the Suzuki of 2-bromopyridine use
Pd(PPh3)4?", "was the Grignard of PhMgBr with benzophenone done in THF?", "... - did it use
Cs2CO3 or K2CO3?". No role word says what is asked, so the compounds checked say it (a common
solvent asks the solvent, a transition-metal compound the catalyst, anything else a reagent);
the answer gives the record's participants of that role and says of each compound checked
whether the record has it (``QueryTuple.offered``). "Is it run at 90 °C?" checks a condition:
the condition is what is asked. Before, these were answered with the product, or not understood.
"""

from __future__ import annotations

import itertools
import re

from chemground.chem.solvents import agent_role, has_transition_metal, is_common_solvent
from chemground.kb.records import Role
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple

# mentions joined as alternatives: "DMF or DCM", "DMF vs DCM", "THF, DMF or neat Et3N" (a run
# of commas counts only with an "or" in it: "toluene, EtOH, water" is a notebook's solvents)
_BETWEEN_OPTIONS = re.compile(
    r"\s*(,|,?\s*(or|vs\.?|versus))\s+(neat\s+|\d+(\.\d+)?\s*(M|N|%)\s+)?", re.IGNORECASE
)
_ALTERNATIVE = re.compile(r"\b(or|vs\.?|versus)\b", re.IGNORECASE)
# "2- or 3-acetylthiophene": a choice of locant before one name
_LOCANT_CHOICE = re.compile(r"\b\d+-\s+or\s+$", re.IGNORECASE)
# the words that put the options to the asked role, just before the first option
_ROLE_WORDS = {
    Aspect.SOLVENT: r"solvents?|media|medium",  # "which solvent - THF, DMF or neat Et3N?"
    Aspect.CATALYST: r"catalysts?|cataly[sz]ed by",  # "catalysed by piperidine or pyridine?"
    Aspect.REAGENT: (
        r"reagents?|bases?|acids?|oxidants?|reductants?|(reducing|oxidi[sz]ing) agents?"
    ),
    Aspect.PRODUCT: r"products?|get|gets|give|gives|form|forms|obtain|isolate|end up with|is it",
}
_CLOSING_OPTIONS_BEFORE = re.compile(r"([,:;–—]|\s-|\b(is it|either))\s*$", re.IGNORECASE)
_PARTICIPANT_WORDS = r"of|for|with|from|in|on|to|by|into|and|between|using"
_BEFORE_OPTIONS = 48  # characters before the first option searched for the role's words

# a yes/no question, or its last clause: "... Suzuki: was the base Cs2CO3?", "did it use ..."
_CLAUSE_BREAK = re.compile(r"[:;–—]\s*|\s-\s+|[.!?]\s+")
_YES_NO = re.compile(r"^\s*(and\s+|so\s+)?(is|was|were|are|did|does|do|has|have|had)\b", re.I)
# the words that put the compounds at the end of the clause to the check: a verb of use or of
# running the reaction, a role word, or "is it"; "does A react with B?" checks nothing
_CHECKED_BEFORE = re.compile(
    r"\b(use[ds]?|using|employ(ed|s)?|need(ed|s)?|require[ds]?|add(ed|s)?|"
    r"(run|done|carried out|performed|conducted|made|heated|stirred|refluxed)\s+(in|with|using|"
    r"over|under)|with|in|is it|was it|the (base|solvent|catalyst|reagent|acid|oxidant|reductant|"
    r"ligand)(\s+(is|was|used))?|as (the )?(base|solvent|catalyst|reagent))"
    r"(\s+(the|a|an|some|neat|aq\.?|aqueous|dry|anhydrous))?\s*$",
    re.IGNORECASE,
)
_CHECK_VERB = re.compile(
    r"\b(use[ds]?|using|employ(ed|s)?|need(ed|s)?|require[ds]?|add(ed|s)?|run|done|carried out|"
    r"performed|conducted|heated|stirred|refluxed|is it|was it|base|solvent|catalyst|reagent)\b",
    re.IGNORECASE,
)
_FRONTED_CHECK = re.compile(r"^\s*(is|was|were|are)\s+(the\s+)?", re.IGNORECASE)
_USED_AFTER = re.compile(
    r"\s+(really\s+)?(used|added|needed|required|employed)\s+(in|for|during|with)\b", re.I
)
_ROLE_WORD = re.compile(
    r"\b(base|solvent|catalyst|ligand|reagent|acid|oxidant|reductant)\b", re.IGNORECASE
)
_ROLE_OF_WORD = {
    "solvent": Aspect.SOLVENT,
    "catalyst": Aspect.CATALYST,
    "ligand": Aspect.CATALYST,
}
_ROLE_ASPECT = {Role.SOLVENT: Aspect.SOLVENT, Role.CATALYST: Aspect.CATALYST}
# "is the Suzuki of A with B run at 90 °C?", "... for 12 h?", "... in 90% yield?"
_CONDITION_CHECKED = (
    (
        Aspect.TEMPERATURE,
        re.compile(
            r"\b(at|under)\s+(-?\d+(\.\d+)?\s*°?\s*c|rt|r\.t\.|room temp(erature)?|reflux|"
            r"ambient( temperature)?)\s*[?.!]*\s*$",
            re.IGNORECASE,
        ),
    ),
    (
        Aspect.TIME,
        re.compile(
            r"\b(for\s+\d+(\.\d+)?\s*(h|hr|hrs|hours?|min|minutes?|days?)|overnight)\s*[?.!]*\s*$",
            re.IGNORECASE,
        ),
    ),
    (Aspect.YIELD, re.compile(r"\bin\s+\d+(\.\d+)?\s*%\s*(yield)?\s*[?.!]*\s*$", re.I)),
)
# what may follow the compounds checked: "did it use K2CO3 as the base?", "was that done in DMF
# or DCM in your procedure?"
_AFTER_CHECKED = re.compile(
    r"(\s+as\s+(the\s+|a\s+)?(?P<role>base|solvent|catalyst|ligand|reagent|acid|oxidant|"
    r"reductant))?(\s+(in|according to|per|from|for)\s+(your|the|this|that)\s+(procedure|"
    r"record|prep|protocol|paper|reference|entry|example|source|method|reaction))?"
    # "is TFA or HCl in dioxane used?", "..., which one does your record use?"
    r"(\s+(?P<used>used|employed|needed|added))?(,?\s*which (one|of (them|the two|these)) "
    r"(does|did|do) (your|the|this) (record|procedure|prep|protocol|paper|reference|source|method) "
    r"use)?"
    r"[\s?.!]*",
    re.IGNORECASE,
)
# the readings a check may replace: the product rules' default, or nothing read at all
_DEFAULT_READINGS = (None, Aspect.PRODUCT, Aspect.REACTIONS, Aspect.CONDITIONS)


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


def _with_partners(
    question: str, mentions: list[QueryMention], run: list[QueryMention]
) -> list[QueryMention]:
    """A run of options with the compounds each option names with it: "TFA/DCM or 4 M HCl in
    dioxane" offers two systems, not DCM or HCl."""
    ordered = sorted(mentions, key=lambda m: m.start)
    first, last = ordered.index(run[0]), ordered.index(run[-1])
    out = list(run)
    if first > 0 and question[ordered[first - 1].end : run[0].start] == "/":
        out.insert(0, ordered[first - 1])
    if last + 1 < len(ordered) and re.fullmatch(
        r"\s+in\s+", question[run[-1].end : ordered[last + 1].start], re.IGNORECASE
    ):
        out.append(ordered[last + 1])
    return out


def _named_first(run: list[QueryMention], mentions: int) -> list[QueryMention]:
    """A run of three or more mentions that holds every mention of the question, without its
    first: "for isoamyl acetate, H2SO4 or HCl?" asks about isoamyl acetate and offers the
    other two."""
    return run[1:] if len(run) > 2 and len(run) == mentions else run


def _offered_for(query: QueryTuple, run: list[QueryMention]) -> bool:
    """Whether the run of alternatives is offered as the answer to the asked role."""
    if query.aspect == Aspect.SOLVENT and all(
        m.smiles and is_common_solvent(m.smiles) for m in run
    ):
        return True
    words = _ROLE_WORDS.get(query.aspect)  # type: ignore[arg-type]
    if words is None:
        return False
    if (
        len(run) > 1
        and re.fullmatch(r"[\s?.!]*", query.question[run[-1].end :])
        and _CLOSING_OPTIONS_BEFORE.search(query.question[: run[0].start])
    ):
        # "benzaldehyd + acetone, aq NaOH – what's the prodcut, benzalacetone or
        # dibenzalacetone?": the choice that closes the question, after a break
        return True
    start = run[0].start
    if len(run) == 1:  # "2- or 3-acetylthiophene": the locants sit before the name
        start = _LOCANT_CHOICE.search(query.question[:start]).start()  # type: ignore[union-attr]
    before = query.question[max(0, start - _BEFORE_OPTIONS) : start].lower()
    # the role's word governs the options ("is the base K2CO3 or Cs2CO3", "do I get 2- or 3-"),
    # not a phrase that names participants ("which catalyst for the coupling of A or B")
    return bool(re.search(rf"\b({words})\b(?![^.?!]*\b({_PARTICIPANT_WORDS})\b)[^.?!]*$", before))


def _last_clause_start(question: str) -> int:
    """Where the question's last clause starts (after its last colon, dash or sentence end)."""
    body = question.rstrip(" ?.!")
    breaks = list(_CLAUSE_BREAK.finditer(body))
    return breaks[-1].end() if breaks else 0


def _checked(query: QueryTuple) -> tuple[Aspect, list[QueryMention]] | None:
    """The aspect a yes/no or either/or check asks, and the compounds it checks (none for a
    condition), when the question is one and the rules read no other fact; else None."""
    if query.aspect not in _DEFAULT_READINGS:
        return None
    question = query.question
    start = _last_clause_start(question)
    clause = question[start:]
    yes_no = _YES_NO.search(clause) is not None
    resolved = [m for m in query.mentions if m.resolved and m.smiles]
    if yes_no and _names_a_reaction(question, resolved):
        for aspect, pattern in _CONDITION_CHECKED:
            if pattern.search(clause):
                return aspect, []
    runs = [
        run
        for run in (
            _with_partners(question, query.mentions, r) for r in _runs(question, query.mentions)
        )
        if len(run) > 1 and _AFTER_CHECKED.fullmatch(question[run[-1].end :])
    ]
    # "was Et3N used in the Boc protection of benzylamine?": the compound checked comes first
    fronted = _FRONTED_CHECK.match(clause)
    first_checked = [
        m
        for m in query.mentions
        if fronted is not None
        and m.start == start + fronted.end()
        and _USED_AFTER.match(question[m.end :])
    ]
    if not first_checked:
        fronted = None
    if runs:
        checked = runs[-1]
    elif first_checked:
        checked = first_checked[:1]
    else:
        last = query.mentions[-1] if query.mentions else None
        if last is None or not _AFTER_CHECKED.fullmatch(question[last.end :]):
            return None
        checked = [last]
        if len(query.mentions) > 1 and question[query.mentions[-2].end : last.start] == "/":
            checked = query.mentions[-2:]  # "run in toluene/water?": one mixture checked
    first = checked[0].start
    known = [m for m in checked if m.resolved and m.smiles]
    # "... - Pd(PPh3)4 or Pd(dppf)Cl2?": a choice may hold an option no name resolves; the
    # answer says it was not checked
    if first < start or not known:
        return None
    if not yes_no and "," in question[start:first]:
        # "the EDC/HOBt coupling of A with B, was that done in DMF or DCM?": the check is the
        # clause after the comma
        yes_no = _YES_NO.search(question[start:first].rsplit(",", 1)[1]) is not None
    tail = _AFTER_CHECKED.fullmatch(question[checked[-1].end :])
    tail_role = tail.group("role") if tail else None  # "did it use K2CO3 as the base?"
    used_after = bool(tail and tail.group("used") and yes_no)  # "is TFA or HCl used?"
    # the clause's words before the compounds checked, its other compounds masked ("did the
    # Suzuki with phenylboronic acid use ...": no acid is asked)
    chars = list(question[:first])
    for m in query.mentions:
        if m.end <= first:
            chars[m.start : m.end] = "x" * (m.end - m.start)
    before = "".join(chars)[start:]
    # "mitsunobu of A + B: DEAD or DIAD?": the clause is the choice alone
    bare = len(checked) > 1 and not before.strip()
    either_or = bare or (
        len(checked) > 1 and re.search(r"\b(is it|was it|either)\s*$|[,]\s*$", before)
    )
    if (
        fronted is None
        and not bare
        and not used_after
        and (
            not (yes_no or either_or)
            or not _CHECKED_BEFORE.search(before)
            or not ((yes_no and _CHECK_VERB.search(before)) or either_or)
        )
    ):
        return None
    others = [m for m in resolved if m not in checked]
    if not others and not _names_a_reaction(question, resolved[:1]):
        # "is it DMF or DCM?" alone: nothing names the reaction ("Boc removal from X: is TFA or
        # HCl used?" names its class)
        return None
    word = tail_role or (m.group(1) if (m := _ROLE_WORD.search(before)) else None)
    if word is not None:
        return _ROLE_OF_WORD.get(word.lower(), Aspect.REAGENT), checked
    used = fronted is not None or used_after or (yes_no and _CHECK_VERB.search(before))
    if not used and not all(_is_agent(m) for m in known):
        # "A + B - is it C or D?": products offered (the product rules' options), not agents
        return None
    return _role_of_agents(known), checked


def _role_of_agents(mentions: list[QueryMention]) -> Aspect:
    """The role a check of these agents asks: their common role when they share one (solvents,
    catalysts), else the reagent."""
    roles = {agent_role(m.smiles) for m in mentions}  # type: ignore[arg-type]
    return (_ROLE_ASPECT.get(roles.pop()) if len(roles) == 1 else None) or Aspect.REAGENT


# a statement put to the reader to confirm: "..., isn't it?", "..., right?", "... True or false?"
_TAGGED_CLAIM = re.compile(
    r"(?P<claim>(?:[^.;:?!–—]|(?<=\w)[–—](?=\w))+?)(,?\s*(isn'?t it|wasn'?t it|aren'?t they|"
    r"weren'?t they|doesn'?t it|didn'?t it|don'?t they|didn'?t they|hasn'?t it|right|rite|"
    r"correct|yeah|no)\s*\?"
    r"|[.]\s*(true or false|is that (right|correct|true))\s*\?)",
    re.IGNORECASE,
)
# where a claim starts saying what the reaction has: "is catalysed by", "is carried out in",
# "gives"; or "X is the additive" (the compound just before)
_CLAIM_VERB = re.compile(
    r"(\b(is|was|are|were)|(?<=\w)['’]s)\s+(catalys\w+|cataly[sz]ed|carried out|run|done|"
    r"performed|conducted|"
    r"heated|refluxed|stirred|promoted|mediated)\b|\b(gives?|affords?|yields?|forms?)\b"
    # "I'd do it in DMF, that's what your record has too, right?"
    r"|\b(do|does|did|run|runs|ran)\s+(it|this|that)\s+(in|with|using|over)\b"
    # "your Mitsunobu of A with B uses DEAD, doesn't it?"
    r"|\b(uses|used|employs|employed|needs|needed|requires|required)\b",
    re.IGNORECASE,
)
_CLAIMED_ROLE = re.compile(
    r"^\s*(is|was|are|were)\s+(the\s+)?(additive|base|solvent|catalyst|reagent|acid|ligand|"
    r"oxidant|reductant|product)\b",
    re.IGNORECASE,
)


def _claimed(query: QueryTuple) -> list[QueryMention]:
    """The compounds a tagged claim puts forward ("the click reaction of A with B is catalysed
    by CuI with DIPEA, isn't it?", "cat. HCl is the additive, right?"): what the question asks
    to confirm, so checked against the record, not required of it."""
    claimed: list[QueryMention] = []
    for match in _TAGGED_CLAIM.finditer(query.question):
        start, end = match.span("claim")
        verb = _CLAIM_VERB.search(query.question, start, end)
        inside = [m for m in query.mentions if start <= m.start and m.end <= end]
        if verb is not None:
            claimed += [m for m in inside if m.start >= verb.end()]
        claimed += [m for m in inside if _CLAIMED_ROLE.match(query.question[m.end : end])]
    return [m for m in query.mentions if m in claimed]


def _names_a_reaction(question: str, resolved: list[QueryMention]) -> bool:
    """Whether a question names a reaction a condition can be checked of: two compounds, or a
    named reaction ("is the Swern of cyclohexanol run at -78 °C?"); "is aspirin stable at rt?"
    names none."""
    from chemground.reasoning.reaction_classes import find_classes

    return len(resolved) >= 2 or bool(resolved and find_classes(question))


def _is_agent(mention: QueryMention) -> bool:
    """Whether a compound is one a reaction is run with (a listed reagent, a common solvent, a
    transition-metal catalyst), not one it makes."""
    from chemground.kb.reaction_roles import is_listed_reagent

    return is_listed_reagent(mention.inchikey, mention.smiles) or has_transition_metal(
        mention.smiles or ""
    )


def read_offered(query: QueryTuple) -> QueryTuple:
    """``query`` without the compounds it offers as choices for its asked role (or checks in a
    yes/no question), with a note that names them; a check of a condition ("run at 90 °C?")
    asks that condition.

    Args:
        query: a parsed question.

    Returns:
        The same query when it offers no choices and checks nothing; otherwise a copy whose
        mentions leave the options out, whose ``offered`` lists them, whose aspect is what the
        check asks, and whose problems say which they were.
    """
    check = _checked(query)
    if check is not None:
        aspect, checked = check
        problems = [
            p for p in query.problems if not p.startswith("could not tell what the question asks")
        ]
        if not checked:
            return query.model_copy(
                update={"aspect": aspect, "level": "reaction", "problems": problems}
            )
        names = " or ".join(repr(m.text) for m in checked)
        note = (
            f"{names}: checked by the question, so not required of the reaction; the answer "
            f"gives the record's {aspect.value} and says whether it has each"
        )
        return query.model_copy(
            update={
                "aspect": aspect,
                "level": "reaction",
                "mentions": [m for m in query.mentions if m not in checked],
                "offered": checked,
                "problems": [*problems, note],
            }
        )
    claimed = _claimed(query)
    kept = [m for m in query.mentions if m not in claimed]
    if claimed and any(m.resolved for m in kept):
        names = " and ".join(repr(m.text) for m in claimed)
        note = (
            f"{names}: put forward by the question to confirm, so not required of the "
            "reaction; the answer says whether the record has each"
        )
        aspect = query.aspect
        if aspect in _DEFAULT_READINGS and all(_is_agent(m) for m in claimed):
            # "the HATU coupling of A with B - that's done in DCM, right?": nothing else is
            # asked, so the claim's role is: the record's solvent
            aspect = _role_of_agents(claimed)
        return query.model_copy(
            update={
                "aspect": aspect,
                "mentions": kept,
                "offered": claimed,
                "problems": [*query.problems, note],
            }
        )
    if query.aspect not in (Aspect.SOLVENT, Aspect.CATALYST, Aspect.REAGENT, Aspect.PRODUCT):
        return query
    runs = _runs(query.question, query.mentions)
    runs = [_named_first(run, len(query.mentions)) for run in runs]
    offered = [m for run in runs if _offered_for(query, run) for m in run]
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
    return query.model_copy(
        update={"mentions": kept, "offered": offered, "problems": [*query.problems, note]}
    )
