"""No SQL is sent to the knowledge base from outside ``chemground.kb``.

Callers use named :class:`~chemground.kb.store.KnowledgeBase` methods, so every backend
(SQLite, PostgreSQL) answers them. This test greps the package for calls of ``execute``,
``executemany`` or ``connection`` on a KB object outside ``src/chemground/kb/``.

``REMAINING`` lists the call sites still to move, file by file, with their count at the time
the KB interface was made real (issue 19); they sit in modules other engineers were changing
then. A count may only go down: a new site, or one more in a listed file, fails the test.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "chemground"
KB_CALL = re.compile(
    r"\b(?:self\.kb|self\._kb|ws\.kb|workspace\.kb|kb|ooc|source)\s*\.\s*(?:execute|executemany|connection)\b"
)
REMAINING = {
    "graph/export.py": 4,
}


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


def test_no_new_raw_sql_outside_kb():
    found = raw_sql_sites()
    new = {f: lines for f, lines in found.items() if f not in REMAINING}
    grown = {f: lines for f, lines in found.items() if f in REMAINING and len(lines) > REMAINING[f]}
    assert not new and not grown, (
        "SQL sent to the KB outside chemground.kb (use a named KnowledgeBase method instead): "
        + "; ".join(f"{f} lines {lines}" for f, lines in {**new, **grown}.items())
    )


def test_the_grep_sees_a_raw_sql_call(tmp_path):
    sample = "rows = kb.execute('SELECT 1')\nconn = ooc.connection\nkb.get_compound(1)\n"
    assert [bool(KB_CALL.search(line)) for line in sample.splitlines()] == [True, True, False]
