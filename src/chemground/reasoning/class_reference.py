"""A compound a question points to among several it names, by its class or as the one
isolated: "3-bromothiophene + 4-F-C6H4B(OH)2, Pd(PPh3)4, K2CO3 - MW of the boronic acid?" asks
the molar mass of one of the four (all four were compared, a confident answer to another
question); "after HCl/dioxane on Boc-Phe-OMe I isolate H-Phe-OMe·HCl - what MW?" that of the
salt isolated.

The class words are those chemists use for a reagent in a reaction line; each is a SMARTS
pattern, and the reference holds only when exactly one named compound matches it. Otherwise
the question is left as it is: a reference that is not clear is never guessed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from chemground.reasoning.question_text import CLAUSE_END

# the class words chemists point to a reagent of a reaction line with; their SMARTS are the
# functional groups of chemground.kb.functional_groups
_CLASSES = (
    "boronic acid",
    "boronate",
    "aldehyde",
    "ketone",
    "amine",
    "alcohol",
    "phenol",
    "ester",
    "carboxylic acid",
    "acid chloride",
    "sulfonyl chloride",
    "nitrile",
    "alkyne",
    "azide",
    "isocyanate",
    "thiol",
)
_CLASS_REFERENCE = re.compile(
    r"\b(?:of|for) (?:the|my|our|this|that) ("
    + "|".join(sorted((re.escape(w) for w in _CLASSES), key=len, reverse=True))
    + r")s?\b",
    re.IGNORECASE,
)


# "after HCl/dioxane on Boc-Phe-OMe I isolate the hydrochloride, H-Phe-OMe·HCl - what MW?": the
# compound isolated is the one asked about, not the reagents before it
_ISOLATED = re.compile(
    r"\b(i|we)\s+(isolate|isolated|collect|collected|obtain|obtained|end up with)\b", re.I
)


_REACTION_LINE = re.compile(r"\s\+\s|->|→|,[^,]+,")


@lru_cache(maxsize=64)
def _pattern(word: str):
    from rdkit import Chem

    from chemground.kb.functional_groups import GROUPS

    return Chem.MolFromSmarts(GROUPS[word])


def _is_of_class(smiles: str, word: str) -> bool:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    return mol is not None and mol.HasSubstructMatch(_pattern(word))


def compound_referred_by_class(text: str, mentions: list) -> tuple[list, list[str]]:
    """The one compound "the boronic acid" (the aldehyde, the amine...) points to, when the
    question names several and exactly one is of that class.

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions to keep (that one compound), and a note naming it; the mentions as they
        are and no note when the question points to no class, or not to exactly one compound.
    """
    resolved = [m for m in mentions if m.structure is not None]
    if len(resolved) < 2 or len(resolved) < len(mentions):
        # a name nothing resolved may be the one pointed to: never pick another in its place
        return mentions, []
    verb = _ISOLATED.search(text)
    if verb is not None:
        end = CLAUSE_END.search(text, verb.end())
        stop = end.start() if end else len(text)
        isolated = [m for m in resolved if verb.end() <= m.start < stop]
        if isolated:  # "we isolate the TFA salt, H-Ala-OMe·TFA": the last one names it
            chosen = isolated[-1]
            note = f"read {chosen.text!r}, the compound isolated, as the one asked about"
            return [chosen], [note]
    salt = _salt_referred(text, resolved)
    if salt is not None:
        return [salt], [f"read 'the salt' as {salt.text!r}, the one salt the question names"]
    found = _CLASS_REFERENCE.search(text)
    if (
        found is None
        or any(m.resolved_by == "fuzzy" for m in resolved)
        or not _REACTION_LINE.search(text[: found.start()])
    ):
        # only in a reaction line ("A + B, C - MW of the boronic acid?"), and never when a name
        # was corrected: the corrected name may be the one meant
        return mentions, []
    word = found.group(1).lower()
    matching = [m for m in resolved if _is_of_class(m.structure.smiles, word)]
    if len(matching) != 1:
        return mentions, []
    [chosen] = matching
    return [chosen], [f"read 'the {word}' as {chosen.text!r}, the one {word} the question names"]


# "... TFA deprotection, kept as the TFA salt (2-amino-N-benzylacetamide·TFA) – MW of the salt?"
_SALT_REFERENCE = re.compile(
    r"\b(?:of|for) (?:the|my|our|this|that) (?:(?:hcl|hbr|tfa|hydrochloride|hydrobromide) )?salt\b",
    re.IGNORECASE,
)
# a name that says it is an acid-addition salt: "X hydrochloride", "X HCl", "X·TFA"
_SALT_NAME = re.compile(r"(?:hydrochloride|hydrobromide|\bhcl\b|\bhbr\b|\btfa\b|[·•])", re.I)


def _salt_referred(text: str, resolved: list):
    """The one compound "the salt" points to: the one named as an acid-addition salt, else the
    one ionic compound; None when the question says no "the salt", or two compounds qualify
    ("the salt" beside K2CO3 and a hydrochloride is left as it is)."""
    if not _SALT_REFERENCE.search(text):
        return None
    ionic = [m for m in resolved if "." in m.structure.smiles]
    named = [m for m in ionic if _SALT_NAME.search(m.text)]
    for group in (named, ionic):
        if len(group) == 1:
            return group[0]
        if group:
            return None
    return None
