"""Small helpers the tool modules share: parsing SMILES with clear errors, and the error of a tool
that needs the network (element symbols and formulas are read by chemground.chem.formula)."""

from __future__ import annotations


def mol(smiles: str):
    """An RDKit molecule from SMILES, or StructureError with RDKit's reason."""
    from chemground.chem.structure import mol_from_smiles

    return mol_from_smiles(smiles)


def offline_error(tool: str, reason: str):
    """The ToolOffline a tool raises when its answer needs PubChem and the network is not
    allowed."""
    from chemground.agent.runner import ToolOffline
    from chemground.pubchem import NETWORK_HINT

    return ToolOffline(tool, f"{reason} ({NETWORK_HINT})")
