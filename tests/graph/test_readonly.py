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
    "COMMENT ON TABLE Molecule IS 'x'",
    "comment on table Molecule is 'x'",
    "UPDATE httpfs",
    "EXPLAIN SHOW DATABASES",
    # a keyword declared as a variable is still a clause where a clause stands
    "MATCH (m) WITH m AS set SET set.name = 'x'",
    "WITH 1 AS set WITH set SET set.a = 1",
    "WITH 1 AS set WITH set set.a = 1",
    "MATCH (n) WITH n AS delete DELETE delete",
    "MATCH (set) DELETE set",
    "MATCH (m) WITH m AS copy COPY Molecule FROM 'x.csv'",
]

ALLOWED = [
    "MATCH (m:Molecule) WHERE m.name = 'CREATE a DELETE' RETURN m.name",
    "MATCH (m:Molecule) // DELETE everything\nRETURN m.key",
    "MATCH (m:Molecule) RETURN m.name AS `set`, m.key AS start",
    'MATCH (r:Reaction) WHERE r.title CONTAINS "drop" RETURN r.id',
    "CALL show_tables() RETURN *",
    "MATCH (m) RETURN {delete: 1} AS x",
    "MATCH (m) RETURN 'it\\'s DELETE' AS x",
    "MATCH (m) RETURN m.set, m.delete",
    "MATCH (m) RETURN m;",
    # LadybugDB lets clause keywords name variables
    "MATCH (m:Molecule) WITH m AS set RETURN set.name",
    "MATCH (m) WITH m AS set RETURN set",
    "MATCH (set:Molecule) RETURN set.name LIMIT 1",
    "MATCH (m:Molecule) WITH m AS `set` RETURN set.name ORDER BY set.name",
    "UNWIND [1, 2] AS delete RETURN delete, delete + 1 AS next",
    "MATCH (m:Molecule)-[merge:REACTANT_OF]->(r) RETURN merge LIMIT 1",
    "MATCH (m) RETURN m.comment AS comment",
    "UNWIND [1] AS call RETURN call",
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


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (m:Molecule) WITH m AS set RETURN set.name AS name ORDER BY name LIMIT 1",
        "MATCH (set:Molecule) RETURN set.name AS name ORDER BY name LIMIT 1",
    ],
)
def test_keywords_as_variables_run_on_the_engine(graph, query):
    assert len(graph.query(query).rows) == 1


def test_comment_on_is_refused_before_the_engine(graph):
    with pytest.raises(ReadOnlyViolation) as info:
        graph.query("COMMENT ON TABLE Molecule IS 'x'")
    assert info.value.clause == "COMMENT ON"
