"""Structure search on the SQLite KB: substructure (compounds, reaction roles), similarity, exact.

Every expected hit is checked against RDKit directly over the same KB, so the pre-screen can
never silently drop a true match.
"""

from __future__ import annotations

import json
import time

import pytest
from rdkit import Chem
from typer.testing import CliRunner

from chemground.chem.fingerprints import morgan_fingerprint, tanimoto
from chemground.errors import InputLimitError, StructureError, StructureLimitError
from chemground.kb.records import Role
from chemground.kb.structure_search import (
    MAX_QUERY_ATOMS,
    parse_substructure_query,
    search_structures,
)


def _brute_force(kb, query_mol):
    return [
        c.id
        for c in kb.iter_compounds()
        if c.smiles
        and (m := Chem.MolFromSmiles(c.smiles)) is not None
        and m.HasSubstructMatch(query_mol)
    ]


@pytest.mark.parametrize("query", ["B(O)O", "c1ccccc1C(=O)O", "[OX2H][BX3]", "C(=O)Cl", "[#7;R]"])
def test_substructure_over_compounds_matches_rdkit_brute_force(small_kb, query):
    parsed = parse_substructure_query(query)
    expected = _brute_force(small_kb, parsed.mol)
    found = small_kb.search_compounds_by_structure(query, limit=10_000)
    assert [m.compound_id for m in found] == expected  # KB order, nothing dropped by the pre-screen
    assert expected, query


def test_substructure_over_reaction_participants_by_role(small_kb):
    hits = small_kb.search_reactions_by_structure("B(O)O", roles=["reactant"], limit=100)
    assert hits and all(h.reaction_id.startswith("starter:") for h in hits)
    for hit in hits:
        reaction = small_kb.get_reaction(hit.reaction_id)
        reactant_ids = {p.compound_id for p in reaction.participants if p.role is Role.REACTANT}
        for p in hit.participants:
            assert p.role is Role.REACTANT and p.compound_id in reactant_ids and "B" in p.smiles
    # every reaction with a boronic-acid reactant is found (brute force over the reactions)
    query = parse_substructure_query("B(O)O").mol
    expected = [
        r.id
        for r in small_kb.iter_reactions()
        if any(
            p.role is Role.REACTANT
            and p.smiles
            and Chem.MolFromSmiles(p.smiles).HasSubstructMatch(query)
            for p in r.participants
        )
    ]
    assert [h.reaction_id for h in hits] == expected
    # the same pattern as a product finds none of the Suzuki couplings
    as_product = {
        h.reaction_id for h in small_kb.search_reactions_by_structure("B(O)O", roles=["product"])
    }
    assert not as_product & set(expected)


def test_similarity_with_threshold_is_sorted_and_exact(small_kb):
    hits = small_kb.search_compounds_by_structure(
        "Oc1ccccc1", mode="similarity", threshold=0.5, limit=50
    )
    assert hits[0].smiles == "Oc1ccccc1" and hits[0].score == 1.0
    assert all(h.score >= 0.5 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for h in hits:
        assert h.score == pytest.approx(
            tanimoto(morgan_fingerprint("Oc1ccccc1"), morgan_fingerprint(h.smiles)), abs=1e-6
        )
    stricter = small_kb.search_compounds_by_structure(
        "Oc1ccccc1", mode="similarity", threshold=0.55, limit=50
    )
    assert {h.compound_id for h in stricter} < {h.compound_id for h in hits}


def test_similarity_over_reactions_orders_by_best_participant(small_kb):
    hits = small_kb.search_reactions_by_structure(
        "Brc1ccccc1", mode="similarity", roles=["reactant"], threshold=0.4, limit=10
    )
    assert hits and hits[0].score == 1.0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(p.role is Role.REACTANT and p.score >= 0.4 for h in hits for p in h.participants)


def test_exact_by_inchikey_or_smiles(small_kb):
    by_key = small_kb.search_compounds_by_structure("LFQSCWFLJHTTHZ-UHFFFAOYSA-N", mode="exact")
    by_smiles = small_kb.search_compounds_by_structure("OCC", mode="exact")
    assert [m.smiles for m in by_key] == ["CCO"] and by_key == by_smiles
    reactions = small_kb.search_reactions_by_structure("CCO", mode="exact", roles=["solvent"])
    assert reactions and all(
        p.smiles == "CCO" and p.role is Role.SOLVENT for r in reactions for p in r.participants
    )
    assert small_kb.search_compounds_by_structure("ZZZZZZZZZZZZZZ-ZZZZZZZZSA-N", mode="exact") == []


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("", StructureError),
        ("C1CC", StructureError),
        ("[C;X9", StructureError),
        ("C" * (MAX_QUERY_ATOMS + 1), StructureLimitError),
        ("C" * 5000, StructureLimitError),
        ("CC\x00C", StructureLimitError),
        ("[$(C)]" * 20, StructureLimitError),
    ],
)
def test_bad_queries_fail_fast_with_a_clear_error(small_kb, query, error):
    started = time.perf_counter()
    with pytest.raises(error):
        small_kb.search_compounds_by_structure(query)
    assert time.perf_counter() - started < 1.0


def test_bad_limits_thresholds_roles_and_modes(small_kb):
    with pytest.raises(InputLimitError):
        small_kb.search_compounds_by_structure("CCO", limit=0)
    with pytest.raises(InputLimitError):
        small_kb.search_compounds_by_structure("CCO", mode="similarity", threshold=1.5)
    with pytest.raises(StructureError, match="role"):
        small_kb.search_reactions_by_structure("CCO", roles=["spectator"])
    with pytest.raises(ValueError, match="mode"):
        small_kb.search_compounds_by_structure("CCO", mode="fuzzy")


def test_new_compounds_are_found_after_an_insert(kb_copy):
    from chemground.chem.structure import structure_from_smiles
    from chemground.kb.records import Compound

    before = kb_copy.search_compounds_by_structure("C[Se]B(O)O")
    s = structure_from_smiles("OB(O)[Se]C1CCCCC1")
    kb_copy.upsert_compound(
        Compound(
            smiles=s.smiles,
            inchikey=s.inchikey,
            formula=s.formula,
            molecular_weight=s.molecular_weight,
            common_name="test selenoboronate",
        )
    )
    after = kb_copy.search_compounds_by_structure("C[Se]B(O)O")
    assert before == [] and [m.name for m in after] == ["test selenoboronate"]


def test_python_api_and_cli(small_kb_path, small_kb, monkeypatch):
    monkeypatch.setenv("CHEMGROUND_KB", str(small_kb_path))
    from chemground.settings import get_settings

    get_settings.cache_clear()
    api = search_structures("B(O)O", roles=["reactant"], limit=5)
    assert api == small_kb.search_reactions_by_structure("B(O)O", roles=[Role.REACTANT], limit=5)

    from chemground.cli import app

    result = CliRunner().invoke(
        app, ["search", "--substructure", "B(O)O", "--role", "reactant", "--json", "-n", "5"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["target"] == "reactions"
    assert [r["reaction_id"] for r in data["results"]] == [m.reaction_id for m in api]
    assert all(r["title"] for r in data["results"])
    bad = CliRunner().invoke(app, ["search", "--substructure", "C1CC"])
    assert bad.exit_code != 0 and "invalid substructure query" in bad.output + str(bad.exception)


def test_a_pathological_substructure_pattern_stops_at_the_time_limit():
    """'[#6]1~' + 48 x '[#6]' + '~[#7]1' matched one fused polycyclic arene for minutes (no
    output, no end): a search now stops with a clear error once its time is up, also inside
    one molecule's matching for a large pattern."""
    import time

    from rdkit import Chem

    from chemground.errors import InputLimitError
    from chemground.kb.structure_search import parse_substructure_query, substructure_matcher

    pattern = "[#6]1~" + "~".join(["[#6]"] * 48) + "~[#7]1"
    query = parse_substructure_query(pattern, "smarts").mol
    arene = Chem.MolFromSmiles(
        "c1ccc2c(c1)cc1ccc3cc4ccccc4c4c5cc6c(cc5c2c1c34)c1c2ccccc2cc2ccc3cc4ccccc4c6c3c21"
    )
    matches = substructure_matcher(query, seconds=0.5)
    started = time.monotonic()
    with pytest.raises(InputLimitError, match=r"stopped after 0\.5 s"):
        matches(arene)
    assert time.monotonic() - started < 5
    small = substructure_matcher(Chem.MolFromSmarts("c1ccccc1"), seconds=60)
    assert small(arene) and not small(Chem.MolFromSmiles("CCO"))
