"""Entity linking for Text2Cypher: anchors the model invents are tied to the compounds
chemground resolved from the question (issue 20: `{smiles: 'CCO'}` written for aspirin, a
formula in a `smiles:` property)."""

from __future__ import annotations

from chemground.chem.structure import structure_from_smiles
from chemground.graph.linking import LinkedCompound, link_anchors, prompt_lines
from chemground.graph.text2cypher import Text2Cypher
from chemground.llm import ScriptedLLM


def compound(text: str, smiles: str, name: str | None = None) -> LinkedCompound:
    structure = structure_from_smiles(smiles)
    return LinkedCompound(text, name or text, structure.smiles, structure.inchikey)


ASPIRIN = compound("aspirin", "CC(=O)Oc1ccccc1C(=O)O")
ANILINE = compound("aniline", "Nc1ccccc1")
NITROBENZENE = compound("nitrobenzene", "O=[N+]([O-])c1ccccc1")


def test_an_anchor_naming_a_compound_of_the_question_becomes_its_key():
    for written in ("{name: 'Aspirin'}", "{smiles: 'O=C(O)c1ccccc1OC(C)=O'}"):
        linked = link_anchors(f"MATCH (m:Molecule {written}) RETURN m.key", [ASPIRIN])
        assert f"{{key: '{ASPIRIN.inchikey}'}}" in linked.query and linked.rewritten
    where = link_anchors("MATCH (m:Molecule) WHERE m.name = 'aspirin' RETURN m", [ASPIRIN])
    assert f"m.key = '{ASPIRIN.inchikey}'" in where.query


def test_an_invented_anchor_is_replaced_by_the_one_compound_left():
    query = "MATCH (m:Molecule {smiles: 'CCO'})-[:REACTANT_OF]->(r) RETURN r.id"
    linked = link_anchors(query, [ASPIRIN])
    assert ASPIRIN.inchikey in linked.query and "CCO" not in linked.query


def test_a_query_about_none_of_the_question_compounds_is_refused():
    query = (
        "MATCH (a:Molecule {smiles: 'CCO'})-[:REACTANT_OF]->(r)-[:PRODUCES]->"
        "(b:Molecule {formula: 'C12H10'}) RETURN r.id"
    )
    linked = link_anchors(query, [ANILINE, NITROBENZENE])
    assert linked.refused and "'CCO'" in linked.refused and "aniline" in linked.refused


def test_two_anchors_are_matched_to_their_own_compounds_and_unknown_ones_reported():
    query = (
        "MATCH (a:Molecule {name: 'nitrobenzene'})-[:REACTANT_OF]->(r)-[:PRODUCES]->"
        "(b:Molecule {smiles: 'c1ccc(N)cc1'}) MATCH (s:Molecule {name: 'ethanol'}) RETURN r.id"
    )
    linked = link_anchors(query, [ANILINE, NITROBENZENE])
    assert NITROBENZENE.inchikey in linked.query and ANILINE.inchikey in linked.query
    assert linked.unknown == ["name 'ethanol'"] and linked.refused is None


def test_no_compounds_means_no_change():
    query = "MATCH (m:Molecule {smiles: 'CCO'}) RETURN m"
    assert link_anchors(query, []).query == query
    assert prompt_lines([]) == ""


def test_text2cypher_tells_the_model_the_keys_and_fixes_its_invented_anchor(graph):
    invented = (
        "```cypher\nMATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->"
        "(p:Molecule {smiles: 'C12H10'}) RETURN r.id AS reaction_id, m.smiles AS reactant\n```"
    )
    llm = ScriptedLLM([invented])
    result = Text2Cypher(graph, llm, mode="zero-shot", validate=False).run(
        "Which reactants are used to make aniline?", [ANILINE]
    )
    prompt = llm.calls[0]["messages"][1]["content"]
    assert ANILINE.inchikey in prompt  # the model was given the key
    assert result.ok and result.rows and ANILINE.inchikey in result.query
    assert result.anchor_fixes and "C12H10" in result.anchor_fixes[0]


def test_rows_the_checklist_still_faults_are_partial_not_answered(graph):
    """The real 1.5B model anchored 'make aniline' on aniline as a reactant; the checklist
    said so after two corrections, yet the rows came back as 'answered'."""
    from chemground.graph.backend import QueryResult
    from chemground.graph.text2cypher import Text2CypherResult

    result = Text2CypherResult("Which reactants make aniline?", "zero-shot", "MATCH ...", "", True)
    result.result = QueryResult(["reaction_id"], [{"reaction_id": "starter:x"}])
    assert result.to_answer([]).status == "answered"
    result.unresolved_checklist = ["direction: the query does not follow the synthesis flow"]
    answer = result.to_answer([])
    assert answer.status == "partial"
    assert any("checklist still reports: direction" in note for note in answer.notes)


def test_the_prompt_names_the_role_the_question_gives_a_compound():
    product = LinkedCompound("aniline", "aniline", ANILINE.smiles, ANILINE.inchikey, "product")
    assert "the question's product" in prompt_lines([product])
