"""Which aspect a question asks about, from its wording (compound mentions masked out).

Rules are ordered from specific to general: "molecular weight" before "what is", "yield"
(the noun) before "yields" (the verb, meaning product). Each rule is a regular expression
over the lower-cased question in which every chemical mention is replaced by ``X``.
"""

from __future__ import annotations

import re

from chemground.reasoning.query import Aspect

_RULES: list[tuple[Aspect, str]] = [
    (Aspect.ROUTE, r"\broutes?\b|\bpath(way)?s? (from|to|between)\b|\bsynthetic (route|path|sequence)\b"
                   r"|\bhow (can|do|could|would) (i|we|you|one) (get|go) from x to x\b|\bfrom x to x in\b"
                   r"|\bin (two|three|four|\d) steps\b|\bmulti-?step\b|\bwhat can (i|we|you|one) make from x\b"
                   r"|\bintermediates? (between|from)\b"),
    (Aspect.EXACT_MASS, r"\b(exact|monoisotopic|accurate)\s+mass\b"),
    (Aspect.MOLECULAR_WEIGHT, r"\b(molecular|molar|formula|mol\.?)\s*(weight|mass)\b|\bmw\b|\bm\.w\.|\bhow heavy\b"
                              r"|\bweigh(s|t)?\b|\bg/mol\b"),
    (Aspect.FORMULA, r"\b(molecular|chemical|empirical|sum)\s+formula\b|\bformula\b"),
    (Aspect.SMILES_TO_NAME, r"\biupac\b|\bsystematic name\b|\bchemical name\b|\bname (of|for) (the )?(compound|molecule|structure|smiles)\b"
                            r"|\bwhat is (the )?name\b|\bname (this|it)\b|\bwhat is x called\b|\bx is called\b|\bhow is x named\b"
                            r"|\bconvert x (in)?to (a |its |the )?(iupac )?name\b|\bwhat'?s x called\b"),
    (Aspect.NAME_TO_SMILES, r"\bsmiles\b|\bstructure (of|for)\b|\bdraw\b|\bconvert x (in)?to (a )?(structure|smiles)\b"
                            r"|\bstructural formula\b"),
    (Aspect.SYNONYMS, r"\bsynonyms?\b|\bother names?\b|\bcommon name\b|\btrade names?\b|\balso (known|called)\b"
                      r"|\baka\b|\bbrand names?\b|\balternative names?\b"),
    (Aspect.SIMILAR, r"\bsimilar\b|\banalog(ue)?s?\b|\bresembl|\blook(s)? like\b|\brelated (compounds|structures|molecules)\b"
                     r"|\bstructurally close\b|\bneighbou?rs?\b"),
    (Aspect.YIELD, r"\byield\b(?!s)(?! of x)|\bwhat (percent|percentage)\b|\bhow much (product|of x) (was|is) (obtained|formed|isolated)\b"
                   r"|\b(percent|%) yield\b|\byield of\b|\bhow efficient\b|\bconversion\b"),
    (Aspect.CATALYST, r"\bcataly[sz](t|ts|ed|es|ing|is)\b|\bcatalytic\b"),
    (Aspect.SOLVENT, r"\bsolvents?\b|\bmedium\b|\bdissolved in\b|\bin what (liquid|medium)\b"),
    (Aspect.REAGENT, r"\breagents?\b|\bwhich base\b|\bwhat base\b|\boxidi[sz]ing agent\b|\breducing agent\b|\bcoupling agent\b"
                     r"|\bactivat(or|ing agent)\b"),
    (Aspect.TEMPERATURE, r"\btemperature\b|\bhow (hot|warm|cold)\b|\bat what temp|\b°c\b|\bdegrees\b|\bheated to\b"),
    (Aspect.TIME, r"\bhow long\b|\breaction time\b|\bduration\b|\bhow many (hours|minutes|days)\b|\bfor how long\b"),
    (Aspect.CONDITIONS, r"\bconditions?\b|\bhow (can|could|do|does|is|are|would) (i |you |we |one )?(convert|transform|turn)\b"
                        r"|\bhow (can|could|is|are) x (be )?(converted|transformed|turned)\b|\bhow (is|was|are|were|do|does|can|could|should) (the |this |that )?(reaction|coupling|"
                        r"esterification|alkylation|step|it) (be )?(run|done|carried out|performed|conducted)\b|\bprocedure\b|\bprotocol\b"),
    (Aspect.REACTANTS, r"\breactants?\b|\bstarting materials?\b|\bprecursors?\b|\bhow (is|are|was|were|can|could|do|does|would) (i |you |one |we )?"
                       r"(make|made|prepare|prepared|synthesi[sz]e|synthesi[sz]ed|produce|produced|obtain|obtained|get)\b"
                       r"|\b(synthesis|preparation|route) (of|to)\b|\bwhat (is|are) (needed|required) to (make|prepare|synthesi[sz]e)\b"
                       r"|\bfrom what\b|\bmade from\b|\bwhat reacts to (give|form)\b|\bwhich (compounds?|reactants?|materials?) (give|form|gives|forms)\b"
                       r"|\bhow to (make|prepare|synthesi[sz]e)\b|\bretrosynthe"
                       r"|\bwhat do (i|you|we|one) need to (make|synthesi[sz]e|prepare|produce|obtain)\b"
                       r"|\b(which|what) (materials|compounds|reactants|chemicals|reagents|substances) (are |were )?"
                       r"(combined|react|reacted|used|needed|required|mixed) to (give|produce|make|form|prepare|obtain)\b"
                       r"|\bhow (is|are|was|were|can|could|do|does|would|should) (i |you |one |we )?x (be )?"
                       r"(made|prepared|synthesi[sz]ed|produced|obtained|formed|accessed)\b"),
    (Aspect.REACTIONS, r"\b(which|what|list( the)?|all( the)?|show( me)?( the)?) reactions\b|\breactions (of|involving|with|using|that use|where)\b"
                       r"|\bin which reactions?\b|\bwhere is x used\b|\breactions? x (takes|take) part in\b"),
    (Aspect.PRODUCT, r"\bproducts?\b|\bwhat (forms|is formed|will form|would form|is produced|do (i|you|we) get|happens)\b"
                     r"|\bwhat (does|do|will|would) x (and x )?(give|form|produce|yield|afford|become|turn into|make)\b"
                     r"|\b(gives|forms|affords|yields|produces) what\b|\bresult(s|ing)? (of|from)\b|\boutcome\b"
                     r"|\breacts? with\b|\bwhat do i get\b|\bif (i|you|we) (mix|combine|react|treat|heat)\b|\bwhen x (and x )?(react|is treated|are mixed|are combined)\b"
                     r"|\bx \+ x\b|\bx (and|with) x\b.*\?|\bget from\b"),
    (Aspect.DESCRIPTION, r"\bdescri(be|ption)\b|\btell me about\b|\bwhat (is|are) x\b|\bwhat kind of\b|\bwhat type of\b"
                         r"|\binformation (on|about)\b|\bused for\b|\bwhat do you know about\b|\bexplain\b|\bwho is\b|\bwhat's x\b"),
]
_COMPILED = [(aspect, re.compile(pattern)) for aspect, pattern in _RULES]


def mask_mentions(question: str, spans: list[tuple[int, int]]) -> str:
    """The question, lower-cased, with each mention span replaced by ``x``."""
    out, last = [], 0
    for start, end in sorted(spans):
        out.append(question[last:start])
        out.append("X")
        last = end
    out.append(question[last:])
    return re.sub(r"\s+", " ", "".join(out)).lower().strip()


def classify_aspect(masked: str) -> Aspect | None:
    """The first aspect whose rule matches, or None."""
    for aspect, pattern in _COMPILED:
        if pattern.search(masked):
            return aspect
    return None
