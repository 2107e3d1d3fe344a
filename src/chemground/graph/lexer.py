"""A Cypher lexer: strings, comments, quoted names and code told apart exactly.

The read-only guard, the directionality corrector, the anchor analysis and the text
metrics all need the tokens of a query *outside* string literals and comments (a keyword
inside ``'...'`` is data, ``n.delete`` is a property). Pygments' highlighter is not precise
about escapes, so this is a small exact lexer following the openCypher lexical rules:
strings in single or double quotes with backslash escapes, `` `quoted names` `` with
doubled backticks, ``//`` and ``/* */`` comments, ``$parameters``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chemground.errors import ChemgroundError


class CypherSyntaxError(ChemgroundError):
    """Text that cannot even be tokenised as Cypher (e.g. an unterminated string)."""


@dataclass(frozen=True)
class Token:
    kind: str  # ident | quoted | string | number | param | punct | comment | space
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def upper(self) -> str:
        return self.text.upper()

    @property
    def value(self) -> str:
        """A string literal's content (escapes resolved) or a quoted name without backticks."""
        if self.kind == "string":
            return _unescape(self.text[1:-1])
        if self.kind == "quoted":
            return self.text[1:-1].replace("``", "`")
        return self.text


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "'": "'", '"': '"', "\\": "\\"}


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in ("u", "U") and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_NUMBER = re.compile(r"0x[0-9a-fA-F]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_IDENT = re.compile(r"[^\W\d]\w*", re.UNICODE)
_PARAM = re.compile(r"\$(?:[^\W\d]\w*|\d+)", re.UNICODE)
_SPACE = re.compile(r"\s+")
_MULTI = ("..", "<>", "<=", ">=", "=~", "+=", "!=", "::")


def tokenize(text: str, keep_trivia: bool = False) -> list[Token]:
    """Tokens of ``text``; whitespace and comments are dropped unless ``keep_trivia``."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            m = _SPACE.match(text, i)
            assert m is not None
            if keep_trivia:
                tokens.append(Token("space", m.group(), i))
            i = m.end()
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if keep_trivia:
                tokens.append(Token("comment", text[i:end], i))
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherSyntaxError(f"unterminated /* comment starting at offset {i}")
            if keep_trivia:
                tokens.append(Token("comment", text[i : end + 2], i))
            i = end + 2
            continue
        if ch in ("'", '"'):
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise CypherSyntaxError(f"unterminated string literal starting at offset {i}")
            tokens.append(Token("string", text[i : j + 1], i))
            i = j + 1
            continue
        if ch == "`":
            j = i + 1
            while True:
                j = text.find("`", j)
                if j < 0:
                    raise CypherSyntaxError(f"unterminated `quoted name` starting at offset {i}")
                if text.startswith("``", j):
                    j += 2
                    continue
                break
            tokens.append(Token("quoted", text[i : j + 1], i))
            i = j + 1
            continue
        if ch == "$":
            m = _PARAM.match(text, i)
            if m:
                tokens.append(Token("param", m.group(), i))
                i = m.end()
                continue
        if ch.isdigit() or (
            ch == "." and text[i + 1 : i + 2].isdigit() and not (tokens and tokens[-1].text == ".")
        ):
            m = _NUMBER.match(text, i)
            assert m is not None
            number = m.group()
            if "." in number and text.startswith("..", i + number.index(".")):
                number = number[: number.index(".")]  # "1..3" is a range: 1, '..', 3
            tokens.append(Token("number", number, i))
            i += len(number)
            continue
        m = _IDENT.match(text, i)
        if m:
            tokens.append(Token("ident", m.group(), i))
            i = m.end()
            continue
        two = text[i : i + 2]
        if two in _MULTI:
            tokens.append(Token("punct", two, i))
            i += 2
            continue
        tokens.append(Token("punct", ch, i))
        i += 1
    return tokens


def code_tokens(text: str) -> list[Token]:
    """Tokens without whitespace or comments."""
    return tokenize(text, keep_trivia=False)


def metric_tokens(text: str) -> list[str]:
    """Token texts for comparing two queries (BLEU/METEOR/ROUGE): keywords upper-cased, literals
    kept."""
    out = []
    for token in code_tokens(text):
        out.append(token.upper if token.kind == "ident" and token.upper in KEYWORDS else token.text)
    return out


KEYWORDS = frozenset(
    """
MATCH OPTIONAL WHERE RETURN WITH UNWIND ORDER BY SKIP LIMIT DISTINCT AS AND OR XOR NOT IN IS
NULL TRUE FALSE CASE WHEN THEN ELSE END ASC ASCENDING DESC DESCENDING UNION ALL EXISTS COUNT
CONTAINS STARTS ENDS CALL YIELD CREATE MERGE SET DELETE DETACH REMOVE DROP LOAD COPY ALTER
INSTALL FOREACH ON SHORTEST
""".split()
)


def quote_string(value: str) -> str:
    """``value`` as a Cypher string literal (single quotes; backslash and quote escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
