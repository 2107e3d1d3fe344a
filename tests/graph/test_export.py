"""Export round-trip: every reaction and resolved participant of the starter KB is in the graph,
once."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from chemground.chem.structure import structure_from_smiles
from chemground.errors import NotFoundError
from chemground.graph.build import build_graph
from chemground.graph.ladybug_backend import LadybugBackend
from chemground.graph.readonly import ReadOnlyViolation
from chemground.graph.schema import REL_BY_ROLE
from chemground.kb.records import Compound, Participant, Reaction, Role
from chemground.kb.sqlite_store import SQLiteKB
from chemground.settings import GraphSettings


def test_round_trip_matches_the_kb(graph, small_kb):
    kb_reactions = list(small_kb.iter_reactions())
    counts = graph.counts()
    assert counts.reactions == len(kb_reactions) == 274
    # every (reaction, role, molecule) of the KB is one edge in the graph, in the right direction
    expected = Counter()
    for reaction in kb_reactions:
        seen = set()
        for p in reaction.participants:
            compound = small_kb.get_compound(p.compound_id, with_reactions=0)
            key = compound.inchikey or f"compound:{compound.id}"
            if (p.role, key) not in seen:
                seen.add((p.role, key))
                expected[REL_BY_ROLE[p.role].type] += 1
    assert counts.edges == dict(expected)
    # a reaction read back from the graph has the KB's participants, properties and conditions
    reaction = small_kb.get_reaction("starter:fischer_esterification-01")
    rows = graph.query(
        "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction {id: 'starter:fischer_esterification-01'}) "
        "RETURN m.smiles AS smiles"
    ).rows
    assert {r["smiles"] for r in rows} == {p.smiles for p in reaction.reactants}
    rows = graph.query(
        "MATCH (r:Reaction {id: 'starter:fischer_esterification-01'})-[:PRODUCES]->(m:Molecule) "
        "RETURN m.smiles AS smiles, r.main_product = m.key AS main"
    ).rows
    assert {r["smiles"]: r["main"] for r in rows} == {
        "CCOC(C)=O": True,
        "O": False,
    }  # water is the by-product
    props = graph.query(
        "MATCH (r:Reaction {id: 'starter:fischer_esterification-01'}) RETURN r.yield_percent AS y, "
        "r.temperature_c AS t, r.time_h AS h, r.conditions AS c, r.reaction_class AS cls"
    ).rows[0]
    assert props == {
        "y": reaction.yield_percent,
        "t": 78.0,
        "h": 4.0,
        "c": "78 °C; 4 h",
        "cls": reaction.reaction_class,
    }
    # wrong direction matches nothing: direction carries meaning
    assert graph.query(
        "MATCH (r:Reaction)-[:REACTANT_OF]->(m:Molecule) RETURN count(*) AS n"
    ).rows == [{"n": 0}]


def test_rebuild_is_skipped_when_unchanged_and_incremental_when_the_kb_grew(
    small_kb_path, tmp_path
):
    kb_path = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, kb_path)
    settings = GraphSettings()
    first = build_graph(kb_path, settings=settings)
    assert first.action == "full" and first.counts["reactions"] == 274
    assert build_graph(kb_path, settings=settings).action == "unchanged"
    kb = SQLiteKB(kb_path)
    ethanol = kb.lookup_name("ethanol")[0]
    novel = structure_from_smiles("CCOC(=O)C1(CC2CC2)CCC(F)(F)CC1")  # not in the dictionary subset
    new_compound, created = kb.upsert_compound(
        Compound(smiles=novel.smiles, inchikey=novel.inchikey, common_name="test ester")
    )
    assert created
    with kb.transaction():
        kb.add_reaction(
            Reaction(
                id="test:new-1",
                source="test",
                participants=[
                    Participant(
                        role=Role.REACTANT,
                        compound_id=ethanol.compound_id,
                        inchikey=ethanol.structure.inchikey,
                    ),
                    Participant(
                        role=Role.PRODUCT, compound_id=new_compound, inchikey=novel.inchikey
                    ),
                ],
            )
        )
    kb.close()
    second = build_graph(kb_path, settings=settings)
    assert second.action == "incremental"
    assert second.reactions_added == 1 and second.molecules_added == 1
    assert second.counts["reactions"] == 275
    with LadybugBackend(kb_path.with_name("kb.sqlite.graph") / "graph.lbug") as graph:
        rows = graph.query(
            "MATCH (:Molecule {name: 'ethanol'})-[:REACTANT_OF]->(r:Reaction {id: 'test:new-1'})"
            "-[:PRODUCES]->(p:Molecule) RETURN p.name AS name"
        ).rows
    assert rows == [{"name": "test ester"}]
    full = build_graph(kb_path, settings=settings, full=True)
    assert full.action == "full" and full.counts == second.counts


def test_missing_kb_is_a_clear_error(tmp_path):
    with pytest.raises(NotFoundError, match="no knowledge base"):
        build_graph(tmp_path / "absent.sqlite")


def test_graph_opened_for_reading_cannot_be_written(graph):
    # even past the guard (internal write path), the engine itself refuses: the file is open
    # read-only
    with pytest.raises(ReadOnlyViolation):
        graph.query("CREATE (:Molecule {key: 'x'})")
    with pytest.raises(Exception, match="read-only"):
        graph._conn.execute("CREATE (:Molecule {key: 'x'})")


def test_a_step_follows_the_product_not_the_by_product(graph):
    """The heaviest product of a Wittig olefination is triphenylphosphine oxide; a route must
    follow the alkene (issue 20: a Wittig route led to Ph3PO)."""
    rows = graph.query(
        "MATCH (r:Reaction {id: 'starter:wittig_olefination-01'}) RETURN r.main_product AS key"
    ).rows
    cinnamate = structure_from_smiles("CCOC(=O)/C=C/c1ccccc1").inchikey
    assert rows == [{"key": cinnamate}]
    water_only = graph.query(
        "MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule) WITH r, count(p) AS n WHERE n = 1 "
        "MATCH (r)-[:PRODUCES]->(p:Molecule) RETURN count(*) AS n, "
        "sum(CASE WHEN r.main_product = p.key THEN 1 ELSE 0 END) AS main"
    ).rows[0]
    assert int(water_only["n"]) == int(water_only["main"]) > 0  # a lone product is the main one


def test_an_appel_step_follows_the_alkyl_bromide_not_bromoform(graph):
    """Bromoform (252.7 g/mol), the by-product of an Appel bromination with CBr4, outweighs the
    benzyl bromide made (171.0): followed as the main product, 'make benzyl bromide from benzyl
    alcohol' found no route."""
    rows = graph.query(
        "MATCH (r:Reaction {id: 'starter:appel_reaction-01'}) RETURN r.main_product AS key"
    ).rows
    assert rows == [{"key": structure_from_smiles("BrCc1ccccc1").inchikey}]


def test_the_graph_tool_and_readme_name_only_real_labels_and_properties():
    """The agent's graph tool and the README once named AGENT_OF and Reaction.yield, which do not
    exist, so a model that followed them wrote failing queries (issue 20)."""
    import re
    from pathlib import Path

    from chemground.agent.registry import default_registry
    from chemground.graph.schema import MOLECULE, REACTION, RELATIONSHIPS

    real = {rel.type for rel in RELATIONSHIPS} | {"PRODUCES"}
    description = default_registry().get("chemground/query_reaction_graph").description
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for text in (description, readme):
        used = set(re.findall(r"\b([A-Z]+_OF|PRODUCES)\b", text))
        assert used and used <= real, used - real
    properties = {p.name for p in REACTION.properties} | {p.name for p in MOLECULE.properties}
    named = re.findall(r"\{([^}]*)\}", description)
    for group in named:
        for name in (n.strip() for n in group.split(",")):
            assert name == "..." or name in properties, name
