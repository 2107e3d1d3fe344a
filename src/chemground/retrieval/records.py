"""KB records as evidence payloads and as text.

The evidence payload is what an answer shows and what an LLM reasoner reads; the text form
is what BM25 and dense retrievers index (the "text RAG" baseline over the same records).
"""

from __future__ import annotations

from typing import Any

from chemground.kb.records import Compound, Reaction, Role, role_changes_of

MAX_SYNONYMS = 15
MAX_DESCRIPTION = 1200


def _participants(
    reaction: Reaction, role: Role, changes: dict[int, dict[str, Any]]
) -> list[dict[str, Any]]:
    out = []
    for position, p in enumerate(reaction.participants):
        if p.role != role:
            continue
        row = {"name": p.name, "smiles": p.smiles, "compound_id": p.compound_id, "amount": p.amount}
        change = changes.get(position)
        if change and change.get("smiles") == p.smiles:  # re-filed on import: say so, and why
            row["filed_by_source_as"] = change.get("from")
            row["role_rule"] = change.get("rule")
            row["role_note"] = change.get("why")
        out.append(row)
    return out


def reaction_record(reaction: Reaction) -> dict[str, Any]:
    """A reaction as an evidence payload: participants by role, conditions, outcome, source.

    A participant re-filed on import (:mod:`chemground.kb.reaction_roles`) carries
    ``filed_by_source_as`` (the role the source gave it), ``role_rule`` and ``role_note``.

    Args:
        reaction: the KB record.

    Returns:
        A JSON-ready dict.
    """
    changes = role_changes_of(reaction.provenance)
    c = reaction.conditions
    description = reaction.description
    if len(description) > MAX_DESCRIPTION:
        description = description[:MAX_DESCRIPTION] + " …"
    return {
        "id": reaction.id,
        "source": reaction.source,
        "dataset": reaction.dataset,
        "title": reaction.title,
        "reaction_class": reaction.reaction_class,
        "reactants": _participants(reaction, Role.REACTANT, changes),
        "products": _participants(reaction, Role.PRODUCT, changes),
        "solvents": _participants(reaction, Role.SOLVENT, changes),
        "catalysts": _participants(reaction, Role.CATALYST, changes),
        "reagents": _participants(reaction, Role.REAGENT, changes),
        "temperature_c": c.temperature_c,
        "temperature_text": c.temperature_text,
        "time_h": c.time_h,
        "ph": c.ph,
        "pressure_bar": c.pressure_bar,
        "atmosphere": c.atmosphere,
        "yield_percent": reaction.yield_percent,
        "reaction_smiles": reaction.reaction_smiles,
        "description": description,
        "notes": reaction.notes,
        "flags": reaction.flags,
    }


def compound_record(compound: Compound) -> dict[str, Any]:
    return {
        "id": compound.id,
        "name": compound.name,
        "iupac_name": compound.iupac_name,
        "common_name": compound.common_name,
        "synonyms": compound.synonyms[:MAX_SYNONYMS],
        "smiles": compound.smiles,
        "inchikey": compound.inchikey,
        "formula": compound.formula,
        "molecular_weight": compound.molecular_weight,
        "exact_mass": compound.exact_mass,
        "description": compound.description,
        "pubchem_cid": compound.pubchem_cid,
        "cas": compound.cas,
        "kind": compound.kind,
        "source": compound.source,
    }


def _names(reaction: Reaction, role: Role) -> str:
    return ", ".join(f"{p.name or ''} {p.smiles or ''}".strip() for p in reaction.by_role(role))


def reaction_text(reaction: Reaction) -> str:
    """One reaction as text: participants by role (names and SMILES), conditions, source
    paragraph."""
    c = reaction.conditions
    parts = [
        f"reactants: {_names(reaction, Role.REACTANT)}",
        f"products: {_names(reaction, Role.PRODUCT)}",
        f"solvents: {_names(reaction, Role.SOLVENT)}",
        f"catalysts: {_names(reaction, Role.CATALYST)}",
        f"reagents: {_names(reaction, Role.REAGENT)}",
    ]
    if c.temperature_c is not None or c.temperature_text:
        parts.append(
            f"temperature: {c.temperature_c if c.temperature_c is not None else ''} "
            f"{c.temperature_text or ''}"
        )
    if c.time_h is not None:
        parts.append(f"time: {c.time_h} h")
    if reaction.yield_percent is not None:
        parts.append(f"yield: {reaction.yield_percent}%")
    if reaction.reaction_class:
        parts.append(f"class: {reaction.reaction_class}")
    parts.append(reaction.description)
    return "; ".join(parts)


def compound_text(compound: Compound) -> str:
    """One compound as text: names, SMILES, formula, weight, description."""
    names = "; ".join(compound.all_names()[:MAX_SYNONYMS])
    weight = f"{compound.molecular_weight:.2f}" if compound.molecular_weight else ""
    return (
        f"{names}; SMILES {compound.smiles or ''}; formula {compound.formula or ''}; "
        f"molecular weight {weight}; {compound.description}"
    )
