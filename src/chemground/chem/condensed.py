"""Condensed structural formulas as chemists type them: "CH3CH2OH", "CH3COOCH2CH3",
"(CH3)3CCOCl", "HOCH2CH2OCH2CH2OH", "CH3CH(OH)CH3", "C6H5CH2Br".

No library reads these (OPSIN reads names, RDKit SMILES), and a molecular formula alone does
not say which isomer is meant: "C2H6O" is ethanol or dimethyl ether, but "CH3CH2OH" is
ethanol. The reading follows the textbook convention: atoms in order along the chain, each
with its hydrogens; a group in parentheses hangs on the atom before it (on the atom after it
when it opens the formula), with a count for repeats; "CO" inside a chain is a carbonyl, "CHO"
an aldehyde, "COO" an ester or acid, "CN" a nitrile, "NO2" a nitro group and "C6H5" a phenyl.
Anything else, or a reading whose atoms differ from the written ones, gives None: a formula
that is not read is never guessed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_VALENCE = {"C": 4, "N": 3, "O": 2, "S": 2, "S6": 6, "F": 1, "Cl": 1, "Br": 1, "I": 1}
# one unit: an element with its hydrogens ("CH2", "OH", "NH2", "Cl"), or phenyl
_UNIT = re.compile(r"C6H5|Ph|Cl|Br|[CNOSFI](?:H(\d?))?")
_BOND = {"=": 2, "≡": 3, "#": 3}
MAX_CONDENSED_CHARS = 60


@dataclass
class _Atom:
    element: str
    hydrogens: int
    bonds: int = 0
    neighbours: list[tuple[int, int]] = field(default_factory=list)  # (atom index, order)

    @property
    def free(self) -> int:
        return _VALENCE[self.element] - self.hydrogens - self.bonds


class _Reader:
    """Builds the molecule unit by unit (see the module docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.atoms: list[_Atom] = []

    # -- building ------------------------------------------------------------------------
    def _add(self, element: str, hydrogens: int) -> int:
        self.atoms.append(_Atom(element, hydrogens))
        return len(self.atoms) - 1

    def _bond(self, a: int, b: int, order: int = 1) -> None:
        if self.atoms[a].free < order or self.atoms[b].free < order:
            raise ValueError("valence")
        for x, y in ((a, b), (b, a)):
            self.atoms[x].bonds += order
            self.atoms[x].neighbours.append((y, order))

    def _phenyl(self) -> int:
        """A C6H5 ring; returns its ipso carbon (one free valence)."""
        ring = [self._add("C", 1 if i else 0) for i in range(6)]
        for i in range(6):
            self._bond(ring[i], ring[(i + 1) % 6], 2 if i % 2 == 0 else 1)
        return ring[0]

    # -- reading -------------------------------------------------------------------------
    def read_chain(self, closing: bool = False) -> tuple[int | None, int | None]:
        """Units up to the end (or a closing parenthesis): (first atom, last chain atom)."""
        first: int | None = None
        current: int | None = None
        pending: list[int] = []  # groups written before any atom: they hang on the next one
        order = 1
        lead_h = 0  # "HOCH2…", "HC≡CH": a hydrogen written before its atom
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "H" and current is None and not lead_h:
                digits = re.match(r"H(\d?)(?=[CNOS])", self.text[self.pos :])
                if digits is None:
                    raise ValueError("unit")
                lead_h = int(digits.group(1) or 1)
                self.pos += digits.end()
                continue
            if self.text.startswith("(=O)", self.pos) and current is not None:
                oxygen = self._add("O", 0)  # "C(=O)": a carbonyl written out
                self._bond(current, oxygen, 2)
                self.pos += 4
                continue
            if char == ")":
                if not closing:
                    raise ValueError("unbalanced")
                return first, current
            if char in _BOND:
                order = _BOND[char]
                self.pos += 1
                continue
            if char == "(":
                self.pos += 1
                head, _ = self.read_chain(closing=True)
                if self.pos >= len(self.text) or self.text[self.pos] != ")" or head is None:
                    raise ValueError("unbalanced")
                self.pos += 1
                count = self._count()
                heads = [head] + [self._copy_group(head) for _ in range(count - 1)]
                if (
                    current is not None
                    and len(self.atoms[head].neighbours) == 0
                    and (self.atoms[head].free >= 2)
                ):
                    # "CH3(CH2)4CH3": a repeated chain link, not branches
                    for h in heads:
                        self._bond(current, h)
                        current = h
                    continue
                if current is None:
                    pending.extend(heads)
                else:
                    for h in heads:
                        self._bond(current, h)
                continue
            match = _UNIT.match(self.text, self.pos)
            if match is None:
                raise ValueError("unit")
            self.pos = match.end()
            unit = match.group(0)
            if unit in ("C6H5", "Ph"):
                atom = self._phenyl()
            else:
                element = re.match(r"Cl|Br|[CNOSFI]", unit).group(0)
                hydrogens = 0
                if "H" in unit[len(element) :]:
                    hydrogens = int(match.group(1) or 1)
                atom = self._add(element, hydrogens + lead_h)
                lead_h = 0
            if current is None:
                for h in pending:
                    self._bond(atom, h)
                pending = []
                first = current = atom
                order = 1
                continue
            current = self._attach(current, atom, order)
            order = 1
        if closing:
            raise ValueError("unbalanced")
        return first, current

    def _attach(self, current: int, atom: int, order: int) -> int:
        """Bonds ``atom`` to the chain and returns the atom the chain goes on from."""
        new = self.atoms[atom]
        here = self.atoms[current]
        more = self.pos < len(self.text) and self.text[self.pos] != ")"
        bare = order == 1 and new.hydrogens == 0
        # "CO" in "CH3COCH3", "CHO", "COO": the first O of a carbon that still needs two bonds
        # besides the chain's is its carbonyl
        if (
            bare
            and new.element == "O"
            and here.element == "C"
            and (here.free >= 3 or (here.free == 2 and not more))
        ):
            self._bond(current, atom, 2)
            return current
        if bare and new.element == "N" and not more and here.element == "C" and here.free == 3:
            self._bond(current, atom, 3)  # "CH3CN": a nitrile
            return current
        if (
            order == 1
            and new.element == "N"
            and new.hydrogens == 0
            and self.text[self.pos : self.pos + 2] == "O2"
        ):
            self.pos += 2  # "CH3NO2": a nitro group, written as the charge-separated form
            self._bond(current, atom)
            oxygen = self._add("O", 0)
            minus = self._add("O", 0)
            self.atoms[atom].element = "N+"
            self._bond_raw(atom, oxygen, 2)
            self._bond_raw(atom, minus, 1)
            self.atoms[oxygen].bonds += 2  # (the valence check once failed every nitro group)
            self.atoms[minus].element = "O-"
            return current
        if (
            order == 1
            and new.element == "S"
            and new.hydrogens == 0
            and self.text[self.pos : self.pos + 2] == "O2"
        ):
            self.pos += 2  # "PhSO2Cl", "CH3SO2NH2": a sulfonyl group, S(VI)
            new.element = "S6"
            self._bond(current, atom)
            for _ in range(2):
                self._bond(atom, self._add("O", 0), 2)
            return atom if more and self.pos < len(self.text) else current
        self._bond(current, atom, order)
        # a terminal unit (Cl, OH at the end of a branch) leaves the chain where it was
        return atom if self.atoms[atom].free > 0 or not more else current

    def _bond_raw(self, a: int, b: int, order: int) -> None:
        for x, y in ((a, b), (b, a)):
            self.atoms[x].neighbours.append((y, order))

    def _count(self) -> int:
        digits = re.match(r"\d*", self.text[self.pos :]).group(0)
        self.pos += len(digits)
        return int(digits) if digits else 1

    def _copy_group(self, head: int) -> int:
        """A copy of the group whose first atom is ``head`` ("(CH3)3": three methyls)."""
        seen: dict[int, int] = {}

        def copy(index: int, parent: int | None) -> int:
            atom = self.atoms[index]
            new = self._add(atom.element, atom.hydrogens)
            seen[index] = new
            for neighbour, order in atom.neighbours:
                if neighbour == parent or neighbour in seen:
                    continue
                child = copy(neighbour, index)
                self._bond_raw(new, child, order)
                self.atoms[new].bonds += order
                self.atoms[child].bonds += order
            return new

        return copy(head, None)


def condensed_to_smiles(text: str) -> str | None:
    """The SMILES of a condensed structural formula, or None when it is not one this reads.

    Args:
        text: the formula as written ("CH3CH2OH", "(CH3)3CCOCl").

    Returns:
        A canonical SMILES whose atoms are exactly those written, or None: not a condensed
        formula (a molecular formula such as "C2H6O" names no one isomer), a group this
        reading does not know, or a valence it cannot satisfy.
    """
    text = text.strip()
    aryl = _SUBSTITUTED_ARYL.fullmatch(text)
    if aryl is not None and len(text) <= MAX_CONDENSED_CHARS:
        return _substituted_aryl(aryl)
    text = _spelled_out(text)
    if not text or len(text) > MAX_CONDENSED_CHARS or not _looks_condensed(text):
        return None
    if text.startswith("HOOC"):  # "HOOCCH2COOH": the acid group written first
        text = "HOC(=O)" + text[4:]
    reader = _Reader(text)
    try:
        first, _ = reader.read_chain()
    except (ValueError, IndexError, KeyError):
        return None
    if first is None or reader.pos != len(text):
        return None
    return _to_smiles(reader.atoms, text)


# the shorthand of a condensed formula, spelled out: "PhCH2CO2H", "PhCO2Me", "PhCH2NMe2"
_SHORTHAND = (
    # benzyl and Boc groups, as written first ("BnOH", "BocNH...") or last ("...NHBn", "...NHBoc")
    (re.compile(r"^Bn(?![a-z])"), "PhCH2"),
    (re.compile(r"Bn$"), "CH2Ph"),
    (re.compile(r"^Boc(?![a-z])"), "(CH3)3COCO"),
    (re.compile(r"Boc$"), "COOC(CH3)3"),
    (re.compile(r"CO2H(?![a-z])"), "COOH"),
    (re.compile(r"CO2(?=Me|Et)"), "COO"),
    (re.compile(r"(Me|Et)(\d)(?![a-z])"), r"(\1)\2"),
    # triflates and mesylates: "MeOTf", "PhOTf", "BnOMs"; a CF3 group anywhere ("PhCF3")
    (re.compile(r"OTf(?![a-z])"), "OSO2C(F)3"),
    (re.compile(r"OMs(?![a-z])"), "OSO2CH3"),
    (re.compile(r"CF3"), "C(F)3"),
    # an acetyl on N or O: "PhNHAc", "PhOAc" (not "AcOH", acetic acid)
    (re.compile(r"(NH|N|O)Ac(?![a-z])"), r"\1COCH3"),
    (re.compile(r"Me(?![a-z])"), "CH3"),
    (re.compile(r"Et(?![a-z])"), "CH2CH3"),
)


# "4-BrC6H4CHO", "p-MeOC6H4CO2H", "3-NO2C6H4CH2OH": a substituted phenyl written before the rest
_RING_SUBSTITUENTS = {
    "F": "F",
    "Cl": "Cl",
    "Br": "Br",
    "I": "I",
    "Me": "C",
    "CH3": "C",
    "Et": "CC",
    "MeO": "OC",
    "CH3O": "OC",
    "HO": "O",
    "H2N": "N",
    "NO2": "[N+](=O)[O-]",
    "O2N": "[N+](=O)[O-]",
    "CF3": "C(F)(F)F",
    "F3C": "C(F)(F)F",
    "NC": "C#N",
    "MeS": "SC",
    "Ac": "C(C)=O",
    "Ph": "c1ccccc1",
}
_LOCANT_STEPS = {"2": 1, "o": 1, "3": 2, "m": 2, "4": 3, "p": 3}
_SUBSTITUTED_ARYL = re.compile(
    r"(?P<locant>[234opm])-(?P<group>"
    + "|".join(sorted(map(re.escape, _RING_SUBSTITUENTS), key=len, reverse=True))
    + r")-?C6H4-?(?P<rest>.+)"  # "4-F-C6H4B(OH)2" with hyphens, too
)
# the rests the chain reader does not read, as SMILES on the phenyl
_ARYL_RESTS = {"B(OH)2": "OB(O)c1ccccc1", "Bpin": "CC1(C)OB(c2ccccc2)OC1(C)C"}


def _substituted_aryl(match: re.Match) -> str | None:
    """The SMILES of "4-BrC6H4CHO": the rest read with a phenyl ("PhCHO"), and the substituent
    put on the ring atom the locant names, counted from the atom the rest hangs on."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    rest = (
        _ARYL_RESTS.get(match.group("rest"))
        or condensed_to_smiles("Ph" + match.group("rest"))
        or condensed_to_smiles("C6H5" + match.group("rest"))
    )
    if rest is None:
        return None
    mol = Chem.MolFromSmiles(rest)
    ring = [a for a in mol.GetAtoms() if a.GetIsAromatic() and a.IsInRingSize(6)]
    ipso = [a for a in ring if any(not n.GetIsAromatic() for n in a.GetNeighbors())]
    if len(ring) != 6 or len(ipso) != 1:
        return None  # a second ring, or no one atom the rest hangs on: not read
    path, previous, atom = [ipso[0].GetIdx()], None, ipso[0]
    for _ in range(_LOCANT_STEPS[match.group("locant")]):
        step = next(
            n
            for n in atom.GetNeighbors()
            if n.GetIsAromatic() and n.GetIdx() != previous and n.GetIdx() not in path
        )
        previous, atom = atom.GetIdx(), step
        path.append(step.GetIdx())
    substituent = Chem.MolFromSmiles(_RING_SUBSTITUENTS[match.group("group")])
    combined = Chem.RWMol(Chem.CombineMols(mol, substituent))
    combined.AddBond(atom.GetIdx(), mol.GetNumAtoms(), Chem.BondType.SINGLE)
    try:
        out = combined.GetMol()
        Chem.SanitizeMol(out)
    except Exception:
        return None
    return Chem.MolToSmiles(out)


def _spelled_out(text: str) -> str:
    """``text`` with CO2H, CO2Me, Me and Et written as units the reader knows."""
    for pattern, replacement in _SHORTHAND:
        text = pattern.sub(replacement, text)
    return text


def _looks_condensed(text: str) -> bool:
    """At least two heavy-atom units in a row, or a group in parentheses: "CH3CH2OH",
    "(CH3)3COH", not "C6H12O6" or "H2SO4" (molecular formulas)."""
    if re.fullmatch(r"(?:[A-Z][a-z]?\d*)+", text) and not re.search(
        r"(CH[23]?|OH|NH2?|COO?H?|CHO|CN|Ph|C6H5)(?=C|O|N|S|Cl|Br|F|I|P|\(|$)", text
    ):
        return False
    units = re.findall(r"CH[23]?|C6H5|Ph|COO?H?|CHO|OH|NH2?|CN|NO2|SO2", text)
    return len(units) >= 2 or "(" in text


def _to_smiles(atoms: list[_Atom], text: str) -> str | None:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mol = Chem.RWMol()
    for atom in atoms:
        element = atom.element.rstrip("+-6")
        rd = Chem.Atom(element)
        if atom.element.endswith("+"):
            rd.SetFormalCharge(1)
        elif atom.element.endswith("-"):
            rd.SetFormalCharge(-1)
        rd.SetNumExplicitHs(atom.hydrogens)
        rd.SetNoImplicit(True)
        mol.AddAtom(rd)
    orders = {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE}
    for index, atom in enumerate(atoms):
        for neighbour, order in atom.neighbours:
            if index < neighbour:
                mol.AddBond(index, neighbour, orders[order])
    try:
        Chem.SanitizeMol(mol)
    except Exception:
        return None
    if any(a.free != 0 for a in atoms if a.element in _VALENCE):
        return None  # a valence left open: not a molecule as written
    written = _written_counts(text)
    built = Counter()
    for atom in Chem.AddHs(mol).GetAtoms():
        built[atom.GetSymbol()] += 1
    if written is None or written != built:
        return None
    return Chem.MolToSmiles(mol)


def _written_counts(text: str) -> Counter | None:
    """Element counts of the formula as written, groups and repeats expanded."""

    def expand(body: str) -> Counter | None:
        counts: Counter = Counter()
        i = 0
        while i < len(body):
            if body[i] in "=≡#":
                i += 1
                continue
            if body.startswith("Ph", i):
                counts.update({"C": 6, "H": 5})
                i += 2
                continue
            if body[i] == "(":
                depth, j = 1, i + 1
                while j < len(body) and depth:
                    depth += {"(": 1, ")": -1}.get(body[j], 0)
                    j += 1
                if depth:
                    return None
                inner = expand(body[i + 1 : j - 1])
                number = re.match(r"\d*", body[j:]).group(0)
                if inner is None:
                    return None
                for _ in range(int(number) if number else 1):
                    counts.update(inner)
                i = j + len(number)
                continue
            match = re.match(r"(Cl|Br|[A-Z])(\d*)", body[i:])
            if match is None:
                return None
            counts[match.group(1)] += int(match.group(2)) if match.group(2) else 1
            i += match.end()
        return counts

    return expand(text)
