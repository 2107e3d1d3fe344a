"""Validation and enrichment of an extracted reaction, without any LLM.

Every name is resolved to a structure (see :mod:`chemground.extract.resolve`) and carries its
canonical SMILES, InChIKey, formula and molecular weight. A record is excluded from the KB
when a participant does not resolve (the unresolved names are listed), when it lacks a
reactant or a product, or when a product holds an element that no reactant, catalyst or
solvent supplies: LLM extractions that drop or invent compounds fail exactly these tests. An
atom-balance check (a product with more atoms of an element than all reactants together) is
reported as a warning only, because dimerisations and excess reagents make it legitimate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from chemground.agent.jsonsafe import fields_json
from chemground.chem.structure import Structure, mol_from_smiles
from chemground.errors import StructureError
from chemground.extract.resolve import ExtractedNameResolver, NameCheck
from chemground.extract.schema import ROLES, ExtractedReaction
from chemground.kb.records import Role

# "reactants" -> "reactant": the extraction schema's field names to the KB's role values.
ROLE_OF_FIELD = {field: Role.from_field(field).value for field in ROLES}

# Exclusion reasons, as counted in progress bars and summaries.
UNRESOLVED = "unresolved"
INCOMPLETE = "incomplete"
ELEMENT_MISMATCH = "element_mismatch"
ATOM_BALANCE = "atom_balance"  # a warning, never an exclusion


@dataclass
class ResolvedCompound:
    """One participant after resolution: the name as extracted plus the structure it stands for."""

    role: str
    name: str
    source: str = ""
    smiles: str | None = None
    inchikey: str | None = None
    formula: str | None = None
    molecular_weight: float | None = None
    compound_id: int | None = None
    reason: str = ""

    @property
    def resolved(self) -> bool:
        return self.inchikey is not None or self.compound_id is not None

    @classmethod
    def from_check(cls, role: str, check: NameCheck) -> ResolvedCompound:
        s: Structure | None = check.structure
        return cls(
            role=role,
            name=check.name,
            source=check.source,
            smiles=s.smiles if s else None,
            inchikey=s.inchikey if s else None,
            formula=s.formula if s else None,
            molecular_weight=round(s.molecular_weight, 4) if s else None,
            compound_id=check.compound_id,
            reason=check.reason,
        )


@dataclass
class Validation:
    """The verdict on one record: the resolved compounds, exclusion reasons and warnings."""

    compounds: list[ResolvedCompound]
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.reasons

    @property
    def unresolved_names(self) -> list[str]:
        return [c.name for c in self.compounds if not c.resolved]

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "reasons": self.reasons,
            "warnings": self.warnings,
            "messages": self.messages,
            "unresolved": self.unresolved_names,
            # a compound's fields, the empty ones left out (an unresolved name has no structure)
            "compounds": [fields_json(c, omit_empty=True) for c in self.compounds],
        }


@lru_cache(maxsize=65536)
def element_counts(smiles: str) -> Counter:
    """Atom counts per element, hydrogens included (implicit ones too)."""
    mol = mol_from_smiles(smiles)
    counts: Counter = Counter()
    for atom in mol.GetAtoms():
        counts[atom.GetSymbol()] += 1
        counts["H"] += atom.GetTotalNumHs()
    return counts


def validate_reaction(record: ExtractedReaction, lookup: ExtractedNameResolver) -> Validation:
    """Resolve every participant of ``record`` and run the completeness and element checks."""
    checks = lookup.resolve_many(name for _, name in record.names())
    compounds = [
        ResolvedCompound.from_check(ROLE_OF_FIELD[role], checks[name])
        for role, name in record.names()
    ]
    result = Validation(compounds)
    unresolved = [c for c in compounds if not c.resolved]
    if unresolved:
        result.reasons.append(UNRESOLVED)
        result.messages.extend(f"unresolved {c.role} {c.name!r}: {c.reason}" for c in unresolved)
    if not record.reactants or not record.products:
        result.reasons.append(INCOMPLETE)
        missing = [
            label
            for label, names in (("reactant", record.reactants), ("product", record.products))
            if not names
        ]
        result.messages.append(f"no {' and no '.join(missing)}")
    _element_checks(compounds, result)
    return result


def _element_checks(compounds: list[ResolvedCompound], result: Validation) -> None:
    inputs = [c for c in compounds if c.role != "product"]
    products = [c for c in compounds if c.role == "product" and c.smiles]
    reactants = [c for c in compounds if c.role == "reactant"]
    # Elements can only be compared when every input's structure is known.
    if not products or not reactants or any(c.smiles is None for c in inputs):
        return
    try:
        supplied: Counter = Counter()
        for c in inputs:
            supplied.update({e: 1 for e in element_counts(c.smiles)})  # type: ignore[arg-type]
        reactant_atoms: Counter = Counter()
        for c in reactants:
            reactant_atoms.update(element_counts(c.smiles))  # type: ignore[arg-type]
        for product in products:
            counts = element_counts(product.smiles)  # type: ignore[arg-type]
            missing = sorted(e for e in counts if e != "H" and e not in supplied)
            if missing:
                if ELEMENT_MISMATCH not in result.reasons:
                    result.reasons.append(ELEMENT_MISMATCH)
                result.messages.append(
                    f"product {product.name!r} contains {', '.join(missing)}, which no reactant, "
                    "catalyst or solvent "
                    "contains"
                )
            excess = sorted(
                e
                for e in counts
                if e != "H" and e in reactant_atoms and counts[e] > reactant_atoms[e]
            )
            if excess:
                if ATOM_BALANCE not in result.warnings:
                    result.warnings.append(ATOM_BALANCE)
                detail = ", ".join(f"{counts[e]} {e} vs {reactant_atoms[e]}" for e in excess)
                result.messages.append(
                    f"atom balance: product {product.name!r} has more atoms than all reactants "
                    f"together ({detail}); fine for a dimerisation, else a reactant is missing"
                )
    except StructureError as error:  # a stored structure RDKit now rejects: say so, do not guess
        result.messages.append(f"element check skipped: {error}")
