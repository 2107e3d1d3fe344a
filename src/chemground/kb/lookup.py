"""Looking up one compound by anything a user may type, for ``chemground compound``.

Resolution decides the structure; the KB record (if any) adds names, ids, description and
the reactions the compound takes part in. A structure the KB does not hold (a systematic
name OPSIN parsed, a new SMILES) still gets a record computed from the structure, marked
as such, so a name and a SMILES of the same compound always show the same identity.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.names import NameResolver, Resolution
from chemground.kb.records import Compound
from chemground.kb.store import KnowledgeBase


@dataclass
class CompoundReport:
    """What ``chemground compound`` shows for one query: how it resolved and the compound's
    record (the KB's, or one computed from the structure), with its reactions counted."""

    query: str
    resolution: Resolution
    compound: Compound
    in_kb: bool
    reaction_count: int = 0
    reaction_roles: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        c = self.compound
        return {
            "query": self.query,
            "resolved_by": self.resolution.source,
            "input_format": self.resolution.input_format,
            "matched_name": self.resolution.matched_name,
            "in_knowledge_base": self.in_kb,
            "id": c.id,
            "name": c.name,
            "iupac_name": c.iupac_name,
            "common_name": c.common_name,
            "synonyms": c.synonyms,
            "smiles": c.smiles,
            "inchikey": c.inchikey,
            "inchi": c.inchi,
            "formula": c.formula,
            "molecular_weight": round(c.molecular_weight, 3)
            if c.molecular_weight is not None
            else None,
            "exact_mass": round(c.exact_mass, 5) if c.exact_mass is not None else None,
            "kind": c.kind,
            "description": c.description,
            "pubchem_cid": c.pubchem_cid,
            "cas": c.cas,
            "reaction_count": self.reaction_count,
            "reaction_roles": self.reaction_roles,
            "reaction_ids": c.reaction_ids,
            "provenance": c.provenance,
            "notes": self.resolution.notes,
        }


def lookup_compound(
    kb: KnowledgeBase, resolver: NameResolver, query: str, max_reactions: int = 20
) -> CompoundReport:
    """Resolve ``query`` and report the KB record (or a record computed from the structure).

    Resolution is the resolver's (the shared name chain for names); this adds only the record.

    Args:
        kb: the knowledge base holding the records.
        resolver: the resolver that turns the query into a structure.
        query: a name, SMILES, InChI, InChIKey or CAS number.
        max_reactions: at most this many reaction ids on the record.

    Returns:
        The report; ``in_kb`` says whether the record is the KB's.

    Raises:
        ChemgroundError: the query resolves to nothing (the resolver's error, which says why).
    """
    resolution = resolver.resolve(query)
    if resolution.compound_id is not None:
        compound = kb.get_compound(resolution.compound_id, with_reactions=max_reactions)
        links = kb.reaction_links([resolution.compound_id])
        roles = Counter(link.role.value for link in links)
        count = len({link.reaction_id for link in links})
        return CompoundReport(query, resolution, compound, True, count, dict(roles))
    s = resolution.structure
    assert s is not None  # a resolution without a compound always has a structure
    compound = Compound.from_structure(
        s,
        iupac_name=query if resolution.source == "opsin" else None,
        source=f"computed from the structure ({resolution.source})",
    )
    return CompoundReport(query, resolution, compound, False)
