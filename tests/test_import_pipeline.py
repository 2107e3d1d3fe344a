"""The import engine's pipelining and shortcuts give the same KB as the plain path.

Rows are read, computed and written batch by batch; a source InChI naming a KB compound
skips structure work; workers reuse identifiers the KB stores; the WAL is copied into the
database file off the committing thread. None of that may change what ends up stored.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from ord_schema import message_helpers
from ord_schema.proto import dataset_pb2, reaction_pb2
from rdkit import Chem

import chemground.kb.importers.base as engine
import chemground.kb.structures as structures
from chemground.chem.names import NameResolver
from chemground.errors import ImportFileError
from chemground.kb import sqlite_store
from chemground.kb.importers import import_file
from chemground.kb.sqlite_store import SQLiteKB
from tests.conftest import copy_kb
from tests.support.kbstate import kb_digest

HEADER = "id,source,text,reactants,reactants_smiles,products,products_smiles,solvents,yield\n"
# The same new product comes back under other names in later rows (and so in later batches),
# and the same solvent under several names: names must merge the same way whatever the batching.
ROWS = [
    'p1,US1,"step '
    '1",benzaldehyde;aniline,O=Cc1ccccc1;Nc1ccccc1,N-(4-nitrobenzylidene)naphthalen-2-amine,O=[N+]([O-])c1ccc(C=Nc2ccc3ccccc3c2)cc1,ethanol,80\n',
    'p2,US1,"step 2",benzoic acid,OC(=O)c1ccccc1,methyl benzoate,COC(=O)c1ccccc1,methanol,75\n',
    'p3,US2,"step 3",acetophenone,CC(=O)c1ccccc1,1-phenylethanol,CC(O)c1ccccc1,EtOH,90\n',
    'p4,US2,"step 4",phenol,Oc1ccccc1,anisole,COc1ccccc1,acetone,60\n',
    'p5,US3,"step '
    '5",4-nitrobenzal-2-naphthylamine,O=[N+]([O-])c1ccc(C=Nc2ccc3ccccc3c2)cc1,N-(4-aminobenzyl)naphthalen-2-amine,Nc1ccc(CNc2ccc3ccccc3c2)cc1,ethyl alcohol,88\n',  # noqa: E501 - test data
    'p6,US3,"step 6",toluene,Cc1ccccc1,benzoic acid,OC(=O)c1ccccc1,water,40\n',
    'p7,US4,"step 7",nitrobenzylidene '
    "naphthylamine,O=[N+]([O-])c1ccc(C=Nc2ccc3ccccc3c2)cc1,4-[(2-naphthylamino)methyl]aniline,Nc1ccc(CNc2ccc3ccccc3c2)cc1,methanol,91\n",
]


def _import(kb_dir: Path, source_kb: Path, csv: Path, opsin, batch_size: int, monkeypatch) -> tuple:
    monkeypatch.setattr(engine, "BATCH_SIZE", batch_size)
    kb_dir.mkdir()
    kb = SQLiteKB(copy_kb(source_kb, kb_dir))
    try:
        summary = import_file(kb, csv, resolver=NameResolver(kb, opsin))
        counts = (
            summary.rows_read,
            summary.reactions_added,
            summary.compounds_added,
            summary.participants,
            dict(summary.unresolved),
        )
        schiff_base = kb.get_compound(kb.get_reaction("p1").products[0].compound_id)
        return counts, schiff_base.all_names(), kb_digest(kb)
    finally:
        kb.close()


def test_batched_import_stores_exactly_what_a_single_batch_does(
    small_kb_path, opsin, tmp_path, monkeypatch
):
    csv = tmp_path / "rows.csv"
    csv.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    whole = _import(tmp_path / "whole", small_kb_path, csv, opsin, 1000, monkeypatch)
    batched = _import(tmp_path / "batched", small_kb_path, csv, opsin, 2, monkeypatch)
    assert whole[0][:2] == (7, 7) and whole[0][2] >= 2
    assert whole[1] == [
        "N-(4-nitrobenzylidene)naphthalen-2-amine",
        "4-nitrobenzal-2-naphthylamine",
        "nitrobenzylidene naphthylamine",
    ]  # names from three batches, one compound
    assert batched == whole


def test_bad_row_after_the_first_batches_changes_nothing(kb_copy, opsin, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "BATCH_SIZE", 2)
    bad = 'x1,X,"text",benzaldehyde,,benzoic acid,,,very good\n'
    csv = tmp_path / "late-bad.csv"
    csv.write_text(HEADER + "".join(ROWS) + bad, encoding="utf-8")
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError, match="line 9"):
        import_file(kb_copy, csv, resolver=NameResolver(kb_copy, opsin))
    assert kb_digest(kb_copy) == before


def _ord_file(path: Path, smiles: str, inchi: str, name: str) -> Path:
    reaction = reaction_pb2.Reaction(reaction_id="inchi-1")
    component = reaction.inputs["m1"].components.add()
    component.reaction_role = reaction_pb2.ReactionRole.REACTANT
    component.identifiers.add(type="SMILES", value=smiles)
    component.identifiers.add(type="INCHI", value=inchi)
    component.identifiers.add(type="NAME", value=name)
    product = reaction.outcomes.add().products.add()
    product.identifiers.add(type="SMILES", value="CC(=O)NCCc1cnc[nH]1")
    message_helpers.save_message(dataset_pb2.Dataset(name="inchi-test", reactions=[reaction]), path)
    return path


def test_source_inchi_of_a_known_compound_links_it_and_keeps_the_source_smiles(
    kb_copy, opsin, tmp_path, monkeypatch
):
    resolver = NameResolver(kb_copy, opsin)
    # histamine enters the KB drawn as one tautomer ...
    first = tmp_path / "first.csv"
    first.write_text(HEADER + 'h0,US9,"t",,,histamine,NCCc1cnc[nH]1,,\n', encoding="utf-8")
    import_file(kb_copy, first, resolver=resolver)
    stored = kb_copy.get_reaction("h0").products[0]
    # ... and comes back as the other tautomer, with the (shared) standard InChI
    other = "NCCc1c[nH]cn1"
    inchi = Chem.MolToInchi(Chem.MolFromSmiles(other))
    assert Chem.MolToSmiles(Chem.MolFromSmiles(other)) != stored.smiles
    kinds: list[tuple[str, str]] = []
    real = structures.compute_one
    monkeypatch.setattr(
        structures,
        "compute_one",
        lambda text, kind="smiles", *a, **k: (
            kinds.append((text, kind)) or real(text, kind, *a, **k)
        ),
    )
    import_file(
        kb_copy,
        _ord_file(tmp_path / "again.pb.gz", other, inchi, "2-(imidazol-4-yl)ethylamine"),
        resolver=resolver,
    )
    linked = kb_copy.get_reaction("inchi-1").reactants[0]
    assert linked.compound_id == stored.compound_id and linked.inchikey == stored.inchikey
    assert linked.smiles == Chem.MolToSmiles(Chem.MolFromSmiles(other))  # as the source drew it
    assert (other, "canonical") in kinds and (
        other,
        "smiles",
    ) not in kinds  # no InChI, fingerprint, ...
    assert "2-(imidazol-4-yl)ethylamine" in kb_copy.get_compound(stored.compound_id).all_names()


def test_workers_reuse_the_identifiers_the_kb_stores(small_kb):
    ethanol = small_kb.lookup_name("ethanol")[0]
    with structures.StoredStructures(small_kb.path) as stored:
        reused = structures.compute_one("OCC", stored=stored)
        novel = structures.compute_one("CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCO", stored=stored)
    assert reused.structure is not None and reused.structure.inchikey == ethanol.structure.inchikey
    assert reused.fingerprint is None  # no compound will be made for it
    fresh = structures.compute_one("OCC")
    assert fresh.structure == reused.structure and fresh.fingerprint is not None
    assert novel.structure is not None and novel.fingerprint is not None


def test_a_kb_can_leave_wal_mode_right_after_an_import(kb_copy, opsin, tmp_path, monkeypatch):
    # workers look structures up in the KB; none may keep it open afterwards (an open
    # connection makes the journal-mode change that `kb build` ends with fail as "locked")
    monkeypatch.setattr(engine, "FIRST_BATCH", 3)
    monkeypatch.setattr(structures, "MIN_POOL_JOB", 1)  # every batch goes to the worker processes
    csv = tmp_path / "rows.csv"
    csv.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    import_file(kb_copy, csv, resolver=NameResolver(kb_copy, opsin))
    kb_copy.checkpoint()
    assert kb_copy.connection.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"


def test_committed_data_reaches_the_database_file_through_the_background_checkpoint(
    kb_copy, monkeypatch
):
    monkeypatch.setattr(sqlite_store, "WAL_CHECKPOINT_BYTES", 0)
    with kb_copy.transaction():
        kb_copy.set_meta("pipeline_test", "written")
    assert kb_copy._checkpointer is not None  # started by the commit
    kb_copy.checkpoint()
    # immutable=1 reads the database file alone, ignoring the WAL
    reader = sqlite3.connect(f"file:{kb_copy.path}?immutable=1", uri=True)
    try:
        value = reader.execute("SELECT value FROM meta WHERE key = 'pipeline_test'").fetchone()
    finally:
        reader.close()
    assert value == ("written",)


def test_later_jobs_reuse_string_only_results_but_not_those_taken_from_a_kb(small_kb, monkeypatch):
    monkeypatch.setattr(structures, "_MEMO", {})
    calls: list[str] = []
    real = structures.compute_one

    def spy(text, *args, **kwargs):
        calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(structures, "compute_one", spy)
    novel, held = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCO", "OCC"  # ethanol's identifiers come from the KB
    first = structures.submit_many([novel, held], kb_path=small_kb.path, remember=True).result()
    assert first[novel].fingerprint is not None and first[held].fingerprint is None
    calls.clear()
    again = structures.submit_many([novel, held], kb_path=small_kb.path, remember=True).result()
    assert calls == [held]  # the KB-derived result is asked again: another KB may not hold it
    assert again[novel] == first[novel]
    calls.clear()
    structures.submit_many([novel]).result()  # without remember=True nothing is reused
    assert calls == [novel]


def test_a_file_of_several_batches_starts_the_workers_a_small_one_does_not(
    kb_copy, opsin, tmp_path, monkeypatch
):
    # Each batch alone is below the size that justifies starting worker processes; without
    # this, a fresh `kb import` process computed every structure in its main thread.
    started: list[bool] = []
    monkeypatch.setattr(engine, "start_pool", lambda: started.append(True))
    monkeypatch.setattr(engine, "FIRST_BATCH", 3)
    resolver = NameResolver(kb_copy, opsin)
    small = tmp_path / "small.csv"
    small.write_text(HEADER + "".join(ROWS[:2]), encoding="utf-8")
    import_file(kb_copy, small, resolver=resolver)
    assert started == []
    large = tmp_path / "large.csv"
    large.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    import_file(kb_copy, large, resolver=resolver)
    assert started == [True]
