"""No SQL is sent to the knowledge base from outside ``chemground.kb``.

Callers use named :class:`~chemground.kb.store.KnowledgeBase` methods, so every backend
(SQLite, PostgreSQL) answers them. This test greps the package for calls of ``execute``,
``executemany`` or ``connection`` on a KB object outside ``src/chemground/kb/``.

Every call site has moved to a named method (issue 19: 64 sites, the last of them in the
literature store, the snippet reader, the graph export and the literature benchmark), so
any call the grep finds fails the test; ``test_the_grep_sees_a_raw_sql_call`` keeps the grep
itself honest.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "chemground"
KB_CALL = re.compile(
    r"\b(?:self\.kb|self\._kb|ws\.kb|workspace\.kb|kb|ooc|source)\s*\.\s*(?:execute|executemany|connection)\b"
)


def raw_sql_sites() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("kb/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if KB_CALL.search(line):
                found.setdefault(relative, []).append(number)
    return found


def test_no_raw_sql_outside_kb():
    found = raw_sql_sites()
    assert not found, (
        "SQL sent to the KB outside chemground.kb (use a named KnowledgeBase method instead): "
        + "; ".join(f"{f} lines {lines}" for f, lines in found.items())
    )


def test_the_grep_sees_a_raw_sql_call(tmp_path):
    sample = "rows = kb.execute('SELECT 1')\nconn = ooc.connection\nkb.get_compound(1)\n"
    assert [bool(KB_CALL.search(line)) for line in sample.splitlines()] == [True, True, False]
