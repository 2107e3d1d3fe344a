"""Structures on RDKit: parse, validate, canonicalise, identify.

Identity in chemground is decided by structure (the standard InChIKey), never by how a
compound is written; these functions are the single place where text becomes a structure.
Parsing failures raise :class:`StructureError` carrying RDKit's own explanation.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import Descriptors, rdMolDescriptors
from rdkit.Chem.MolStandardize import rdMolStandardize

from chemground.errors import StructureError

# Warnings and info (InChI layer notes, standardiser chatter) would flood bulk imports;
# errors are captured per call by ``rdkit_messages`` and turned into our own messages.
RDLogger.DisableLog("rdApp.warning")
RDLogger.DisableLog("rdApp.info")


class _RDKitMessages:
    """Context manager behind :func:`rdkit_messages` (a class: a generator-based one cost
    a third of a SMILES parse, and imports make one per molecule)."""

    __slots__ = ("_capture", "messages")

    def __enter__(self) -> list[str]:
        self.messages: list[str] = []
        self._capture = rdBase.CaptureErrorLog()
        self._capture.__enter__()
        return self.messages

    def __exit__(self, *exc: object) -> None:
        try:
            text = self._capture.messages
        finally:
            self._capture.__exit__(*exc)
        if text:
            self.messages.extend(line for line in str(text).splitlines() if line.strip())


def rdkit_messages() -> _RDKitMessages:
    """Capture (and silence) what RDKit reports as errors while the block runs.

    ``with rdkit_messages() as messages:`` - the list is filled when the block ends.
    """
    return _RDKitMessages()


def _explain(messages: list[str]) -> str:
    lines = [m.split("\n")[0].removeprefix("[") for m in messages if m]
    lines = [re.sub(r"^\d\d:\d\d:\d\d\] ", "", line) for line in lines]
    lines = [
        line.strip()
        for line in lines
        if line.strip() and line.strip() not in ("ERROR:", "ERROR: ")
        and not line.startswith("SMILES Parse Error: check")
    ]
    return "; ".join(dict.fromkeys(lines))


def mol_from_smiles(smiles: str) -> Chem.Mol:
    """Parse and sanitise a SMILES string (CX extensions allowed) or raise StructureError."""
    text = (smiles or "").strip()
    if not text:
        raise StructureError("empty SMILES")
    with rdkit_messages() as messages:
        mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        reason = _explain(messages) or "RDKit could not parse it"
        raise StructureError(f"invalid SMILES {text!r}: {reason}")
    return mol


def mol_from_inchi(inchi: str) -> Chem.Mol:
    """Parse an InChI string or raise StructureError."""
    text = (inchi or "").strip()
    if not text.startswith("InChI="):
        text = "InChI=1S/" + text if text and "/" in text else text
    with rdkit_messages() as messages:
        mol = Chem.MolFromInchi(text, sanitize=True, removeHs=True)
    if mol is None or mol.GetNumAtoms() == 0:
        reason = _explain(messages) or "RDKit could not parse it"
        raise StructureError(f"invalid InChI {inchi!r}: {reason}")
    return mol


def strip_atom_maps(mol: Chem.Mol) -> Chem.Mol:
    """Copy of ``mol`` without atom-map numbers (patent reaction SMILES carry them)."""
    if not any(atom.GetAtomMapNum() for atom in mol.GetAtoms()):
        return mol
    mol = Chem.Mol(mol)
    for atom in mol.GetAtoms():
        atom.SetAtomMapNum(0)
    return mol


def canonical_smiles(mol: Chem.Mol) -> str:
    return Chem.MolToSmiles(mol)


def inchikey(mol: Chem.Mol) -> str:
    """Standard InChIKey; structures InChI cannot express (R-groups ``*``, polymers) get a
    stable stand-in ``NOINCHI-...`` derived from the canonical SMILES, so they still have one
    identity in the KB."""
    with rdkit_messages():
        key = Chem.MolToInchiKey(mol)
    if not key:
        smiles = Chem.MolToSmiles(mol)
        if "*" in smiles:
            return "NOINCHI-" + hashlib.sha1(smiles.encode()).hexdigest()[:24].upper()
        raise StructureError(f"InChI cannot represent {smiles!r}")
    return key


def inchi(mol: Chem.Mol) -> str:
    with rdkit_messages():
        return Chem.MolToInchi(mol) or ""


def molecular_formula(mol: Chem.Mol) -> str:
    return rdMolDescriptors.CalcMolFormula(mol)


def average_mass(mol: Chem.Mol) -> float:
    """Average molecular weight (g/mol), IUPAC atomic weights."""
    return Descriptors.MolWt(mol)


def exact_mass(mol: Chem.Mol) -> float:
    """Monoisotopic mass (Da)."""
    return Descriptors.ExactMolWt(mol)


_fragment_chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
_uncharger = rdMolStandardize.Uncharger()


def parent_mol(mol: Chem.Mol) -> Chem.Mol:
    """The parent compound: largest (organic) fragment, neutralised.

    A hydrochloride salt, a sodium carboxylate or a hydrate shares its parent with the free
    base / acid, which lets retrieval say "same parent compound" instead of "no match".
    """
    with rdkit_messages():
        parent = _fragment_chooser.choose(mol)
        return _uncharger.uncharge(parent)


@dataclass(frozen=True, slots=True)
class Structure:
    """A validated structure and the identifiers derived from it."""

    smiles: str
    inchikey: str
    formula: str
    molecular_weight: float
    exact_mass: float
    parent_inchikey: str

    @property
    def connectivity_key(self) -> str:
        """First InChIKey block: the skeleton, ignoring stereo and isotopes."""
        return self.inchikey[:14]

    @property
    def is_multicomponent(self) -> bool:
        return "." in self.smiles


def structure_from_mol(mol: Chem.Mol, known_inchikey: str | None = None, smiles: str | None = None) -> Structure:
    """Identifiers of ``mol``; ``known_inchikey`` (from a trusted source) skips InChI generation,
    ``smiles`` (its canonical SMILES, atom maps already stripped) the canonicalisation."""
    if smiles is None:
        smiles = canonical_smiles(mol)
        if ":" in smiles:  # atom-mapped input ([CH3:1]); cheaper than scanning atoms in Python
            mol = strip_atom_maps(mol)
            smiles = canonical_smiles(mol)
    key = known_inchikey or inchikey(mol)
    parent_key = key
    if "." in smiles or Chem.GetFormalCharge(mol) != 0:
        try:
            parent_key = inchikey(parent_mol(mol))
        except StructureError:
            parent_key = key
    return Structure(
        smiles=smiles,
        inchikey=key,
        formula=molecular_formula(mol),
        molecular_weight=average_mass(mol),
        exact_mass=exact_mass(mol),
        parent_inchikey=parent_key,
    )


@lru_cache(maxsize=65536)
def structure_from_smiles(smiles: str) -> Structure:
    """Parse, validate and identify a SMILES string (atom maps are ignored)."""
    return structure_from_mol(mol_from_smiles(smiles))


@lru_cache(maxsize=8192)
def structure_from_inchi(inchi_text: str) -> Structure:
    return structure_from_mol(mol_from_inchi(inchi_text))


# --- recognising SMILES in text -------------------------------------------------------------

_SMILES_CHARS = re.compile(r"^[A-Za-z0-9@+\-\[\]\(\)=#$/\\%.:*~]+$")
_BRACKET_ATOM = (r"\[\d*(?:[A-Z][a-z]?|[a-z]{1,2}|\*)(?:@{1,2}(?:TH\d|AL\d|SP\d|TB\d+|OH\d+)?)?"
                 r"(?:H\d*)?(?:[+-]+\d*)?(?::\d+)?\]")
_ELEMENT_TOKENS = re.compile(r"Cl|Br|[BCNOPSFIbcnops]|" + _BRACKET_ATOM)
_SMILES_ONLY_SYNTAX = re.compile(r"[\[\]=#@()/\\]|\d|^[BCNOSPFI][a-z]?[BCNOSPFIcnos]")
_INCHI = re.compile(r"^InChI=1S?/")
_INCHIKEY = re.compile(r"^[A-Z]{14}-[A-Z]{10}-[A-Z]$")


def is_inchi(text: str) -> bool:
    return bool(_INCHI.match(text.strip()))


def is_inchikey(text: str) -> bool:
    return bool(_INCHIKEY.match(text.strip()))


def looks_like_smiles(token: str) -> bool:
    """Cheap test: could this token be SMILES (before paying for a parse)?

    Plain words ("ethanol", "Benzene") are rejected; tokens made of organic-subset atoms,
    brackets, bonds and ring digits are accepted. Parsing decides in the end.
    """
    text = token.strip()
    if len(text) < 1 or not _SMILES_CHARS.match(text):
        return False
    if is_inchikey(text):
        return False
    if not _ELEMENT_TOKENS.search(text):
        return False  # "3", "(1)", "--": no atom at all
    stripped = _ELEMENT_TOKENS.sub("", text)
    # what is left must be SMILES syntax (bonds, branches, ring closures, charges), not letters
    if re.search(r"[A-Za-z]", stripped):
        return False
    if text.isalpha() and text.islower():
        return False  # "bc", "con" ... are aromatic SMILES in theory, words in practice
    return True


def try_structure_from_smiles(token: str) -> Structure | None:
    """The structure of ``token`` if it looks like and parses as SMILES, else None."""
    if not looks_like_smiles(token):
        return None
    try:
        return structure_from_smiles(token)
    except StructureError:
        return None
