"""Atom counts a question asks for: "how many carbons in ibuprofen?", "number of N atoms in
caffeine", "how many atoms does benzene have?".

The element word is no compound here ("hydrogens" resolves to H2, "oxygen" to O2), so the
parser drops its mention; the count itself is read off the structure with its hydrogens
(``properties/CountAtoms``). Questions about another compound's atoms ("how many carbons does
the product have") are not read here: the compound named is not the one counted.
"""

from __future__ import annotations

import re

ELEMENT_WORDS = {
    "carbon": "C",
    "hydrogen": "H",
    "nitrogen": "N",
    "oxygen": "O",
    "sulfur": "S",
    "sulphur": "S",
    "phosphorus": "P",
    "fluorine": "F",
    "chlorine": "Cl",
    "bromine": "Br",
    "iodine": "I",
    "silicon": "Si",
    "boron": "B",
    "sodium": "Na",
    "potassium": "K",
    "lithium": "Li",
    "magnesium": "Mg",
    "calcium": "Ca",
    "iron": "Fe",
    "copper": "Cu",
    "zinc": "Zn",
    "platinum": "Pt",
    "palladium": "Pd",
    "cobalt": "Co",
    "selenium": "Se",
    "tin": "Sn",
}
_WORD = "|".join(sorted(ELEMENT_WORDS, key=len, reverse=True))
_SYMBOL = "|".join(sorted(set(ELEMENT_WORDS.values()), key=len, reverse=True))
_COUNTING = r"(?:how\s+many|number\s+of|no\.?\s+of|count(?:\s+of|\s+the)?|total|#)"
# "how many carbons", "number of N atoms", "how many atoms"; never "hydrogen bond donors",
# "carbon atoms in the ring", "heavy atoms" (its own aspect) or "chiral carbons"
ATOM_COUNT = re.compile(
    # "the CAS number of potassium sorbate" counts no potassium atoms
    r"(?<!\bcas )(?<!\bec )(?<!\bun )(?<!registry )(?<!catalog )(?<!catalogue )(?<!\blot )"
    r"(?<!batch )(?<!product )(?<!article )(?<!pubchem )(?<!\bcid )"
    rf"\b{_COUNTING}\s+(?:the\s+)?(?:(?:total|individual)\s+)?"
    rf"(?:(?P<word>{_WORD})s?(?:\s+atoms?)?|(?P<symbol>{_SYMBOL})(?:\s+|-)atoms?"
    # "how many atoms" counts them all, but not "atoms other than H" (heavy atoms) nor "atoms
    # that can accept a hydrogen bond" (acceptors)
    r"|(?P<all>atoms)(?![^?]*\b(other than|except|besides|accept\w*|donat\w*|bond\w*)\b))"
    r"(?![- ]?(?:bond|bonded|dioxide|monoxide|chain|skeleton|ring|cent(?:re|er)|stereo))\b"
    rf"|\b(?P<word2>{_WORD})\s+(?:atom\s+)?count\b"
    rf"|\bhow\s+many\s+(?P<word3>{_WORD})s?\s+(?:atoms?\s+)?(?:are\s+there|does|do|has|have|in)\b",
    re.IGNORECASE,
)
# the counted compound is another one: a product, a reactant of a reaction, an isomer
_ANOTHER_COMPOUND = re.compile(
    r"\b(?:products?|formed|obtained|made|gives?|yields?|reactants?|intermediates?|isomers?)\b",
    re.IGNORECASE,
)


def asked_element(question: str) -> tuple[str | None, tuple[int, int]] | None:
    """The element whose atoms the question counts, and the span of its word.

    Args:
        question: the question as typed.

    Returns:
        (element symbol, or None for all atoms; (start, end) of the counted word) when the
        question asks for an atom count of a compound it names, else None.
    """
    match = ATOM_COUNT.search(question)
    if match is None or _ANOTHER_COMPOUND.search(question):
        return None
    if counts_several_elements(question):
        return None  # "how many carbons and hydrogens does naphthalene contain": its formula
    for group in ("word", "word2", "word3"):
        if match.group(group):
            return ELEMENT_WORDS[match.group(group).lower()], match.span(group)
    if match.group("symbol"):
        symbol = match.group("symbol")
        symbol = symbol[0].upper() + symbol[1:].lower()
        return symbol, match.span("symbol")
    return None, match.span("all")


def counts_several_elements(question: str) -> bool:
    """Whether an atom-count question names two elements or more: its formula answers it.

    Args:
        question: the question as typed.

    Returns:
        True for "how many carbons and hydrogens does naphthalene contain".
    """
    words = re.findall(rf"\b({_WORD})s?\b", question, re.IGNORECASE)
    return len({ELEMENT_WORDS[w.lower()] for w in words}) >= 2


def element_name(symbol: str) -> str:
    """'C' -> 'carbon' (the first word naming the symbol)."""
    return next(word for word, s in ELEMENT_WORDS.items() if s == symbol)
