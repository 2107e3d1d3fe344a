"""Structures on RDKit: parse, validate, canonicalise, identify.

Identity in chemground is decided by structure (the standard InChIKey), never by how a
compound is written; these functions are the single place where text becomes a structure.
Parsing failures raise :class:`StructureError` carrying RDKit's own explanation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import rdMolDescriptors
from rdkit.Chem.MolStandardize import rdMolStandardize

from chemground.errors import StructureError, StructureLimitError, clip, control_character, preview

# Warnings and info (InChI layer notes, standardiser chatter) would flood bulk imports;
# errors are captured per call by ``rdkit_messages`` and turned into our own messages.
RDLogger.DisableLog("rdApp.warning")
RDLogger.DisableLog("rdApp.info")


_CAPTURE_LOCK = threading.RLock()


class _RDKitMessages:
    """Context manager behind :func:`rdkit_messages` (a class: a generator-based one cost
    a third of a SMILES parse, and imports make one per molecule)."""

    __slots__ = ("_capture", "messages")

    def __enter__(self) -> list[str]:
        self.messages: list[str] = []
        # RDKit's error log is one per process: under threads (the HTTP API) another request's
        # parse error would land in this capture, or this one's be lost, without the lock.
        _CAPTURE_LOCK.acquire()
        try:
            self._capture = rdBase.CaptureErrorLog()
            self._capture.__enter__()
        except BaseException:
            _CAPTURE_LOCK.release()
            raise
        return self.messages

    def __exit__(self, *exc: object) -> None:
        try:
            text = self._capture.messages
        finally:
            try:
                self._capture.__exit__(*exc)
            finally:
                _CAPTURE_LOCK.release()
        if text:
            self.messages.extend(line for line in str(text).splitlines() if line.strip())


def rdkit_messages() -> _RDKitMessages:
    """Capture (and silence) what RDKit reports as errors while the block runs.

    ``with rdkit_messages() as messages:`` - the list is filled when the block ends.
    """
    return _RDKitMessages()


_ECHO = re.compile(r"(?: for input: '.*'| while parsing: .*)$")
_CARET = re.compile(r"^[~^ ]+$")


def _explain(messages: list[str], text: str | None = None) -> str:
    """RDKit's reasons, one line each, without its echoes of the input (the message quotes that
    once, through ``preview``): a 60 KB SMILES would otherwise come back three times."""
    lines = [m.split("\n")[0].removeprefix("[") for m in messages if m]
    lines = [re.sub(r"^\d\d:\d\d:\d\d\] ", "", line).strip() for line in lines]
    lines = [
        _ECHO.sub("", line)
        for line in lines
        if line
        and line not in ("ERROR:", "ERROR: ")
        and not line.startswith("SMILES Parse Error: check")
        and not line.startswith("SMILES Parse Error: Failed parsing SMILES")
        and not _CARET.match(line)
        and not (text and line in text)  # an excerpt of the input
    ]
    return clip("; ".join(dict.fromkeys(line for line in lines if line)))


# --- limits -----------------------------------------------------------------------------------
# Checked on the text, before RDKit (or OPSIN) sees it, on every path that turns text into a
# structure (questions, `compound`, importers, tools all come through mol_from_smiles /
# mol_from_inchi). Why: RDKit's recursive SMILES writer overflows the C stack on a chain of
# ~15,000 atoms (SIGSEGV: the process dies, no exception), ring perception of a 5,000-atom
# macrocycle takes ~750 MB (quadratic), and InChI gets slow on large symmetric ring systems.
# Real chemistry fits with room to spare: the largest compound of the dictionary has 473 heavy
# atoms (a 1,160-character SMILES, a 3,176-character InChI), both insulin chains together 405.
MAX_HEAVY_ATOMS = 1_000
# Ring closures (a SMILES has as many rings as ring-closure bonds, or fewer): RDKit's ring
# perception takes memory growing with rings x size on ring-dense graphs (a 1,000-atom prism
# with 501 rings: 228 MB; 301 rings: 56 MB). The dictionary's most is 36 (a fullerene
# derivative); C540, the largest fullerene commonly named, has 272 rings.
MAX_RING_CLOSURES = 300
MAX_SMILES_CHARS = 10_000  # 1,000 bracket atoms with stereo and atom maps ([C@@H:999]) fit
MAX_INCHI_CHARS = 20_000
MAX_NAME_CHARS = 1_000  # names sent to OPSIN or looked up (the dictionary's longest: 947)
MAX_ABS_FORMAL_CHARGE = (
    9  # the highest oxidation state known (+9, [IrO4]+); the dictionary has [Co+9]
)
MAX_BRACKET_HYDROGENS = 9  # [ReH9-2] is real; the dictionary's largest count is 4
MAX_ISOTOPE = 300  # mass number; the heaviest nuclide known is about 294
# InChI's perception of undefined stereo is cubic in large symmetric ring systems (a 484-atom
# torus with no stereo given: 5 s; 961 atoms: 40 s). Without any defined stereo it is skipped
# (see _inchi_options); with some defined, a structure may leave this many undefined.
MAX_UNDEFINED_STEREO = 100
_STEREO_CHECK_ATOMS = 100  # smaller structures are fast whatever their stereo

_ATOM_TOKEN = re.compile(r"\[[^\]]*\]|Cl|Br|[BCNOSPFIbcnosp*]")
_BRACKET_HYDROGEN = re.compile(r"\[\d*H(?![a-z])")  # [H], [2H], [H+]: not [Hg], [He]
_BRACKET_CONTENT = re.compile(r"\[([^\]]*)\]")
_RING_CLOSURE = re.compile(r"%\(\d+\)|%\d\d|\d")  # outside bracket atoms
_BRACKET_TAIL = re.compile(r"(?:H(\d*))?([+-]+)?(\d*)(?::\d*)?$")  # hydrogens, charge, atom map
_CHIRALITY = re.compile(r"@(?:TH|AL|SP|TB|OH)\d*|@+")  # "@OH12" is no hydrogen count
_FORMULA_PART = re.compile(r"([A-Z][a-z]?)(\d*)")
_SMILES_PROPER = re.compile(r"[!-~]*")  # printable ASCII, no space: RDKit reads text after a
# non-SMILES character as a name ("CCÖ" parsed as "CC"), so such text is refused instead


def _heavy_atoms_in_smiles(smiles: str) -> int:
    tokens = _ATOM_TOKEN.findall(smiles)
    return len(tokens) - sum(
        1 for token in tokens if token[0] == "[" and _BRACKET_HYDROGEN.match(token)
    )


def check_smiles(text: str) -> None:
    """Refuse (StructureLimitError, or StructureError for what is not SMILES at all) a SMILES
    that RDKit must not see: over the limits above, or with characters RDKit would misread.
    Looks at the text only, in time linear in its length."""
    bad = control_character(text)
    if bad:
        raise StructureLimitError(f"invalid SMILES {preview(text)}: it contains {bad}")
    smiles = text.split(None, 1)[0] if text else text  # a CXSMILES extension may follow a space
    # fewer characters than the atom limit cannot hold more atoms; far too many are refused unread
    if len(text) <= 10 * MAX_SMILES_CHARS and len(smiles) > MAX_HEAVY_ATOMS:
        atoms = _heavy_atoms_in_smiles(smiles)
        if atoms > MAX_HEAVY_ATOMS:
            raise StructureLimitError(
                f"SMILES has {atoms:,} heavy atoms; the limit is {MAX_HEAVY_ATOMS:,} heavy atoms"
            )
    if len(text) > MAX_SMILES_CHARS:
        raise StructureLimitError(
            f"SMILES is {len(text):,} characters; the limit is {MAX_SMILES_CHARS:,}"
        )
    if len(smiles) > 2 * MAX_RING_CLOSURES:  # each ring closure takes two digits
        closures = len(_RING_CLOSURE.findall(_BRACKET_CONTENT.sub("", smiles))) // 2
        if closures > MAX_RING_CLOSURES:
            raise StructureLimitError(
                f"SMILES has {closures:,} ring closures; the limit is {MAX_RING_CLOSURES:,}"
            )
    proper = _SMILES_PROPER.match(smiles)
    if proper is not None and proper.end() < len(smiles):
        ch = smiles[proper.end()]
        raise StructureError(
            f"invalid SMILES {preview(text)}: {ch!r} (position {proper.end() + 1}) is not a SMILES "
            "character"
        )
    if "[" in smiles:
        for content in _BRACKET_CONTENT.findall(smiles):
            _check_bracket_atom(content)


def _check_bracket_atom(content: str) -> None:
    if content[:1].isdigit():
        digits = len(content) - len(content.lstrip("0123456789"))
        if int(content[:digits]) > MAX_ISOTOPE:
            raise StructureLimitError(
                f"atom [{clip(content, 40)}] has mass number {int(content[:digits]):,}; "
                f"the limit is {MAX_ISOTOPE}"
            )
    if "+" not in content and "-" not in content and "H" not in content:
        return
    tail = _BRACKET_TAIL.search(_CHIRALITY.sub("", content) if "@" in content else content)
    if tail is None:
        return
    hydrogens, signs, digits = tail.groups()
    if (
        hydrogens
        and int(hydrogens) > MAX_BRACKET_HYDROGENS
        and not _BRACKET_HYDROGEN.match("[" + content)
    ):
        raise StructureLimitError(
            f"atom [{clip(content, 40)}] has {int(hydrogens):,} hydrogens; the limit is "
            f"{MAX_BRACKET_HYDROGENS}"
        )
    if signs:
        charge = int(digits) if digits else len(signs)
        if charge > MAX_ABS_FORMAL_CHARGE:
            sign = "+" if signs[0] == "+" else "-"
            raise StructureLimitError(
                f"atom [{clip(content, 40)}] has formal charge {sign}{charge:,}; "
                f"the limit is ±{MAX_ABS_FORMAL_CHARGE}"
            )


def check_inchi(text: str) -> None:
    """Refuse (StructureLimitError) an InChI over the limits, from its text (formula layer)."""
    bad = control_character(text)
    if bad:
        raise StructureLimitError(f"invalid InChI {preview(text)}: it contains {bad}")
    if len(text) > MAX_INCHI_CHARS:
        raise StructureLimitError(
            f"InChI is {len(text):,} characters; the limit is {MAX_INCHI_CHARS:,}"
        )
    layers = text.split("/")
    if len(layers) > 1:
        atoms = 0
        for component in layers[1].split("."):
            digits = len(component) - len(component.lstrip("0123456789"))
            times = int(component[:digits]) if digits else 1
            atoms += times * sum(
                int(n or 1)
                for element, n in _FORMULA_PART.findall(component[digits:])
                if element not in ("H", "D", "T")
            )
            if atoms > MAX_HEAVY_ATOMS:
                raise StructureLimitError(
                    f"InChI has {atoms:,} heavy atoms or more; the limit is {MAX_HEAVY_ATOMS:,} "
                    "heavy atoms"
                )


def check_mol(mol: Chem.Mol, what: str) -> None:
    """The limits again on a parsed molecule (an InChI gives its charges only in layers)."""
    atoms = mol.GetNumHeavyAtoms()
    if atoms > MAX_HEAVY_ATOMS:
        raise StructureLimitError(
            f"{what} has {atoms:,} heavy atoms; the limit is {MAX_HEAVY_ATOMS:,} heavy atoms"
        )
    for atom in mol.GetAtoms():
        charge = atom.GetFormalCharge()
        if abs(charge) > MAX_ABS_FORMAL_CHARGE:
            raise StructureLimitError(
                f"{what} has an atom ({atom.GetSymbol()}) with formal charge {charge:+d}; "
                f"the limit is ±{MAX_ABS_FORMAL_CHARGE}"
            )


def mol_from_smiles(smiles: str) -> Chem.Mol:
    """Parse and sanitise a SMILES string (CX extensions allowed) or raise StructureError."""
    text = (smiles or "").strip()
    if not text:
        raise StructureError("empty SMILES")
    check_smiles(text)
    with rdkit_messages() as messages:
        mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        reason = _explain(messages, text) or "RDKit could not parse it"
        raise StructureError(f"invalid SMILES {preview(text)}: {reason}")
    if mol.GetNumHeavyAtoms() > MAX_HEAVY_ATOMS:  # the text count was an estimate
        check_mol(mol, "SMILES")
    return mol


def mol_from_inchi(inchi: str) -> Chem.Mol:
    """Parse an InChI string or raise StructureError."""
    text = (inchi or "").strip()
    if not text.startswith("InChI="):
        text = "InChI=1S/" + text if text and "/" in text else text
    check_inchi(text)
    with rdkit_messages() as messages:
        mol = Chem.MolFromInchi(text, sanitize=True, removeHs=True)
    if mol is None or mol.GetNumAtoms() == 0:
        reason = _explain(messages, text) or "RDKit could not parse it"
        raise StructureError(f"invalid InChI {preview(inchi)}: {reason}")
    check_mol(mol, "InChI")
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


def stereocentres(mol: Chem.Mol) -> list[tuple[int, str]]:
    """(atom index, CIP label) of each tetrahedral stereocentre; '?' where the structure does
    not specify the configuration (the tools, the web page and the answers count them alike)."""
    return Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)


def unassigned_stereocentres(smiles: str | None) -> int:
    """How many tetrahedral stereocentres of ``smiles`` carry no configuration.

    Args:
        smiles: a SMILES, or None.

    Returns:
        The count; 0 for None or an unparsable SMILES.
    """
    if not smiles:
        return 0
    try:
        mol = mol_from_smiles(smiles)
    except StructureError:
        return 0
    return sum(1 for _, label in stereocentres(mol) if label == "?")


def _has_defined_stereo(mol: Chem.Mol) -> bool:
    unspecified, none = Chem.ChiralType.CHI_UNSPECIFIED, Chem.BondStereo.STEREONONE
    return any(atom.GetChiralTag() != unspecified for atom in mol.GetAtoms()) or any(
        bond.GetStereo() != none for bond in mol.GetBonds()
    )


def _inchi_options(mol: Chem.Mol, stereo: bool | None = None) -> str:
    """InChI options for ``mol``: ``-SNon`` when it has no defined stereo (``stereo`` False, or
    None to look). Standard InChI has no stereo layer then anyway (the same key for each of the
    dictionary's 68,641 stereo-free compounds, and 12% faster), and InChI's perception of
    *undefined* stereo is what takes seconds on large symmetric ring systems (a 484-atom torus:
    5 s; with -SNon 5 ms). With some stereo defined, a large structure may leave at most
    ``MAX_UNDEFINED_STEREO`` stereo elements undefined."""
    if stereo is None:
        stereo = mol.GetNumConformers() > 0 or _has_defined_stereo(mol)
    if not stereo:
        return "-SNon"
    if mol.GetNumHeavyAtoms() > _STEREO_CHECK_ATOMS:
        found = Chem.FindPotentialStereo(Chem.Mol(mol), cleanIt=False, flagPossible=True)
        undefined = sum(1 for info in found if info.specified == Chem.StereoSpecified.Unspecified)
        if undefined > MAX_UNDEFINED_STEREO:
            raise StructureLimitError(
                f"structure has {undefined:,} undefined stereocentres or double bonds beside "
                "defined ones; "
                f"the limit is {MAX_UNDEFINED_STEREO} (define all of them, or none)"
            )
    return ""


def inchikey(mol: Chem.Mol, stereo: bool | None = None) -> str:
    """Standard InChIKey; structures InChI cannot express (R-groups ``*``, polymers) get a
    stable stand-in ``NOINCHI-...`` derived from the canonical SMILES, so they still have one
    identity in the KB. ``stereo``: whether ``mol`` has defined stereo (None: look)."""
    options = _inchi_options(mol, stereo)
    with rdkit_messages():
        key = Chem.MolToInchiKey(mol, options=options)
    if not key:
        smiles = Chem.MolToSmiles(mol)
        if "*" in smiles:
            return "NOINCHI-" + hashlib.sha1(smiles.encode()).hexdigest()[:24].upper()
        raise StructureError(f"InChI cannot represent {preview(smiles)}")
    return key


def inchi(mol: Chem.Mol) -> str:
    options = _inchi_options(mol)
    with rdkit_messages():
        return Chem.MolToInchi(mol, options=options) or ""


def molecular_formula(mol: Chem.Mol) -> str:
    """The Hill formula, isotopes written apart ("D2O", "CDCl3", "[13C]H4O"): heavy water's
    formula had been given as H2O."""
    return rdMolDescriptors.CalcMolFormula(mol, separateIsotopes=True, abbreviateHIsotopes=True)


def average_mass(mol: Chem.Mol) -> float:
    """Average molecular weight (g/mol), IUPAC atomic weights."""
    return rdMolDescriptors._CalcMolWt(
        mol
    )  # what Descriptors.MolWt calls; that module costs ~90 ms to import


def exact_mass(mol: Chem.Mol) -> float:
    """Monoisotopic mass (Da)."""
    return rdMolDescriptors.CalcExactMolWt(mol)


_fragment_chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
_uncharger = rdMolStandardize.Uncharger()


def parent_mol(mol: Chem.Mol) -> Chem.Mol:
    """The parent compound: largest (organic) fragment, neutralised.

    A hydrochloride salt, a sodium carboxylate or a hydrate shares its parent with the free
    base / acid, which lets retrieval say "same parent compound" instead of "no match".
    A complex written as fragments around a transition metal ("Pd(PPh3)4" as Pd and four
    PPh3, "Pd(OAc)2" as Pd2+ and two acetates) is its own parent: its largest fragment is a
    ligand, and "which reactions use Pd(PPh3)4" had listed the Appel reactions (PPh3).
    """
    if any(atom.GetSymbol() in TRANSITION_METALS for atom in mol.GetAtoms()):
        return mol
    with rdkit_messages():
        parent = _fragment_chooser.choose(mol)
        return _uncharger.uncharge(parent)


# the metals a complex is written around (a catalyst, not a counter-ion)
TRANSITION_METALS = {
    "Sc",
    "Ti",
    "V",
    "Cr",
    "Mn",
    "Fe",
    "Co",
    "Ni",
    "Cu",
    "Zn",
    "Y",
    "Zr",
    "Nb",
    "Mo",
    "Tc",
    "Ru",
    "Rh",
    "Pd",
    "Ag",
    "Cd",
    "Hf",
    "Ta",
    "W",
    "Re",
    "Os",
    "Ir",
    "Pt",
    "Au",
    "Hg",
    "Ce",
    "Sm",
    "Yb",
    "La",
}


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


def structure_from_mol(
    mol: Chem.Mol, known_inchikey: str | None = None, smiles: str | None = None
) -> Structure:
    """Identifiers of ``mol``; ``known_inchikey`` (from a trusted source) skips InChI generation,
    ``smiles`` (its canonical SMILES, atom maps already stripped) the canonicalisation."""
    if smiles is None:
        smiles = canonical_smiles(mol)
        if ":" in smiles:  # atom-mapped input ([CH3:1]); cheaper than scanning atoms in Python
            mol = strip_atom_maps(mol)
            smiles = canonical_smiles(mol)
    stereo = mol.GetNumConformers() > 0 or "@" in smiles or "/" in smiles or "\\" in smiles
    key = known_inchikey or inchikey(mol, stereo)
    parent_key = key
    if "." in smiles or Chem.GetFormalCharge(mol) != 0:
        try:
            parent_key = inchikey(parent_mol(mol), None if stereo else False)
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


_CACHED_SMILES_CHARS = 500  # longer SMILES are not kept in the cache (a big one costs kilobytes)


def _load_malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to trim
        return None


_MALLOC_TRIM = _load_malloc_trim()


def release_memory() -> None:
    """Give freed heap memory back to the system (glibc keeps it otherwise: the ~100-300 MB
    that ring perception and InChI take on a large ring-dense structure stayed in the process
    after each request). Costs 5-40 ms, so it is done after large structures only."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def structure_from_smiles(smiles: str) -> Structure:
    """Parse, validate and identify a SMILES string (atom maps are ignored)."""
    if len(smiles) > _CACHED_SMILES_CHARS:
        try:
            return structure_from_mol(mol_from_smiles(smiles))
        finally:
            release_memory()
    return _cached_structure_from_smiles(smiles)


@lru_cache(maxsize=65536)
def _cached_structure_from_smiles(smiles: str) -> Structure:
    return structure_from_mol(mol_from_smiles(smiles))


def structure_from_inchi(inchi_text: str) -> Structure:
    if len(inchi_text) > 2 * _CACHED_SMILES_CHARS:
        try:
            return structure_from_mol(mol_from_inchi(inchi_text))
        finally:
            release_memory()
    return _cached_structure_from_inchi(inchi_text)


@lru_cache(maxsize=8192)
def _cached_structure_from_inchi(inchi_text: str) -> Structure:
    return structure_from_mol(mol_from_inchi(inchi_text))


# --- recognising SMILES in text -------------------------------------------------------------

_SMILES_CHARS = re.compile(r"^[A-Za-z0-9@+\-\[\]\(\)=#$/\\%.:*~]+$")
_BRACKET_ATOM = (
    r"\[\d*(?:[A-Z][a-z]?|[a-z]{1,2}|\*)(?:@{1,2}(?:TH\d|AL\d|SP\d|TB\d+|OH\d+)?)?"
    r"(?:H\d*)?(?:[+-]+\d*)?(?::\d+)?\]"
)
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
