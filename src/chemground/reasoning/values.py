"""Turning an answer text into the typed value the aspect asks for.

LLM reasoners write prose ending in ``Answer: ...``; the benchmark and the JSON output need a
number, SMILES strings or names. Compounds in the answer are found with the same mention
finder as questions, so a name answer ("ethyl acetate") also yields its SMILES.
"""

from __future__ import annotations

import re
from typing import Any

from chemground.chem.mentions import MentionFinder, closing_paren
from chemground.chem.structure import structure_from_smiles
from chemground.errors import ChemgroundError
from chemground.reasoning.query import Aspect

_ANSWER_LINE = re.compile(r"(?im)^\s*\**\s*(?:final\s+)?answer\s*\**\s*[:：]\s*(.+?)\s*$")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?")
NOT_AVAILABLE = re.compile(
    r"not available from the given (evidence|context)|cannot be determined|no evidence",
    re.IGNORECASE,
)
NUMERIC = {
    Aspect.MOLECULAR_WEIGHT,
    Aspect.EXACT_MASS,
    Aspect.TEMPERATURE,
    Aspect.TIME,
    Aspect.YIELD,
}
STRUCTURES = {Aspect.PRODUCT, Aspect.REACTANTS, Aspect.NAME_TO_SMILES, Aspect.SIMILAR}
NAMES = {Aspect.SOLVENT, Aspect.CATALYST, Aspect.REAGENT, Aspect.SYNONYMS}


def final_answer(text: str) -> str:
    """The text after the last ``Answer:`` line, or the whole text (stripped)."""
    matches = _ANSWER_LINE.findall(text or "")
    return matches[-1].strip() if matches else (text or "").strip()


def first_number(text: str) -> float | None:
    match = _NUMBER.search(
        text.replace(",", "") if re.search(r"\d,\d{3}\b", text) else text.replace(",", ".")
    )
    return float(match.group()) if match else None


# "pentane (CCCCC)": a model copies the evidence's "name (SMILES)" layout into its answer. The
# name is the value; the bracket is dropped when it holds a SMILES (or the evidence's "no
# SMILES"), never an oxidation state ("copper (I)") or a locant.
_ROMAN_OR_NUMBER = re.compile(r"^(?:[IVX]+|\d+|[+-]?\d*[+-]?)$")


def _without_smiles(name: str) -> str:
    if not name.endswith(")") or " (" not in name:
        return name
    start = name.rfind(" (")
    # the bracket that opens at start + 1 must be the one that closes the name
    while start >= 0 and closing_paren(name[start + 1 :]) != len(name) - start - 2:
        start = name.rfind(" (", 0, start)
    if start < 0:
        return name
    inner = name[start + 2 : -1]
    if inner != "no SMILES":
        if " " in inner or _ROMAN_OR_NUMBER.match(inner):
            return name
        try:
            structure_from_smiles(inner)
        except ChemgroundError:
            return name
    return name[:start].strip()


def split_names(text: str) -> list[str]:
    """The names of a list answer ("toluene; water", "A, B and C"), each without a SMILES the
    model copied beside it."""
    parts = re.split(r";|,\s+(?=[A-Za-z(\[])|\band\b|\n", text)
    names = [p.strip(" .*`'\"") for p in parts if p.strip(" .*`'\"")]
    return [_without_smiles(n) for n in names]


def extract_value(aspect: Aspect | None, answer_text: str, finder: MentionFinder | None) -> Any:
    """The typed value of ``answer_text`` for ``aspect`` (None when the answer declines)."""
    text = final_answer(answer_text)
    if not text or NOT_AVAILABLE.search(text):
        return None
    if aspect in NUMERIC:
        return first_number(text)
    if aspect in STRUCTURES and finder is not None:
        smiles = [m.structure.smiles for m in finder.find(text) if m.structure is not None]
        if aspect == Aspect.NAME_TO_SMILES:
            return smiles[0] if smiles else None
        return smiles or None
    if aspect in NAMES:
        return split_names(text)
    if aspect == Aspect.CONDITIONS:
        return {"text": text}
    return text
