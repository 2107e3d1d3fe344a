"""Whether two names or structures are the same compound: "is paracetamol the same as
acetaminophen?", "is CCO ethanol?", "are ibuprofen and naproxen the same drug?".

Answered from the structures the question's mentions resolve to, compared by InChIKey: the
same key is the same compound; the same first block (connectivity) with another second block
is the same skeleton with other stereochemistry or isotopes; a shared parent after removing
counter-ions is a salt of the other. Nothing is looked up beyond the two structures.
"""

from __future__ import annotations

from chemground.evidence import Evidence
from chemground.reasoning.query import QueryMention, QueryTuple


def identity_answer(query: QueryTuple, evidence: list[Evidence]):
    """A ``Reasoned`` saying whether the question's two compounds are one.

    Args:
        query: the parsed question (aspect ``same_compound``).
        evidence: the retrieved compound records, cited when they are the two compounds.

    Returns:
        ``answered`` with value True or False when both compounds resolved; ``not_understood``
        naming what could not be resolved otherwise.
    """
    from chemground.reasoning.extractive import Reasoned

    resolved = [m for m in query.mentions if m.resolved and m.inchikey]
    unresolved = [m for m in query.mentions if not m.resolved]
    if len(resolved) != 2 or unresolved:
        named = ", ".join(repr(m.text) for m in unresolved)
        why = (
            f"I could not resolve {named} to a structure"
            if unresolved
            else f"the question names {len(resolved)} compound(s), not two"
        )
        return Reasoned(
            f"I cannot compare them: {why}; name both compounds (name, SMILES, CAS or InChI).",
            None,
            "not_understood",
        )
    first, second = resolved
    keys = {m.inchikey for m in resolved}
    cite = [
        e.citation() for e in evidence if e.kind == "compound" and e.record.get("inchikey") in keys
    ]
    a, b = _shown(first), _shown(second)
    if first.inchikey == second.inchikey:
        return Reasoned(
            f"Yes: {a} and {b} are the same compound (InChIKey {first.inchikey}).",
            True,
            "answered",
            cite,
        )
    if first.inchikey[:14] == second.inchikey[:14]:
        return Reasoned(
            f"Not exactly: {a} and {b} have the same skeleton (connectivity "
            f"{first.inchikey[:14]}) but differ in stereochemistry, isotopes or charge "
            f"({first.inchikey} against {second.inchikey}).",
            False,
            "answered",
            cite,
        )
    parent_a, parent_b = _parent_skeleton(first.smiles), _parent_skeleton(second.smiles)
    if parent_a and parent_a == parent_b:
        return Reasoned(
            f"Not the same compound: {a} and {b} are forms of one parent (one is a salt, "
            f"solvate or charged form of the other; {first.inchikey} against "
            f"{second.inchikey}).",
            False,
            "answered",
            cite,
        )
    return Reasoned(
        f"No: {a} ({first.smiles}) and {b} ({second.smiles}) are different compounds.",
        False,
        "answered",
        cite,
    )


def _shown(mention: QueryMention) -> str:
    text = mention.text.strip()
    if mention.matched_name and mention.matched_name.lower() != text.lower():
        return f"{text} ({mention.matched_name})"
    return text


def _parent_skeleton(smiles: str | None) -> str | None:
    """The skeleton of the parent compound (largest fragment, neutralised; the parent the KB
    and retrieval use, ``Structure.parent_inchikey``), or None."""
    from chemground.chem.structure import try_structure_from_smiles

    structure = try_structure_from_smiles(smiles or "")
    return structure.parent_inchikey[:14] if structure is not None else None
