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
