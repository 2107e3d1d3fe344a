"""What a Cypher query's patterns say: node labels, edges with their direction, anchored values.

Used for two things that must not depend on an LLM:

- the **directionality corrector**: in this graph every edge runs with the synthesis flow
  (inputs -> Reaction -> products). An edge written the other way round, e.g.
  ``(r:Reaction)-[:REACTANT_OF]->(m:Molecule)``, is not an error to the engine; it silently
  matches nothing. ``fix_direction`` finds such edges from the labels of their end nodes and
  flips the arrow, keeping the rest of the text as written;
- the **error taxonomy** of the benchmark (which molecule a query anchors, and where).

It reads patterns from tokens (``lexer``), so literals and comments never confuse it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chemground.graph.lexer import Token, code_tokens
from chemground.graph.schema import REL_BY_TYPE

_BEFORE_NODE = {
    "MATCH",
    "MERGE",
    "CREATE",
    "OPTIONAL",
    "EXISTS",
    "(",
    ",",
    "-",
    ">",
    "=",
    "{",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "XOR",
    "WITH",
    "RETURN",
}


@dataclass
class NodePattern:
    var: str | None
    labels: list[str]
    props: dict[str, str]  # inline {prop: 'literal'}
    open_index: int  # token index of '('
    close_index: int  # token index of ')'


@dataclass
class RelPattern:
    var: str | None
    types: list[str]
    variable_length: bool
    left: NodePattern
    right: NodePattern
    direction: str  # "right" (-->), "left" (<--) or "none" (--)
    start_token: int  # first token of the arrow ('<' or '-')
    end_token: int  # last token of the arrow ('>' or '-')
    bracket: tuple[int, int] | None  # token indexes of '[' and ']'

    @property
    def source(self) -> NodePattern | None:
        return {"right": self.left, "left": self.right}.get(self.direction)

    @property
    def target(self) -> NodePattern | None:
        return {"right": self.right, "left": self.left}.get(self.direction)


@dataclass
class QueryPatterns:
    tokens: list[Token]
    nodes: list[NodePattern] = field(default_factory=list)
    rels: list[RelPattern] = field(default_factory=list)
    var_labels: dict[str, set[str]] = field(default_factory=dict)
    anchors: list[tuple[str, str, str]] = field(default_factory=list)  # (var, property, literal)

    def labels_of(self, node: NodePattern) -> set[str]:
        labels = set(node.labels)
        if node.var and node.var in self.var_labels:
            labels |= self.var_labels[node.var]
        return labels


def _match_close(tokens: list[Token], i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].text == open_ and tokens[j].kind == "punct":
            depth += 1
        elif tokens[j].text == close and tokens[j].kind == "punct":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _parse_map(tokens: list[Token], i: int, end: int) -> dict[str, str]:
    """{key: 'literal', ...} between token i ('{') and end ('}'): string/number literals only."""
    props: dict[str, str] = {}
    j = i + 1
    while j + 2 <= end:
        if (
            tokens[j].kind in ("ident", "quoted")
            and tokens[j + 1].text == ":"
            and tokens[j + 2].kind in ("string", "number")
        ):
            props[tokens[j].value] = tokens[j + 2].value
            j += 3
        else:
            j += 1
    return props


def _parse_node(tokens: list[Token], i: int) -> NodePattern | None:
    """A node pattern starting at tokens[i] == '(' or None when it is an expression in
    parentheses."""
    if tokens[i].text != "(" or tokens[i].kind != "punct":
        return None
    if i > 0:
        prev = tokens[i - 1]
        if prev.kind in ("ident", "quoted") and prev.upper not in _BEFORE_NODE:
            return None  # a function call such as count(x)
    close = _match_close(tokens, i, "(", ")")
    if close < 0:
        return None
    j = i + 1
    var = None
    if (
        j < close
        and tokens[j].kind in ("ident", "quoted")
        and tokens[j + 1].text in (":", ")", "{")
    ):
        var = tokens[j].value
        j += 1
    labels: list[str] = []
    while (
        j < close
        and tokens[j].text in (":", "|", "&")
        and tokens[j + 1].kind in ("ident", "quoted")
    ):
        labels.append(tokens[j + 1].value)
        j += 2
    props: dict[str, str] = {}
    if j < close and tokens[j].text == "{":
        map_end = _match_close(tokens, j, "{", "}")
        if map_end < 0:
            return None
        props = _parse_map(tokens, j, map_end)
        j = map_end + 1
    if j < close and tokens[j].upper == "WHERE":
        j = close
    if j != close:
        return None
    # anonymous nodes get a name no query can use, so their anchors still attach to them
    return NodePattern(var or f"#anon{i}", labels, props, i, close)


def _parse_rel(tokens: list[Token], i: int) -> tuple[dict, int] | None:
    """An arrow starting at tokens[i] (just after a node's ')'); returns (parts, index of next
    '(')."""
    j = i
    left_arrow = False
    if j < len(tokens) and tokens[j].text == "<":
        left_arrow = True
        j += 1
    if j >= len(tokens) or tokens[j].text != "-":
        return None
    j += 1
    var, types, varlen, bracket = None, [], False, None
    if j < len(tokens) and tokens[j].text == "[":
        close = _match_close(tokens, j, "[", "]")
        if close < 0:
            return None
        bracket = (j, close)
        k = j + 1
        if k < close and tokens[k].kind in ("ident", "quoted"):
            var = tokens[k].value
            k += 1
        while k < close and tokens[k].text in (":", "|") and k + 1 < close:
            if tokens[k + 1].text == ":":
                k += 1
                continue
            if tokens[k + 1].kind in ("ident", "quoted"):
                types.append(tokens[k + 1].value)
                k += 2
                continue
            break
        varlen = any(t.text == "*" for t in tokens[k:close])
        j = close + 1
        if j >= len(tokens) or tokens[j].text != "-":
            return None
        j += 1
    elif j < len(tokens) and tokens[j].text == "-":
        j += 1
    else:
        return None
    right_arrow = j < len(tokens) and tokens[j].text == ">"
    end = j if right_arrow else j - 1
    if right_arrow:
        j += 1
    if j >= len(tokens) or tokens[j].text != "(":
        return None
    if left_arrow and right_arrow:
        direction = "none"
    else:
        direction = "left" if left_arrow else "right" if right_arrow else "none"
    return {
        "var": var,
        "types": types,
        "varlen": varlen,
        "direction": direction,
        "start": i,
        "end": end,
        "bracket": bracket,
    }, j


def _where_anchors(tokens: list[Token]) -> list[tuple[str, str, str]]:
    """var.prop = 'x', 'x' = var.prop and var.prop IN ['x', ...] comparisons."""
    anchors = []
    for i in range(len(tokens) - 2):
        if (
            tokens[i].kind in ("ident", "quoted")
            and tokens[i + 1].text == "."
            and tokens[i + 2].kind in ("ident", "quoted")
        ):
            var, prop = tokens[i].value, tokens[i + 2].value
            k = i + 3
            if (
                k + 1 < len(tokens)
                and tokens[k].text == "="
                and tokens[k + 1].kind in ("string", "number")
            ):
                anchors.append((var, prop, tokens[k + 1].value))
            elif k + 1 < len(tokens) and tokens[k].upper == "IN" and tokens[k + 1].text == "[":
                end = _match_close(tokens, k + 1, "[", "]")
                anchors.extend(
                    (var, prop, t.value)
                    for t in tokens[k + 2 : end]
                    if t.kind in ("string", "number")
                )
            if i >= 2 and tokens[i - 1].text == "=" and tokens[i - 2].kind in ("string", "number"):
                anchors.append((var, prop, tokens[i - 2].value))
    return anchors


def analyse(query: str) -> QueryPatterns:
    """Every node and relationship pattern of ``query`` (tokenising raises on unreadable text)."""
    tokens = code_tokens(query)
    result = QueryPatterns(tokens)
    i = 0
    while i < len(tokens):
        node = _parse_node(tokens, i)
        if node is None:
            i += 1
            continue
        result.nodes.append(node)
        j = node.close_index + 1
        while True:
            parsed = _parse_rel(tokens, j)
            if parsed is None:
                break
            parts, next_open = parsed
            right = _parse_node(tokens, next_open)
            if right is None:
                break
            result.nodes.append(right)
            result.rels.append(
                RelPattern(
                    parts["var"],
                    parts["types"],
                    parts["varlen"],
                    node,
                    right,
                    parts["direction"],
                    parts["start"],
                    parts["end"],
                    parts["bracket"],
                )
            )
            node = right
            j = right.close_index + 1
        i = node.close_index + 1
    for node in result.nodes:
        if node.var and node.labels:
            result.var_labels.setdefault(node.var, set()).update(node.labels)
        for prop, value in node.props.items():
            if node.var:
                result.anchors.append((node.var, prop, value))
    # labels given in WHERE clauses: `WHERE m:Molecule`
    for i in range(len(tokens) - 2):
        if (
            tokens[i].kind == "ident"
            and tokens[i + 1].text == ":"
            and tokens[i + 2].kind in ("ident", "quoted")
            and i > 0
            and tokens[i - 1].upper in ("WHERE", "AND", "OR", "NOT")
        ):
            result.var_labels.setdefault(tokens[i].value, set()).add(tokens[i + 2].value)
    result.anchors.extend(_where_anchors(tokens))
    return result


@dataclass(frozen=True)
class DirectionIssue:
    rel_type: str
    written: str  # the edge as written, e.g. "(r:Reaction)-[:REACTANT_OF]->(m:Molecule)"
    expected: str  # e.g. "(:Molecule)-[:REACTANT_OF]->(:Reaction)"

    def describe(self) -> str:
        return f"{self.written} runs against the synthesis flow; the schema has {self.expected}"


def _endpoint_ok(labels: set[str], expected: str) -> bool | None:
    """True/False when the labels decide whether this end fits, None when they do not say."""
    if not labels:
        return None
    return expected in labels


def _fixed_types(types: list[str]) -> tuple[str, str] | None:
    """(source label, target label) shared by all ``types``, or None when they differ or are
    unknown."""
    ends = {(REL_BY_TYPE[t].source, REL_BY_TYPE[t].target) for t in types if t in REL_BY_TYPE}
    if not types or len(ends) != 1 or any(t not in REL_BY_TYPE for t in types):
        return None
    return next(iter(ends))


def _rel_text(query: str, patterns: QueryPatterns, rel: RelPattern) -> str:
    tokens = patterns.tokens
    return query[tokens[rel.left.open_index].start : tokens[rel.right.close_index].end]


def direction_issues(
    query: str, patterns: QueryPatterns | None = None
) -> list[tuple[RelPattern, DirectionIssue]]:
    """Directed edges whose end-node labels show they were written against the schema's
    direction."""
    patterns = patterns or analyse(query)
    issues = []
    for rel in patterns.rels:
        if rel.direction == "none":
            continue
        ends = _fixed_types(rel.types)
        if ends is None:
            continue
        source_label, target_label = ends
        source, target = rel.source, rel.target
        assert source is not None and target is not None
        verdicts = [
            _endpoint_ok(patterns.labels_of(source), source_label),
            _endpoint_ok(patterns.labels_of(target), target_label),
        ]
        flipped = [
            _endpoint_ok(patterns.labels_of(target), source_label),
            _endpoint_ok(patterns.labels_of(source), target_label),
        ]
        wrong = False in verdicts and True not in verdicts and False not in flipped
        if wrong:
            expected = f"(:{source_label})-[:{'|'.join(rel.types)}]->(:{target_label})"
            issues.append(
                (
                    rel,
                    DirectionIssue("|".join(rel.types), _rel_text(query, patterns, rel), expected),
                )
            )
    return issues


def fix_direction(query: str) -> tuple[str, list[DirectionIssue]]:
    """``query`` with every edge that runs against the synthesis flow flipped, and what was
    flipped."""
    patterns = analyse(query)
    found = direction_issues(query, patterns)
    if not found:
        return query, []
    tokens = patterns.tokens
    edits: list[tuple[int, int, str]] = []
    for rel, _ in found:
        start = tokens[rel.start_token].start
        end = tokens[rel.end_token].end
        if rel.bracket is not None:
            inner = query[tokens[rel.bracket[0]].start : tokens[rel.bracket[1]].end]
        else:
            inner = ""
        new = f"-{inner}->" if rel.direction == "left" else f"<-{inner}-"
        edits.append((start, end, new))
    fixed = query
    for start, end, new in sorted(edits, reverse=True):
        fixed = fixed[:start] + new + fixed[end:]
    return fixed, [issue for _, issue in found]
