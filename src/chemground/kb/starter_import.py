"""Loading the curated starter reactions into a KB, through the same import engine as files."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

from chemground.kb.importers.base import ImportSummary, RawParticipant, RawReaction, run_import
from chemground.kb.records import Conditions, Role
from chemground.kb.starter import STARTER_RESOURCE, StarterClass, StarterReaction, load_starter_set
from chemground.kb.store import KnowledgeBase

STARTER_DATASET = "starter"


def _names(compounds) -> str:
    return " + ".join(c.name for c in compounds)


def describe(reaction: StarterReaction, reaction_class: StarterClass) -> str:
    """A one-paragraph description, so text retrieval finds starter reactions too."""
    conditions = []
    if reaction.catalysts:
        conditions.append("catalyst " + ", ".join(c.name for c in reaction.catalysts))
    if reaction.reagents:
        conditions.append("reagents " + ", ".join(c.name for c in reaction.reagents))
    if reaction.solvents:
        conditions.append("in " + ", ".join(c.name for c in reaction.solvents))
    if reaction.temperature_c is not None:
        conditions.append(f"{reaction.temperature_c:g} °C")
    if reaction.time_h is not None:
        conditions.append(f"{reaction.time_h:g} h")
    text = f"{reaction_class.name}: {_names(reaction.reactants)} -> {_names(reaction.products)}"
    if conditions:
        text += " (" + "; ".join(conditions) + ")"
    if reaction.yield_percent is not None:
        text += f", typical yield {reaction.yield_percent:g}%"
    return text + ". " + reaction.note


def raw_starter_reactions() -> Iterator[RawReaction]:
    classes, reactions = load_starter_set()
    for reaction in reactions:
        reaction_class = classes[reaction.reaction_class]
        participants = []
        for role, group in (
            (Role.REACTANT, reaction.reactants),
            (Role.REAGENT, reaction.reagents),
            (Role.CATALYST, reaction.catalysts),
            (Role.SOLVENT, reaction.solvents),
            (Role.PRODUCT, reaction.products),
        ):
            participants += [RawParticipant(role, name=c.name, smiles=c.smiles) for c in group]
        reactants = ".".join(c.smiles for c in reaction.reactants)
        agents = ".".join(
            c.smiles for c in (*reaction.reagents, *reaction.catalysts, *reaction.solvents)
        )
        products = ".".join(c.smiles for c in reaction.products)
        yield RawReaction(
            participants=participants,
            id=f"starter:{reaction.id}",
            source="chemground starter set",
            dataset=STARTER_DATASET,
            title=f"{reaction_class.name}: {reaction.products[0].name}",
            reaction_class=reaction_class.name,
            description=describe(reaction, reaction_class),
            reaction_smiles=f"{reactants}>{agents}>{products}",
            conditions=Conditions(temperature_c=reaction.temperature_c, time_h=reaction.time_h),
            yield_percent=reaction.yield_percent,
            notes=reaction.note,
            provenance={
                "class_id": reaction_class.id,
                "template": reaction_class.template,
                "curated": "written by the chemground developers; conditions typical for the class",
            },
        )


def import_starter_set(kb: KnowledgeBase, resolver=None) -> ImportSummary:
    """Add the starter reactions (idempotent: their ids are fixed)."""
    from chemground.chem.names import NameResolver

    with resources.as_file(resources.files("chemground.kb.data") / STARTER_RESOURCE) as path:
        summary = run_import(
            kb,
            raw_starter_reactions(),
            path=path,
            fmt="starter",
            resolver=resolver or NameResolver(kb, opsin=None),
        )
    kb.set_meta("starter_reactions", str(summary.reactions_added + summary.reactions_unchanged))
    return summary
