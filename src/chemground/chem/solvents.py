"""Telling solvents, catalysts and reagents apart by structure.

Patent reaction SMILES lump everything that is not a reactant or product into "agents".
Chemists ask "which solvent?" and "which catalyst?", so the importer splits agents: a
common laboratory solvent is a solvent, anything with a transition metal (or a classic
organocatalyst / acid catalyst used in catalytic amounts) is a catalyst, the rest are reagents.
"""

from __future__ import annotations

from functools import lru_cache

from rdkit import Chem

from chemground.chem.structure import (
    TRANSITION_METALS,
    canonical_smiles,
    check_smiles,
    mol_from_smiles,
    rdkit_messages,
    strip_atom_maps,
)
from chemground.errors import ChemgroundError, StructureError
from chemground.kb.records import Role

# Common reaction solvents (our list): canonicalised at first use.
COMMON_SOLVENTS = {
    "water": "O",
    "methanol": "CO",
    "ethanol": "CCO",
    "1-propanol": "CCCO",
    "2-propanol": "CC(C)O",
    "1-butanol": "CCCCO",
    "tert-butanol": "CC(C)(C)O",
    "ethylene glycol": "OCCO",
    "2-methoxyethanol": "COCCO",
    "tetrahydrofuran": "C1CCOC1",
    "2-methyltetrahydrofuran": "CC1CCCO1",
    "diethyl ether": "CCOCC",
    "1,4-dioxane": "C1COCCO1",
    "1,2-dimethoxyethane": "COCCOC",
    "tert-butyl methyl ether": "COC(C)(C)C",
    "diisopropyl ether": "CC(C)OC(C)C",
    "cyclopentyl methyl ether": "COC1CCCC1",
    "diglyme": "COCCOCCOC",
    "dichloromethane": "ClCCl",
    "chloroform": "ClC(Cl)Cl",
    "carbon tetrachloride": "ClC(Cl)(Cl)Cl",
    "1,2-dichloroethane": "ClCCCl",
    "chlorobenzene": "Clc1ccccc1",
    "1,2-dichlorobenzene": "Clc1ccccc1Cl",
    "benzene": "c1ccccc1",
    "toluene": "Cc1ccccc1",
    "xylene": "Cc1ccccc1C",
    "p-xylene": "Cc1ccc(C)cc1",
    "m-xylene": "Cc1cccc(C)c1",
    "mesitylene": "Cc1cc(C)cc(C)c1",
    "hexane": "CCCCCC",
    "heptane": "CCCCCCC",
    "pentane": "CCCCC",
    "cyclohexane": "C1CCCCC1",
    "petroleum ether": "CCCCCC",
    "isooctane": "CC(C)CC(C)(C)C",
    "acetone": "CC(C)=O",
    "2-butanone": "CCC(C)=O",
    "methyl isobutyl ketone": "CC(C)CC(C)=O",
    "ethyl acetate": "CCOC(C)=O",
    "isopropyl acetate": "CC(C)OC(C)=O",
    "butyl acetate": "CCCCOC(C)=O",
    "acetonitrile": "CC#N",
    "propionitrile": "CCC#N",
    "N,N-dimethylformamide": "CN(C)C=O",
    "N,N-dimethylacetamide": "CC(=O)N(C)C",
    "N-methyl-2-pyrrolidone": "CN1CCCC1=O",
    "dimethyl sulfoxide": "CS(C)=O",
    "sulfolane": "O=S1(=O)CCCC1",
    "hexamethylphosphoramide": "CN(C)P(=O)(N(C)C)N(C)C",
    "pyridine": "c1ccncc1",
    "acetic acid": "CC(=O)O",
    "formic acid": "OC=O",
    "trifluoroacetic acid": "OC(=O)C(F)(F)F",
    "nitromethane": "C[N+](=O)[O-]",
    "2,2,2-trifluoroethanol": "OCC(F)(F)F",
    "hexafluoroisopropanol": "OC(C(F)(F)F)C(F)(F)F",
    "carbon disulfide": "S=C=S",
    "ammonia": "N",
    "dimethyl carbonate": "COC(=O)OC",
    "propylene carbonate": "CC1COC(=O)O1",
    "anisole": "COc1ccccc1",
    "1,3-dimethyl-2-imidazolidinone": "CN1CCN(C)C1=O",
    "DMPU": "CN1CCCN(C)C1=O",
}


@lru_cache(maxsize=1)
def solvent_smiles() -> dict[str, str]:
    """canonical SMILES -> solvent name."""
    out = {}
    for name, smiles in COMMON_SOLVENTS.items():
        mol = Chem.MolFromSmiles(smiles)
        if mol is not None:
            out.setdefault(Chem.MolToSmiles(mol), name)
    return out


@lru_cache(maxsize=4096)
def _canonical(smiles: str) -> str | None:
    try:
        return canonical_smiles(strip_atom_maps(mol_from_smiles(smiles)))
    except StructureError:
        return None


def is_common_solvent(smiles: str) -> bool:
    canonical = _canonical(smiles)
    return canonical is not None and canonical in solvent_smiles()


def has_transition_metal(smiles: str) -> bool:
    try:
        check_smiles(smiles)  # the size limits every structure path keeps
    except ChemgroundError:
        return False
    with rdkit_messages():
        mol = Chem.MolFromSmiles(smiles, sanitize=False)
    return mol is not None and any(atom.GetSymbol() in TRANSITION_METALS for atom in mol.GetAtoms())


def agent_role(smiles: str) -> Role:
    """Solvent, catalyst or reagent for an 'agent' of a reaction SMILES (see module docstring)."""
    if is_common_solvent(smiles):
        return Role.SOLVENT
    if has_transition_metal(smiles):
        return Role.CATALYST
    return Role.REAGENT


# Acids, Lewis acids and bases a record may file as a reagent although a chemist calls them the
# catalyst (AlCl3 in a Friedel-Crafts acylation, H2SO4 in a nitration, piperidine in a Knoevenagel).
_ACID_OR_BASE_SMILES = {
    "OS(=O)(=O)O",
    "Cl",
    "[H]Cl",
    "Br",
    "O=S(=O)(O)C(F)(F)F",
    "Cc1ccc(S(=O)(=O)O)cc1",
    "CS(=O)(=O)O",
    "O=C(O)C(F)(F)F",
    "OP(=O)(O)O",
    "CC(=O)O",
    "O=[N+]([O-])O",
    "CCN(CC)CC",
    "CCN(C(C)C)C(C)C",
    "c1ccncc1",
    "CN(C)c1ccncc1",
    "C1CCNCC1",
    "C1CCC2=NCCCN2CC1",
    "[Na+].[OH-]",
    "[K+].[OH-]",
    "[Li+].[OH-]",
    "[OH-].[Na+]",
    "[OH-].[K+]",
    "[OH-].[Li+]",
    "O=C([O-])[O-].[K+].[K+]",
    "O=C([O-])[O-].[Cs+].[Cs+]",
    "O=C([O-])[O-].[Na+].[Na+]",
    "CC(C)(C)[O-].[K+]",
    "CC(C)(C)[O-].[Na+]",
    "C[O-].[Na+]",
    "CC[O-].[Na+]",
    "[H-].[Na+]",
    "[NaH]",
}
_CANONICAL: set[str] = set()
_LEWIS_ELEMENTS = {
    "Al",
    "Fe",
    "Ti",
    "Zn",
    "Sn",
    "Sc",
    "Bi",
    "In",
    "B",
    "Yb",
    "La",
    "Ce",
    "Zr",
    "Hf",
}
_HALOGENS = {"F", "Cl", "Br", "I"}


def is_acid_base_or_lewis_acid(smiles: str | None) -> bool:
    """An acid, a base or a Lewis acid (a small metal or boron halide or triflate), by SMILES."""
    if not smiles:
        return False
    if smiles in _ACID_OR_BASE_SMILES:
        return True
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumHeavyAtoms() > 14:
        return False
    if not _CANONICAL:
        _CANONICAL.update(
            Chem.MolToSmiles(m) for m in map(Chem.MolFromSmiles, _ACID_OR_BASE_SMILES) if m
        )
    if Chem.MolToSmiles(mol) in _CANONICAL:
        return True
    return _is_lewis_acid(mol)


# radical initiators: an azo compound with a nitrile or ester beside it (AIBN, V-601) or a small
# peroxide (BPO, DTBP, lauroyl peroxide); records file them as the catalyst
_INITIATOR_SMARTS = ("[CX4](C#N)N=N[CX4]", "[CX4](C(=O)O)N=N[CX4]", "[#6]OO[#6]")


def is_radical_initiator(smiles: str | None) -> bool:
    """An azo or peroxide radical initiator (AIBN, BPO), by SMILES.

    Args:
        smiles: the compound's SMILES (None: not one).

    Returns:
        True for an azo nitrile or ester, or a peroxide of at most 40 heavy atoms.
    """
    if not smiles:
        return False
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumHeavyAtoms() > 40:
        return False
    return _has_any(mol, _INITIATOR_SMARTS)


def _is_lewis_acid(mol) -> bool:
    """A boron or metal atom beside a halogen (BF3, AlCl3, ZnCl2, TiCl4)."""
    elements = {a.GetSymbol() for a in mol.GetAtoms()}
    return bool(elements & _LEWIS_ELEMENTS) and bool(elements & _HALOGENS)


@lru_cache(maxsize=64)
def _smarts(pattern: str):
    return Chem.MolFromSmarts(pattern)


def _has_any(mol, patterns: tuple[str, ...]) -> bool:
    return any(mol.HasSubstructMatch(_smarts(q)) for q in patterns)


# What a "which base?" question means among a record's reagents: amines and amidines (Et3N,
# DIPEA, DBU), small pyridines (pyridine, DMAP, lutidine), carbonates, hydroxides, alkoxides,
# hydrides, phosphates, acetates and organolithiums or lithium amides.
_BASE_SMARTS = (
    "[NX3;H0,H1,H2;!$(N[#6]=[#7,#8,#16]);!$(Na);!$(N[S,P]=O);!$(N[#7,#8])][CX4]",
    "[NX2]=[CX3][NX3]",
    "[O-][CX3](=O)[O-,OH]",
    "[OH-]",
    "[O-][CX4]",
    "[H-]",
    "[O-]P(=O)([O-])[O-,OH]",
    "[CH3][CX3](=O)[O-]",
    "[N-]",
    "[Li][#6]",
)
_SMALL_PYRIDINE = "[nX2;r6]"


def is_base(smiles: str | None) -> bool:
    """Whether a reagent is a base (see ``_BASE_SMARTS``); a metal complex (Pd(OAc)2) and a
    coupling reagent (HATU: its amines are amidinium nitrogens) are not.

    Args:
        smiles: the reagent's SMILES.

    Returns:
        True for a base.
    """
    if not smiles or has_transition_metal(smiles):
        return False
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or _has_any(mol, ("N=C=N",)):
        return False  # EDC's dimethylamino tail does not make the carbodiimide a base
    if mol.GetNumHeavyAtoms() <= 12 and _has_any(mol, (_SMALL_PYRIDINE,)):
        return True
    return _has_any(mol, _BASE_SMARTS)


# What an "acid?" question means among a record's reagents: a hydrogen halide, an oxoacid of
# sulfur, phosphorus or nitrogen, a sulfonic or carboxylic acid (TFA, AcOH, TsOH), or a Lewis
# acid (a small boron or metal halide or triflate, as ``is_acid_base_or_lewis_acid`` reads it).
_ACID_SMARTS = (
    "[ClH,BrH,IH,FH]",
    "[SX4](=O)(=O)[OH]",
    "[PX4](=O)[OH]",
    "[NX3+](=O)([O-])[OH]",
    "[CX3](=O)[OH]",
)


def is_acid(smiles: str | None) -> bool:
    """Whether a reagent is an acid (see ``_ACID_SMARTS``): Brønsted acids and small Lewis acids;
    a base, or a salt of an acid (sodium acetate), is not.

    Args:
        smiles: the reagent's SMILES.

    Returns:
        True for an acid.
    """
    if not smiles or is_base(smiles):
        return False
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumHeavyAtoms() > 20:
        return False
    return _has_any(mol, _ACID_SMARTS) or _is_lewis_acid(mol)
