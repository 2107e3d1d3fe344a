"""The curated starter reaction set shipped with chemground.

A fresh knowledge base has no reactions until a dataset is imported, yet the questions a
chemist asks first are about textbook transformations: how is aspirin made, what conditions
does a Suzuki coupling need, which reagent reduces a ketone. ``data/starter_reactions.toml``
answers those with a small set of reactions written by the chemground developers (not copied
from any dataset): real compounds, conditions typical for each named reaction class and a
one-line note.

Every reaction is checkable: its class carries an RDKit reaction template, and applying the
template to the listed reactants must give the listed main product
(:func:`check_reaction`). This module loads the file into typed, immutable records and
rejects malformed entries with a message naming the reaction (or class) and the field.

Data conventions: reactants are listed in the order of the class template's reactant
templates; a reagent that contributes heavy atoms to the product (Boc2O, CBr4, mCPBA, NBS,
HNO3) is a reactant, while hydrogen sources (H2, NaBH4) and auxiliaries (bases, coupling
agents, PPh3/DIAD) are reagents; the main product comes first in ``products``.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rdkit import Chem
from rdkit.Chem import rdChemReactions
from rdkit.rdBase import BlockLogs

STARTER_RESOURCE = "starter_reactions.toml"

_CLASS_KEYS = {"id", "name", "template", "description"}
_REACTION_KEYS = {
    "id",
    "class",
    "reactants",
    "products",
    "reagents",
    "catalysts",
    "solvents",
    "temperature_c",
    "time_h",
    "yield_percent",
    "note",
}
_COMPOUND_KEYS = {"name", "smiles"}


@dataclass(frozen=True)
class StarterCompound:
    """One participant: a name a chemist would use and its SMILES."""

    name: str
    smiles: str


@dataclass(frozen=True)
class StarterClass:
    """A named reaction class with the RDKit reaction SMARTS that checks its members."""

    id: str
    name: str
    template: str
    description: str


@dataclass(frozen=True)
class StarterReaction:
    """One curated reaction; ``products[0]`` is the main product."""

    id: str
    reaction_class: str
    reactants: tuple[StarterCompound, ...]
    products: tuple[StarterCompound, ...]
    reagents: tuple[StarterCompound, ...]
    catalysts: tuple[StarterCompound, ...]
    solvents: tuple[StarterCompound, ...]
    temperature_c: float
    time_h: float | None
    yield_percent: float | None
    note: str

    @property
    def main_product(self) -> StarterCompound:
        return self.products[0]


# --------------------------------------------------------------------------- loading


def _where(kind: str, ident: object) -> str:
    if isinstance(ident, str) and ident:
        return f"starter {kind} {ident!r}"
    return f"starter {kind} #{ident}"


def _text(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if value is None:
        raise ValueError(f"{where}: field {key!r} is missing")
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: field {key!r} must be a non-empty string, got {value!r}")
    return value.strip()


def _number(entry: dict[str, Any], key: str, where: str, *, required: bool) -> float | None:
    value = entry.get(key)
    if value is None:
        if required:
            raise ValueError(f"{where}: field {key!r} is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: field {key!r} must be a number, got {value!r}")
    return float(value)


def _compounds(
    entry: dict[str, Any], key: str, where: str, *, required: bool
) -> tuple[StarterCompound, ...]:
    raw = entry.get(key)
    if raw is None:
        if required:
            raise ValueError(f"{where}: field {key!r} is missing")
        return ()
    if not isinstance(raw, list):
        raise ValueError(f"{where}: field {key!r} must be a list of {{name, smiles}} tables")
    if required and not raw:
        raise ValueError(f"{where}: field {key!r} must list at least one compound")
    out = []
    for i, item in enumerate(raw):
        field = f"{key}[{i}]"
        if not isinstance(item, dict):
            raise ValueError(
                f"{where}: field {field!r} must be a {{name, smiles}} table, got {item!r}"
            )
        unknown = set(item) - _COMPOUND_KEYS
        if unknown:
            raise ValueError(f"{where}: field {field!r} has unknown keys {sorted(unknown)}")
        name = _text(item, "name", f"{where}: {field}")
        smiles = _text(item, "smiles", f"{where}: {field}")
        if _parse(smiles) is None:
            raise ValueError(f"{where}: field {field}.smiles {smiles!r} is not a valid SMILES")
        out.append(StarterCompound(name, smiles))
    return tuple(out)


def _parse(smiles: str) -> Chem.Mol | None:
    with BlockLogs():
        return Chem.MolFromSmiles(smiles)


def _read_class(entry: Any, index: int) -> StarterClass:
    if not isinstance(entry, dict):
        raise ValueError(f"starter class #{index} must be a table")
    where = _where("class", entry.get("id") or index)
    unknown = set(entry) - _CLASS_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
    cls = StarterClass(
        id=_text(entry, "id", where),
        name=_text(entry, "name", where),
        template=_text(entry, "template", where),
        description=_text(entry, "description", where),
    )
    try:
        with BlockLogs():
            rxn = rdChemReactions.ReactionFromSmarts(cls.template)
    except Exception as exc:
        raise ValueError(f"{where}: field 'template' is not valid reaction SMARTS: {exc}") from exc
    if rxn is None or rxn.GetNumReactantTemplates() == 0 or rxn.GetNumProductTemplates() == 0:
        raise ValueError(f"{where}: field 'template' is not valid reaction SMARTS")
    return cls


def _read_reaction(entry: Any, index: int, classes: dict[str, StarterClass]) -> StarterReaction:
    if not isinstance(entry, dict):
        raise ValueError(f"starter reaction #{index} must be a table")
    where = _where("reaction", entry.get("id") or index)
    unknown = set(entry) - _REACTION_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
    rid = _text(entry, "id", where)
    class_id = _text(entry, "class", where)
    if class_id not in classes:
        raise ValueError(f"{where}: field 'class' names unknown class {class_id!r}")
    reaction = StarterReaction(
        id=rid,
        reaction_class=class_id,
        reactants=_compounds(entry, "reactants", where, required=True),
        products=_compounds(entry, "products", where, required=True),
        reagents=_compounds(entry, "reagents", where, required=False),
        catalysts=_compounds(entry, "catalysts", where, required=False),
        solvents=_compounds(entry, "solvents", where, required=False),
        temperature_c=_number(entry, "temperature_c", where, required=True) or 0.0,
        time_h=_number(entry, "time_h", where, required=False),
        yield_percent=_number(entry, "yield_percent", where, required=False),
        note=_text(entry, "note", where),
    )
    if not -100.0 <= reaction.temperature_c <= 400.0:
        raise ValueError(
            f"{where}: field 'temperature_c' {reaction.temperature_c} is outside -100..400"
        )
    if reaction.time_h is not None and reaction.time_h <= 0:
        raise ValueError(f"{where}: field 'time_h' must be positive")
    if reaction.yield_percent is not None and not 0.0 < reaction.yield_percent <= 100.0:
        raise ValueError(f"{where}: field 'yield_percent' must be in (0, 100]")
    n_templates = _reaction(classes[class_id].template).GetNumReactantTemplates()
    if len(reaction.reactants) != n_templates:
        raise ValueError(
            f"{where}: field 'reactants' lists {len(reaction.reactants)} compounds but the "
            f"template of class {class_id!r} takes {n_templates}"
        )
    return reaction


def load_starter_set(
    path: str | Path | None = None,
) -> tuple[dict[str, StarterClass], list[StarterReaction]]:
    """Read the starter set (the packaged TOML unless ``path`` is given).

    Returns the classes by id and the reactions in file order. Raises ``ValueError`` naming the
    class or reaction id and the field for a malformed entry (missing name/smiles, unknown
    class, duplicate id, invalid SMILES or template, wrong number of reactants).
    """
    if path is None:
        packaged = resources.files("chemground.kb").joinpath("data").joinpath(STARTER_RESOURCE)
        text = packaged.read_text("utf-8")
        source = f"chemground.kb/data/{STARTER_RESOURCE}"
    else:
        text = Path(path).read_text("utf-8")
        source = str(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from exc
    unknown = set(doc) - {"class", "reaction"}
    if unknown:
        raise ValueError(f"{source}: unknown top-level keys {sorted(unknown)}")
    raw_classes = doc.get("class", [])
    raw_reactions = doc.get("reaction", [])
    if not isinstance(raw_classes, list) or not isinstance(raw_reactions, list):
        raise ValueError(
            f"{source}: 'class' and 'reaction' must be arrays of tables ([[class]], [[reaction]])"
        )

    classes: dict[str, StarterClass] = {}
    for i, entry in enumerate(raw_classes):
        cls = _read_class(entry, i)
        if cls.id in classes:
            raise ValueError(f"{_where('class', cls.id)}: field 'id' is a duplicate")
        classes[cls.id] = cls

    reactions: list[StarterReaction] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw_reactions):
        reaction = _read_reaction(entry, i, classes)
        if reaction.id in seen:
            raise ValueError(f"{_where('reaction', reaction.id)}: field 'id' is a duplicate")
        seen.add(reaction.id)
        reactions.append(reaction)
    return classes, reactions


# --------------------------------------------------------------------------- checking


_REACTIONS: dict[str, rdChemReactions.ChemicalReaction] = {}


def _reaction(template: str) -> rdChemReactions.ChemicalReaction:
    rxn = _REACTIONS.get(template)
    if rxn is None:
        rxn = rdChemReactions.ReactionFromSmarts(template)
        rxn.Initialize()
        _REACTIONS[template] = rxn
    return rxn


def _reactant(smiles: str) -> Chem.Mol:
    """Parse a reactant and make hydrogens on neutral carbons implicit.

    A bracket atom such as ``[C@H]`` carries an explicit hydrogen count that RDKit copies
    unchanged into the product; a carbon that gains a bond (alcohol -> ketone at a
    stereocentre) would then be over-valent. Carbon hydrogen counts always follow from
    valence, so making them implicit lets templates change them; heteroatom counts
    (``[nH]``) are left alone.
    """
    mol = _parse(smiles)
    if mol is None:
        raise ValueError(f"invalid SMILES {smiles!r}")
    for atom in mol.GetAtoms():
        neutral = atom.GetFormalCharge() == 0 and atom.GetNumRadicalElectrons() == 0
        if atom.GetAtomicNum() == 6 and neutral:
            atom.SetNumExplicitHs(0)
            atom.SetNoImplicit(False)
    mol.UpdatePropertyCache(strict=False)
    return mol


def canonical_smiles(smiles: str, *, stereo: bool = True) -> str | None:
    """RDKit canonical SMILES (with or without stereo), or None if it does not parse."""
    mol = _parse(smiles)
    if mol is None:
        return None
    return Chem.MolToSmiles(mol, isomericSmiles=stereo)


def template_outcomes(reaction_class: StarterClass, reaction: StarterReaction) -> set[str]:
    """Canonical SMILES of every product molecule of every outcome of the class template.

    Outcomes that fail sanitization are skipped. Each SMILES is re-parsed before
    canonicalisation so it compares equal to ``canonical_smiles`` of the listed product.
    """
    rxn = _reaction(reaction_class.template)
    reactants = tuple(_reactant(c.smiles) for c in reaction.reactants)
    found: set[str] = set()
    with BlockLogs():
        for outcome in rxn.RunReactants(reactants):
            for product in outcome:
                try:
                    Chem.SanitizeMol(product)
                    Chem.AssignStereochemistry(product, cleanIt=True, force=True)
                    smiles = Chem.MolToSmiles(product)
                except Exception:
                    continue
                again = Chem.MolFromSmiles(smiles)
                if again is not None:
                    found.add(Chem.MolToSmiles(again))
    return found


def template_sets_stereo(template: str) -> bool:
    """True if a product template specifies a stereocentre or a double-bond geometry."""
    rxn = _reaction(template)
    for product in rxn.GetProducts():
        for atom in product.GetAtoms():
            if atom.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
                return True
        for bond in product.GetBonds():
            if bond.GetStereo() != Chem.BondStereo.STEREONONE or bond.GetBondDir() in (
                Chem.BondDir.ENDUPRIGHT,
                Chem.BondDir.ENDDOWNRIGHT,
            ):
                return True
    return False


def check_reaction(classes: dict[str, StarterClass], reaction: StarterReaction) -> bool:
    """True if the class template applied to the reactants gives the listed main product.

    The main product's canonical SMILES, stereo kept, must be among the template outcomes
    (stereo already present in the reactants is carried through by RDKit). Only when the
    class template cannot set stereo itself (no chiral tags or double-bond directions in
    its product templates, e.g. a generic Wittig template listing the E-alkene) is a match
    after removing stereo from both sides accepted.
    """
    cls = classes[reaction.reaction_class]
    outcomes = template_outcomes(cls, reaction)
    target = canonical_smiles(reaction.main_product.smiles)
    if target is None:
        return False
    if target in outcomes:
        return True
    if template_sets_stereo(cls.template):
        return False
    flat_target = canonical_smiles(target, stereo=False)
    return any(canonical_smiles(s, stereo=False) == flat_target for s in outcomes)
