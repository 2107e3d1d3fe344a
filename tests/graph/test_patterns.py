"""The directionality corrector and the pattern analysis behind the error taxonomy."""

from __future__ import annotations

from chemground.graph.patterns import analyse, direction_issues, fix_direction


def test_flipped_edges_are_found_and_corrected():
    query = (
        "MATCH (r:Reaction)-[:REACTANT_OF]->(m:Molecule {smiles: 'CCO'}), "
        "(p:Molecule)-[:PRODUCES]->(r) "
        "RETURN p.smiles"
    )
    fixed, issues = fix_direction(query)
    assert len(issues) == 2
    assert fixed == (
        "MATCH (r:Reaction)<-[:REACTANT_OF]-(m:Molecule {smiles: 'CCO'}), "
        "(p:Molecule)<-[:PRODUCES]-(r) "
        "RETURN p.smiles"
    )
    assert direction_issues(fixed) == []
    assert fix_direction(fixed) == (fixed, [])


def test_correct_undirected_and_untyped_edges_are_left_alone():
    for query in [
        "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule) RETURN p",
        "MATCH (r:Reaction)<-[:SOLVENT_OF]-(s:Molecule) RETURN s",
        "MATCH (m:Molecule)-[:REACTANT_OF]-(r:Reaction) RETURN r",
        "MATCH (a)-[:REACTANT_OF|PRODUCES*1..4]->(b:Molecule) RETURN b",
        "MATCH (r:Reaction)-->(m:Molecule) RETURN m",
    ]:
        assert fix_direction(query) == (query, []), query


def test_labels_declared_elsewhere_in_the_query_are_used():
    query = "MATCH (r:Reaction) MATCH (r)-[:CATALYST_OF]->(c) RETURN c"
    fixed, issues = fix_direction(query)
    assert issues and fixed == "MATCH (r:Reaction) MATCH (r)<-[:CATALYST_OF]-(c) RETURN c"


def test_arrows_inside_strings_are_not_patterns():
    query = "MATCH (m:Molecule) WHERE m.name = '(r:Reaction)-[:REACTANT_OF]->(x)' RETURN m"
    assert fix_direction(query) == (query, [])


def test_anchors_from_maps_and_where_clauses():
    patterns = analyse(
        "MATCH (a:Molecule {smiles: 'CCO'})-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(b) "
        "WHERE b.smiles IN ['CC=O', 'CC(=O)O'] AND 'x' = r.id RETURN b"
    )
    assert ("a", "smiles", "CCO") in patterns.anchors
    assert ("b", "smiles", "CC=O") in patterns.anchors and (
        "b",
        "smiles",
        "CC(=O)O",
    ) in patterns.anchors
    assert ("r", "id", "x") in patterns.anchors
    assert [(rel.source.var, rel.types, rel.target.var) for rel in patterns.rels] == [
        ("a", ["REACTANT_OF"], "r"),
        ("r", ["PRODUCES"], "b"),
    ]
