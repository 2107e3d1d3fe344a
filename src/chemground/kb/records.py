"""The records of the knowledge base: compounds, reactions and their participants.

Schema first (as ord-schema does): every importer produces these models and every retriever
returns them inside Evidence, so the rest of the system never sees a file format.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from chemground.chem.structure import Structure


class Role(StrEnum):
    """The part a compound plays in a reaction: the one role vocabulary of chemground.

    ``parse`` reads the words chemists use ("substrate", "base", "starting materials");
    ``field`` and ``from_field`` give the plural field names of files and LLM schemas
    ("reactants"); the graph's relationships are ``<ROLE>_OF`` (``REACTANT_OF``).
    """

    REACTANT = "reactant"
    PRODUCT = "product"
    SOLVENT = "solvent"
    CATALYST = "catalyst"
    REAGENT = "reagent"

    @classmethod
    def parse(cls, text: str) -> Role:
        key = text.strip().lower().rstrip("s")
        aliases = {
            "agent": "reagent",
            "reactant": "reactant",
            "starting material": "reactant",
            "substrate": "reactant",
            "base": "reagent",
            "additive": "reagent",
        }
        key = aliases.get(key, key)
        try:
            return cls(key)
        except ValueError:
            allowed = ", ".join(r.value for r in cls)
            raise ValueError(f"unknown role {text!r}; expected one of: {allowed}") from None

    @property
    def field(self) -> str:
        """The plural field name used in files and LLM schemas ("reactants", "solvents")."""
        return f"{self.value}s"

    @classmethod
    def from_field(cls, name: str) -> Role:
        """The role of a plural field name ("catalysts" -> CATALYST).

        Raises:
            ValueError: ``name`` is not a role's field name.
        """
        for role in cls:
            if role.field == name:
                return role
        raise ValueError(
            f"unknown role field {name!r}; expected one of: {', '.join(r.field for r in cls)}"
        )


class Compound(BaseModel):
    """One compound, identified by its structure (InChIKey) when it has one."""

    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    iupac_name: str | None = None
    common_name: str | None = None
    synonyms: list[str] = Field(default_factory=list)
    smiles: str | None = None
    inchikey: str | None = None
    inchi: str | None = None
    formula: str | None = None
    molecular_weight: float | None = None
    exact_mass: float | None = None
    parent_inchikey: str | None = None
    description: str = ""
    pubchem_cid: int | None = None
    cas: str | None = None
    kind: str = "compound"  # compound | mixture | substance (no structure known)
    source: str = ""
    provenance: dict[str, Any] = Field(default_factory=dict)
    reaction_ids: list[str] = Field(
        default_factory=list, description="filled on read via the link table"
    )

    @classmethod
    def from_structure(cls, structure: Structure, **fields: Any) -> Compound:
        """A record for ``structure``: the identity fields (SMILES, InChIKey, formula, masses,
        parent) computed from it, so that every place that adds a compound fills them alike.

        Args:
            structure: the compound's structure.
            **fields: the other fields (names, source, ...); one given here overrides the
                structure's (an importer may keep the InChIKey its source gave).

        Returns:
            The record, not yet stored.
        """
        identity = {
            "smiles": structure.smiles,
            "inchikey": structure.inchikey,
            "formula": structure.formula,
            "molecular_weight": structure.molecular_weight,
            "exact_mass": structure.exact_mass,
            "parent_inchikey": structure.parent_inchikey,
        }
        return cls(**{**identity, **fields})

    @property
    def name(self) -> str:
        """The name to show a chemist: common name, else IUPAC name, else a synonym, else SMILES;
        never a CAS number (PubChem gives some compounds one as their "common name"), and with
        the case that carries meaning restored ("(2R)", "L-", "copper(II)", "N,N-")."""
        from chemground.chem.names import is_cas_number, recase_name

        for name in (self.common_name, self.iupac_name, *self.synonyms):
            if name and not is_cas_number(name):
                return recase_name(name)
        return self.smiles or self.common_name or ""

    def all_names(self) -> list[str]:
        names = [self.iupac_name, self.common_name, *self.synonyms]
        return list(dict.fromkeys(n for n in names if n))


class Participant(BaseModel):
    """A compound in a reaction, in a role, as the source wrote it."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    name: str | None = None
    smiles: str | None = None  # canonical SMILES once resolved
    compound_id: int | None = None
    inchikey: str | None = None
    amount: str | None = None  # as written ("12.5 ml", "0.1 mol")
    unresolved_reason: str | None = None

    @property
    def resolved(self) -> bool:
        return self.compound_id is not None or self.inchikey is not None

    @property
    def label(self) -> str:
        return self.name or self.smiles or "?"


# Reaction.provenance key: participants re-filed on import (kb.reaction_roles), as a list of
# {"position", "name", "smiles", "from", "to", "rule", "why"}
ROLE_CHANGES = "role_changes"


def role_changes_of(provenance: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The stored role changes of a reaction, by participant position.

    Args:
        provenance: ``Reaction.provenance``.

    Returns:
        position -> the change's dict (``kb.reaction_roles.RoleChange.to_dict``); empty if none.
    """
    changes = provenance.get(ROLE_CHANGES) if provenance else None
    if not isinstance(changes, list):
        return {}
    return {
        c["position"]: c
        for c in changes
        if isinstance(c, dict) and isinstance(c.get("position"), int)
    }


class Conditions(BaseModel):
    """Typed, unit-normalised reaction conditions."""

    model_config = ConfigDict(extra="forbid")

    temperature_c: float | None = None
    temperature_text: str | None = None  # e.g. "ambient", "reflux", "0 to 25 °C"
    time_h: float | None = None
    ph: float | None = None
    pressure_bar: float | None = None
    atmosphere: str | None = None

    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())


class Reaction(BaseModel):
    """One reaction with its participants, conditions, outcome and source text."""

    model_config = ConfigDict(extra="forbid")

    id: str
    source: str = ""  # patent number, dataset or "starter"
    dataset: str = ""
    title: str | None = None
    reaction_class: str | None = None
    description: str = ""  # the source paragraph
    reaction_smiles: str | None = None
    participants: list[Participant] = Field(default_factory=list)
    operations: list[dict[str, Any]] = Field(default_factory=list)
    conditions: Conditions = Field(default_factory=Conditions)
    yield_percent: float | None = None
    notes: str = ""
    flags: list[str] = Field(default_factory=list)  # e.g. "unresolved: <name>"
    provenance: dict[str, Any] = Field(default_factory=dict)

    def by_role(self, role: Role) -> list[Participant]:
        return [p for p in self.participants if p.role == role]

    @property
    def reactants(self) -> list[Participant]:
        return self.by_role(Role.REACTANT)

    @property
    def products(self) -> list[Participant]:
        return self.by_role(Role.PRODUCT)

    @property
    def solvents(self) -> list[Participant]:
        return self.by_role(Role.SOLVENT)

    @property
    def catalysts(self) -> list[Participant]:
        return self.by_role(Role.CATALYST)

    @property
    def reagents(self) -> list[Participant]:
        return self.by_role(Role.REAGENT)

    @property
    def unresolved(self) -> list[Participant]:
        return [p for p in self.participants if not p.resolved]
