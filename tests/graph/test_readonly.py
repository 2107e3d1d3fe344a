"""Write and admin clauses are refused before execution; reads with look-alike text are not."""

from __future__ import annotations

import pytest

from chemground.graph.readonly import ReadOnlyViolation, ensure_read_only, read_only_problem

REFUSED = [
    "CREATE (m:Molecule {key: 'x'})",
    "MATCH (m:Molecule) DETACH DELETE m",
    "MATCH (m:Molecule) SET m.name = 'x'",
    "MERGE (m:Molecule {key: 'x'}) RETURN m",
    "MATCH (m) REMOVE m.name",
    "DROP TABLE Molecule",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "LOAD FROM 'x.csv' RETURN *",
    "COPY Molecule FROM 'x.csv'",
    "ALTER TABLE Molecule ADD x INT64",
    "INSTALL httpfs",
    "LOAD EXTENSION httpfs",
    "CALL apoc.create.node(['X'], {}) YIELD node RETURN node",
    "CALL db.clearQueryCaches()",
    "MATCH (m) RETURN m; MATCH (n) DELETE n",
    "match (m:Molecule) detach delete m",
    "MATCH (m) FOREACH (x IN [1] | SET m.a = x)",
    "SHOW DATABASES",
    "MATCH (m) WITH m /* comment */ DELETE m",
]

ALLOWED = [
    "MATCH (m:Molecule) WHERE m.name = 'CREATE a DELETE' RETURN m.name",
    "MATCH (m:Molecule) // DELETE everything\nRETURN m.key",
    "MATCH (m:Molecule) RETURN m.name AS `set`, m.key AS start",
    "MATCH (r:Reaction) WHERE r.title CONTAINS \"drop\" RETURN r.id",
    "CALL show_tables() RETURN *",
    "MATCH (m) RETURN {delete: 1} AS x",
    "MATCH (m) RETURN 'it\\'s DELETE' AS x",
    "MATCH (m) RETURN m.set, m.delete",
    "MATCH (m) RETURN m;",
]


@pytest.mark.parametrize("query", REFUSED)
def test_write_and_admin_clauses_are_refused(query):
    with pytest.raises(ReadOnlyViolation, match="read-only; nothing was executed"):
        ensure_read_only(query)


@pytest.mark.parametrize("query", ALLOWED)
def test_keywords_in_literals_comments_and_names_are_data(query):
    assert read_only_problem(query) is None


def test_the_message_names_the_clause():
    with pytest.raises(ReadOnlyViolation) as info:
        ensure_read_only("MATCH (m:Molecule) DETACH DELETE m")
    assert info.value.clause == "DETACH DELETE"
    assert "DETACH DELETE" in str(info.value)


def test_unterminated_string_cannot_hide_a_clause():
    assert read_only_problem("MATCH (m) WHERE m.name = 'abc RETURN m") is not None


def test_backend_refuses_before_the_engine_runs(graph):
    with pytest.raises(ReadOnlyViolation):
        graph.query("MATCH (m:Molecule) DETACH DELETE m")
    assert graph.counts().molecules > 0
