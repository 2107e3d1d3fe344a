"""Entity linking for Text2Cypher: the question's compounds, resolved by chemground, anchor the
query, not the model's guesses.

A small model invents anchors: ``{smiles: 'CCO'}`` for aspirin, a formula or a name in a
``smiles`` property (issue 20). Before the model writes anything, the compounds of the question
are resolved with our resolver (name, SMILES, CAS -> structure) and given to it with their
graph keys, as the KG-LLM paper gives entities as parameters. After it writes, every literal
that anchors a molecule (``smiles``, ``name``, ``key``, ``inchikey``, ``formula``,
``iupac_name``) is checked against those compounds:

- an anchor that names one of them is rewritten to ``key: '<InChIKey>'`` (exact, whatever the
  spelling or the SMILES form the model chose);
- an anchor that names none of them is replaced by the one compound of the question no anchor
  names yet, when exactly one is left; otherwise it is left as written and reported;
- a query none of whose molecule anchors is a compound of the question is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from chemground.chem.names import normalize_name
from chemground.chem.structure import try_structure_from_smiles
from chemground.graph.lexer import Token, code_tokens, quote_string

# Properties only a Molecule has: a literal compared with one anchors a molecule.
MOLECULE_ANCHORS = frozenset({"smiles", "name", "key", "inchikey", "formula", "iupac_name"})


@dataclass(frozen=True)
class LinkedCompound:
    """A compound of the question as chemground resolved it."""

    text: str  # as written in the question
    name: str  # the KB's name for it
    smiles: str
    inchikey: str
    role: str | None = None  # the role the question gives it (reactant, product...), if any

    def names(self) -> set[str]:
        return {normalize_name(self.text), normalize_name(self.name)}


@dataclass
class LinkingResult:
    query: str
    rewritten: list[str]  # "smiles 'CCO' -> key 'BSYN...' (aspirin)"
    unknown: list[str]  # anchors naming no compound of the question, left as written
    refused: str | None = None  # why the query was refused, if it was


def compounds_of(query) -> list[LinkedCompound]:
    """The resolved compounds of a parsed question (a ``QueryTuple``), for linking."""
    return [
        LinkedCompound(
            m.text, m.matched_name or m.text, m.smiles, m.inchikey, m.role.value if m.role else None
        )
        for m in query.resolved_mentions
        if m.smiles and m.inchikey
    ]


def prompt_lines(compounds: list[LinkedCompound]) -> str:
    """The block of the generation prompt that lists the question's compounds."""
    if not compounds:
        return ""
    lines = [
        "Compounds in the question, resolved by chemground (anchor Molecule nodes on these keys, "
        "e.g. (m:Molecule {key: '...'}), never on a SMILES or name you write yourself):"
    ]
    lines += [
        f"- {c.text}: key '{c.inchikey}', smiles '{c.smiles}'"
        + (f" (the question's {c.role}: anchor it in that role)" if c.role else "")
        for c in compounds
    ]
    return "\n".join(lines) + "\n\n"


def _anchor_sites(tokens: list[Token]) -> list[tuple[int, int]]:
    """(property token index, literal token index) of each molecule anchor: inline
    ``{prop: 'x'}`` and ``var.prop = 'x'`` / ``'x' = var.prop``."""
    sites = []
    for i, token in enumerate(tokens):
        if token.kind not in ("ident", "quoted") or token.value.lower() not in MOLECULE_ANCHORS:
            continue
        if (
            i + 2 < len(tokens)
            and tokens[i + 1].text in (":", "=")
            and tokens[i + 2].kind == "string"
        ):
            sites.append((i, i + 2))  # {prop: 'x'} or var.prop = 'x'
            continue
        if (  # 'x' = var.prop
            i >= 4
            and tokens[i - 1].text == "."
            and tokens[i - 3].text == "="
            and tokens[i - 4].kind == "string"
        ):
            sites.append((i, i - 4))
    return sites


def _match(value: str, compounds: list[LinkedCompound]) -> LinkedCompound | None:
    text = value.strip()
    for compound in compounds:
        if text in (compound.inchikey, compound.smiles) or normalize_name(text) in compound.names():
            return compound
    structure = try_structure_from_smiles(text)
    if structure is not None:
        for compound in compounds:
            if structure.inchikey == compound.inchikey:
                return compound
    return None


def link_anchors(query: str, compounds: list[LinkedCompound]) -> LinkingResult:
    """``query`` with its molecule anchors tied to the question's compounds (module docstring).

    Args:
        query: the Cypher the model wrote.
        compounds: the question's resolved compounds; with none, the query is returned as is.

    Returns:
        The rewritten query, what was rewritten, the anchors left unknown and, when no anchor
        is a compound of the question, why the query is refused.
    """
    if not compounds:
        return LinkingResult(query, [], [])
    try:
        tokens = code_tokens(query)
    except Exception:  # an unreadable query: the engine reports it in its own words
        return LinkingResult(query, [], [])
    sites = _anchor_sites(tokens)
    if not sites:
        return LinkingResult(query, [], [])
    matched = {i: _match(tokens[lit].value, compounds) for i, (_, lit) in enumerate(sites)}
    used = {c.inchikey for c in matched.values() if c is not None}
    left = [c for c in compounds if c.inchikey not in used]
    unmatched = [i for i, c in matched.items() if c is None]
    if len(unmatched) == 1 and len(left) == 1:
        matched[unmatched[0]] = left[0]  # the one anchor left is the one compound left
        unmatched = []
    if unmatched and len(unmatched) == len(sites):
        shown = ", ".join(repr(tokens[sites[i][1]].value) for i in unmatched)
        return LinkingResult(
            query,
            [],
            [],
            refused=f"the query anchors on {shown}, none of the question's compounds "
            f"({', '.join(c.text for c in compounds)})",
        )
    edits: list[tuple[int, int, str]] = []
    rewritten, unknown = [], []
    for i, (prop, lit) in enumerate(sites):
        compound = matched[i]
        before = f"{tokens[prop].value} {tokens[lit].text}"
        if compound is None:
            unknown.append(before)
            continue
        if tokens[prop].value == "key" and tokens[lit].value == compound.inchikey:
            continue
        edits.append((tokens[prop].start, tokens[prop].end, "key"))
        edits.append((tokens[lit].start, tokens[lit].end, quote_string(compound.inchikey)))
        rewritten.append(f"{before} -> key '{compound.inchikey}' ({compound.text})")
    for start, end, text in sorted(edits, reverse=True):
        query = query[:start] + text + query[end:]
    return LinkingResult(query, rewritten, unknown)
