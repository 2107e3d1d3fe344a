"""One contract for every KB backend: the same tests run on SQLite and on PostgreSQL.

The PostgreSQL KB is the small test KB copied with ``kb migrate`` into a throwaway cluster
(``postgres_server`` in conftest; skipped, saying why, where the server packages are not
installed). Each test gets its own KB: a file copy on SQLite, a database cloned from a
template on PostgreSQL. Expected values come from the SQLite source KB or from RDKit
directly, never from the backend under test.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from rdkit import Chem

from chemground.chem.mentions import Mention
from chemground.chem.names import NameResolver, normalize_name
from chemground.errors import ChemgroundError, ImportFileError, StructureError
from chemground.kb.backends import migrate, open_kb
from chemground.kb.importers import import_file
from chemground.kb.records import Compound, Conditions, Participant, Reaction, Role
from chemground.kb.sqlite_store import SQLiteKB
from chemground.kb.structure_search import parse_substructure_query
from chemground.lit.records import Chunk, Document
from chemground.lit.store import LitStore
from tests.conftest import copy_kb

CSV_HEADER = (
    "id,source,text,reactants,reactants_smiles,products,products_smiles,solvents,catalysts,"
    "temperature,time,yield\n"
)
ROWS = [
    'c1,US1,"Phenylboronic acid and 4-bromoanisole were coupled in toluene.",phenylboronic '
    "acid;4-bromoanisole,"
    "OB(O)c1ccccc1;COc1ccc(Br)cc1,4-methoxybiphenyl,COc1ccc(-c2ccccc2)cc1,toluene,,100 °C,12 "
    "h,88%\n",
    'c2,US2,"Esterification of acetic acid.",acetic acid;ethanol,,ethyl acetate,,,sulfuric '
    "acid,reflux,overnight,65\n",
]
BAD_ROW = 'x1,X,"text",benzaldehyde,,benzoic acid,,,,hot-ish,2 h,very good\n'
# Answered from the reaction graph (nitrobenzene -> aniline -> acetanilide in the small KB).
ROUTE_QUESTIONS = (
    "route from nitrobenzene to acetanilide",
    "how do I make acetanilide from nitrobenzene?",
    "what can I make from nitrobenzene in two steps?",
)


_TIMINGS = ("timings_ms", "elapsed_ms", "seconds")


def _without_ids_and_timings(answer):
    """An answer as both backends must give it: without evidence ids and timings (the
    answer's ``timings_ms``, a tool run's ``elapsed_ms``, a command's ``seconds``)."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _TIMINGS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    out = strip(answer)
    for evidence in out.get("evidence", []) if isinstance(out, dict) else ():
        evidence.pop("id", None)
    return out


@pytest.fixture(scope="module")
def pg_template(postgres_server, small_kb_path):
    """A database holding the small KB (migrated once), used as the template of each test's KB."""
    url = postgres_server.new_database()
    with SQLiteKB(small_kb_path, readonly=True) as source:
        migrate(source, url)
    return postgres_server.mark_template(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def kb(request, small_kb_path, tmp_path):
    """A writable KB holding the small test KB, on each backend."""
    if request.param == "sqlite":
        store = open_kb(copy_kb(small_kb_path, tmp_path))
    else:
        server = request.getfixturevalue("postgres_server")
        store = open_kb(server.new_database(template=request.getfixturevalue("pg_template")))
    yield store
    store.close()


@pytest.fixture
def reference(small_kb):
    """The SQLite source KB (read-only): what every backend must answer."""
    return small_kb


@pytest.fixture
def resolver(kb, opsin):
    return NameResolver(kb, opsin)


def _counts(kb):
    s = kb.stats()
    return (s.compounds, s.compound_names, s.reactions, s.participants, s.flagged_reactions)


def test_the_same_records_as_the_source(kb, reference):
    assert _counts(kb) == _counts(reference)
    assert kb.stats().reactions_by_source == reference.stats().reactions_by_source
    reactions = list(reference.iter_reactions())
    assert list(kb.iter_reactions()) == reactions
    ids = [r.id for r in reactions]
    assert kb.get_reactions(ids) == reference.get_reactions(ids)
    assert kb.get_compounds(range(1, 400)) == reference.get_compounds(range(1, 400))
    assert kb.get_meta("dictionary") == reference.get_meta("dictionary")


@pytest.mark.parametrize(
    "name", ["ethanol", "thf", "methanol", "sulfuric acid", "phenylboronic acid", "nacl"]
)
def test_name_and_identity_lookups(kb, reference, name):
    hits = kb.lookup_name(normalize_name(name))
    assert hits == reference.lookup_name(normalize_name(name))
    if hits and hits[0].structure:
        s = hits[0].structure
        assert kb.lookup_inchikey(s.inchikey) == reference.lookup_inchikey(s.inchikey)
        assert kb.lookup_structure(s) == reference.lookup_structure(s)
        assert kb.lookup_parent(s.parent_inchikey) == reference.lookup_parent(s.parent_inchikey)
        assert kb.lookup_connectivity(s.inchikey) == reference.lookup_connectivity(s.inchikey)
        compound_id = hits[0].compound_id
        assert kb.get_compound(compound_id) == reference.get_compound(compound_id)
        links = sorted(
            map(tuple, map(vars, kb.reaction_links([compound_id])))
        )  # no order is promised
        assert links == sorted(map(tuple, map(vars, reference.reaction_links([compound_id]))))


def test_missing_records_are_not_found(kb):
    from chemground.errors import NotFoundError

    with pytest.raises(NotFoundError):
        kb.get_compound(10**9)
    with pytest.raises(NotFoundError):
        kb.get_reaction("no-such-reaction")
    assert kb.lookup_name("no such compound name") == []


@pytest.mark.parametrize(
    "query", ["B(O)O", "c1ccccc1C(=O)O", "[OX2H][BX3]", "C(=O)Cl", "[#7;R]", "c1ccncc1"]
)
def test_substructure_search_over_compounds_and_reaction_roles(kb, reference, query):
    mol = parse_substructure_query(query).mol
    expected = [
        c.id
        for c in reference.iter_compounds()
        if c.smiles and (m := Chem.MolFromSmiles(c.smiles)) is not None and m.HasSubstructMatch(mol)
    ]
    found = kb.search_compounds_by_structure(query, limit=10_000)
    assert [m.compound_id for m in found] == expected and expected
    assert kb.search_compounds_by_structure(query, limit=3) == found[:3]
    for roles in (["reactant"], ["product", "catalyst"], None):
        hits = kb.search_reactions_by_structure(query, roles=roles, limit=10_000)
        wanted = {Role(r) for r in roles} if roles else set(Role)
        expected_reactions = [
            r.id
            for r in reference.iter_reactions()
            if any(p.role in wanted and p.compound_id in set(expected) for p in r.participants)
        ]
        assert [h.reaction_id for h in hits] == expected_reactions
        assert all(p.role in wanted for h in hits for p in h.participants)


@pytest.mark.parametrize(
    ("query", "threshold"), [("Oc1ccccc1", 0.3), ("Brc1ccccc1", 0.4), ("CC(=O)OCC", 0.5)]
)
def test_similarity_search_matches_rdkit(kb, reference, query, threshold):
    found = kb.search_compounds_by_structure(
        query, mode="similarity", threshold=threshold, limit=10_000
    )
    assert found == reference.search_compounds_by_structure(
        query, mode="similarity", threshold=threshold, limit=10_000
    )
    assert found and all(m.score >= threshold for m in found)
    hits = kb.search_reactions_by_structure(
        query, mode="similarity", roles=["reactant"], threshold=threshold, limit=25
    )
    assert hits == reference.search_reactions_by_structure(
        query, mode="similarity", roles=["reactant"], threshold=threshold, limit=25
    )


def test_exact_search_and_bad_queries(kb):
    assert [
        m.smiles
        for m in kb.search_compounds_by_structure("LFQSCWFLJHTTHZ-UHFFFAOYSA-N", mode="exact")
    ] == ["CCO"]
    solvents = kb.search_reactions_by_structure("CCO", mode="exact", roles=["solvent"], limit=5)
    assert solvents and all(
        p.role is Role.SOLVENT and p.smiles == "CCO" for h in solvents for p in h.participants
    )
    for bad in ("C1CC", "[C;X9", ""):
        with pytest.raises(StructureError):
            kb.search_compounds_by_structure(bad)


def test_text_search_finds_the_reaction(kb):
    ids = [reaction_id for reaction_id, _ in kb.search_reaction_text("Suzuki coupling", limit=50)]
    assert ids and all(kb.get_reaction(i).reaction_class for i in ids[:3])
    assert any("suzuki" in (kb.get_reaction(i).title or "").lower() for i in ids[:5])
    assert kb.search_reaction_text("!!!", limit=5) == []


def test_import_is_atomic_and_idempotent(kb, resolver, tmp_path):
    before = _counts(kb)
    bad = tmp_path / "bad.csv"
    bad.write_text(CSV_HEADER + ROWS[0] + BAD_ROW + ROWS[1], encoding="utf-8")
    with pytest.raises(ImportFileError):
        import_file(kb, bad, resolver=resolver)
    assert _counts(kb) == before  # nothing of the good rows was kept
    good = tmp_path / "good.csv"
    good.write_text(CSV_HEADER + "".join(ROWS), encoding="utf-8")
    summary = import_file(kb, good, resolver=resolver)
    assert (summary.reactions_added, summary.reactions_flagged) == (2, 0)
    after = _counts(kb)
    again = import_file(kb, good, resolver=resolver)
    assert again.reactions_added == 0 and again.already_imported and _counts(kb) == after
    r = kb.get_reaction("c1")
    assert [p.role for p in r.participants] == [
        Role.REACTANT,
        Role.REACTANT,
        Role.PRODUCT,
        Role.SOLVENT,
    ]
    assert r.conditions.temperature_c == 100.0 and r.yield_percent == 88.0
    kb.update_structure_index()
    hits = kb.search_reactions_by_structure("COc1ccc(-c2ccccc2)cc1", roles=["product"], limit=100)
    assert "c1" in [h.reaction_id for h in hits]


def test_transaction_rolls_back_everything(kb):
    before = _counts(kb)
    reaction = Reaction(
        id="tx-1",
        participants=[Participant(role=Role.REACTANT, name="x", unresolved_reason="test")],
        conditions=Conditions(),
    )
    with pytest.raises(RuntimeError), kb.transaction():
        kb.upsert_compound(Compound(common_name="contract test substance", kind="substance"))
        kb.add_reactions([reaction])
        raise RuntimeError("abort")
    assert _counts(kb) == before and not kb.lookup_name(normalize_name("contract test substance"))
    with kb.transaction():
        assert kb.add_reactions([reaction]) == ["tx-1"]
        assert kb.add_reactions([reaction]) == []  # an id already present is skipped
    assert kb.get_reaction("tx-1").participants[0].unresolved_reason == "test"


def test_upsert_merges_by_structure(kb):
    ethanol = kb.lookup_name("ethanol")[0]
    compound_id, created = kb.upsert_compound(
        Compound(
            smiles="CCO",
            inchikey="LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
            common_name="contract spirit",
            source="contract",
        )
    )
    assert (compound_id, created) == (ethanol.compound_id, False)
    assert kb.lookup_name(normalize_name("contract spirit"))[0].compound_id == ethanol.compound_id
    assert kb.upsert_compound(
        Compound(
            smiles="CCO",
            inchikey="LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
            common_name="contract spirit",
            source="contract",
        )
    ) == (ethanol.compound_id, False)


def test_readonly_refuses_writes(kb, request):
    location = kb.url if hasattr(kb, "url") else kb.path
    with open_kb(location, readonly=True) as readonly:
        assert readonly.stats().reactions == kb.stats().reactions
        with pytest.raises(ChemgroundError, match="read-only"):
            readonly.set_meta("x", "y")


def test_cli_migrate_then_search_stats_and_import_on_postgresql(
    postgres_server, small_kb_path, tmp_path
):
    import json

    from typer.testing import CliRunner

    from chemground.cli import app

    url = postgres_server.new_database()
    runner = CliRunner()
    moved = runner.invoke(
        app, ["kb", "migrate", "--from", str(small_kb_path), "--to", url, "--json"]
    )
    assert moved.exit_code == 0, moved.output + str(moved.exception)
    counts = json.loads(moved.stdout)
    with SQLiteKB(small_kb_path, readonly=True) as source:
        assert (counts["compounds"], counts["reactions"]) == (
            source.stats().compounds,
            source.stats().reactions,
        )
        expected = source.search_reactions_by_structure("B(O)O", roles=["reactant"], limit=10)
    again = runner.invoke(app, ["kb", "migrate", "--from", str(small_kb_path), "--to", url])
    assert again.exit_code != 0 and "already holds" in again.output + str(again.exception)

    found = runner.invoke(
        app,
        [
            "--kb",
            url,
            "search",
            "--substructure",
            "B(O)O",
            "--role",
            "reactant",
            "--json",
            "-n",
            "10",
        ],
    )
    assert found.exit_code == 0, found.output + str(found.exception)
    assert [r["reaction_id"] for r in json.loads(found.stdout)["results"]] == [
        m.reaction_id for m in expected
    ]

    csv = tmp_path / "more.csv"
    csv.write_text(CSV_HEADER + "".join(ROWS), encoding="utf-8")
    imported = runner.invoke(app, ["--kb", url, "kb", "import", str(csv), "--json"])
    assert imported.exit_code == 0, imported.output + str(imported.exception)
    assert json.loads(imported.stdout.splitlines()[-1])["reactions_added"] == 2
    stats = runner.invoke(app, ["--kb", url, "kb", "stats", "--json"])
    assert json.loads(stats.stdout)["reactions"] == counts["reactions"] + 2


def test_named_queries_answer_as_the_source(kb, reference):
    assert kb.reaction_state() == reference.reaction_state()
    assert kb.records_state() == reference.records_state()
    assert kb.reaction_classes() == reference.reaction_classes()
    for require in ("any", "temperature", "yield", "time", "solvent", "catalyst"):
        assert kb.candidate_reaction_ids(require) == reference.candidate_reaction_ids(require)
    for require in ("structure", "description", "name_conversion"):
        assert kb.candidate_compound_ids(require) == reference.candidate_compound_ids(require)
    assert kb.max_compound_id() == reference.max_compound_id()
    ethanol = kb.lookup_name("ethanol")[0]
    cid = kb.get_compound(ethanol.compound_id).pubchem_cid
    assert cid and kb.compound_id_for_pubchem_cid(cid) == ethanol.compound_id
    assert kb.compound_id_for_pubchem_cid(-1) is None
    norms = ["ethanol", "thf", "no such name"]
    assert kb.name_ranks(norms) == reference.name_ranks(
        norms
    ) and "no such name" not in kb.name_ranks(norms)
    assert kb.all_name_norms() == reference.all_name_norms()
    assert kb.compound_ids_by_formula() == reference.compound_ids_by_formula()
    first = ("chemground_abbreviations",)
    assert kb.compound_names_for_index(first) == reference.compound_names_for_index(first)
    assert sorted(kb.participant_names()) == sorted(reference.participant_names())
    assert (
        kb.has_chunks() is False
        and kb.table_exists("compounds")
        and not kb.table_exists("nonexistent")
    )


def test_flags_and_removing_records(kb):
    reaction_id = kb.candidate_reaction_ids("solvent")[0]
    solvent = next(p for p in kb.get_reaction(reaction_id).participants if p.role is Role.SOLVENT)
    kb.set_reaction_flags(reaction_id, ["checked by the contract"])
    assert kb.reaction_flags(reaction_id) == ["checked by the contract"]
    assert reaction_id not in kb.candidate_reaction_ids(
        "solvent"
    )  # flagged reactions are no candidates
    before = kb.stats()
    kb.remove_records([reaction_id], [solvent.compound_id])
    after = kb.stats()
    assert (after.reactions, after.compounds) == (before.reactions - 1, before.compounds - 1)
    assert not kb.has_reaction(reaction_id) if hasattr(kb, "has_reaction") else True
    assert kb.search_compounds_by_structure(solvent.smiles, mode="exact") == []
    others = kb.reaction_links([solvent.compound_id])
    assert others == []  # the links to the removed compound are gone, the reactions kept


def test_ask_answers_the_same_on_both_backends(
    postgres_server, pg_template, small_kb_path, opsin, tmp_path
):
    """Every table-RAG benchmark question (the benchmark's own items: 50 per task and input
    format, seed 0, and its typo-perturbed variant) and route questions (answered from the
    reaction graph, which each backend builds from its own KB) get the same ``ask --json``
    answers, evidence ids and timings aside, from the SQLite KB and its PostgreSQL copy."""
    from chemground.bench.generate import generate
    from chemground.qa_factory import build_qa
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    with SQLiteKB(small_kb_path, readonly=True) as source:
        items = generate(source, per_task=50, seed=0)
        items += generate(source, per_task=50, seed=0, formats=("iupac",), perturb=1.0)
    assert len({item.task for item in items}) == 8 and len(items) >= 1000
    questions = [(item.id, item.question) for item in items]
    questions += [(f"route-{i}", q) for i, q in enumerate(ROUTE_QUESTIONS)]
    url = postgres_server.new_database(template=pg_template)
    answers = {}
    for name, location in (("sqlite", small_kb_path), ("postgresql", url)):
        workspace = Workspace(
            Settings(kb={"path": location}, cache_dir=tmp_path / name), readonly=True, opsin=opsin
        )
        qa = build_qa(workspace)
        out = []
        for item_id, question in questions:
            try:
                data = qa.ask(question, id=item_id).to_json()
            except ChemgroundError as error:
                data = {"error": str(error)}
            out.append(_without_ids_and_timings(data))
        answers[name] = out
        workspace.close()
    differing = [
        question
        for (_, question), a, b in zip(
            questions, answers["sqlite"], answers["postgresql"], strict=True
        )
        if a != b
    ]
    assert not differing, differing[:5]
    routes = answers["postgresql"][-len(ROUTE_QUESTIONS) :]
    assert all(a["method"] == "routes" and a["evidence"] for a in routes), routes
    assert "aniline" in json.dumps(routes[0]).lower()
    assert not any("error" in a for a in answers["postgresql"])


def test_build_into_an_empty_database_and_drop(postgres_server, small_kb):
    from chemground.kb.backends import build_kb_at, drop_kb, kb_exists
    from tests.conftest import SMALL_DICTIONARY

    url = postgres_server.new_database()
    assert not kb_exists(url)
    with build_kb_at(url, dictionary_files=SMALL_DICTIONARY) as built:
        assert _counts(built) == _counts(small_kb)
        assert built.get_meta("dictionary") == small_kb.get_meta("dictionary")
    assert kb_exists(url)
    with pytest.raises(ChemgroundError, match="already holds"):
        build_kb_at(url, dictionary_files=SMALL_DICTIONARY)
    drop_kb(url)
    assert not kb_exists(url)


def test_legacy_sql_through_execute_works_on_both(kb):
    """The named methods shared by both stores send SQLite-style SQL; portable SQL works."""
    rows = kb.execute(
        "SELECT smiles FROM compounds WHERE id IN (?, ?) AND smiles NOT LIKE '%.%' ORDER BY id",
        (1, 2),
    ).fetchall()
    assert len(rows) == 2


def _paper(kb, suffix="", text=None):
    """A document of two chunks: the first names ethanol, the second a variant of its
    skeleton (same first InChIKey block), with the mentions a finder would report."""
    ethanol = kb.lookup_name("ethanol")[0]
    key = ethanol.structure.inchikey
    variant = key[:14] + "-ABCDEFGHIJ-N"
    text = text or "Ethanol was added. The mixture was stirred in ethanol-d at 80 °C."
    document_id = f"doc-contract{suffix}"
    document = Document(
        document_id,
        (suffix or "a").ljust(64, "0"),
        "/papers/contract.txt",
        "text",
        text,
        title="Contract paper",
        metadata={"n": 1},
        added_at=f"2026-01-01T00:00:0{len(suffix)}+00:00",
    )
    split = text.index(". ") + 1
    chunks = [
        Chunk(f"{document_id}#0", document_id, 0, 0, split, text[:split], page=1),
        Chunk(f"{document_id}#1", document_id, 1, split + 1, len(text), text[split + 1 :], page=1),
    ]
    second = chunks[1].text.index("ethanol")
    deuterated = dataclasses.replace(ethanol.structure, inchikey=variant)
    mentions = [
        [
            Mention(
                "Ethanol",
                0,
                7,
                "common_name",
                structure=ethanol.structure,
                compound_id=ethanol.compound_id,
                resolved_by="dictionary",
            )
        ],
        [Mention("ethanol-d", second, second + 9, "iupac", deuterated, resolved_by="opsin")],
    ]
    return document, chunks, mentions, key, variant


def test_papers_are_stored_read_and_removed_the_same(kb):
    from chemground.errors import NotFoundError
    from chemground.kb.papers import MentionHit

    store = LitStore(kb)
    assert store.counts() == (0, 0) and kb.has_chunks() is False and kb.has_paper_tables()
    before = store.generation()
    document, chunks, mentions, key, variant = _paper(kb)
    store.insert(document, chunks, mentions)
    assert store.counts() == (1, 2) and kb.has_chunks() and store.generation() != before
    assert (kb.stats().documents, kb.stats().chunks) == (1, 2)
    assert store.find_by_sha(document.sha256) == document and store.find_by_sha("0") is None
    assert store.find_by_path(document.path) == store.documents() == [document]
    assert store.document(document.id) == document
    assert store.document_titles([document.id, "doc-none"]) == {
        document.id: (document.title, document.path)
    }
    assert list(kb.document_texts()) == [(document.id, document.title, document.text)]
    assert store.chunks_of(document.id) == list(store.iter_chunks(batch_size=1)) == chunks
    assert store.chunk(chunks[1].id) == chunks[1]
    assert store.chunks([chunks[1].id, "none", chunks[0].id]) == {c.id: c for c in chunks}
    offset = chunks[1].text.index("ethanol")
    assert store.chunks_mentioning([key]) == [
        MentionHit(chunks[0].id, "Ethanol", key, True, 0),
        MentionHit(chunks[1].id, "ethanol-d", variant, False, offset),
    ]
    assert store.mentions_of(chunks[1].id) == [
        {
            "mention": "ethanol-d",
            "inchikey": variant,
            "compound_id": None,
            "char_start": chunks[1].start + offset,
            "char_end": chunks[1].start + offset + 9,
            "source": "opsin",
        }
    ]

    newer, new_chunks, new_mentions, _, _ = _paper(kb, "b", "New text. Stirred in ethanol today.")
    broken = [new_chunks[0], Chunk(new_chunks[1].id, newer.id, 1, 0, 3, "bad")]
    with pytest.raises(ValueError, match="does not match"):
        store.insert(newer, broken, new_mentions, replace=[document.id])
    assert store.counts() == (1, 2)  # the failed version stored nothing and removed nothing
    store.insert(newer, new_chunks, new_mentions, replace=[document.id])
    assert store.find_by_path(document.path) == [newer] and store.counts() == (1, 2)
    assert [h.chunk_id for h in store.chunks_mentioning([key])] == [c.id for c in new_chunks]
    store.delete(newer.id)
    assert store.counts() == (0, 0) and store.chunks_mentioning([key]) == []
    with pytest.raises(NotFoundError):
        store.delete(newer.id)
    with pytest.raises(NotFoundError):
        store.chunk(chunks[0].id)


def test_graph_rows_answer_as_the_source(kb, reference):
    assert kb.import_count() == reference.import_count()
    rows = kb.reaction_rows_after(0)
    assert rows == reference.reaction_rows_after(0) and len(rows) == reference.stats().reactions
    middle = rows[len(rows) // 2].rowid
    assert kb.reaction_rows_after(middle) == reference.reaction_rows_after(middle)
    participants = kb.participant_rows_after(0)
    assert participants == reference.participant_rows_after(0)
    assert kb.participant_rows_after(middle) == reference.participant_rows_after(middle)
    ids = {p.compound_id for p in participants if p.compound_id is not None}
    molecules = kb.molecule_rows([*ids, 10**9])
    assert molecules == reference.molecule_rows(ids) and len(molecules) == len(ids)


def test_migrate_copies_the_papers(postgres_server, small_kb_path, tmp_path):
    with SQLiteKB(copy_kb(small_kb_path, tmp_path)) as source:
        document, chunks, mentions, key, _ = _paper(source)
        LitStore(source).insert(document, chunks, mentions)
        url = postgres_server.new_database()
        counts = migrate(source, url)
        assert (counts["documents"], counts["chunks"], counts["chunk_mentions"]) == (1, 2, 2)
        with open_kb(url) as copy:
            assert copy.list_documents() == source.list_documents()
            assert list(copy.iter_chunks()) == list(source.iter_chunks())
            assert copy.chunks_mentioning([key]) == source.chunks_mentioning([key])
            assert LitStore(copy).generation() == LitStore(source).generation()
            newer, new_chunks, new_mentions, _, _ = _paper(copy, "b", "New. Made in ethanol.")
            LitStore(copy).insert(newer, new_chunks, new_mentions)  # rows numbered after the copy
            assert [c.id for c in copy.iter_chunks()] == [c.id for c in chunks + new_chunks]


def test_papers_answer_the_same_on_both_backends(
    postgres_server, pg_template, small_kb_path, tmp_path
):
    """``lit add``, ``lit list``, ``lit search``, ``lit ask`` and ``lit show`` give the same
    output (timings aside) on the PostgreSQL KB as on the SQLite KB: ids, mentions, ranking."""
    from typer.testing import CliRunner

    from chemground.cli import app
    from tests.lit.papers import write_corpus

    papers = write_corpus(tmp_path / "papers")
    files = [str(papers[kind]) for kind in ("pdf", "xml", "text", "html")]
    locations = {
        "sqlite": str(copy_kb(small_kb_path, tmp_path)),
        "postgresql": postgres_server.new_database(template=pg_template),
    }
    steps = [
        ["lit", "add", *files, "--no-dense", "--json"],
        ["lit", "list", "--json"],
        ["lit", "search", "Which metal gave toluene as a side product?", "--method", "bm25"],
        ["lit", "search", "aspirin", "--method", "mentions"],
        ["lit", "ask", "How is benzoic acid made from toluene?", "--method", "bm25"],
    ]
    runner = CliRunner()

    def run(location, step):
        result = runner.invoke(
            app, ["--kb", location, *step, *(["--json"] * (step[-1] != "--json"))]
        )
        assert result.exit_code == 0, (location, step, result.output, result.exception)
        lines = [line for line in result.stdout.splitlines() if line.startswith(("{", "["))]
        return _without_ids_and_timings(json.loads(lines[-1]))

    seen = {}
    for name, location in locations.items():
        outputs = [run(location, step) for step in steps]
        outputs[0].pop("index", None)  # where the index was written (one folder per KB)
        for document in outputs[1]:  # listed oldest first: the order of the clock's seconds
            document.pop("added_at", None)
        outputs[1].sort(key=lambda document: document["id"])
        outputs.append(run(location, ["lit", "show", outputs[1][0]["id"] + "#0"]))
        with open_kb(location) as kb:
            outputs.append(LitStore(kb).counts())
        seen[name] = outputs
    for step, (a, b) in enumerate(zip(seen["sqlite"], seen["postgresql"], strict=True)):
        assert a == b, step
    assert seen["postgresql"][-1][0] == 4 and seen["postgresql"][3]["evidence"]


def test_rebuilding_a_sqlite_kb_keeps_other_files_and_the_old_kb_until_the_new_is_built(
    tmp_path, monkeypatch
):
    """'kb build --force' deleted every file whose name began with the KB's ('kb.sqlite.bak',
    notes), crashed on the graph folder 'kb.sqlite.graph', and dropped the old KB before
    building: an interrupted rebuild lost the reactions and papers imported into it."""
    from chemground.kb import build as build_module
    from chemground.kb.backends import build_kb_at, drop_kb
    from tests.conftest import SMALL_DICTIONARY

    path = tmp_path / "kb.sqlite"
    build_kb_at(path, dictionary_files=SMALL_DICTIONARY).close()
    beside = [tmp_path / "kb.sqlite.bak", tmp_path / "kb.sqlite-notes.txt"]
    for other in beside:
        other.write_text("keep me")
    (tmp_path / "kb.sqlite.graph").mkdir()
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise KeyboardInterrupt  # the user stops the rebuild half way

    monkeypatch.setattr(build_module, "seed_dictionary", broken)
    with pytest.raises(KeyboardInterrupt):
        build_kb_at(path, replace=True, dictionary_files=SMALL_DICTIONARY)
    assert path.read_bytes() == before  # the old KB, whole
    monkeypatch.undo()

    with build_kb_at(path, replace=True, dictionary_files=SMALL_DICTIONARY) as rebuilt:
        assert rebuilt.stats().compounds > 0
    assert all(other.read_text() == "keep me" for other in beside)
    assert (tmp_path / "kb.sqlite.graph").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["kb.sqlite", "kb.sqlite.bak", "kb.sqlite-notes.txt", "kb.sqlite.graph"]
    )
    drop_kb(path)
    assert not path.exists() and all(other.exists() for other in beside)


def test_a_kb_path_that_cannot_work_says_what_to_do(tmp_path, monkeypatch, small_kb_path):
    """A folder given as --kb was 'sqlite3.OperationalError: unable to open database file'; a
    good KB in a read-only folder was 'not a chemground knowledge base: attempt to write a
    readonly database'."""
    import os
    import shutil
    from pathlib import Path

    from chemground.errors import ChemgroundError
    from chemground.kb.sqlite_store import SQLiteKB

    with pytest.raises(ChemgroundError, match="is a folder; the KB is a file"):
        SQLiteKB(tmp_path)
    copy = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, copy)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != tmp_path and real_access(p, mode))
    with pytest.raises(ChemgroundError, match="its folder is read-only"):
        SQLiteKB(copy)
    with SQLiteKB(copy, readonly=True) as kb:  # reading needs no write access
        assert kb.stats().compounds > 0
