"""Structure search over the KB: what a query means, checked once for every backend.

Three searches chemists expect from a compound and reaction database:

- **substructure**: compounds (or reaction participants in given roles) that contain a
  pattern, written as SMILES (a molecule: aromaticity perceived, hydrogens not constraints)
  or SMARTS (a query: ``[OX2H]``, ``[#5]``, recursive ``$()``);
- **similarity**: Tanimoto similarity of Morgan fingerprints (radius 2, 2,048 bits, as
  :mod:`chemground.chem.fingerprints`) at or above a threshold;
- **exact**: the same structure, by InChIKey (or by a SMILES, whose InChIKey is computed).

Both backends (SQLite with RDKit in the process, PostgreSQL with the RDKit cartridge) take
the same parsed query, so a query refused on one is refused on the other with the same
message, and a query that is accepted means the same thing on both. Queries are bounded
before RDKit sees them (characters, atoms, recursion), so an absurd query fails fast
with :class:`~chemground.errors.StructureLimitError` instead of stalling a server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rdkit import Chem, DataStructs

from chemground.chem.fingerprints import morgan_fingerprint
from chemground.chem.structure import check_smiles, mol_from_smiles, rdkit_messages
from chemground.errors import (
    InputLimitError,
    StructureError,
    StructureLimitError,
    control_character,
    preview,
)
from chemground.kb.records import Role

if TYPE_CHECKING:
    from chemground.kb.store import KnowledgeBase

QueryFormat = Literal["auto", "smiles", "smarts"]

MAX_QUERY_CHARS = 1_000  # a substructure pattern is a fragment, not a molecule to store
MAX_QUERY_ATOMS = 100  # matching cost grows with pattern size; no useful fragment is larger
MAX_RECURSIONS = 10  # recursive SMARTS ($(...)) multiply the matching cost
MAX_RESULTS = 10_000  # the most hits one search returns (a limit above is refused)
SEARCH_MODES = ("substructure", "similarity", "exact")
PATTERN_FP_BITS = 1024  # RDKit pattern fingerprint used to pre-screen substructure candidates
# A substructure search stops after this long: a large pattern of unspecified atoms and bonds
# ("*1" + 38 "*" + "1") matched one fused polycyclic arene for minutes (RDKit's matcher has no
# time limit of its own).
SUBSTRUCTURE_SECONDS = 10.0
# Patterns above this many atoms are matched with a deadline check inside RDKit's matcher (an
# atom-compatibility callback, 3-8x slower); smaller ones are checked between molecules.
GUARDED_QUERY_ATOMS = 16


def substructure_matcher(query: Chem.Mol, seconds: float = SUBSTRUCTURE_SECONDS):
    """A function ``matches(mol) -> bool`` for one search, that raises InputLimitError once the
    search has run ``seconds``.

    Args:
        query: the parsed pattern.
        seconds: the search's time budget.

    Returns:
        The matcher; a large pattern's matcher also stops inside one molecule's matching.
    """
    import time

    deadline = time.monotonic() + seconds
    params = None
    if query.GetNumAtoms() > GUARDED_QUERY_ATOMS:
        params = Chem.SubstructMatchParameters()
        params.maxMatches = 1
        params.setExtraAtomCheckFunc(lambda _query_atom, _atom: time.monotonic() < deadline)

    def matches(mol: Chem.Mol) -> bool:
        found = (
            mol.HasSubstructMatch(query)
            if params is None
            else bool(mol.GetSubstructMatches(query, params))
        )
        if time.monotonic() >= deadline:
            raise InputLimitError(
                f"the substructure search stopped after {seconds:g} s: a large pattern of "
                "unspecified atoms and bonds matches slowly against fused ring systems; make it "
                "smaller or more specific (element symbols, bond orders)"
            )
        return found

    return matches


_INCHIKEY = re.compile(r"^[A-Z]{14}-[A-Z]{8}[SN][A-Z]-[A-Z]$")
_RDKIT_STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\]\s*|\s*for input: '.*'$")
_RDKIT_NOISE = re.compile(r"^(?:[~^ ]+|SMARTS Parse Error: Failed parsing SMARTS .*|\S+)$")
_SMARTS_ONLY = re.compile(r"[;,!&~$]|\[#|\[\*|[DXRvxhr]\d|\*")


@dataclass(frozen=True)
class SubstructureQuery:
    """A checked substructure pattern.

    Attributes:
        text: the pattern as the user wrote it (stripped).
        is_smarts: True when it is read as SMARTS; False for a SMILES molecule.
        mol: the RDKit query molecule (used in-process on SQLite).
    """

    text: str
    is_smarts: bool
    mol: Chem.Mol

    def pattern_fingerprint(self) -> DataStructs.ExplicitBitVect:
        """The pattern fingerprint of the query: every bit set here must be set in a match."""
        return Chem.PatternFingerprint(self.mol, fpSize=PATTERN_FP_BITS)


@dataclass(frozen=True)
class SimilarityQuery:
    """A checked similarity query: a molecule, its fingerprint and the threshold."""

    smiles: str
    mol: Chem.Mol
    fingerprint: DataStructs.ExplicitBitVect
    threshold: float


@dataclass(frozen=True)
class StructureSearch:
    """A structure search whose limit, mode and roles were checked: what the public search
    methods of :class:`~chemground.kb.store.KnowledgeBase` hand to a store's engine.

    ``roles`` is None for any role (and for a compound search).
    """

    query: str
    mode: str
    threshold: float
    limit: int
    query_format: QueryFormat
    roles: tuple[Role, ...] | None = None


@dataclass(frozen=True)
class StructureMatch:
    """One compound found by a structure search.

    ``score`` is 1.0 for substructure and exact matches and the Tanimoto similarity for a
    similarity search. ``name`` is the compound's common name, else its IUPAC name.
    """

    compound_id: int
    smiles: str
    score: float
    name: str | None = None


@dataclass(frozen=True)
class ParticipantMatch:
    """A participant of a reaction whose structure matched the query."""

    compound_id: int
    role: Role
    smiles: str
    score: float


@dataclass(frozen=True)
class ReactionMatch:
    """A reaction with at least one participant (in the roles asked) matching the query.

    ``score`` is the best of its participants' scores.
    """

    reaction_id: str
    participants: tuple[ParticipantMatch, ...]
    score: float


def check_limit(limit: int) -> int:
    """The result limit, refused when it is not 1..MAX_RESULTS.

    Raises:
        InputLimitError: for a limit outside 1..MAX_RESULTS.
    """
    if not isinstance(limit, int) or limit < 1 or limit > MAX_RESULTS:
        raise InputLimitError(f"limit must be between 1 and {MAX_RESULTS:,}; got {limit!r}")
    return limit


def check_mode(mode: str) -> str:
    """The search mode, refused when it is not one of :data:`SEARCH_MODES`.

    Raises:
        ValueError: for an unknown mode.
    """
    if mode not in SEARCH_MODES:
        raise ValueError(
            f"unknown structure search mode {mode!r}; choose substructure, similarity or exact"
        )
    return mode


def check_roles(roles: object) -> tuple[Role, ...] | None:
    """Roles as a tuple of :class:`Role` (None or empty: every role).

    Raises:
        StructureError: for a role name that is not a participant role.
    """
    if not roles:
        return None
    out = []
    for role in roles:  # type: ignore[union-attr]
        try:
            out.append(role if isinstance(role, Role) else Role.parse(str(role)))
        except ValueError:
            names = ", ".join(r.value for r in Role)
            raise StructureError(
                f"unknown participant role {role!r}; choose from {names}"
            ) from None
    return tuple(dict.fromkeys(out))


def parse_substructure_query(text: str, query_format: QueryFormat = "auto") -> SubstructureQuery:
    """Check and parse a substructure pattern.

    With ``query_format="auto"`` a pattern that uses SMARTS-only syntax (``;``, ``,``, ``!``,
    ``&``, ``~``, ``$``, ``[#6]``, ``*``, ``X3``...) is read as SMARTS, any other as SMILES
    (so ``c1ccccc1`` and ``B(O)O`` are molecules, as a chemist drew them); a SMILES that
    RDKit cannot read as a molecule (``c1ccc`` is no molecule) is then tried as SMARTS.

    Args:
        text: the pattern.
        query_format: "auto", "smiles" or "smarts".

    Returns:
        The parsed query.

    Raises:
        StructureLimitError: a pattern over the length, atom or recursion limits.
        StructureError: an empty pattern, or one that is neither valid SMILES nor SMARTS.
    """
    if query_format not in ("auto", "smiles", "smarts"):
        raise StructureError(
            f"unknown query format {query_format!r}; choose auto, smiles or smarts"
        )
    text = (text or "").strip()
    if not text:
        raise StructureError("empty substructure query")
    if len(text) > MAX_QUERY_CHARS:
        raise StructureLimitError(
            f"substructure query is {len(text):,} characters; the limit is {MAX_QUERY_CHARS:,}"
        )
    bad = control_character(text)
    if bad:
        raise StructureLimitError(f"invalid substructure query {preview(text)}: it contains {bad}")
    if text.count("$(") > MAX_RECURSIONS:
        raise StructureLimitError(
            f"substructure query has more than {MAX_RECURSIONS} recursive SMARTS"
        )
    smarts_syntax = bool(_SMARTS_ONLY.search(text))
    mol, is_smarts, smiles_error = None, False, None
    if query_format == "smiles" or (query_format == "auto" and not smarts_syntax):
        try:
            check_smiles(text)
            mol = mol_from_smiles(text)
        except StructureError as error:
            if query_format == "smiles":
                raise
            smiles_error = str(error)
    if mol is None:
        with rdkit_messages() as messages:
            mol = Chem.MolFromSmarts(text)
        if mol is None:
            detail = "; ".join(
                dict.fromkeys(
                    m
                    for m in (_RDKIT_STAMP.sub("", line).strip() for line in messages)
                    if m and not _RDKIT_NOISE.match(m)
                )
            )[:300]
            raise StructureError(
                f"invalid substructure query {preview(text)}: not valid "
                + (
                    "SMARTS"
                    if query_format == "smarts" or smarts_syntax
                    else f"SMILES ({smiles_error}) nor SMARTS"
                )
                + (f" ({detail})" if detail else "")
            )
        is_smarts = True
    if mol.GetNumAtoms() == 0:
        raise StructureError(f"substructure query {preview(text)} has no atoms")
    if mol.GetNumAtoms() > MAX_QUERY_ATOMS:
        raise StructureLimitError(
            f"substructure query has {mol.GetNumAtoms():,} atoms; the limit is {MAX_QUERY_ATOMS:,}"
        )
    return SubstructureQuery(text, is_smarts, mol)


def parse_similarity_query(smiles: str, threshold: float) -> SimilarityQuery:
    """Check and parse a similarity query (a molecule as SMILES) and its threshold.

    Args:
        smiles: the query molecule.
        threshold: the least Tanimoto similarity reported, in (0, 1].

    Returns:
        The parsed query with its Morgan fingerprint.

    Raises:
        StructureLimitError: a SMILES over the structure limits.
        StructureError: an empty or invalid SMILES.
        InputLimitError: a threshold outside (0, 1].
    """
    if not isinstance(threshold, (int, float)) or not 0 < float(threshold) <= 1:
        raise InputLimitError(f"similarity threshold must be in (0, 1]; got {threshold!r}")
    smiles = (smiles or "").strip()
    if not smiles:
        raise StructureError("empty similarity query")
    check_smiles(smiles)
    mol = mol_from_smiles(smiles)
    return SimilarityQuery(smiles, mol, morgan_fingerprint(mol), float(threshold))


def query_inchikey(text: str) -> str:
    """The InChIKey an exact search looks for: ``text`` itself, or the key of a SMILES.

    Args:
        text: an InChIKey (``XXXXXXXXXXXXXX-YYYYYYYYSA-N``) or a SMILES.

    Returns:
        The InChIKey.

    Raises:
        StructureError: text that is neither a well-formed InChIKey nor a valid SMILES.
        StructureLimitError: a SMILES over the structure limits.
    """
    text = (text or "").strip()
    if not text:
        raise StructureError("empty exact-structure query")
    if _INCHIKEY.match(text.upper()):
        return text.upper()
    from chemground.chem.structure import structure_from_smiles

    check_smiles(text)
    try:
        return structure_from_smiles(text).inchikey
    except StructureError as error:
        raise StructureError(
            f"{preview(text)} is neither an InChIKey nor a valid SMILES: {error}"
        ) from None


def group_reaction_matches(
    rows: list[tuple[str, int, str, str, float]], limit: int
) -> list[ReactionMatch]:
    """Reaction matches from rows (reaction id, compound id, role, SMILES, score) in KB order.

    Rows come ordered by the reaction's position in the KB; the first ``limit`` reactions are
    kept, each with its matching participants in row order. Similarity results are then
    ordered best first (ties in KB order), as compound similarity results are.
    """
    by_reaction: dict[str, list[ParticipantMatch]] = {}
    for reaction_id, compound_id, role, smiles, score in rows:
        found = by_reaction.get(reaction_id)
        if found is None:
            if len(by_reaction) >= limit:
                continue
            found = by_reaction[reaction_id] = []
        match = ParticipantMatch(compound_id, Role(role), smiles, round(float(score), 6))
        if match not in found:
            found.append(match)
    return [
        ReactionMatch(reaction_id, tuple(parts), max(p.score for p in parts))
        for reaction_id, parts in by_reaction.items()
    ]


def match_to_dict(match: StructureMatch | ReactionMatch) -> dict:
    """A JSON-ready dict of a match (roles as their names)."""
    if isinstance(match, StructureMatch):
        return {
            "compound_id": match.compound_id,
            "smiles": match.smiles,
            "score": match.score,
            "name": match.name,
        }
    return {
        "reaction_id": match.reaction_id,
        "score": match.score,
        "participants": [
            {
                "compound_id": p.compound_id,
                "role": p.role.value,
                "smiles": p.smiles,
                "score": p.score,
            }
            for p in match.participants
        ],
    }


def search_structures(
    query: str,
    *,
    mode: str = "substructure",
    roles: Iterable[Role | str] | None = None,
    reactions: bool = False,
    threshold: float = 0.7,
    limit: int = 50,
    query_format: QueryFormat = "auto",
    kb: KnowledgeBase | None = None,
) -> list[StructureMatch] | list[ReactionMatch]:
    """Search the KB by structure: the Python API behind ``chemground search``.

    Compounds are searched unless ``roles`` is given or ``reactions`` is True; then reactions
    with a participant in those roles (any role when ``roles`` is None) are returned.

    Args:
        query: a SMILES or SMARTS pattern (substructure), a SMILES (similarity), or an InChIKey
            or SMILES (exact).
        mode: "substructure", "similarity" or "exact".
        roles: participant roles to search ("reactant", "product", "solvent", "catalyst",
            "reagent"); implies a reaction search.
        reactions: search reactions (all roles) even without ``roles``.
        threshold: the least Tanimoto similarity (similarity only).
        limit: the most results, 1..10,000.
        query_format: "auto", "smiles" or "smarts" (substructure only).
        kb: the knowledge base to search; default: the configured one, opened read-only.

    Returns:
        :class:`StructureMatch` list (compounds) or :class:`ReactionMatch` list (reactions).

    Raises:
        StructureError / StructureLimitError: an invalid or oversized query.
        InputLimitError: a bad threshold or limit.
    """
    if kb is None:
        from chemground.workspace import Workspace

        with Workspace(readonly=True) as ws:
            return search_structures(
                query,
                mode=mode,
                roles=roles,
                reactions=reactions,
                threshold=threshold,
                limit=limit,
                query_format=query_format,
                kb=ws.kb,
            )
    if roles or reactions:
        return kb.search_reactions_by_structure(
            query,
            mode=mode,
            roles=roles,
            threshold=threshold,
            limit=limit,
            query_format=query_format,
        )
    return kb.search_compounds_by_structure(
        query, mode=mode, threshold=threshold, limit=limit, query_format=query_format
    )
