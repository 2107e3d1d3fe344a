"""Refusing Cypher that would write or administer, before any engine sees it.

Generated queries come from an LLM that reads user text, so a question can smuggle in a
``DETACH DELETE``. The check works on tokens (see ``lexer``): keywords inside string
literals, comments, `` `quoted names` ``, property names (``n.set``), labels (``:Copy``) or map
keys (``{delete: 1}``) are data, not clauses. Procedure calls are refused unless the
procedure is known to be read-only, and only one statement is allowed. The engines add a
second wall: LadybugDB is opened read-only and Neo4j queries run in READ transactions.
"""

from __future__ import annotations

from chemground.errors import ChemgroundError
from chemground.graph.lexer import CypherSyntaxError, Token, code_tokens

# Clauses that change data, schema, files, extensions or transactions: refused wherever they stand.
WRITE_OR_ADMIN = frozenset(
    {
        "CREATE",
        "MERGE",
        "SET",
        "DELETE",
        "DETACH",
        "REMOVE",
        "DROP",
        "LOAD",
        "COPY",
        "ALTER",
        "INSTALL",
        "UNINSTALL",
        "IMPORT",
        "EXPORT",
        "ATTACH",
        "USE",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "CHECKPOINT",
        "FOREACH",
        "TRUNCATE",
    }
)
# Administration commands: only clauses when they open a statement (elsewhere they are ordinary
# names, e.g. ``RETURN s AS start``).
ADMIN_LEADING = frozenset(
    {
        "START",
        "STOP",
        "ENABLE",
        "DISABLE",
        "RENAME",
        "SHOW",
        "TERMINATE",
        "GRANT",
        "REVOKE",
        "DENY",
        "COMMENT",
        "UPDATE",
        "ANALYZE",
    }
)
# Tokens after which an expression (and so a variable, never a clause) is expected.
_EXPRESSION_AFTER_PUNCT = frozenset(
    {"(", "[", ",", "=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "^", "=~", "+="}
)
_EXPRESSION_AFTER_WORD = frozenset(
    {
        "RETURN",
        "WITH",
        "WHERE",
        "AND",
        "OR",
        "XOR",
        "NOT",
        "IN",
        "DISTINCT",
        "BY",
        "WHEN",
        "THEN",
        "ELSE",
        "CASE",
        "UNWIND",
        "SKIP",
        "LIMIT",
        "CONTAINS",
    }
)

# Procedures that only read (LadybugDB table functions and Neo4j schema procedures).
READ_ONLY_PROCEDURES = frozenset(
    {
        "show_tables",
        "table_info",
        "show_connection",
        "db_version",
        "current_setting",
        "show_functions",
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.schema.visualization",
        "db.schema.nodetypeproperties",
        "db.schema.reltypeproperties",
    }
)


class ReadOnlyViolation(ChemgroundError):
    """A graph query that would write or administer the database; it was not run."""

    def __init__(self, message: str, clause: str) -> None:
        super().__init__(message)
        self.clause = clause


def _is_name_position(tokens: list[Token], i: int) -> bool:
    """True when tokens[i] is a property name, label, relationship type or map key."""
    prev = tokens[i - 1].text if i > 0 else ""
    nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
    if prev in (".", ":", "|") or prev.upper() == "AS":
        return True
    return nxt == ":" and prev in ("{", ",")


def _declares_variable(tokens: list[Token], i: int) -> bool:
    """True when tokens[i] names a new variable: ``... AS x`` or the start of a pattern
    ``(x:Label)``, ``[x]``."""
    prev = tokens[i - 1].text if i > 0 else ""
    if prev.upper() == "AS":
        return True
    nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return prev in ("(", "[") and nxt in (":", ")", "]", "{", "*")


def _is_variable_use(tokens: list[Token], i: int, declared: set[str]) -> bool:
    """True when tokens[i] is a variable the query declared earlier, standing where an expression
    goes."""
    if tokens[i].upper not in declared:
        return False
    prev = tokens[i - 1] if i > 0 else None
    if prev is None:
        return False
    if prev.kind == "punct":
        return prev.text in _EXPRESSION_AFTER_PUNCT
    return prev.kind == "ident" and prev.upper in _EXPRESSION_AFTER_WORD


def _procedure_name(tokens: list[Token], i: int) -> str:
    parts = []
    while i < len(tokens) and tokens[i].kind in ("ident", "quoted"):
        parts.append(tokens[i].value)
        if i + 1 < len(tokens) and tokens[i + 1].text == ".":
            i += 2
            continue
        break
    return ".".join(parts)


def read_only_problem(query: str) -> tuple[str, str] | None:
    """(clause, reason) of the first write/admin construct in ``query``, or None when it only
    reads."""
    try:
        tokens = code_tokens(query)
    except CypherSyntaxError as error:
        return "syntax", f"the query cannot be read: {error}"
    if not tokens:
        return "empty", "the query is empty"
    declared: set[str] = set()
    for i, token in enumerate(tokens):
        if token.text == ";" and any(t.text != ";" for t in tokens[i + 1 :]):
            return ";", "more than one statement (only one read-only query is allowed)"
        if token.kind == "quoted" and _declares_variable(tokens, i):
            declared.add(token.value.upper())
        if token.kind != "ident" or _is_name_position(tokens, i):
            if token.kind == "ident" and _declares_variable(tokens, i):
                declared.add(token.upper)
            continue
        word = token.upper
        after = tokens[i + 1].upper if i + 1 < len(tokens) else ""
        if word in WRITE_OR_ADMIN or word in ADMIN_LEADING or word == "CALL":
            if _declares_variable(tokens, i):
                declared.add(word)
                continue
            if _is_variable_use(tokens, i, declared):
                continue
        elif _declares_variable(tokens, i):
            declared.add(word)
        start = i - 1 if i >= 1 and tokens[i - 1].upper in ("EXPLAIN", "PROFILE") else i
        leading = start == 0 or tokens[start - 1].text == ";"
        if (
            word in WRITE_OR_ADMIN
            or (word in ADMIN_LEADING and leading)
            or (word == "COMMENT" and after == "ON")
        ):
            clause = (
                f"{word} {after}"
                if word in ("LOAD", "DETACH", "COPY", "COMMENT") and after
                else word
            )
            return clause, f"it contains the write/admin clause {clause} (at offset {token.start})"
        if word == "CALL":
            if i + 1 < len(tokens) and tokens[i + 1].text == "{":
                continue  # a subquery; its own clauses are checked like the rest
            name = _procedure_name(tokens, i + 1)
            if name.lower() not in READ_ONLY_PROCEDURES:
                return (
                    f"CALL {name or '?'}",
                    f"it calls the procedure {name or '?'!r}, which is not known to be read-only",
                )
    return None


def ensure_read_only(query: str) -> None:
    """Raise ReadOnlyViolation (with a message a user understands) unless ``query`` only reads."""
    problem = read_only_problem(query)
    if problem is not None:
        clause, reason = problem
        raise ReadOnlyViolation(
            f"refused to run this graph query: {reason}. Graph queries are read-only; nothing was "
            "executed.",
            clause,
        )
