"""Names <-> structures.

Name -> structure looks in the compound dictionary first (exact match, insensitive to case,
spaces and punctuation, over IUPAC names, common names and synonyms), then asks OPSIN for
systematic names the dictionary lacks. Structure -> names is the dictionary. Any identifier a
user may type (name, SMILES, InChI, InChIKey, CAS number) goes through :func:`NameResolver.resolve`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Protocol

from chemground.chem.opsin import Opsin
from chemground.chem.resolvers import (
    DictionaryResolver,
    NameChain,
    NameHit,
    NameResolverStep,
    OpsinResolver,
    Unresolved,
    each,
)
from chemground.chem.structure import (
    MAX_NAME_CHARS,
    Structure,
    canonical_smiles,
    inchikey,
    is_inchi,
    is_inchikey,
    looks_like_smiles,
    mol_from_smiles,
    structure_from_inchi,
    structure_from_smiles,
)
from chemground.errors import (
    ChemgroundError,
    NameLimitError,
    NameResolutionError,
    StructureError,
    StructureLimitError,
    clip,
    control_character,
    preview,
)

_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_CAS = re.compile(r"^\d{2,7}-\d{2}-\d$")


_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def subscript_digits(text: str) -> str:
    """``text`` with subscript digits as digits ("CH₂Cl₂" -> "CH2Cl2", as pasted from a paper),
    one character for one, so offsets into it still point into the original.

    Args:
        text: any text.

    Returns:
        The text with ``₀``..``₉`` replaced by ``0``..``9``.
    """
    return text.translate(_SUBSCRIPT_DIGITS)


@lru_cache(maxsize=1 << 16)
def normalize_name(name: str) -> str:
    """Key for exact name matching: case, spacing and punctuation do not count.

    ``"2,5-Dichloropyrimidine"``, ``"2,5 dichloro-pyrimidine"`` and ``"2,5-DICHLOROPYRIMIDINE"``
    share one key. Greek letters are spelled out so "α-pinene" meets "alpha-pinene".
    """
    if name.isascii():
        return _NON_ALNUM.sub("", name.lower())
    text = unicodedata.normalize("NFKC", name).lower()
    text = "".join(_GREEK.get(ch, ch) for ch in text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _NON_ALNUM.sub("", text)


# "d6-DMSO", "d8-toluene": a deuteration label written before the name
_DEUTERIUM_LABEL_FIRST = re.compile(r"^d(\d{1,2})-(\S.*)$", re.IGNORECASE)


def deuterium_label_last(name: str) -> str | None:
    """``name`` with its deuteration label moved to the end, as dictionaries file deuterated
    solvents ("d6-DMSO" -> "DMSO-d6"), or None when it has no such label first. Without it the
    label was read as a typo and "d8-toluene" answered for toluene.

    Args:
        name: a compound name as written.

    Returns:
        The name with the label last, or None.
    """
    label = _DEUTERIUM_LABEL_FIRST.match(name.strip())
    return f"{label.group(2)}-d{label.group(1)}" if label else None


# "DMSO-d6", "chloroform-d", "d8-toluene": how many deuterium atoms a name says its compound has
_DEUTERIUM_LABEL = re.compile(r"(?:-d(\d{0,2})|-D(\d{1,2}))$|^d(\d{1,2})-\S")


def deuterium_label_reading(name: str, structure) -> object | None:
    """What a deuteration label in ``name`` ("pyridine-d5", "d8-THF") makes of the dictionary's
    ``structure`` for it. The dictionary files "pyridine-d5" under pyridine itself, whose weight
    was given as the deuterated solvent's.

    Args:
        name: the compound's name as written.
        structure: the structure a resolver found for it (a :class:`Structure`).

    Returns:
        None when the name has no label or the structure has as many deuterium atoms as it says;
        the perdeuterated structure when the label counts every hydrogen of a structure without
        deuterium; otherwise a string saying why the structure cannot be the compound named.
    """
    label = _DEUTERIUM_LABEL.search(name.strip())
    if label is None:
        return None
    digits = next((group for group in label.groups() if group is not None), "")
    wanted = int(digits) if digits else 1
    from rdkit import Chem

    from chemground.chem.structure import structure_from_mol

    mol = Chem.AddHs(Chem.MolFromSmiles(structure.smiles))
    hydrogens = [atom for atom in mol.GetAtoms() if atom.GetAtomicNum() == 1]
    found = sum(1 for atom in hydrogens if atom.GetIsotope() == 2)
    if found == wanted:
        return None
    if found == 0 and wanted == len(hydrogens):  # "pyridine-d5": every hydrogen a deuterium
        for atom in hydrogens:
            atom.SetIsotope(2)
        return structure_from_mol(Chem.RemoveHs(mol))
    return (
        f"{name!r} names a compound with {wanted} deuterium atom{'s' if wanted > 1 else ''}, but "
        f"the dictionary files it under {structure.smiles}, which has {found}: which hydrogens "
        "are deuterium is not known"
    )


# "L-lysine-13C6,15N2", "glucose-13C6": heavy-atom labels after the name (mass, symbol, count)
_HEAVY_LABEL = re.compile(r"-((?:\d{1,3}[A-Z][a-z]?\d{0,2})(?:,\s*\d{1,3}[A-Z][a-z]?\d{0,2})*)$")
_LABEL_PART = re.compile(r"(\d{1,3})([A-Z][a-z]?)(\d{0,2})")


def heavy_label_stripped(name: str) -> str | None:
    """``name`` without the heavy-atom labels after it ("L-lysine-13C6,15N2" -> "L-lysine"), or
    None when it has none: the labelled compound is looked up by the name it is labelled from.

    Args:
        name: a compound name as written.

    Returns:
        The unlabelled name, or None.
    """
    label = _HEAVY_LABEL.search(name.strip())
    return name.strip()[: label.start()] if label else None


def heavy_label_reading(name: str, structure) -> object | None:
    """What heavy-atom labels after ``name`` ("L-lysine-13C6,15N2") make of ``structure``, the
    unlabelled compound's: each label that counts every atom of its element labels them all; a
    label that counts fewer says nothing of which atoms, and the name is not resolved.

    Args:
        name: the compound's name as written.
        structure: the unlabelled compound's structure (a :class:`Structure`).

    Returns:
        None when the name has no such label; the labelled structure; or a string saying why
        the structure cannot be made the compound named.
    """
    label = _HEAVY_LABEL.search(name.strip())
    if label is None:
        return None
    from rdkit import Chem

    from chemground.chem.structure import structure_from_mol

    mol = Chem.MolFromSmiles(structure.smiles)
    for mass, symbol, count in _LABEL_PART.findall(label.group(1)):
        atoms = [atom for atom in mol.GetAtoms() if atom.GetSymbol() == symbol]
        wanted = int(count) if count else 1
        if not atoms or wanted != len(atoms) or any(atom.GetIsotope() for atom in atoms):
            return (
                f"{name!r} labels {wanted} of the {len(atoms)} {symbol} atoms of "
                f"{structure.smiles} with {mass}{symbol}: which ones is not known"
            )
        for atom in atoms:
            atom.SetIsotope(int(mass))
    return structure_from_mol(mol)


def check_name(name: str, what: str = "name", limit: int | None = MAX_NAME_CHARS) -> None:
    """Refuse (NameLimitError) a name no dictionary or OPSIN should see: one with a control
    character or lone surrogate (a NUL byte is no part of a name, though normalize_name would
    silently drop it and match "eth\\x00anol" to ethanol), or longer than ``limit``."""
    bad = control_character(name)
    if bad:
        raise NameLimitError(f"{what} {preview(name)} contains {bad}")
    if limit is not None and len(name) > limit:
        raise NameLimitError(f"{what} is {len(name):,} characters; the limit is {limit:,}")


def is_cas_number(text: str) -> bool:
    return bool(_CAS.match(text.strip()))


def is_valid_cas(text: str) -> bool:
    """A CAS number whose check digit is right (PubChem synonyms hold many look-alike numbers)."""
    text = text.strip()
    if not is_cas_number(text):
        return False
    digits = text.replace("-", "")
    body, check = digits[:-1], int(digits[-1])
    return sum(int(d) * i for i, d in enumerate(reversed(body), start=1)) % 10 == check


@dataclass(frozen=True)
class DictionaryHit:
    """A compound the dictionary holds under a name, with how it was matched."""

    compound_id: int
    structure: Structure | None
    matched_name: str
    name_rank: int  # 0 IUPAC name, 1 common name, 2 synonym


class NameDictionary(Protocol):
    """What the resolver needs from a compound dictionary (the KB implements it)."""

    def lookup_name(self, normalized: str) -> list[DictionaryHit]: ...

    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]: ...

    def lookup_structure(self, structure: Structure) -> list[DictionaryHit]: ...

    def lookup_cas(self, cas: str) -> list[DictionaryHit]: ...


# substituents written as formula abbreviations inside a name ("4-F-phenol", "p-MeO-
# benzaldehyde", "2-Cl-4-NO2-aniline"), and the prefixes a systematic name spells them with
_SUBSTITUENT_PREFIXES = {
    "F": "fluoro",
    "Cl": "chloro",
    "Br": "bromo",
    "I": "iodo",
    "Me": "methyl",
    "Et": "ethyl",
    "MeO": "methoxy",
    "OMe": "methoxy",
    "EtO": "ethoxy",
    "OEt": "ethoxy",
    "NO2": "nitro",
    "CF3": "(trifluoromethyl)",
    "CN": "cyano",
    "OH": "hydroxy",
    "HO": "hydroxy",
    "NH2": "amino",
    "tBu": "tert-butyl",
    "iPr": "isopropyl",
    "Ph": "phenyl",
    "Ac": "acetyl",
    "Bn": "benzyl",
}
_ABBREVIATED_SUBSTITUENT = re.compile(
    r"(?<![A-Za-z])(?P<locant>(?:\d+|[opm])-)(?P<group>"
    + "|".join(sorted(map(re.escape, _SUBSTITUENT_PREFIXES), key=len, reverse=True))
    + r")-(?=(?P<next>[a-z\d(]))"
)


def expanded_substituents(name: str) -> str:
    """``name`` with substituents abbreviated as formulas written out: "4-F-phenol" ->
    "4-fluorophenol", "2-Cl-4-NO2-aniline" -> "2-chloro-4-nitroaniline" (such a name was read as
    phenol, one edit away, or as nothing), and a principal group after its locant:
    "thiophene-2-SO2Cl" -> "thiophene-2-sulfonyl chloride".

    Args:
        name: a compound name as typed.

    Returns:
        The name with each "locant-abbreviation-" written as its prefix; ``name`` itself when it
        holds none.
    """

    def prefix(match: re.Match) -> str:
        joiner = "-" if match.group("next").isdigit() else ""
        return match.group("locant") + _SUBSTITUENT_PREFIXES[match.group("group")] + joiner

    name = _ABBREVIATED_SUBSTITUENT.sub(prefix, name)
    return _ABBREVIATED_SUFFIX.sub(lambda m: m.group(1) + _SUFFIXES[m.group(2)], name)


# a principal group written as a formula after the parent's locant: "thiophene-2-SO2Cl" ->
# "thiophene-2-sulfonyl chloride", "pyridine-3-CHO" -> "pyridine-3-carbaldehyde"
_SUFFIXES = {
    "SO2Cl": "sulfonyl chloride",
    "SO3H": "sulfonic acid",
    "COCl": "carbonyl chloride",
    "CHO": "carbaldehyde",
    "CO2H": "carboxylic acid",
    "COOH": "carboxylic acid",
    "CN": "carbonitrile",
    "NH2": "amine",
    "SH": "thiol",
}
_ABBREVIATED_SUFFIX = re.compile(
    r"([a-z]-\d+-)("  # one locant: "benzene-1,4-CO2H" is left alone
    + "|".join(sorted(map(re.escape, _SUFFIXES), key=len, reverse=True))
    + r")$"
)


@dataclass(frozen=True)
class Resolution:
    """The structure an identifier stands for, and how we know."""

    query: str
    structure: Structure | None
    source: str  # dictionary | opsin | smiles | inchi | inchikey | cas
    input_format: str  # smiles | inchi | inchikey | cas | iupac | common_name
    compound_id: int | None = None
    matched_name: str | None = None
    notes: list[str] = field(default_factory=list)


_SYSTEMATIC_HINT = re.compile(
    r"\d[,\d]*-|\(|\)|\[|yl\b|ylidene|oxy|amino|oxo|hydroxy|chloro|bromo|fluoro|iodo|methyl|ethyl|"
    r"propyl|butyl|phenyl|benz|pyri|azol|azin|oic\b|amide\b|ane\b|ene\b|yne\b|ol\b|one\b|al\b|ate\b|ide\b",
    re.IGNORECASE,
)


def guess_name_format(name: str) -> str:
    """'iupac' for systematic-looking names (locants, substituent stems), else 'common_name'."""
    return (
        "iupac"
        if _SYSTEMATIC_HINT.search(name)
        and (any(c.isdigit() for c in name) or "(" in name or len(name) > 18)
        else "common_name"
    )


# Names of polymers (a chain of repeating units, no single structure): "polyethylene",
# "polystyrene", "poly(vinyl chloride)", "polyethylene glycol", "polyphosphoric acid".
# Polydisperse ethoxylate surfactants: "Triton X-100" was answered as one n = 1 oligomer.
_SURFACTANTS = (
    r"triton\s*x-?\d+|tween[\s-]?\d+|polysorbate[\s-]?\d+|brij[\s-]?\d+|igepal\s*ca-?\d+|"
    r"nonidet\s*p-?40|pluronic\s*[fpl]-?\d+|poloxamer\s*\d+"
)
# ... found anywhere in a question, whether or not the dictionary knows the name
SURFACTANT_NAME = re.compile(rf"\b(?:{_SURFACTANTS})\b", re.IGNORECASE)
POLYMER_NAME = re.compile(
    r"^(?:nylon|teflon|kevlar|bakelite|neoprene)\b|^poly\s*[(\[-]?\s*(?:(?:[a-z]+[\s-])*[a-z]*(?:ethylene|propylene|styrene|vinyl|acryl|methacryl|urethane|"
    r"carbonate|amide|ester|isoprene|butadiene|lactic|lactide|glycolic|siloxane|phosphoric|"
    r"phosphate|ethyleneimine|caprolactone|ethylene glycol|oxymethylene|tetrafluoroethylene)\w*)"
    # abbreviations and biopolymers: "PEG 400" became pentaethylene glycol, "DNA" a naphthoic acid
    r"|^(?:peg|ppg|pvc|ptfe|pmma|pdms|pvp|pva|pvdf|hdpe|ldpe)(?:[\s-]?\d+)?$"
    rf"|^(?:{_SURFACTANTS})$"
    r"|^(?:dna|rna|mrna|trna|proteins?|starch|cellulose|lignin|chitin|chitosan|collagen|keratin|"
    r"gelatine?|rubber|latex|silk|wool)$",
    re.IGNORECASE,
)
# Names of mixtures that the dictionary files under one of their components or a namesake:
# "petroleum ether" and "benzine" are petroleum fractions (PubChem lists both as synonyms of
# benzene), "hexanes" and "xylenes" are isomer mixtures, "petrol" is no compound.
MIXTURE_NAME = re.compile(
    r"^(?:petroleum ethers?|petrol(?:eum)?(?: spirits?| benzine?)?|light petroleum|ligroine?|"
    r"benzine|gasoline|kerosene|kerosine|diesel(?: fuel)?|naphtha|white spirits?|"
    r"mineral (?:spirits?|oil)|paraffin (?:oil|wax)|hexanes|heptanes|octanes|xylenes|"
    r"mixed xylenes|isohexanes?|celite(?: ?\d+)?|diatomaceous earth|kieselguhr|crude oil|"
    # ion-exchange resins: "Amberlyst 15", "Dowex 50WX8"
    r"amberlyst(?: ?[\w-]+)?|dowex(?: ?[\w-]+)?|florisil|"
    # acid mixtures and cleaning baths ("aqua regia (3:1 HCl/HNO3) - molar mass?" was given the
    # weight of a HCl.HNO3 record)
    r"aqua regia|piranha(?: solution)?|chromic acid (?:bath|cleaning solution)|base bath|"
    r"mixed acid|nitrating mixture|fehling'?s (?:solution|reagent)|tollens'? reagent|"
    r"benedict'?s (?:solution|reagent)|fenton'?s reagent|jones reagent"
    # "acetate buffer", "phosphate buffer": an acid and its salt in water
    r"|[\w,()-]+ buffers?)$",
    re.IGNORECASE,
)


# How not_one_compound's reasons read after the name: names_no_one_compound knows them by it
_POLYMER = " is a polymer: "
_MIXTURE = " is a mixture, not one compound: "


def names_no_one_compound(reason: str | None) -> bool:
    """Whether an unresolved mention's reason is that of :func:`not_one_compound`.

    Args:
        reason: the mention's reason for being unresolved.

    Returns:
        True for a polymer or a mixture.
    """
    return bool(reason) and (_POLYMER in reason or _MIXTURE in reason)


# Solids used as catalysts, supports and drying agents: a reaction names them as what they do
# (Raney nickel is filed as nickel, the metal that acts), but no formula or molecular weight
# belongs to them ("MW of the silica gel" was answered with SiO2's 60.08)
MATERIAL_NAME = re.compile(
    r"^(?:raney (?:ni|nickel|cobalt|co)|silica(?: gel)?(?: ?\d+)?(?: \([^)]*\))?|"
    r"(?:\d\s?(?:å|a) )?molecular sieves?(?: \d\s?(?:å|a))?|activated (?:charcoal|carbon)|"
    r"charcoal|(?:activated |neutral |basic |acidic )?alumina|montmorillonite(?: k-?10)?|"
    r"(?:\d+ ?% )?(?:pd|pt|rh|ru)/(?:c|al2o3|caco3|baso4)(?: \(\d+ ?%\))?)$",
    re.IGNORECASE,
)


def material_not_compound(name: str) -> str | None:
    """Why a name asked for a compound's fact is a material, or None.

    Args:
        name: the name as written.

    Returns:
        The reason to give instead of the formula or weight of the element or oxide the
        dictionary files it under.
    """
    text = name.strip()
    if MATERIAL_NAME.match(text):
        return (
            f"{preview(text)} is a material (a solid catalyst, support or drying agent), not one "
            "compound: no single structure, formula or molecular weight belongs to it"
        )
    return None


def not_one_compound(name: str) -> str | None:
    """Why a name stands for no single structure (a polymer or a mixture), or None.

    Args:
        name: a name as written in a question.

    Returns:
        The reason to give instead of answering for the compound the dictionary files it under.
    """
    text = name.strip()
    if POLYMER_NAME.match(text):
        return (
            f"{preview(text)}{_POLYMER}it has no single structure, and chemground's "
            "compounds are small molecules (its monomer can be asked for by name)"
        )
    if MIXTURE_NAME.match(text):
        return (
            f"{preview(text)}{_MIXTURE}no single structure, formula or "
            "molecular weight belongs to it"
        )
    return None


# a name that already says where its groups sit: a locant, o-/m-/p-, Greek letters, N-, iso...
_HAS_LOCANT = re.compile(
    r"\d|\b(o|m|p|n|sec|tert|t|iso|neo|cis|trans|alpha|beta|gamma|delta|ortho|meta|para)-|"
    r"[αβγδεωΔ]|\bN,?N?'?-|^(ortho|meta|para|alpha|beta|gamma|delta)\b",
    re.IGNORECASE,
)
# the locants tried in front of a name that gives none: one group, two groups, o/m/p
_LOCANTS_TRIED = (
    *(f"{n}-" for n in range(1, 7)),
    *(f"{a},{b}-" for a in range(1, 6) for b in range(a + 1, 7)),
    "o-",
    "m-",
    "p-",
)
MAX_ISOMER_NAME_CHARS = 40
# the names whose groups can sit in several places: substituent prefixes on a ring or chain
# parent ("aminopyridine", "dichlorobenzene", "chloropropane"), a chain with its suffix
# ("butanol", "pentanone", "butene") and the trivial names of isomer sets ("cresol"); OPSIN's
# own readings of other names with a locant in front are too lenient to trust ("sulfanilamide",
# "benzimidazole", "propylthiouracil" are each one compound)
_PREFIX = (
    r"(?:di|tri|tetra)?(?:amino|chloro|bromo|fluoro|iodo|nitro|methyl|ethyl|hydroxy|methoxy|"
    r"ethoxy|cyano|formyl|acetyl|carboxy|vinyl|phenyl|mercapto|trifluoromethyl|\(trifluoromethyl\))"
)
_RING_PARENT = (
    r"benzene|toluene|phenol|aniline|pyridine|benzoic acid|benzaldehyde|anisole|naphthalene|"
    r"thiophene|furan|pyrrole|quinoline|isoquinoline|benzonitrile|acetophenone|biphenyl|"
    r"pyrimidine|indole|styrene|benzamide|phenylacetic acid|benzyl alcohol|naphthoic acid|"
    r"nicotinic acid|cinnamic acid|pyrazine|thiazole|imidazole|cyclohexanol|cyclohexanone"
)
_CHAIN = r"(?:prop|but|pent|hex|hept|oct)(?:an|en|yn)(?:e|ol|one|al|amine|thiol|diol|oic acid)"
_TRIVIAL_ISOMER_SETS = (
    r"cresols?|toluidines?|xylenes?|xylenols?|picolines?|lutidines?|collidines?|anisidines?|"
    r"naphthols?|naphthylamines?|phenylenediamines?|benzenediols?|dihydroxybenzenes?|"
    r"chlorophenols?|nitroanilines?|aminophenols?|hydroxybenzoic acids?|toluic acids?"
)
_ISOMER_NAME = re.compile(
    rf"(?:{_PREFIX})+(?:{_RING_PARENT})|(?:{_PREFIX})*{_CHAIN}|{_TRIVIAL_ISOMER_SETS}",
    re.IGNORECASE,
)


def positional_isomers(
    name: str, smiles: str, opsin: Opsin | None, dictionary: NameDictionary | None = None
) -> list[str]:
    """The positional isomers a name without locants may mean ("aminopyridine": 2-, 3- or
    4-aminopyridine; "butanol", "cresol", "dichlorobenzene"), when the dictionary or OPSIN read
    it as one of them. OPSIN reads the name with each locant in front; a name is ambiguous when
    two or more readings differ and one of them is the structure it was resolved to.

    Args:
        name: the name as the question wrote it.
        smiles: the structure it was resolved to.
        opsin: OPSIN, or None (then nothing is found).
        dictionary: when given, a trivial name is read with Greek letters only if the dictionary
            holds it with one ("alpha-pinene"): OPSIN is not started for every one-word name
            ("logP of caffeine" took 0.5 s longer, the JVM's start).

    Returns:
        The canonical SMILES of every reading (the resolved one among them), or [] when the
        name says which isomer it means, or names one compound whatever the locant.
    """
    text = " ".join(name.split())
    if opsin is None or not text or len(text) > MAX_ISOMER_NAME_CHARS or _HAS_LOCANT.search(text):
        return []
    resolved = mol_from_smiles(smiles)
    if (
        re.fullmatch(r"[a-z]{4,}", text.lower())
        and not _SUBSTITUENT_FIRST.match(text.lower())
        and (dictionary is None or _greek_named(text.lower(), dictionary))
    ):
        greek = _greek_isomers(text.lower(), resolved, opsin)
        if greek:
            return greek
    if not _ISOMER_NAME.fullmatch(text):
        return []
    readings = _isomer_readings(
        [locant + text.lower() for locant in _LOCANTS_TRIED], resolved, opsin
    )
    isomers = list(dict.fromkeys(canonical_smiles(mol) for mol in readings))
    if len(isomers) < 2 or canonical_smiles(resolved) not in isomers:
        return []
    return isomers


def _isomer_readings(names: list[str], resolved, opsin: Opsin) -> list:
    """OPSIN's readings of ``names`` that may be isomers of ``resolved``: OPSIN reads odd
    locants leniently ("1-butanone" as butanal, "1-aminopyridine" as a dihydropyridine), so
    only a reading of the same formula, aromatic rings and carbonyls is kept."""
    kind = _isomer_kind(resolved)
    kept = []
    for result in opsin.translate_many(names).values():
        if not result.ok:
            continue
        try:
            mol = mol_from_smiles(result.smiles)
        except ChemgroundError:
            continue
        if _isomer_kind(mol) == kind:
            kept.append(mol)
    return kept


# a name that opens with a substituent: OPSIN puts a Greek letter in front of it on that group's
# chain ("beta-isobutylbenzene" is tert-butylbenzene), which names no isomer the name may mean
_SUBSTITUENT_FIRST = re.compile(
    r"(iso|neo|sec|tert)?(methyl|ethyl|propyl|butyl|pentyl|hexyl|phenyl|benzyl|amino|chloro|"
    r"bromo|fluoro|iodo|nitro|hydroxy|methoxy|ethoxy|acetyl|cyano|vinyl|allyl)"
)


# the Greek letters that name isomers of a trivial name (alpha-/beta-pinene, gamma-butyrolactone)
_GREEK_LOCANTS = ("alpha", "beta", "gamma", "delta")


def _greek_named(name: str, dictionary: NameDictionary) -> bool:
    """Whether the dictionary holds ``name`` with a Greek letter in front (a look-up in the KB,
    not a start of OPSIN)."""
    return any(dictionary.lookup_name(normalize_name(f"{g}-{name}")) for g in _GREEK_LOCANTS)


def _greek_isomers(name: str, resolved, opsin: Opsin) -> list[str]:
    """The isomers a trivial name means with a Greek letter in front ("pinene": alpha- and
    beta-pinene), when at least two of them differ in their bonds (not only in stereo:
    alpha- and beta-glucose are one compound's anomers); the resolved structure is listed
    first."""
    from rdkit import Chem

    greek = [f"{g}-{name}" for g in _GREEK_LOCANTS]
    found: dict[str, str] = {}  # skeleton (no stereo) -> SMILES
    for mol in _isomer_readings(greek, resolved, opsin):
        found.setdefault(Chem.MolToSmiles(mol, isomericSmiles=False), canonical_smiles(mol))
    if len(found) < 2:
        return []
    return list(dict.fromkeys([canonical_smiles(resolved), *found.values()]))


@lru_cache(maxsize=1)
def _carbonyls() -> tuple:
    """Aldehyde, ketone and carboxylic acid patterns, compiled once."""
    from rdkit import Chem

    return tuple(
        Chem.MolFromSmarts(q) for q in ("[CX3H1](=O)[#6]", "[#6][CX3](=O)[#6]", "[CX3](=O)[OX2H1]")
    )


def _isomer_kind(mol) -> tuple:
    """What positional isomers share: formula, aromatic rings, aldehydes, ketones, acids."""
    from rdkit.Chem.rdMolDescriptors import CalcMolFormula, CalcNumAromaticRings

    return (
        CalcMolFormula(mol),
        CalcNumAromaticRings(mol),
        *(len(mol.GetSubstructMatches(q)) for q in _carbonyls()),
    )


class NameResolver:
    """Turns any identifier (name, SMILES, InChI, InChIKey, CAS) into a structure."""

    def __init__(self, dictionary: NameDictionary | None, opsin: Opsin | None = None) -> None:
        self.dictionary = dictionary
        self.opsin = opsin
        steps: list[NameResolverStep] = [DictionaryResolver(dictionary)]
        if opsin is not None:  # no "OPSIN disabled" note: a resolver without OPSIN is a choice
            # no Java is raised, not passed over: the user must hear how to fix it
            steps.append(OpsinResolver(opsin, errors_pass=False))
        self.chain = NameChain(steps, attach=dictionary)

    def resolve(self, text: str) -> Resolution:
        """Resolve ``text`` or raise a ChemgroundError that says what was tried and why it
        failed."""
        query = text.strip().strip("\"'`")
        if not query:
            raise NameResolutionError("empty name")
        # what no identifier holds, refused before any parser sees it; the length limits differ
        # (a SMILES or an InChI may be longer than a name) and are checked where each is parsed
        check_name(query, "identifier", limit=None)
        if is_inchi(query):  # the KB's record of the structure, as for a SMILES
            return self._attach_compound(
                Resolution(query, structure_from_inchi(query), "inchi", "inchi")
            )
        if is_inchikey(query):
            return self._resolve_inchikey(query)
        if is_cas_number(query):
            return self._resolve_cas(query)
        expanded = expanded_substituents(query)
        if expanded != query:  # "4-F-phenol", "p-MeO-benzaldehyde": as a name would spell them
            found = self.resolve(expanded)
            return replace(
                found,
                query=query,
                notes=[*found.notes, f"read {query!r} as {expanded!r}"],
            )
        smiles_error: StructureError | None = None
        curated = _curated(query)
        if curated is not None:  # "Br2", "PhMgBr", "Boc2O": as chemists write them, whatever the KB
            hits = self.dictionary.lookup_structure(curated) if self.dictionary is not None else []
            return Resolution(
                query,
                curated,
                "dictionary",
                "common_name",
                hits[0].compound_id if hits else None,
                hits[0].matched_name if hits else query,
            )
        if looks_like_smiles(query) and query.isalpha() and self.dictionary is not None:
            # "NBS", "PCC", "BPO" parse as SMILES but chemists mean the reagent: a curated
            # abbreviation wins over a letters-only SMILES (while "CCO" stays ethanol).
            hits = self.dictionary.lookup_name(normalize_name(query))
            if hits and hits[0].name_rank < 0:
                hit = hits[0]
                return Resolution(
                    query,
                    hit.structure,
                    "dictionary",
                    "common_name",
                    hit.compound_id,
                    hit.matched_name,
                )
        if looks_like_smiles(query):
            try:
                structure = structure_from_smiles(query)
            except StructureLimitError:
                # "SMILES has 20,000 heavy atoms": no name is meant, and none that long exists
                raise
            except StructureError as error:
                smiles_error = error
            else:
                resolution = Resolution(query, structure, "smiles", "smiles")
                return self._attach_compound(resolution)
        return self.resolve_name(query, smiles_error=smiles_error)

    def resolve_name(self, name: str, smiles_error: StructureError | None = None) -> Resolution:
        """Resolve a compound name through the shared chain (dictionary, then OPSIN).

        Args:
            name: the name as typed.
            smiles_error: why the text did not parse as SMILES either, if it was tried, so
                that the failure says both.

        Returns:
            The resolution; its source says which resolver found the structure.

        Raises:
            NameLimitError: the name is too long or holds a control character.
            NameResolutionError: a polymer, or a name no resolver knows (the message lists
                what each said).
            ChemgroundError: OPSIN cannot run (no Java), so that the user hears how to fix it.
        """
        also = f"as SMILES: {clip(smiles_error, 200)}" if smiles_error is not None else None
        try:
            check_name(name)
        except NameLimitError as error:
            raise Unresolved(name, (str(error),)).error(also, NameLimitError) from None
        why_not = not_one_compound(name)
        if why_not is not None:
            # PubChem files "polyethylene" and "PEG" under their monomers, "petroleum ether"
            # under benzene; answering for those would be confidently wrong
            raise NameResolutionError(why_not)
        found = self.chain.attempt(name)
        if isinstance(found, Unresolved):
            raise found.error(also)
        fmt = guess_name_format(name) if found.source == "dictionary" else "iupac"
        return Resolution(
            name,
            found.structure,
            found.source,
            fmt,
            found.compound_id,
            found.matched_name,
            list(found.notes),
        )

    def resolve_many(self, texts: Sequence[str]) -> dict[str, Resolution | ChemgroundError]:
        """Resolve each distinct text; failures are returned, not raised."""
        return each(texts, self.resolve, ChemgroundError)

    def _attach_compound(self, resolution: Resolution) -> Resolution:
        """``resolution`` with the dictionary's compound of its structure, if it has one."""
        hit = self.chain.with_compound(NameHit(resolution.structure, resolution.source))
        return replace(resolution, compound_id=hit.compound_id, matched_name=hit.matched_name)

    def _resolve_inchikey(self, key: str) -> Resolution:
        hits = self.dictionary.lookup_inchikey(key) if self.dictionary else []
        if not hits:
            raise NameResolutionError(
                f"InChIKey {key} is not in the knowledge base (an InChIKey cannot be turned back "
                "into a structure without a database that holds it)"
            )
        hit = hits[0]
        return Resolution(
            key, hit.structure, "inchikey", "inchikey", hit.compound_id, hit.matched_name
        )

    def _resolve_cas(self, cas: str) -> Resolution:
        if not is_valid_cas(cas):
            raise NameResolutionError(f"{cas} is not a valid CAS number (its check digit is wrong)")
        hits = self.dictionary.lookup_cas(cas) if self.dictionary else []
        if not hits:
            raise NameResolutionError(f"CAS number {cas} is not in the compound dictionary")
        hit = hits[0]
        return Resolution(
            cas, hit.structure, "dictionary", "cas", hit.compound_id, hit.matched_name
        )


def _curated(token: str) -> Structure | None:
    """The structure of a curated laboratory abbreviation or reagent formula (kb/data)."""
    from chemground.kb.abbreviations import curated_structure  # the data lives with the KB

    return curated_structure(token)


# -- names as chemists write them --------------------------------------------------------------
# The PubChem-derived dictionary stores names in lower case, which loses meaning: "(2r)" for
# (2R), "l-phenylalanine", "copper(ii)", "n,n-dimethylformamide", "1h-indole".
_STEREO_PLAIN = re.compile(
    r"(?<![a-z])\(((?:\d+[a-z]?)?(?:r|s|e|z|rs)(?:,(?:\d+[a-z]?)?(?:r|s|e|z|rs))*)\)(?=-)"
)
_D_L = re.compile(r"(?:(?<=^)|(?<=[\s(\[,-]))(dl|d|l)(?=-(?:\(|[a-z]))")
_OXIDATION = re.compile(r"(?<=[a-z])\((0|i{1,3}|iv|v|vi{1,3}|ix|x)\)")
_INDICATED_H = re.compile(r"(?<=\d)h(?=[-),\]])")
_N_LOCANT = re.compile(
    r"(?:(?<=^)|(?<=[\s(\[,-]))n(?=(?:['’]*,|['’]+-|-\(|-\[|,?\d*-(?!(?:prop|but|pent|hex|hept|oct|non|dec|undec|dodec|tetradec|hexadec|octadec))))"
)


def recase_name(name: str) -> str:
    """``name`` with the case restored where it carries meaning: stereodescriptors (R/S/E/Z),
    D/L, oxidation states, indicated hydrogen and N-locants. A name with any capital letter is
    taken as written (only all-lower-case names, as the dictionary stores them, are changed)."""
    if not name or any(ch.isupper() for ch in name):
        return name
    out = _STEREO_PLAIN.sub(
        lambda m: (
            "("
            + ",".join(
                p[:-1] + p[-1].upper() if not p.isalpha() else p.upper()
                for p in m.group(1).split(",")
            )
            + ")"
        ),
        name,
    )
    out = _D_L.sub(lambda m: m.group(1).upper(), out)
    out = _OXIDATION.sub(lambda m: "(" + m.group(1).upper() + ")", out)
    out = _INDICATED_H.sub("H", out)
    out = _N_LOCANT.sub("N", out)
    return out


# Parent-hydride substituent prefixes ("4-oxidanyl" for 4-hydroxy, "2-azanyl" for 2-amino,
# "oxidanylidene" for oxo) that 13 % of the dictionary's IUPAC names use: correct, but not what
# a chemist writes or expects ("3-methoxy-4-oxidanyl-benzaldehyde" for vanillin)
_HYDRIDE_PREFIX = re.compile(
    r"oxidanyl|azanyl|azanylidene|oxidanylidene|fluoranyl|chloranyl|bromanyl|iodanyl", re.IGNORECASE
)
MAX_NAME_CANDIDATES = 12


def preferred_iupac_name(
    iupac: str, synonyms: Sequence[str], smiles: str | None, opsin: Opsin | None
) -> str:
    """The record's systematic name in the conventional prefixes, when it uses parent-hydride ones.

    A synonym is taken when it is the same name in the conventional prefixes (hydroxy,
    amino, oxo, imino), its parts in any order (the letters and digits match), and OPSIN reads
    it as the very structure (full InChIKey, stereo included); the first such synonym in the
    record's order wins. Failing that, the name itself rewritten, when the new prefixes cannot
    change the alphabetical order of its parts ("2-azanylethanoic acid" -> "2-aminoethanoic
    acid"; not "3-methoxy-4-oxidanyl-benzaldehyde", whose methoxy would then come second).

    Args:
        iupac: the record's IUPAC name.
        synonyms: the record's other names, in its order.
        smiles: the record's structure.
        opsin: OPSIN; None keeps ``iupac``.

    Returns:
        The conventional name, or ``iupac`` when it needs no change or no synonym qualifies.
    """
    if opsin is None or not smiles or not _HYDRIDE_PREFIX.search(iupac):
        return iupac
    # the same name in the conventional prefixes, its parts in any order: "3-methoxy-4-oxidanyl-
    # benzaldehyde" -> "4-hydroxy-3-methoxybenzaldehyde", never "4-hydroxy-L-phenylalanine" for
    # (2S)-2-azanyl-3-(4-hydroxyphenyl)propanoic acid
    wanted_letters = _letters(_conventional_prefixes(iupac))
    candidates = [
        recase_name(s)
        for s in dict.fromkeys(synonyms)
        # not a CAS index name ("benzaldehyde, 4-hydroxy-3-methoxy-"), which OPSIN also reads
        if not _HYDRIDE_PREFIX.search(s) and ", " not in s and _letters(s) == wanted_letters
    ][:MAX_NAME_CANDIDATES]
    rewritten = _rewritten_in_order(iupac)
    if rewritten is not None:
        candidates.append(recase_name(rewritten))  # checked by OPSIN like the synonyms
    if not candidates:
        return iupac
    try:
        wanted = inchikey(mol_from_smiles(smiles))
    except ChemgroundError:
        return iupac
    try:
        read = opsin.translate_many(candidates)
    except ChemgroundError:  # no Java here: the record's own name is still a right one
        return iupac
    for name in candidates:
        result = read.get(name)
        if result is None or not result.ok:
            continue
        try:
            if inchikey(mol_from_smiles(result.smiles)) == wanted:
                return name
        except ChemgroundError:
            continue
    return iupac


_MULTIPLIED = re.compile(
    r"\b(bis|tris|tetrakis)\((oxidanylidene|azanylidene|oxidanyl|azanyl|fluoranyl|chloranyl|"
    r"bromanyl|iodanyl)\)"
)
_MULTIPLIERS = {"bis": "di", "tris": "tri", "tetrakis": "tetra"}
_CONVENTIONAL = (
    ("oxidanylidene", "oxo"),
    ("azanylidene", "imino"),
    ("oxidanyl", "hydroxy"),
    ("azanyl", "amino"),
    ("fluoranyl", "fluoro"),  # "1-fluoranyl-2,4-dinitro-benzene" for Sanger's reagent
    ("chloranyl", "chloro"),
    ("bromanyl", "bromo"),
    ("iodanyl", "iodo"),
)


def _conventional_prefixes(name: str) -> str:
    """``name`` with parent-hydride prefixes written the usual way ("bis(oxidanyl)" ->
    "dihydroxy"); the order of the prefixes is left as it was."""
    out = _MULTIPLIED.sub(lambda m: _MULTIPLIERS[m.group(1)] + m.group(2), name.lower())
    for hydride, usual in _CONVENTIONAL:
        out = out.replace(hydride, usual)
    return out


def _letters(name: str) -> list[str]:
    """The letters and digits of a name, sorted: equal for two orders of the same parts."""
    return sorted(c for c in name.lower() if c.isalnum())


def _rewritten_in_order(name: str) -> str | None:
    """``name`` in the conventional prefixes when no other word of it sorts between a prefix's
    old and new spelling (so alphabetical order holds), else None."""
    lowered = name.lower()
    words = set(re.findall(r"[a-z]{3,}", _MULTIPLIED.sub(r"\2", lowered)))
    changed = [(old, new) for old, new in _CONVENTIONAL if old in lowered]
    hydrides = {old for old, _ in _CONVENTIONAL}
    for old, new in changed:
        low, high = sorted((new, old))
        if any(low < w < high for w in words if w not in hydrides and not w.startswith(old)):
            return None
    out = _conventional_prefixes(name)
    return re.sub(r"\b(hydroxy|amino|oxo|imino)-(?=[a-z]{3})", r"\1", out)
