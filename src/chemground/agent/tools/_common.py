"""Small helpers the tool modules share: parsing SMILES and element symbols with clear errors."""

from __future__ import annotations

from chemground.errors import ChemgroundError, StructureError


def mol(smiles: str):
    """An RDKit molecule from SMILES, or StructureError with RDKit's reason."""
    from chemground.chem.structure import mol_from_smiles

    return mol_from_smiles(smiles)


ELEMENT_SYMBOLS = """
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br
Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er
Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md
No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og
""".split()
_SYMBOLS = set(ELEMENT_SYMBOLS)


def element_symbol(symbol: str) -> str:
    """A valid element symbol (case-corrected: 'fe' -> 'Fe'), or a clear error."""
    text = (symbol or "").strip()
    fixed = text[:1].upper() + text[1:].lower()
    if fixed not in _SYMBOLS:
        raise ChemgroundError(f"{symbol!r} is not an element symbol")
    return fixed


__all__ = ["StructureError", "element_symbol", "mol"]


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def parse_formula(formula: str) -> dict[str, int]:
    """Element counts of a formula, in order of first appearance.

    Handles parentheses and brackets with multipliers (``Ca3(PO4)2``), hydrates with a dot
    and a leading multiplier (``CuSO4·5H2O``) and Unicode subscript digits (``H₂O``).
    """
    import re

    text = (formula or "").strip().translate(_SUBSCRIPTS).replace("·", ".").replace("*", ".")
    if not text or not re.fullmatch(r"[A-Za-z0-9()\[\].]+", text):
        raise ChemgroundError(f"{formula!r} is not a chemical formula")
    counts: dict[str, int] = {}
    for part in text.split("."):
        if not part:
            continue
        match = re.match(r"^(\d+)(.*)$", part)
        factor, body = (int(match.group(1)), match.group(2)) if match else (1, part)
        for symbol, number in _parse_group(body, formula).items():
            counts[symbol] = counts.get(symbol, 0) + number * factor
    if not counts:
        raise ChemgroundError(f"{formula!r} is not a chemical formula")
    return counts


def _parse_group(text: str, original: str) -> dict[str, int]:
    import re

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
            match = re.match(r"([A-Z][a-z]?)(\d*)", text[i:])
            if not match:
                raise ChemgroundError(f"cannot read {text[i:]!r} in the formula {original!r}")
            symbol = element_symbol(match.group(1))
            stack[-1][symbol] = stack[-1].get(symbol, 0) + (
                int(match.group(2)) if match.group(2) else 1
            )
            i += len(match.group(0))
    if len(stack) != 1:
        raise ChemgroundError(f"unbalanced brackets in {original!r}")
    return stack[0]


def offline_error(tool: str, reason: str):
    """The ToolOffline a tool raises when its answer needs PubChem and the network is not
    allowed."""
    from chemground.agent.runner import ToolOffline
    from chemground.pubchem import NETWORK_HINT

    return ToolOffline(tool, f"{reason} ({NETWORK_HINT})")
