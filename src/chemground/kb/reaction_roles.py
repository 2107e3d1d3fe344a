"""Reactants that are really reagents: re-filing participants by atom maps or a curated list.

Patent reaction data (Lowe's text-mined USPTO reactions, and the ORD datasets built from
them) files everything put into the flask as a reactant: the acid, the base, the water, the
drying salt. "Reactants of X" then lists HCl, and a route search may start from DIPEA. Two
rules re-file such participants when a reaction is imported; both only ever move a
*reactant* to an agent role, never the other way, and never touch roles a source states
role by role (our CSV/JSONL schema, the curated starter set, LLM extraction from text).

1. ``atom-map``: a reaction SMILES with atom maps says which atoms end up in a product. A
   reactant-side molecule none of whose map numbers appears in a product contributes no atom
   to any product: it is an agent. An unmapped molecule in a mapped reaction counts as
   contributing nothing (the mapper maps every atom it can place in a product).
2. ``reagent-list``: for reactions without maps (and for participants the map cannot be tied
   to, or doubts: see ``_doubts``), a curated list (``data/reagents.tsv``: acids, bases,
   salts, water, hydride reducing agents, coupling reagents) plus the common solvents of
   :mod:`chemground.chem.solvents`, matched by InChIKey or canonical SMILES, with a check that
   no product needs the compound's atoms.

A re-filed participant takes the role the reaction-SMILES importer gives the agents part of
a reaction SMILES (:func:`chemground.chem.solvents.agent_role`): a common solvent is a
solvent, a transition-metal compound a catalyst, anything else a reagent. So the same
reaction gets the same roles whichever file it came from. Every change is returned as a
:class:`RoleChange` and stored in the reaction's provenance (``role_changes``), so evidence
can say that a role was re-filed and by which rule.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from chemground.agent.jsonsafe import fields_json, json_name
from chemground.chem.solvents import COMMON_SOLVENTS, agent_role
from chemground.chem.structure import MAX_SMILES_CHARS, structure_from_smiles
from chemground.errors import ChemgroundError
from chemground.kb.descriptions import read_data_tsv
from chemground.kb.records import Participant, Role

RULE_ATOM_MAP = "atom-map"
RULE_REAGENT_LIST = "reagent-list"
RULES = (RULE_ATOM_MAP, RULE_REAGENT_LIST)
REAGENTS_RESOURCE = "reagents.tsv"

Elements = tuple[tuple[str, int], ...]  # sorted (element symbol, count) of heavy atoms
GIVES, GIVES_DOUBTFULLY, NO_ATOM = "gives", "gives-doubtfully", "no-atom"  # AtomMaps.fate


# --- the curated list -----------------------------------------------------------------------


@dataclass(frozen=True)
class ListedReagent:
    """One row of ``data/reagents.tsv`` (or a common solvent), with its identifiers."""

    kind: str
    name: str
    smiles: str
    inchikey: str
    canonical_smiles: str


@lru_cache(maxsize=1)
def listed_reagents() -> tuple[ListedReagent, ...]:
    """The curated reagent list and the common solvents, with InChIKeys computed by RDKit.

    Returns:
        One entry per row of ``data/reagents.tsv`` and per common solvent, in that order.

    Raises:
        ValueError: a row of the file is malformed or its SMILES does not parse.
    """
    rows = [
        *read_data_tsv(REAGENTS_RESOURCE, ("kind", "name", "SMILES")),
        *(("solvent", name, smiles) for name, smiles in COMMON_SOLVENTS.items()),
    ]
    out = []
    for kind, name, smiles in rows:
        try:
            structure = structure_from_smiles(smiles)
        except ChemgroundError as error:
            raise ValueError(f"{REAGENTS_RESOURCE}: {name}: {error}") from None
        out.append(ListedReagent(kind, name, smiles, structure.inchikey, structure.smiles))
    return tuple(out)


@lru_cache(maxsize=2)
def _listed_keys(with_solvents: bool) -> frozenset[str]:
    return frozenset(
        key
        for e in listed_reagents()
        if with_solvents or e.kind != "solvent"
        for key in (e.inchikey, e.canonical_smiles)
    )


def is_listed_reagent(
    inchikey: str | None, smiles: str | None = None, *, solvents: bool = True
) -> bool:
    """Whether a compound is on the curated reagent list (or is a common solvent).

    Args:
        inchikey: the compound's InChIKey, as the KB stores it.
        smiles: its canonical SMILES (RDKit), matched when the InChIKey is not.
        solvents: count the common solvents as listed (False: ``data/reagents.tsv`` only).

    Returns:
        True when either identifier names a listed compound.
    """
    keys = _listed_keys(solvents)
    return bool((inchikey and inchikey in keys) or (smiles and smiles in keys))


# --- atom maps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MappedFragment:
    """A reactant-side molecule of a mapped reaction SMILES (a CXSMILES ``f:`` group is one)."""

    smiles: str  # as written, atom maps kept
    elements: Elements
    contributes: bool  # one of its map numbers appears in a product
    agent: bool  # written in the agents part (reactants>AGENTS>products)
    placed: int = 0  # its atoms that the map places in a product
    doubtful: bool = False  # the map may have given its atoms to another molecule, or theirs to it


@dataclass(frozen=True)
class AtomMaps:
    """What the atom maps of one reaction SMILES say about its reactant-side molecules."""

    fragments: tuple[MappedFragment, ...]

    def fate(self, elements: Elements) -> str | None:
        """What the map says of the reactant-side molecule with these heavy-atom counts.

        Args:
            elements: a participant's heavy-atom counts (:func:`smiles_elements`).

        Returns:
            ``GIVES`` (it contributes atoms to a product), ``GIVES_DOUBTFULLY`` (a piece of at
            most ``SMALL_CONTRIBUTION`` atoms that another molecule may have given), ``NO_ATOM``
            (none of its atoms is in a product), or None: no fragment has these counts,
            fragments with them fare differently (isomers), or the map may have taken the
            atoms it placed elsewhere from this one.
        """
        found = {
            (GIVES_DOUBTFULLY if f.contributes else None)
            if f.doubtful
            else (GIVES if f.contributes else NO_ATOM)
            for f in self.fragments
            if f.elements == elements
        }
        return found.pop() if len(found) == 1 else None


# SMILES tokens. Element symbols and atom classes (map numbers) are lexical in SMILES, so they
# are read from the text: RDKit's atoms cost about 2.5 microseconds each from Python, and
# reading a patent reaction (~80 atoms) and its participants through them made the whole
# import 40 % slower. The tests check these readings against RDKit's on real patent reactions.
_BRACKET_SYMBOL = re.compile(r"\[\d*([A-Z][a-z]?|[a-z]{1,2}|\*)")  # [13CH3:1] [nH] [Na+] [se]
_BRACKET = re.compile(r"\[[^\[\]]*\]")  # no "[" inside: linear time on any text
_ORGANIC = re.compile(r"Cl|Br|[BCNOPSFIbcnops*]")  # atoms outside brackets
_MAP_NUMBER = re.compile(r":(\d+)\]")  # the atom class closes a bracket atom
_MAPPED_ATOM = re.compile(r"\[\d*([A-Z][a-z]?|[a-z]{1,2}|\*)[^\[\]:]*:(\d+)\]")
_NOT_HEAVY = frozenset({"H", "*"})


@lru_cache(maxsize=1 << 14)
def _elements(smiles: str) -> Elements:
    raw = Counter(_BRACKET_SYMBOL.findall(smiles))
    raw.update(_ORGANIC.findall(_BRACKET.sub("", smiles)))
    counts: Counter = Counter()
    for symbol, count in raw.items():
        element = symbol.capitalize()  # aromatic "c", "[se]"
        if element not in _NOT_HEAVY:
            counts[element] += count
    return tuple(sorted(counts.items()))


def smiles_elements(smiles: str) -> Elements | None:
    """Heavy-atom counts (element symbol, count) of a SMILES, however aromaticity, hydrogens
    and charges are drawn.

    Args:
        smiles: a SMILES (atom maps and CXSMILES extensions allowed).

    Returns:
        Sorted (symbol, count) pairs, without hydrogen (empty for H2); None for an empty
        string or one over the SMILES size limit.
    """
    if not smiles or len(smiles) > MAX_SMILES_CHARS:
        return None
    return _elements(smiles.split(" ", 1)[0])


def _heavy_mapped(smiles: str) -> list[tuple[str, str]]:
    """(element, map number) of each mapped heavy atom."""
    return [
        (symbol.capitalize(), number)
        for symbol, number in _MAPPED_ATOM.findall(smiles)
        if symbol.capitalize() not in _NOT_HEAVY
    ]


MAX_REACTION_CHARS = 4 * MAX_SMILES_CHARS


def atom_maps(reaction_smiles: str | None) -> AtomMaps | None:
    """Read the atom maps of a reaction SMILES (``reactants>agents>products``, CXSMILES allowed).

    A molecule is a '.'-separated fragment, or a CXSMILES ``f:`` group of them (a salt's
    ions). Only element symbols and map numbers are read (see the note above ``_elements``).

    Args:
        reaction_smiles: the reaction SMILES as the source wrote it, maps kept.

    Returns:
        The reactant-side molecules with whether each contributes a mapped atom to a product;
        None when the reaction is not mapped (no product atom carries a map number that a
        reactant-side atom carries too), when its maps are incomplete (a product atom without
        a map number: it may come from any molecule) or contradict themselves (one map number
        in two products), or when it is not a reaction SMILES or is over the size limit.
    """
    if not reaction_smiles or ":" not in reaction_smiles:
        return None
    from chemground.kb.importers.reaction_smiles import split_reaction_smiles

    if len(reaction_smiles) > MAX_REACTION_CHARS:
        return None
    try:
        reactants, agents, products = split_reaction_smiles(reaction_smiles, keep_maps=True)
    except ValueError:
        return None
    product_maps: set[str] = set()
    for smiles in products:
        numbers = _MAP_NUMBER.findall(smiles)
        if sum(count for _, count in _elements(smiles)) > len(_heavy_mapped(smiles)):
            return None  # an unmapped product atom: the map is incomplete
        if product_maps.intersection(numbers):
            # one reactant atom placed in two products: the mapper went wrong (it mapped the
            # epoxide of propylene + peracid onto the peracid, and left propylene unmapped)
            return None
        product_maps.update(numbers)
    fragments = []
    for group, agent in ((reactants, False), (agents, True)):
        for smiles in group:
            placed = product_maps.intersection(_MAP_NUMBER.findall(smiles)) if ":" in smiles else ()
            fragments.append(
                MappedFragment(
                    smiles=smiles,
                    elements=_elements(smiles),
                    contributes=bool(placed),
                    agent=agent,
                    placed=len(placed),
                )
            )
    if not any(f.contributes for f in fragments):
        return None  # maps that tie nothing to a product say nothing
    return AtomMaps(tuple(_doubts(fragments, product_maps)))


SMALL_CONTRIBUTION = 2  # heavy atoms: a methyl, a CH2, a cyanide


def _doubts(fragments: list[MappedFragment], product_maps: set[str]) -> list[MappedFragment]:
    """Mark the fragments whose fate the map may have got wrong.

    The mapper places a one- or two-atom piece (the methyl of a methylation, the CH2 of a
    formaldehyde condensation) on whichever molecule offers a matching atom: in the patent
    data it takes the methyl of methyl iodide from potassium carbonate or potassium
    tert-butoxide, and the CH2 of formaldehyde from carbon dioxide, and leaves the real source
    unmapped. So when a molecule gives a product at most ``SMALL_CONTRIBUTION`` heavy atoms and
    a non-contributing molecule has an element of those atoms, both are doubtful: the
    non-contributing one is judged by the curated list instead of the map, and so is the
    giving one when it is a listed reagent (the base); any other giver stays a reactant.
    """
    doubtful: set[int] = set()
    for i, fragment in enumerate(fragments):
        if not fragment.contributes or fragment.placed > SMALL_CONTRIBUTION:
            continue
        placed = {e for e, number in _heavy_mapped(fragment.smiles) if number in product_maps}
        rivals = {
            j
            for j, other in enumerate(fragments)
            if not other.contributes and placed & {e for e, _ in other.elements}
        }
        if rivals:
            doubtful |= {i, *rivals}
    return [
        MappedFragment(f.smiles, f.elements, f.contributes, f.agent, f.placed, True)
        if i in doubtful
        else f
        for i, f in enumerate(fragments)
    ]


# --- re-filing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoleChange:
    """One participant moved from one role to another on import, and why."""

    position: int  # index in Reaction.participants
    name: str | None
    smiles: str | None
    old: Role = field(metadata=json_name("from"))
    new: Role = field(metadata=json_name("to"))
    rule: str  # RULE_ATOM_MAP | RULE_REAGENT_LIST
    reason: str = field(metadata=json_name("why"))

    def to_dict(self) -> dict[str, Any]:
        """The change as stored in ``Reaction.provenance["role_changes"]`` (``ROLE_CHANGES``).

        The fields by ``fields_json`` (the keys ``from``, ``to`` and ``why`` are declared on the
        fields); kept by name because the importer, the provenance reader's docs and the tests
        call it.

        Returns:
            A JSON-ready dict: position, name, smiles, from, to, rule, why.
        """
        return fields_json(self)


def reassign_roles(
    participants: list[Participant],
    mapped_smiles: str | AtomMaps | None = None,
    *,
    reagent_list: bool = True,
) -> tuple[list[Participant], list[RoleChange]]:
    """Re-file reactants that contribute no atom to a product (see the module docstring).

    The rules are conservative, because a real reactant filed as a reagent is worse than a
    reagent left among reactants (a route that cannot be found, a "reactants of" answer that
    misses the substrate):

    - Only resolved participants filed as reactants are considered.
    - ``atom-map`` applies to a participant whose heavy-atom composition matches exactly one
      kind of reactant-side molecule in the mapped SMILES. A match that is ambiguous (isomers
      with different fates) or absent (a name the mapper never saw) falls to the list rule.
      It does not apply to a reaction whose maps are incomplete (a product atom without a
      map number may come from any molecule) or contradictory (see :func:`atom_maps`), nor to
      a doubtful one-or-two-atom piece (see ``_doubts``): the list rule decides those.
    - ``reagent-list`` demotes a listed compound only when the reaction has a product with a
      structure, every product has one, and no product holds more atoms of one of the
      compound's elements than the reactants that stay reactants hold together: without maps,
      HCl is a reagent for an amide coupling but a reactant when a hydrochloride or an alkyl
      chloride is made; methanol is a solvent unless the product gained carbon (a methyl
      ester). Hydrogen is not counted, so the list holds no oxidants and no alkylating agents.
    - Neither rule leaves a reaction without a reactant: a reaction all of whose reactants would
      go keeps them all (an acid-base neutralisation, or a mapped reactant the source filed as a
      solvent).

    Args:
        participants: the reaction's participants, linked (canonical SMILES and InChIKey set).
        mapped_smiles: the source's reaction SMILES with atom maps (or what :func:`atom_maps`
            read from it), or None.
        reagent_list: whether the curated list applies (sources that file reagents among
            reactants: patent text mining). Without it only the atom-map rule runs.

    Returns:
        (participants with the new roles, the changes made), in participant order; the input
        list is not modified.
    """
    reactants = [
        i for i, p in enumerate(participants) if p.role is Role.REACTANT and p.smiles and p.resolved
    ]
    if not reactants:
        return participants, []
    maps = mapped_smiles if isinstance(mapped_smiles, AtomMaps) else atom_maps(mapped_smiles)
    counts = [smiles_elements(p.smiles) if p.smiles else None for p in participants]
    moves: dict[int, tuple[str, str]] = {}  # position -> (rule, reason)
    undecided = []
    for i in reactants:
        p = participants[i]
        fate = None
        if maps is not None and counts[i] is not None:
            fate = maps.fate(counts[i])
        if fate == NO_ATOM:
            moves[i] = (RULE_ATOM_MAP, "contributes no mapped atom to a product")
        elif fate is None or (
            fate == GIVES_DOUBTFULLY and is_listed_reagent(p.inchikey, p.smiles, solvents=False)
        ):
            undecided.append(i)  # a base said to give a methyl is judged as a listed reagent
    if reagent_list:
        kept = set(reactants) - set(moves)
        moves.update(_by_reagent_list(participants, counts, undecided, kept))
    if not moves or sum(p.role is Role.REACTANT for p in participants) == len(moves):
        return participants, []  # nothing to move, or it would leave no reactant at all
    out = list(participants)
    changes = []
    for i, (rule, reason) in sorted(moves.items()):
        p = participants[i]
        new_role = _agent_role(p.smiles or "")
        out[i] = p.model_copy(update={"role": new_role})
        changes.append(RoleChange(i, p.name, p.smiles, Role.REACTANT, new_role, rule, reason))
    return out, changes


@lru_cache(maxsize=4096)
def _agent_role(smiles: str) -> Role:
    return agent_role(smiles)  # the same few reagents, re-filed thousands of times


def _by_reagent_list(
    participants: list[Participant],
    counts: list[Elements | None],
    candidates: list[int],
    kept: set[int],
) -> dict[int, tuple[str, str]]:
    """The listed candidates whose atoms no product needs (see :func:`reassign_roles`)."""
    listed = [
        i for i in candidates if is_listed_reagent(participants[i].inchikey, participants[i].smiles)
    ]
    if not listed:
        return {}
    product_elements = [counts[i] for i, p in enumerate(participants) if p.role is Role.PRODUCT]
    if not product_elements or any(e is None for e in product_elements):
        return {}  # no product to compare with, or one whose atoms are unknown
    stay = kept - set(listed)
    supply: Counter = Counter()
    for i in stay:
        supply.update(dict(counts[i] or ()))
    need: Counter = Counter()
    for elements in product_elements:
        for element, count in elements or ():
            need[element] = max(need[element], count)
    moves = {}
    for i in listed:
        if not any(need[element] > supply[element] for element, _ in counts[i] or ()):
            moves[i] = (
                RULE_REAGENT_LIST,
                "a listed reagent, and no product needs its atoms from it",
            )
    return moves
