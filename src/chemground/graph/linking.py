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

import re
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


# -- compounds as query parameters ---------------------------------------------------------
# A small model copies a 27-character InChIKey or a long SMILES slowly and not always right, and
# reads a question full of SMILES badly. With linking, each compound of the question becomes a
# parameter ($c1, $c2 ... in the order the question names them): the model sees the question with
# the parameters in place of the compounds and anchors on them, ``(m:Molecule {key: $c1})``; the
# parameters are bound to the compounds' keys before the query is checked and run.
PARAM_PREFIX = "c"


def _mention(text: str) -> re.Pattern:
    """``text`` as a whole mention: not inside a longer SMILES or word."""
    return re.compile(r"(?<![^\s(\"'`])" + re.escape(text) + r"(?![^\s?,;:!.)\"'`])")


def in_question_order(question: str, compounds: list[LinkedCompound]) -> list[LinkedCompound]:
    """The compounds in the order the question names them (one per key), unplaced ones last."""
    unique = list({c.inchikey: c for c in reversed(compounds)}.values())[::-1]

    def position(compound: LinkedCompound) -> int:
        found = _mention(compound.text).search(question)
        return found.start() if found else len(question)

    return sorted(unique, key=position)


def parameters(compounds: list[LinkedCompound]) -> dict[str, str]:
    """``{"c1": key, ...}``: the parameter of each compound (in the order given)."""
    return {f"{PARAM_PREFIX}{i}": c.inchikey for i, c in enumerate(compounds, start=1)}


def parameterize_question(question: str, compounds: list[LinkedCompound]) -> str:
    """The question with each compound's mention replaced by its parameter (``$c1``...)."""
    names = list(parameters(compounds))
    for name, compound in sorted(
        zip(names, compounds, strict=True), key=lambda pair: -len(pair[1].text)
    ):
        question = _mention(compound.text).sub(f"${name}", question)
    return question


def parameter_lines(compounds: list[LinkedCompound]) -> str:
    """The block of the generation prompt that lists the parameters."""
    if not compounds:
        return ""
    lines = [
        "Parameters: the question's compounds, resolved by chemground. Anchor each on its "
        "parameter, e.g. (m:Molecule {key: $c1}); never write a SMILES or name yourself:"
    ]
    for name, compound in zip(parameters(compounds), compounds, strict=True):
        known = f" ({compound.name})" if compound.name and compound.name != compound.text else ""
        lines.append(f"- ${name} = {compound.smiles}{known}")
    return "\n".join(lines) + "\n\n"


def bind_parameters(query: str, values: dict[str, str]) -> tuple[str, list[str]]:
    """``query`` with each ``$name`` of ``values`` replaced by its quoted value, and the
    parameters it uses that ``values`` lacks."""
    try:
        tokens = code_tokens(query)
    except Exception:  # unreadable: the engine reports it
        return query, []
    unknown, edits = [], []
    for token in tokens:
        if token.kind != "param":
            continue
        name = token.text[1:]
        if name in values:
            edits.append((token.start, token.end, quote_string(values[name])))
        elif token.text not in unknown:
            unknown.append(token.text)
    for start, end, text in sorted(edits, reverse=True):
        query = query[:start] + text + query[end:]
    return query, unknown


def unbind_parameters(query: str, values: dict[str, str]) -> str:
    """The inverse of ``bind_parameters``: each literal equal to a parameter's value becomes
    ``$name`` again (the query as the model wrote it, for the reviewer and corrections)."""
    by_value = {value: name for name, value in values.items()}
    try:
        tokens = code_tokens(query)
    except Exception:
        return query
    edits = [
        (t.start, t.end, f"${by_value[t.value]}")
        for t in tokens
        if t.kind == "string" and t.value in by_value
    ]
    for start, end, text in sorted(edits, reverse=True):
        query = query[:start] + text + query[end:]
    return query


def anchoring_problems(query: str, compounds: list[LinkedCompound]) -> list[str]:
    """What is wrong with where ``query`` (parameters bound, anchors linked) puts the question's
    compounds, in words for the model, with the compounds named by their parameters:

    - a compound of the question the query never anchors;
    - one compound anchored on two molecules of one chain two or more steps apart (the start
      and the end of a route: a route never returns to its start, so no row can come back);
    - one variable anchored on two different compounds (no molecule is both).
    """
    from chemground.graph.patterns import analyse

    if not compounds:
        return []
    try:
        patterns = analyse(query)
    except Exception:
        return []
    names = {c.inchikey: f"${n}" for n, c in zip(parameters(compounds), compounds, strict=True)}
    keys_of: dict[str, set[str]] = {}
    vars_of: dict[str, set[str]] = {}
    for var, prop, literal in patterns.anchors:
        if prop in MOLECULE_ANCHORS and literal in names:
            keys_of.setdefault(var, set()).add(literal)
            vars_of.setdefault(literal, set()).add(var)
    literals = {t.value for t in patterns.tokens if t.kind == "string"}
    problems = [  # `r.main_product = $c2` uses $c2 too
        f"{names[key]} is not used: anchor it where the question puts it"
        for key in names
        if key not in literals
    ]
    edges: dict[str, set[str]] = {}
    for rel in patterns.rels:
        a, b = rel.left.var, rel.right.var
        edges.setdefault(a, set()).add(b)
        edges.setdefault(b, set()).add(a)
    for key, variables in vars_of.items():
        ordered = sorted(variables)
        for i, first in enumerate(ordered):
            for second in ordered[i + 1 :]:
                if _distance(edges, first, second) >= 4:
                    problems.append(
                        f"{names[key]} is anchored on both {_shown(first)} and {_shown(second)}, "
                        "two ends of one chain: the question names it once, so anchor it only "
                        "where the question puts it and leave the other end open"
                    )
    for var, keys in keys_of.items():
        if len(keys) > 1:
            shown = " and ".join(sorted(names[k] for k in keys))
            problems.append(
                f"{_shown(var)} is anchored on both {shown}: give each compound its own node"
            )
    return problems


def _shown(var: str) -> str:
    return "an unnamed node" if var.startswith("#anon") else var


def _distance(edges: dict[str, set[str]], start: str, goal: str) -> int:
    """Hops between two variables along the query's patterns (-1 when not connected)."""
    seen, frontier, hops = {start}, [start], 0
    while frontier:
        if goal in frontier:
            return hops
        hops += 1
        frontier = [n for v in frontier for n in edges.get(v, ()) if n not in seen]
        seen.update(frontier)
    return -1


def _ends(patterns, var: str) -> set[str]:
    """Where a molecule variable sits in the query's chains: "start" (the source of
    REACTANT_OF) and/or "end" (the target of PRODUCES)."""
    ends = set()
    for rel in patterns.rels:
        if rel.source is not None and rel.source.var == var and "REACTANT_OF" in rel.types:
            ends.add("start")
        if rel.target is not None and rel.target.var == var and "PRODUCES" in rel.types:
            ends.add("end")
    return ends


def repair_doubled_anchors(
    query: str, compounds: list[LinkedCompound], example: str | None
) -> tuple[str, list[str]]:
    """Drop the anchor of a compound the query ties to both the start and the end of one chain
    (a route that returns to its start: no row can ever come back), keeping the end where the
    one-shot example (``example``, with parameters) anchors the same parameter.

    The small model copies the example's chain but writes ``{key: $c1}`` on both ends of it
    ("How can $c1 be made in two steps?"), and asked to fix it, writes the same query again.
    The example was chosen for its likeness to the question, so where it anchors $c1 (the
    target of its last step, or the source of its first) is where this question's $c1 goes.

    Returns:
        The query with the other anchors removed, and what was removed; the query unchanged and
        no removals when the example gives no end to keep or an anchor is not an inline
        ``{key: '...'}`` map.
    """
    from chemground.graph.patterns import analyse

    if not compounds or not example:
        return query, []
    params = parameters(compounds)
    try:
        patterns = analyse(query)
        shown, _ = bind_parameters(example, params)
        example_patterns = analyse(shown)
    except Exception:
        return query, []
    edits, removed = [], []
    for name, key in params.items():
        variables = sorted(
            {v for v, prop, lit in patterns.anchors if prop in MOLECULE_ANCHORS and lit == key}
        )
        if len(variables) < 2:
            continue
        ends = {v: _ends(patterns, v) for v in variables}
        if not any("start" in e for e in ends.values()) or not any(
            "end" in e for e in ends.values()
        ):
            continue
        wanted = set().union(
            *(
                _ends(example_patterns, v)
                for v, prop, lit in example_patterns.anchors
                if prop in MOLECULE_ANCHORS and lit == key
            )
        )
        if len(wanted) != 1:
            continue
        drop = [v for v, e in ends.items() if not e & wanted]
        if not drop or len(drop) == len(variables):
            continue
        for node in patterns.nodes:
            if node.var not in drop or node.props.get("key") != key or len(node.props) != 1:
                continue
            tokens = patterns.tokens
            opening = next(
                (i for i in range(node.open_index, node.close_index) if tokens[i].text == "{"),
                None,
            )
            closing = next(
                (i for i in range(node.close_index, node.open_index, -1) if tokens[i].text == "}"),
                None,
            )
            if opening is None or closing is None:
                return query, []
            start = tokens[opening].start
            while start > 0 and query[start - 1] == " ":
                start -= 1
            edits.append((start, tokens[closing].end))
            removed.append(f"${name} on {_shown(node.var)}")
    if not edits:
        return query, []
    for start, end in sorted(set(edits), reverse=True):
        query = query[:start] + query[end:]
    return query, removed


def move_anchors_as_example(
    query: str, compounds: list[LinkedCompound], example: str | None
) -> tuple[str, list[str]]:
    """For a query that returned nothing: move a compound anchored only at one end of a step
    (the source of REACTANT_OF, or the target of PRODUCES) to the other end when the one-shot
    example anchors the same parameter there and the query has exactly one open molecule
    node at that end.

    The real model, shown "precursors of $c1" anchored on the product, wrote
    ``(m:Molecule {key: $c1})-[:REACTANT_OF]->(rxn)-[:PRODUCES]->(:Molecule)`` for "the
    starting materials of every reaction that yields $c1": the word "starting materials" won
    over the example. Only the example's reading is tried, and only after the query's own
    reading came back empty.
    """
    from chemground.graph.patterns import analyse

    if not compounds or not example:
        return query, []
    params = parameters(compounds)
    try:
        patterns = analyse(query)
        example_patterns = analyse(bind_parameters(example, params)[0])
    except Exception:
        return query, []
    anchored = {lit for _, prop, lit in patterns.anchors if prop in MOLECULE_ANCHORS}
    edits: list[tuple[int, int, str]] = []
    moved = []
    for name, key in params.items():
        nodes = [n for n in patterns.nodes if n.props.get("key") == key]
        wanted = set().union(
            *(
                _ends(example_patterns, v)
                for v, prop, lit in example_patterns.anchors
                if prop in MOLECULE_ANCHORS and lit == key
            )
        )
        if len(nodes) != 1 or len(nodes[0].props) != 1 or len(wanted) != 1:
            continue
        node = nodes[0]
        if _ends(patterns, node.var) & wanted or not _ends(patterns, node.var):
            continue
        open_nodes = [
            n
            for n in patterns.nodes
            if not n.props
            and "Molecule" in patterns.labels_of(n)
            and _ends(patterns, n.var) == wanted
            and not ({v for v, _, lit in patterns.anchors if lit in anchored} & {n.var})
        ]
        if len({n.var for n in open_nodes}) != 1 or len(open_nodes) != 1:
            continue
        target = open_nodes[0]
        tokens = patterns.tokens
        opening = next(i for i in range(node.open_index, node.close_index) if tokens[i].text == "{")
        closing = next(
            i for i in range(node.close_index, node.open_index, -1) if tokens[i].text == "}"
        )
        start = tokens[opening].start
        while start > 0 and query[start - 1] == " ":
            start -= 1
        edits.append((start, tokens[closing].end, ""))
        close = tokens[target.close_index].start
        edits.append((close, close, f" {{key: {quote_string(key)}}}"))
        moved.append(f"${name} from {_shown(node.var)} to {_shown(target.var)}")
    for start, end, text in sorted(edits, reverse=True):
        query = query[:start] + text + query[end:]
    return query, moved
