"""Structure and reaction depictions (RDKit SVG) for the web page and ``GET /depict``.

A chemist reads a structure faster than a SMILES, so every compound and reaction the page
shows is drawn. Drawing happens on the server with RDKit (the page loads nothing from the
internet and needs no JavaScript chemistry library). Inputs pass the same structure limits
as every other SMILES in chemground (:func:`chemground.chem.structure.check_smiles`), and a
reaction scheme is limited in the number of molecules it draws. Results are cached (LRU):
the same compounds come back in answer after answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rdkit.Chem import rdChemReactions
from rdkit.Chem.Draw import rdMolDraw2D

from chemground.chem.structure import (
    MAX_HEAVY_ATOMS,
    MAX_SMILES_CHARS,
    check_mol,
    mol_from_smiles,
    rdkit_messages,
)
from chemground.errors import InputLimitError, StructureError, StructureLimitError
from chemground.kb.records import Reaction, Role

MIN_SIZE, MAX_SIZE = 40, 1200  # pixels, each side
MAX_SCHEME_MOLECULES = 24  # reactants + agents + products drawn in one scheme
CACHE_SIZE = 4096
_CX_EXTENSION = re.compile(r"\s+\|.*$", re.DOTALL)


def check_size(width: int, height: int) -> None:
    """Refuse a drawing size outside ``MIN_SIZE``..``MAX_SIZE`` pixels a side.

    Args:
        width: width in pixels.
        height: height in pixels.

    Raises:
        InputLimitError: a side is too small to read or large enough to cost real memory.
    """
    for what, value in (("width", width), ("height", height)):
        if not MIN_SIZE <= value <= MAX_SIZE:
            raise InputLimitError(f"{what} {value} is outside {MIN_SIZE}..{MAX_SIZE} pixels")


def _finish(drawer: rdMolDraw2D.MolDraw2DSVG) -> str:
    drawer.FinishDrawing()
    # RDKit declares iso-8859-1 but writes ASCII-safe text; say UTF-8, as the response does
    return drawer.GetDrawingText().replace("encoding='iso-8859-1'", "encoding='utf-8'", 1)


def _drawer(width: int, height: int) -> rdMolDraw2D.MolDraw2DSVG:
    drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
    options = drawer.drawOptions()
    options.clearBackground = False  # the page's card colour shows through
    options.bondLineWidth = 1.5
    options.padding = 0.08
    return drawer


@lru_cache(maxsize=CACHE_SIZE)
def depict_smiles(smiles: str, width: int = 240, height: int = 180) -> str:
    """An SVG drawing of the structure ``smiles`` (CX extensions allowed, ignored when drawing).

    Args:
        smiles: a SMILES string, within the structure limits of ``chem.structure``.
        width: drawing width in pixels (``MIN_SIZE``..``MAX_SIZE``).
        height: drawing height in pixels.

    Returns:
        The SVG document as text.

    Raises:
        StructureLimitError: the SMILES is over a structure limit (length, atoms, rings...).
        StructureError: it is not a valid SMILES.
        InputLimitError: the size is out of range.
    """
    check_size(width, height)
    mol = mol_from_smiles(smiles)
    drawer = _drawer(width, height)
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
    return _finish(drawer)


def scheme_smiles(reaction: Reaction) -> str:
    """The reaction SMILES to draw for ``reaction``: its own, else one built from its resolved
    participants (reactants > reagents, catalysts, solvents > products).

    Args:
        reaction: a KB reaction record.

    Returns:
        A reaction SMILES ``reactants>agents>products``.

    Raises:
        StructureError: neither a reaction SMILES nor any resolved reactant and product.
    """
    if reaction.reaction_smiles and reaction.reaction_smiles.count(">") == 2:
        return reaction.reaction_smiles

    def part(*roles: Role) -> str:
        return ".".join(p.smiles for role in roles for p in reaction.by_role(role) if p.smiles)

    reactants, products = part(Role.REACTANT), part(Role.PRODUCT)
    if not reactants and not products:
        raise StructureError(
            f"reaction {reaction.id!r} has no reaction SMILES and no resolved reactant or product "
            "to draw"
        )
    return f"{reactants}>{part(Role.REAGENT, Role.CATALYST, Role.SOLVENT)}>{products}"


def check_reaction_smiles(text: str) -> list[list[str]]:
    """Split a reaction SMILES into its three parts' molecules and check each molecule.

    Args:
        text: ``reactants>agents>products`` (CX extensions after a space are ignored).

    Returns:
        The molecules' SMILES of each part.

    Raises:
        StructureLimitError: the text is over the SMILES length limit, a molecule over a
            structure limit, or the scheme has more than ``MAX_SCHEME_MOLECULES`` molecules.
        StructureError: it is not ``A>B>C``.
    """
    text = _CX_EXTENSION.sub("", (text or "").strip())
    if len(text) > 3 * MAX_SMILES_CHARS:
        raise StructureLimitError(
            f"reaction SMILES is {len(text):,} characters; the limit is {3 * MAX_SMILES_CHARS:,}"
        )
    parts = text.split(">")
    if len(parts) != 3 or not (parts[0] or parts[2]):
        raise StructureError(
            "a reaction SMILES is 'reactants>agents>products' (e.g. 'CCO>[H+]>CC=O'), "
            f"with at least a reactant or a product; got {len(parts) - 1} '>'"
        )
    molecules = [[m for m in part.split(".") if m] for part in parts]
    count = sum(len(m) for m in molecules)
    if count > MAX_SCHEME_MOLECULES:
        raise StructureLimitError(
            f"the reaction has {count} molecules; a scheme draws at most {MAX_SCHEME_MOLECULES}"
        )
    for part in molecules:
        for smiles in part:
            mol_from_smiles(
                smiles
            )  # check_smiles and a real parse: a clear error names the bad one
    return molecules


@lru_cache(maxsize=CACHE_SIZE)
def depict_reaction_smiles(text: str, height: int = 180, agents: bool = True) -> str:
    """An SVG reaction scheme (reactants -> products, agents above the arrow) of a reaction SMILES.

    The width follows from the number of molecules, so a scheme keeps the scale of a
    single-compound drawing.

    Args:
        text: a reaction SMILES ``reactants>agents>products``.
        height: drawing height in pixels.
        agents: draw the agents (reagents, catalysts, solvents) above the arrow.

    Returns:
        The SVG document as text.

    Raises:
        StructureLimitError: see :func:`check_reaction_smiles`.
        StructureError: the reaction or one of its molecules is not valid SMILES.
        InputLimitError: the height is out of range.
    """
    molecules = check_reaction_smiles(text)
    if not agents:
        molecules[1] = []
    heavy = sum(mol_from_smiles(s).GetNumHeavyAtoms() for part in molecules for s in part)
    if heavy > MAX_HEAVY_ATOMS:
        raise StructureLimitError(
            f"the reaction has {heavy:,} heavy atoms; the limit is {MAX_HEAVY_ATOMS:,}"
        )
    width = min(
        MAX_SIZE, max(2 * height, int(height * 1.5 * (len(molecules[0]) + len(molecules[2]) + 1)))
    )
    check_size(width, height)
    with rdkit_messages():
        reaction = rdChemReactions.ReactionFromSmarts(
            ">".join(".".join(p) for p in molecules), useSmiles=True
        )
    if reaction is None:
        raise StructureError("RDKit could not read the reaction SMILES")
    for mol in (*reaction.GetReactants(), *reaction.GetProducts()):
        check_mol(mol, "reaction SMILES")
    drawer = _drawer(width, height)
    drawer.DrawReaction(reaction)
    return _finish(drawer)


def depict_reaction(reaction: Reaction, height: int = 180, agents: bool = True) -> str:
    """An SVG scheme of a KB reaction (from its reaction SMILES or its participants).

    Args:
        reaction: the reaction record.
        height: drawing height in pixels.
        agents: draw the agents above the arrow.

    Returns:
        The SVG document as text.

    Raises:
        StructureError: nothing to draw, or a participant's SMILES is invalid.
        StructureLimitError: the reaction is over a structure limit.
    """
    return depict_reaction_smiles(scheme_smiles(reaction), height, agents)
