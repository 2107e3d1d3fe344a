"""Importing the real patent reaction data in ../shared/data/reactions (skips without it)."""

from __future__ import annotations

import csv
import re

import pytest
from ord_schema import message_helpers
from ord_schema.proto import dataset_pb2, reaction_pb2

from chemground.chem.names import NameResolver
from chemground.chem.structure import structure_from_smiles
from chemground.kb.importers import import_file
from chemground.kb.importers.reaction_smiles import split_reaction_smiles
from chemground.kb.records import Role, role_changes_of
from tests.support.kbstate import kb_digest

SMALLEST_SHARD = (
    "ord_dataset-cb9f452f8418479ab5fd99c835dbe015.pb.gz"  # uspto-grants-1979_09, 755 reactions
)


def _canonical(smiles):
    return structure_from_smiles(smiles).smiles


def test_ord_shard_imports_and_round_trips(shared_data, kb_copy, opsin):
    path = shared_data / "reactions" / "ord_uspto_grants" / "original_pb" / SMALLEST_SHARD
    resolver = NameResolver(kb_copy, opsin)
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.rows_read == 755 and summary.reactions_added == 755 and not summary.errors
    assert summary.compounds_added > 500  # patent products are mostly new compounds
    dataset = message_helpers.load_message(path, dataset_pb2.Dataset)
    checked = 0
    for source in list(dataset.reactions)[:200]:
        stored = kb_copy.get_reaction(source.reaction_id)
        assert stored.description == source.notes.procedure_details
        refiled = role_changes_of(stored.provenance)  # reagents the source filed as reactants
        assert all(c["from"] == "reactant" for c in refiled.values())
        as_given = [
            (refiled[i]["from"] if i in refiled else p.role.value, p)
            for i, p in enumerate(stored.participants)
        ]
        assert stored.source == source.provenance.patent
        for key in source.inputs:
            for component in source.inputs[key].components:
                role = reaction_pb2.ReactionRole.ReactionRoleType.Name(
                    component.reaction_role
                ).lower()
                name = message_helpers.get_compound_name(component)
                smiles = message_helpers.get_compound_smiles(component)
                match = [p for given, p in as_given if given == role and p.name == name]
                assert match, (source.reaction_id, role, name)
                if smiles:
                    assert match[0].smiles == _canonical(smiles)
        products = [p for o in source.outcomes for p in o.products]
        assert len(stored.products) == len(products)
        for product, mine in zip(products, stored.products):
            if message_helpers.get_compound_smiles(product):
                assert mine.smiles == _canonical(message_helpers.get_compound_smiles(product))
        if source.conditions.temperature.setpoint.units == reaction_pb2.Temperature.CELSIUS:
            assert stored.conditions.temperature_c == pytest.approx(
                source.conditions.temperature.setpoint.value
            )
        for outcome in source.outcomes:
            if outcome.reaction_time.units == reaction_pb2.Time.HOUR:
                assert stored.conditions.time_h == pytest.approx(outcome.reaction_time.value)
        yields = [
            m.percentage.value
            for o in source.outcomes
            for p in o.products
            for m in p.measurements
            if m.type == reaction_pb2.ProductMeasurement.YIELD and m.HasField("percentage")
        ]
        if yields:
            assert stored.yield_percent in yields
        checked += 1
    assert checked == 200
    before = kb_digest(kb_copy)
    again = import_file(kb_copy, path, resolver=resolver)
    assert again.reactions_added == 0 and again.already_imported
    assert kb_digest(kb_copy) == before


def test_uspto_revisit_reaction_smiles_slice(shared_data, kb_copy, opsin, tmp_path):
    source = shared_data / "reactions" / "uspto_revisit" / "input.csv"
    with open(source, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))[:60]
    sliced = tmp_path / "uspto_revisit_slice.csv"
    with open(sliced, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    summary = import_file(
        kb_copy, sliced, resolver=NameResolver(kb_copy, opsin), dataset="uspto_revisit"
    )
    assert (
        summary.format == "reaction-smiles"
        and summary.reactions_added == 60
        and summary.reactions_flagged == 0
    )
    stored = {r.description: r for r in kb_copy.iter_reactions() if r.dataset == "uspto_revisit"}
    for row in rows:
        reaction = stored[row["paragraph"]]
        assert reaction.title == row["title"] and not re.search(r":\d+\]", reaction.reaction_smiles)
        reactants, agents, products = split_reaction_smiles(row["Lowe_smiles"])
        assert [p.smiles for p in reaction.products] == [_canonical(s) for s in products]
        refiled = role_changes_of(reaction.provenance)
        given = [
            p.smiles
            for i, p in enumerate(reaction.participants)
            if p.role is Role.REACTANT or i in refiled
        ]
        assert [c["from"] for c in refiled.values()] == ["reactant"] * len(refiled)
        assert given == [_canonical(s) for s in reactants]
        assert len(reaction.participants) == len(reactants) + len(agents) + len(products)
        assert all(p.compound_id is not None for p in reaction.participants)
