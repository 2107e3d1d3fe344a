"""The stereo a name asks for, checked against the structure a dictionary gave for it.

PubChem files stereo names under the wrong record now and then: "(S)-ibuprofen" is a synonym of
racemic ibuprofen, "(R)-2-butanol" of 2-butanol, so a dictionary hit for such a name answers
"the SMILES of (S)-ibuprofen" with a structure that has no stereo at all, and "(R)-naproxen"
read by typo correction as naproxen gives the (S) enantiomer. A chemist who writes the
descriptor means one stereoisomer. This module reads the descriptor prefix of a name
("(S)-", "(2R,3S)-", "(E)-", "(+)-", "L-") and reconciles the structure with it:

- one R/S (or E/Z) descriptor and one stereocentre (or stereo double bond): the structure is
  set to that configuration, whatever it had (labels by RDKit's new CIP labeller);
- a descriptor the structure cannot be checked against (several centres with locants, optical
  rotation, D/L) is accepted when the structure defines its stereo, and refused when it
  defines none: which stereoisomer is meant cannot be told from the dictionary's structure;
- racemic prefixes ("(±)-", "rac-", "(RS)-") ask for no configuration;
- a bare "S-" or "R-" is used only where it can be placed (one centre): elsewhere it may be a
  locant ("S-adenosylmethionine", "S-methyl thioacetate"), so it is never a reason to refuse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rdkit import Chem

from chemground.chem.structure import Structure, structure_from_mol

# "(S)-", "(2R,3S)-", "(E)-", "(+)-", "(S)-(+)-", "(1R,2S,5R)-(-)-"; "S-", "R-" and "D-"/"L-"
# bare before a letter. Lower-case r/s are accepted in parentheses (lower-cased names).
_PAREN = re.compile(r"\(\s*([^()]{1,60}?)\s*\)\s*-?\s*")
_BARE = re.compile(r"([RSDLEZ]|rac|cis|trans)-(?=[A-Za-z(])")
_CIP = re.compile(r"^(?:\d+[a-z']?\s*)?([RSEZrsez])$")
_ROTATION = {"+", "-", "−", "–", "d", "l", "dl", "d,l"}
_RACEMIC = {"±", "+/-", "+-", "rs", "r,s", "rac", "(rs)", "dl", "d,l", "racemic"}


class StereoMismatch(Exception):
    """The name asks for a stereoisomer the structure cannot be made to be."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class StereoAsk:
    """The configuration a name's prefix asks for."""

    cip: tuple[str, ...]  # "R", "S", "E", "Z" in the order written (locants dropped)
    located: bool  # the descriptors carry locants ("2R,3S")
    other: tuple[str, ...]  # "+", "-", "D", "L": a configuration that cannot be computed
    racemic: bool
    prefix: str  # as written, for messages
    bare: bool = False  # written without parentheses ("S-ibuprofen"): "S-" may be a locant

    @property
    def empty(self) -> bool:
        return not (self.cip or self.other)


def stereo_prefix(name: str) -> StereoAsk | None:
    """The stereo descriptors at the start of ``name``, or None when it has none.

    Args:
        name: a compound name as written ("(S)-ibuprofen", "L-alanine", "(2R,3S)-...").

    Returns:
        What the prefix asks for; None for a name without a descriptor prefix.
    """
    text = name.strip()
    cip: list[str] = []
    other: list[str] = []
    racemic = located = False
    pos = 0
    bare_only = True
    while pos < len(text):
        paren = _PAREN.match(text, pos)
        bare = _BARE.match(text, pos)
        if paren:
            body = paren.group(1).replace(" ", "")
            parts = [p for p in re.split(r",", body) if p]
            if body.lower() in _RACEMIC:
                racemic = True
            elif parts and all(_CIP.match(p) for p in parts):
                cip += [_CIP.match(p).group(1).upper() for p in parts]
                located = located or any(p[0].isdigit() for p in parts)
            elif body.lower() in _ROTATION:
                other.append(body)
            else:
                break
            bare_only = False
            pos = paren.end()
        elif bare:
            word = bare.group(1)
            if word in ("rac",):
                racemic = True
            elif word in ("cis", "trans"):
                break  # OPSIN and the dictionary read cis/trans names as they are
            elif word in "RSEZ":
                cip.append(word)
            else:
                other.append(word)
            pos = bare.end()
        else:
            break
    if pos == 0 or not (cip or other or racemic):
        return None
    return StereoAsk(
        tuple(cip), located, tuple(other), racemic, text[:pos].rstrip("- "), bare=bare_only
    )


def _labels(mol: Chem.Mol) -> tuple[list[str], list[str], int, int]:
    """CIP labels of the assigned tetrahedral centres and double bonds, and how many of each
    kind the molecule could have."""
    from rdkit.Chem import rdCIPLabeler

    mol = Chem.Mol(mol)
    Chem.AssignStereochemistry(mol, cleanIt=True, force=True)
    rdCIPLabeler.AssignCIPLabels(mol)
    atoms = [a.GetProp("_CIPCode") for a in mol.GetAtoms() if a.HasProp("_CIPCode")]
    bonds = [b.GetProp("_CIPCode") for b in mol.GetBonds() if b.HasProp("_CIPCode")]
    found = Chem.FindPotentialStereo(mol)
    centres = sum(1 for s in found if s.type == Chem.StereoType.Atom_Tetrahedral)
    double = sum(1 for s in found if s.type == Chem.StereoType.Bond_Double)
    return atoms, bonds, centres, double


def _has_sulfur(mol: Chem.Mol) -> bool:
    return any(atom.GetAtomicNum() == 16 for atom in mol.GetAtoms())


def reconcile_stereo(name: str, structure: Structure | None) -> Structure | None:
    """``structure`` made to be the stereoisomer ``name`` asks for.

    Args:
        name: the name as written in the question.
        structure: the structure a dictionary (or a correction) gave for it; None passes.

    Returns:
        The same structure when it already agrees (or the name asks for nothing), or the
        stereoisomer the name's single descriptor names.

    Raises:
        StereoMismatch: the name asks for one stereoisomer and the structure cannot be set to
            it (it defines no stereo and the descriptors cannot be placed).
    """
    ask = stereo_prefix(name)
    if structure is None or ask is None or ask.racemic or ask.empty:
        return structure
    mol = Chem.MolFromSmiles(structure.smiles)
    if mol is None:
        return structure
    atoms, bonds, centres, double = _labels(mol)
    tetra = [c for c in ask.cip if c in "RS"]
    ez = [c for c in ask.cip if c in "EZ"]
    single = (len(tetra) == 1 and centres == 1 and not ez) or (
        len(ez) == 1 and double == 1 and not tetra
    )
    if single and ask.bare and (atoms or bonds or (tetra == ["S"] and _has_sulfur(mol))):
        return structure  # "S-methyl-L-cysteine": a bare S- may be the sulfur's locant
    if single:
        want = (tetra or ez)[0]
        have = atoms if tetra else bonds
        if have == [want]:
            return structure
        # Imported here: the module pulls in rdDistGeom and numpy (~0.1 s of every CLI start-up).
        from rdkit.Chem.EnumerateStereoisomers import (
            EnumerateStereoisomers,
            StereoEnumerationOptions,
        )

        options = StereoEnumerationOptions(onlyUnassigned=False, unique=True, maxIsomers=8)
        plain = Chem.Mol(mol)
        Chem.RemoveStereochemistry(plain)
        for isomer in EnumerateStereoisomers(plain, options=options):
            got_atoms, got_bonds, _, _ = _labels(isomer)
            got = got_atoms if tetra else got_bonds
            if got == [want] and ((tetra and got_bonds == bonds) or (ez and got_atoms == atoms)):
                return structure_from_mol(isomer)
        raise StereoMismatch(f"no stereoisomer of {structure.smiles} is {ask.prefix}")
    if ask.bare:
        return structure  # "S-adenosyl", "N-", "D-": a locant or a label that is not checked
    if ask.cip and not ask.located and centres + double == len(ask.cip):
        have = sorted(atoms + bonds)
        if len(have) == len(ask.cip) and have != sorted(ask.cip):
            raise StereoMismatch(
                f"{name!r} asks for {ask.prefix}, but the structure found for it "
                f"({structure.smiles}) is {','.join(atoms + bonds)}"
            )
    if atoms or bonds:
        return structure  # defined stereo that cannot be checked further: trusted
    if centres + double == 0:
        if ask.cip:
            raise StereoMismatch(
                f"{name!r} asks for {ask.prefix}, but the structure found for it "
                f"({structure.smiles}) has no stereocentre"
            )
        return structure  # "D-glycine" style: nothing to configure
    raise StereoMismatch(
        f"{name!r} names one stereoisomer ({ask.prefix}), but the dictionary's structure for it "
        f"({structure.smiles}) defines no stereochemistry, and which isomer is meant cannot be "
        "worked out from it"
    )
