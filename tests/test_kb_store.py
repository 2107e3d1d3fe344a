"""The SQLite store: merging by structure, names, transactions, read-only access, text search."""

from __future__ import annotations

import sqlite3

import pytest

from chemground.chem.names import normalize_name
from chemground.chem.structure import structure_from_smiles
from chemground.errors import ChemgroundError, NotFoundError
from chemground.kb.records import Compound, Participant, Reaction, Role
from chemground.kb.sqlite_store import SQLiteKB
from tests.support.kbstate import kb_digest


def _compound(smiles: str, **fields) -> Compound:
    s = structure_from_smiles(smiles)
    return Compound(
        smiles=s.smiles,
        inchikey=s.inchikey,
        formula=s.formula,
        molecular_weight=s.molecular_weight,
        exact_mass=s.exact_mass,
        parent_inchikey=s.parent_inchikey,
        **fields,
    )


def test_fresh_kb_holds_dictionary_and_starter_set(small_kb):
    stats = small_kb.stats()
    assert stats.compounds > 5000 and stats.reactions == 274
    assert stats.reactions_by_source == {"starter": 274}
    assert stats.meta["starter_reactions"] == "274"
    assert stats.meta["dictionary"].startswith("chemicals ")


def test_upsert_merges_by_structure_and_is_idempotent(kb_copy):
    new_id, created = kb_copy.upsert_compound(
        _compound(
            "CCCCCCCCCCCCCCCCCCCC(=O)OCCCC1CC1",
            common_name="3-cyclopropylpropyl icosanoate",
            source="test",
        )
    )
    assert created
    again, created_again = kb_copy.upsert_compound(
        _compound(
            "C1CC1CCCOC(=O)CCCCCCCCCCCCCCCCCCC",
            synonyms=["cyclopropylpropyl arachidate"],
            source="test2",
        )
    )
    assert again == new_id and not created_again
    record = kb_copy.get_compound(new_id)
    assert (
        record.common_name == "3-cyclopropylpropyl icosanoate"
        and "cyclopropylpropyl arachidate" in record.synonyms
    )
    assert record.provenance["sources"] == ["test", "test2"]
    before = kb_digest(kb_copy)
    kb_copy.upsert_compound(
        _compound(
            "C1CC1CCCOC(=O)CCCCCCCCCCCCCCCCCCC",
            synonyms=["cyclopropylpropyl arachidate"],
            source="test2",
        )
    )
    assert kb_digest(kb_copy) == before
    hits = kb_copy.lookup_name(normalize_name("Cyclopropylpropyl Arachidate"))
    assert [h.compound_id for h in hits] == [new_id]


def test_structure_lookup_falls_back_to_canonical_smiles(kb_copy):
    ethanol = kb_copy.lookup_structure(structure_from_smiles("OCC"))
    assert ethanol and ethanol[0].structure.smiles == "CCO"


def test_transaction_rolls_back_everything_on_error(kb_copy):
    before = kb_digest(kb_copy)
    with pytest.raises(RuntimeError), kb_copy.transaction():
        kb_copy.upsert_compound(_compound("CCCCCCCCCCCCCCCCCCCCCCCC", common_name="tetracosane"))
        kb_copy.add_reaction(
            Reaction(id="r-test", participants=[Participant(role=Role.REACTANT, name="x")])
        )
        raise RuntimeError("boom")
    assert kb_digest(kb_copy) == before


def test_reaction_round_trip_and_links(kb_copy):
    ethanol = kb_copy.lookup_name("ethanol")[0].compound_id
    reaction = Reaction(
        id="test:1",
        source="US123",
        dataset="test",
        description="Ethanol was oxidised.",
        participants=[
            Participant(role=Role.REACTANT, name="ethanol", smiles="CCO", compound_id=ethanol),
            Participant(role=Role.PRODUCT, name="mystery", unresolved_reason="name not resolved"),
        ],
        flags=["unresolved product: mystery"],
    )
    with kb_copy.transaction():
        assert kb_copy.add_reaction(reaction)
        assert not kb_copy.add_reaction(reaction)  # same id: nothing new
    stored = kb_copy.get_reaction("test:1")
    assert stored.participants == reaction.participants and stored.flags == reaction.flags
    assert any(
        link.reaction_id == "test:1" and link.role == Role.REACTANT
        for link in kb_copy.reaction_links([ethanol])
    )
    assert kb_copy.search_reaction_text("oxidised")[0][0] == "test:1"
    with pytest.raises(NotFoundError):
        kb_copy.get_reaction("nope")


def test_readonly_kb_refuses_writes_and_concurrent_readers_work(small_kb_path):
    first = SQLiteKB(small_kb_path, readonly=True)
    second = SQLiteKB(small_kb_path, readonly=True)
    assert first.stats().compounds == second.stats().compounds
    with pytest.raises(ChemgroundError, match="read-only"):
        first.upsert_compound(_compound("CCCCCCCCCCCCCCCCCCCCCC"))
    with pytest.raises(sqlite3.OperationalError):  # and SQLite itself refuses too
        first.connection.execute("DELETE FROM meta")
    first.close()
    second.close()


def test_not_a_kb_is_a_clear_error(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '999')")
    con.commit()
    con.close()
    with pytest.raises(ChemgroundError, match="schema version"):
        SQLiteKB(path)
    con = sqlite3.connect(path)  # and nothing was added to that database
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == [
        "meta"
    ]
    con.close()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ChemgroundError, match="not a chemground knowledge base"):
        SQLiteKB(junk)


def test_mixtures_are_named_records_without_a_single_structure(small_kb):
    air = small_kb.lookup_name("air")
    assert air and air[0].structure is None
    record = small_kb.get_compound(air[0].compound_id)
    assert record.kind == "mixture" and "nitrogen" in record.description.lower()
    assert record.molecular_weight == pytest.approx(28.96, abs=0.05)
