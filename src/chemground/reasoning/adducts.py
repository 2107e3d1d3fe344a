"""The m/z of a mass-spectrometry ion a question names: "[M+H]+ of caffeine", "calculated m/z
[M+Na]+ for aspirin", "caffeine plus a proton".

A chemist checking an HRMS result asks for the ion, not the neutral molecule: the neutral
monoisotopic mass answered for "[M+H]+" is 1.0073 off, which at 5 ppm is a wrong answer. The
ion's m/z is computed from the compound's monoisotopic mass, the monoisotopic masses of what
the ion adds or loses, and the electrons its charge takes away or adds. Only ions whose
composition the notation fixes are read; another ("[M+X]+", a bare "m/z") is left to the
routing, which says no tool here computes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ELECTRON = 0.000548580  # u
# monoisotopic masses (u) of the species an ion notation adds or loses, neutral
SPECIES = {
    "H": 1.00782503,
    "Li": 7.01600344,
    "Na": 22.98976928,
    "K": 38.96370649,
    "NH4": 18.03437414,
    "Cl": 34.96885268,
    "Br": 78.9183371,
    "HCOO": 44.99765453,
    "CH3COO": 59.01330459,
    "H2O": 18.01056468,
    "CH3CN": 41.02654911,
    "ACN": 41.02654911,
}
_SPECIES = "|".join(sorted(map(re.escape, SPECIES), key=len, reverse=True))
# "[M+H]+", "[M+Na]+", "[M-H]-", "[2M+H]+", "[M+2H]2+", "[M+H-H2O]+", "(M+H)+", "[M+NH4]⁺"
_ION = re.compile(
    rf"[\[(]\s*(?P<n>\d*)\s*M(?P<parts>(?:\s*[+-]\s*\d*\s*(?:{_SPECIES}))+)\s*[\])]\s*"
    r"(?P<z>\d*)\s*(?P<sign>[+-]|⁺|⁻)",
)
_PART = re.compile(rf"([+-])\s*(\d*)\s*({_SPECIES})")
# "protonated caffeine", "caffeine plus a proton", "the protonated molecule"
_PROTONATED = re.compile(
    r"\bprotonated\b|\b(?:plus|\+|with|and)\s+(?:a|one)\s+proton\b|\bMH\+", re.IGNORECASE
)


@dataclass(frozen=True)
class Ion:
    """An ion of a compound M as mass spectrometry writes it."""

    label: str  # "[M+H]+"
    molecules: int  # the 2 of "[2M+H]+"
    parts: tuple[tuple[int, str], ...]  # (signed count, species): ((1, "H"),)
    charge: int  # signed: +1, -1, +2

    def mz(self, monoisotopic_mass: float) -> float:
        """The ion's m/z for a compound of ``monoisotopic_mass`` (u).

        Args:
            monoisotopic_mass: the neutral compound's monoisotopic mass.

        Returns:
            The mass-to-charge ratio.
        """
        mass = self.molecules * monoisotopic_mass
        mass += sum(count * SPECIES[species] for count, species in self.parts)
        mass -= self.charge * ELECTRON
        return mass / abs(self.charge)


def asked_ion(question: str) -> Ion | None:
    """The ion ``question`` names, or None.

    Args:
        question: the question as asked.

    Returns:
        The ion ("[M+H]+" for "protonated caffeine"); None when it names none, or one whose
        composition is not fixed (a charge the parts do not carry).
    """
    found = _ION.search(question)
    if found is None:
        if _PROTONATED.search(question):
            return Ion("[M+H]+", 1, ((1, "H"),), 1)
        return None
    parts = tuple(
        (int(count or 1) * (1 if sign == "+" else -1), species)
        for sign, count, species in _PART.findall(found.group("parts"))
    )
    sign = 1 if found.group("sign") in ("+", "⁺") else -1
    charge = sign * int(found.group("z") or 1)
    carried = sum(count for count, species in parts if species in ("H", "Li", "Na", "K", "NH4"))
    carried -= sum(count for count, species in parts if species in ("Cl", "Br", "HCOO", "CH3COO"))
    if carried != charge:  # "[M+H]-", "[M+Na]2+": no ion of that composition
        return None
    label = re.sub(r"\s+", "", found.group(0)).replace("⁺", "+").replace("⁻", "-")
    return Ion(label, int(found.group("n") or 1), parts, charge)


def ion_words(question: str) -> str:
    """``question`` with the ion it names blanked out, so that its notation and "m/z" are not
    read as a property no tool computes."""
    question = _ION.sub(" ", question)
    question = _PROTONATED.sub(" ", question)
    return re.sub(r"\bm/z\b", " ", question, flags=re.IGNORECASE)


def ion_sentence(name: str, monoisotopic_mass: float, ion: Ion) -> tuple[float, str]:
    """The value and sentence of an answer giving ``ion``'s m/z for compound ``name``.

    Args:
        name: the compound's name as the answer gives it.
        monoisotopic_mass: its neutral monoisotopic mass.
        ion: the ion asked.

    Returns:
        (the m/z rounded to 4 decimals, the sentence).
    """
    mz = round(ion.mz(monoisotopic_mass), 4)
    return mz, (
        f"The calculated m/z of {ion.label} for {name} is {mz:.4f} (monoisotopic mass of "
        f"{name} {monoisotopic_mass:.4f} Da, with the ion's added or lost atoms and electrons)."
    )
