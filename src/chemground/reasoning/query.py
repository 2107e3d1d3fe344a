"""The structured form of a question: QueryTuple(level, mentions, input format, aspect).

Every parser (rules, or an LLM with rules as fallback) produces this, and every retriever
reads it, so the two sides never depend on how the question was phrased.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from chemground.chem.mentions import Mention
from chemground.kb.records import Role


class Aspect(StrEnum):
    """What the question asks for."""

    PRODUCT = "product"
    REACTANTS = "reactants"
    SOLVENT = "solvent"
    CATALYST = "catalyst"
    REAGENT = "reagent"
    TEMPERATURE = "temperature"
    TIME = "time"
    CONDITIONS = "conditions"
    YIELD = "yield"
    MOLECULAR_WEIGHT = "molecular_weight"
    EXACT_MASS = "exact_mass"
    FORMULA = "formula"
    NAME_TO_SMILES = "name_to_smiles"
    SMILES_TO_NAME = "smiles_to_iupac"
    SYNONYMS = "synonyms"
    CAS = "cas_number"
    DESCRIPTION = "description"
    SIMILAR = "similar_compounds"
    REACTIONS = "reactions_involving"
    ROUTE = "route"
    # computed by a tool (see chemground.routing): descriptors, identifiers, stoichiometry,
    # constants
    LOGP = "logp"
    TPSA = "tpsa"
    QED = "qed"
    HBD = "h_bond_donors"
    HBA = "h_bond_acceptors"
    ROTATABLE_BONDS = "rotatable_bonds"
    RING_COUNT = "ring_count"
    HEAVY_ATOMS = "heavy_atoms"
    ATOM_COUNT = "atom_count"
    SAME_COMPOUND = "same_compound"
    STEREOCENTRES = "stereocentres"
    INCHI = "inchi"
    INCHIKEY = "inchikey"
    FUNCTIONAL_GROUPS = "functional_groups"
    LIPINSKI = "lipinski"
    AMOUNT = "amount_conversion"
    BALANCE = "balance_equation"
    BOILING_POINT = "boiling_point"
    MELTING_POINT = "melting_point"
    DENSITY = "density"
    FLASH_POINT = "flash_point"
    HAZARDS = "hazards"

    @property
    def level(self) -> str:
        return "reaction" if self in REACTION_ASPECTS else "compound"


REACTION_ASPECTS = {
    Aspect.PRODUCT,
    Aspect.REACTANTS,
    Aspect.SOLVENT,
    Aspect.CATALYST,
    Aspect.REAGENT,
    Aspect.TEMPERATURE,
    Aspect.TIME,
    Aspect.CONDITIONS,
    Aspect.YIELD,
    Aspect.REACTIONS,
    Aspect.ROUTE,
}


class QueryMention(BaseModel):
    """A mention as it appears in a QueryTuple (JSON-friendly)."""

    text: str
    start: int
    end: int
    input_format: str
    resolved: bool
    smiles: str | None = None
    inchikey: str | None = None
    compound_id: int | None = None
    resolved_by: str = ""
    matched_name: str | None = None
    correction: str | None = None
    confidence: float = 1.0
    reason: str | None = None
    role: Role | None = None  # the role the question implies for this compound
    # "logP of aminopyridine": the positional isomers a name without locants may mean (SMILES,
    # the one resolved among them); empty when the name says which, or the aspect is the same
    # for every isomer
    isomers: list[str] = Field(default_factory=list)

    @classmethod
    def from_mention(cls, mention: Mention, role: Role | None = None) -> QueryMention:
        s = mention.structure
        return cls(
            text=mention.text,
            start=mention.start,
            end=mention.end,
            input_format=mention.input_format,
            resolved=mention.resolved,
            smiles=s.smiles if s else None,
            inchikey=s.inchikey if s else None,
            compound_id=mention.compound_id,
            resolved_by=mention.resolved_by,
            matched_name=mention.matched_name,
            correction=mention.correction,
            confidence=mention.confidence,
            reason=mention.reason,
            role=role,
        )


class QueryTuple(BaseModel):
    """(level, mentions, input format, aspect) plus what the parser could not do."""

    question: str
    level: str  # compound | reaction
    aspect: Aspect | None
    mentions: list[QueryMention] = Field(default_factory=list)
    input_format: str | None = (
        None  # the format of the mentions: smiles | iupac | common_name | mixed
    )
    problems: list[str] = Field(default_factory=list)
    parser: str = "rules"
    # the exemplar classifier's decision, when no rule read the aspect (AspectDecision.to_json:
    # label, accepted, score, nearest exemplars); None when the rules decided
    aspect_classifier: dict[str, Any] | None = None
    # "which copper co-catalyst ...?": the compound word that names the kind of participant
    # asked for; not among ``mentions`` (no reaction has to hold it), it filters the answer's
    # participants (reasoning/asked_kind.py)
    asked_kind: QueryMention | None = None
    # "besides DCM, which solvent ...": compounds the answer leaves out (not matched either)
    excluded: list[QueryMention] = Field(default_factory=list)
    # "was the solvent DMF or DCM?", "did it use Pd(PPh3)4?": the choices a question offers or
    # checks for the fact it asks; not matched, the answer says whether the record has each
    # (reasoning/options.py)
    offered: list[QueryMention] = Field(default_factory=list)
    # the question as the rules read what it asks: greetings and thanks left out, misspelt
    # aspect words corrected ("bioling point of toluene at 20 mbar"); "" when not set
    asked: str = ""

    @property
    def asked_text(self) -> str:
        """What the routing rules read: ``asked`` when the parser set it, else the question."""
        return self.asked or self.question

    @property
    def resolved_mentions(self) -> list[QueryMention]:
        return [m for m in self.mentions if m.resolved]

    @property
    def unresolved_mentions(self) -> list[QueryMention]:
        """What looks like a compound but could not be resolved (with ``reason``): an answer names
        them."""
        return [m for m in self.mentions if not m.resolved]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
