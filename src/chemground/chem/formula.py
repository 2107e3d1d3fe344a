"""Molecular formulas: element symbols and element counts, read one way everywhere.

Tools count atoms of "Ca3(PO4)2", the mention finder asks whether "CO2" in a sentence is a
formula, extraction reads "K2CO3" written as a reagent's name, and the faithfulness check
compares a formula in an LLM's answer with the evidence's. Each had its own reader; they now
share :func:`element_counts` and the one list of symbols, and keep only their own gates (what
counts as a formula in running text differs from what a tool accepts).
"""

from __future__ import annotations

import re

from chemground.errors import ChemgroundError

ELEMENT_SYMBOLS = """
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br
Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er
Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md
No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og
""".split()
SYMBOLS = frozenset(ELEMENT_SYMBOLS)

_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_TRAILING_CHARGE = re.compile(r"(?:\d*[+\-−]+|[+\-−]\d+)$")
_ELEMENT = re.compile(r"([A-Z][a-z]?)(\d*)")


def element_symbol(symbol: str) -> str:
    """A valid element symbol, case-corrected ('fe' -> 'Fe').

    Args:
        symbol: the symbol as written.

    Returns:
        The symbol as the periodic table writes it.

    Raises:
        ChemgroundError: it is no element's symbol.
    """
    text = (symbol or "").strip()
    fixed = text[:1].upper() + text[1:].lower()
    if fixed not in SYMBOLS:
        raise ChemgroundError(f"{symbol!r} is not an element symbol")
    return fixed


def element_counts(formula: str, *, charge: bool = False) -> dict[str, int]:
    """Element counts of a formula, in order of first appearance.

    Handles parentheses and brackets with multipliers (``Ca3(PO4)2``), hydrates and salts with
    a dot and a leading multiplier (``CuSO4·5H2O``, ``C2H4O2.Na``) and Unicode subscript digits
    (``H₂O``).

    Args:
        formula: the formula.
        charge: drop a charge written at the end ("Zn2+", "SO4-2") instead of refusing it.

    Returns:
        Element symbol -> number of atoms.

    Raises:
        ChemgroundError: it is no formula (a character or symbol no formula has, unbalanced
            brackets, nothing to count).
    """
    text = (formula or "").strip().translate(_SUBSCRIPTS).replace("·", ".").replace("*", ".")
    if charge:
        text = _TRAILING_CHARGE.sub("", text)
    if not text or not re.fullmatch(r"[A-Za-z0-9()\[\].]+", text):
        raise ChemgroundError(f"{formula!r} is not a chemical formula")
    counts: dict[str, int] = {}
    for part in text.split("."):
        if not part:
            continue
        match = re.match(r"^(\d+)(.*)$", part)
        factor, body = (int(match.group(1)), match.group(2)) if match else (1, part)
        for symbol, number in _group_counts(body, formula).items():
            counts[symbol] = counts.get(symbol, 0) + number * factor
    if not counts:
        raise ChemgroundError(f"{formula!r} is not a chemical formula")
    return counts


def _group_counts(text: str, original: str) -> dict[str, int]:
    stack: list[dict[str, int]] = [{}]
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "([":
            stack.append({})
            i += 1
        elif ch in ")]":
            if len(stack) == 1:
                raise ChemgroundError(f"unbalanced brackets in {original!r}")
            group = stack.pop()
            number = re.match(r"\d*", text[i + 1 :]).group(0)
            i += 1 + len(number)
            for symbol, count in group.items():
                stack[-1][symbol] = stack[-1].get(symbol, 0) + count * (
                    int(number) if number else 1
                )
        else:
            match = _ELEMENT.match(text, i)
            if not match:
                raise ChemgroundError(f"cannot read {text[i:]!r} in the formula {original!r}")
            symbol = element_symbol(match.group(1))
            stack[-1][symbol] = stack[-1].get(symbol, 0) + (
                int(match.group(2)) if match.group(2) else 1
            )
            i = match.end()
    if len(stack) != 1:
        raise ChemgroundError(f"unbalanced brackets in {original!r}")
    return stack[0]
