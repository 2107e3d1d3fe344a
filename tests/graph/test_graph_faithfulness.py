"""Issue 20: Text2Cypher answers (``QA.ask_graph``) carry the faithfulness report of their text
against the rows (``reasoning.faithfulness``)."""

from __future__ import annotations

from chemground.llm import ScriptedLLM
from chemground.qa_factory import build_qa
from chemground.settings import Settings
from chemground.workspace import Workspace

QUESTION = "Which reactants are used to make aniline?"
QUERY = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule {smiles: "
    "'Nc1ccccc1'}) RETURN r.id AS reaction_id, m.smiles AS reactant_smiles"
)


def test_graph_answers_are_checked_against_their_rows(graph_kb_path, graph, opsin, tmp_path):
    settings = Settings(kb={"path": graph_kb_path}, cache_dir=tmp_path / "cache")
    with Workspace(settings, readonly=True, opsin=opsin) as workspace:
        qa = build_qa(workspace)
        qa.llm = ScriptedLLM([f"```cypher\n{QUERY}\n```"])
        answer = qa.ask_graph(QUESTION, mode="zero-shot", validate=False, graph=graph)
    assert answer.status == "answered" and answer.evidence, answer.notes
    report = answer.trace["faithfulness"]
    assert report["supported"] and "structures" in report["checked"], report
    (claim,) = [c for c in report["claims"] if c["kind"] == "structure"]
    assert claim["text"] == "O=[N+]([O-])c1ccccc1" and claim["source"].startswith("cypher:")
