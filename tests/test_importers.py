"""Importers: every format round-trips; bad input is reported precisely; imports are atomic
and idempotent."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ord_schema import message_helpers
from ord_schema.proto import dataset_pb2, reaction_pb2
from rdkit import Chem

from chemground.chem.names import NameResolver
from chemground.errors import ImportFileError
from chemground.kb.importers import detect_format, import_file
from chemground.kb.importers.base import is_generic_name
from chemground.kb.importers.reaction_smiles import split_reaction_smiles
from chemground.kb.records import Role
from tests.support.kbstate import kb_digest

CSV_HEADER = "id,source,text,reactants,reactants_smiles,products,products_smiles,solvents,catalysts,temperature,time,yield\n"  # noqa: E501 - test data
GOOD_ROWS = [
    'h1,US1234567,"Benzaldehyde and benzohydrazide were refluxed in '
    'ethanol.",benzaldehyde;benzohydrazide,'
    "O=Cc1ccccc1;NNC(=O)c1ccccc1,N'-benzylidenebenzohydrazide,O=C(NN=Cc1ccccc1)c1ccccc1,ethanol,acetic acid,78 °C,2 h,92%\n",  # noqa: E501 - test data
    'h2,US7654321,"Esterification.",acetic acid;ethanol,,ethyl acetate,,,sulfuric '
    "acid,reflux,overnight,65\n",
]


@pytest.fixture
def resolver(kb_copy, opsin):
    return NameResolver(kb_copy, opsin)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_round_trip_names_smiles_roles_conditions_yield(kb_copy, resolver, tmp_path):
    path = write(tmp_path / "reactions.csv", CSV_HEADER + "".join(GOOD_ROWS))
    summary = import_file(kb_copy, path, resolver=resolver)
    assert (summary.rows_read, summary.reactions_added, summary.reactions_flagged) == (2, 2, 0)
    r = kb_copy.get_reaction("h1")
    assert r.source == "US1234567" and r.description.startswith("Benzaldehyde")
    assert [(p.role, p.name) for p in r.participants] == [
        (Role.REACTANT, "benzaldehyde"),
        (Role.REACTANT, "benzohydrazide"),
        (Role.PRODUCT, "N'-benzylidenebenzohydrazide"),
        (Role.SOLVENT, "ethanol"),
        (Role.CATALYST, "acetic acid"),
    ]
    assert r.products[0].smiles == "O=C(NN=Cc1ccccc1)c1ccccc1"
    assert (r.conditions.temperature_c, r.conditions.time_h, r.yield_percent) == (78.0, 2.0, 92.0)
    ethanol_id = kb_copy.lookup_name("ethanol")[0].compound_id
    assert r.solvents[0].compound_id == ethanol_id  # linked to the dictionary record
    product = kb_copy.get_compound(r.products[0].compound_id)
    assert (
        "N'-benzylidenebenzohydrazide" in product.all_names()
    )  # new compound keeps the source's name
    r2 = kb_copy.get_reaction("h2")  # names only: resolved through the dictionary
    assert r2.products[0].smiles == "CCOC(C)=O"
    assert r2.conditions.temperature_c is None and r2.conditions.temperature_text == "reflux"
    assert r2.conditions.time_h == 16.0 and r2.yield_percent == 65.0


def test_reimport_changes_nothing(kb_copy, resolver, tmp_path):
    path = write(tmp_path / "reactions.csv", CSV_HEADER + "".join(GOOD_ROWS))
    import_file(kb_copy, path, resolver=resolver)
    before = kb_digest(kb_copy)
    again = import_file(kb_copy, path, resolver=resolver)
    assert again.reactions_added == 0 and again.reactions_unchanged == 2 and again.already_imported
    assert kb_digest(kb_copy) == before


def test_bad_smiles_flags_the_reaction_with_rdkits_reason(kb_copy, resolver, tmp_path):
    row = 'b1,X,"text",benzaldehyde,C1CC,product,c1ccccc1C(=O)O,,,,,\n'
    path = write(tmp_path / "bad.csv", CSV_HEADER + row)
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_added == 1 and summary.reactions_flagged == 0  # the name rescued it
    r = kb_copy.get_reaction("b1")
    assert r.reactants[0].smiles == "O=Cc1ccccc1"
    row = 'b2,X,"text",zorblaxamine,C1CC,,c1ccccc1C(=O)O,,,,,\n'
    path = write(tmp_path / "bad2.csv", CSV_HEADER + row)
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_flagged == 1 and summary.unresolved == {"zorblaxamine": 1}
    flagged = kb_copy.get_reaction("b2")
    assert flagged.flags == ["unresolved reactant: zorblaxamine"]
    assert "unclosed ring" in flagged.reactants[0].unresolved_reason


def test_strict_skips_reactions_with_unresolved_participants(kb_copy, resolver, tmp_path):
    row = 's1,X,"text",zorblaxamine,,,c1ccccc1C(=O)O,,,,,\n'
    path = write(tmp_path / "strict.csv", CSV_HEADER + row + GOOD_ROWS[0])
    summary = import_file(kb_copy, path, resolver=resolver, strict=True)
    assert summary.reactions_skipped == 1 and summary.reactions_added == 1
    assert not kb_copy.has_reaction("s1")


def test_missing_columns_is_an_error_and_changes_nothing(kb_copy, resolver, tmp_path):
    before = kb_digest(kb_copy)
    path = write(tmp_path / "nocols.csv", "id,text\n1,hello\n")
    with pytest.raises(ImportFileError, match="missing columns"):
        import_file(kb_copy, path, resolver=resolver, fmt="csv")
    assert kb_digest(kb_copy) == before


def test_an_empty_reaction_is_a_bad_row_not_a_stored_reaction(kb_copy, resolver, tmp_path):
    """'>>' (an empty reaction SMILES) was stored as a reaction of nothing."""
    before = kb_digest(kb_copy)
    path = write(tmp_path / "empty.csv", "reaction_smiles\n>>\nCCO.CC(=O)O>>CCOC(C)=O\n")
    with pytest.raises(ImportFileError, match="line 2: the reaction names no reactant"):
        import_file(kb_copy, path, resolver=resolver)
    assert kb_digest(kb_copy) == before
    summary = import_file(kb_copy, path, resolver=resolver, skip_bad_rows=True)
    assert summary.reactions_added == 1


def test_bad_row_mid_file_rolls_back_everything(kb_copy, resolver, tmp_path):
    bad = 'x1,X,"text",benzaldehyde,,benzoic acid,,,,hot-ish,2 h,very good\n'
    path = write(tmp_path / "mid.csv", CSV_HEADER + GOOD_ROWS[0] + bad + GOOD_ROWS[1])
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError) as error:
        import_file(kb_copy, path, resolver=resolver)
    assert "line 3" in str(error.value) and "yield" in str(error.value)
    assert kb_digest(kb_copy) == before
    summary = import_file(kb_copy, path, resolver=resolver, skip_bad_rows=True)
    assert summary.reactions_added == 2 and summary.errors[0][0] == 3


def test_truncated_csv_row_is_reported_with_its_line(kb_copy, resolver, tmp_path):
    path = write(tmp_path / "trunc.csv", CSV_HEADER + GOOD_ROWS[0] + 'h3,US1,"cut off here",benzal')
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError, match="line 3: fewer fields"):
        import_file(kb_copy, path, resolver=resolver)
    assert kb_digest(kb_copy) == before


def test_jsonl_objects_strings_and_a_truncated_line(kb_copy, resolver, tmp_path):
    good = {
        "id": "j1",
        "source": "doc",
        "text": "Suzuki coupling.",
        "reactants": [
            {"name": "bromobenzene", "smiles": "Brc1ccccc1", "amount": "1.0 mmol"},
            "phenylboronic acid",
        ],
        "products": ["c1ccc(-c2ccccc2)cc1"],
        "catalysts": ["Pd(PPh3)4"],
        "solvents": ["toluene", "water"],
        "temperature_c": 90,
        "time_h": 12,
        "yield_percent": 88,
    }
    path = write(tmp_path / "r.jsonl", json.dumps(good) + "\n")
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_added == 1
    r = kb_copy.get_reaction("j1")
    assert r.reactants[0].amount == "1.0 mmol" and r.reactants[1].smiles == "OB(O)c1ccccc1"
    assert (
        r.products[0].smiles == "c1ccc(-c2ccccc2)cc1"
        and r.products[0].name == "c1ccc(-c2ccccc2)cc1"
    )
    assert r.conditions.temperature_c == 90 and r.yield_percent == 88
    bad = write(
        tmp_path / "bad.jsonl",
        json.dumps({**good, "id": "j2"}) + "\n" + '{"id": "j3", "reactants": ["benz',
    )
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError, match="line 2: not valid JSON"):
        import_file(kb_copy, bad, resolver=resolver)
    assert kb_digest(kb_copy) == before


def test_reaction_smiles_file_strips_maps_groups_fragments_and_splits_agents(
    kb_copy, resolver, tmp_path
):
    rxn = (
        "[Br:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1.[OH:8][B:9]([OH:10])[c:11]1[cH:12][cH:13][cH:14][cH:15][cH:16]1"
        ">C1CCOC1.[Pd].CCN(CC)CC>[c:2]1([c:11]2[cH:12][cH:13][cH:14][cH:15][cH:16]2)[cH:3][cH:4][cH:5][cH:6][cH:7]1"
    )
    salt = (
        "[NH2:1][CH3:2].[Cl:3][CH2:4][c:5]1[cH:6][cH:7][cH:8][cH:9][cH:10]1>>"
        "[CH3:2][NH2+:1][CH2:4][c:5]1[cH:6][cH:7][cH:8][cH:9][cH:10]1.[Cl-:3] |f:2.3|"
    )
    path = write(
        tmp_path / "patents.csv",
        'title,paragraph,Lowe_smiles\nbiphenyl,"Coupling '
        f'text",{rxn}\nsalt,"Alkylation","{salt}"\n',
    )
    assert detect_format(path) == "reaction-smiles"
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_added == 2
    reactions = sorted(kb_copy.iter_reactions(), key=lambda r: r.id)
    coupling = next(r for r in reactions if r.title == "biphenyl")
    assert ":" not in coupling.reaction_smiles
    roles = {p.smiles: p.role for p in coupling.participants}
    assert (
        roles["C1CCOC1"] == Role.SOLVENT
        and roles["[Pd]"] == Role.CATALYST
        and roles["CCN(CC)CC"] == Role.REAGENT
    )
    assert (
        coupling.products[0].smiles == "c1ccc(-c2ccccc2)cc1"
        and coupling.description == "Coupling text"
    )
    alkylation = next(r for r in reactions if r.title == "salt")
    assert [p.smiles for p in alkylation.products] == ["C[NH2+]Cc1ccccc1.[Cl-]"]


def test_split_reaction_smiles_rejects_non_reactions():
    with pytest.raises(ValueError, match="reactants>agents>products"):
        split_reaction_smiles("CCO")


def _ord_reaction(reaction_id: str) -> reaction_pb2.Reaction:
    reaction = reaction_pb2.Reaction(reaction_id=reaction_id)
    reaction.inputs["m1"].components.append(
        message_helpers.build_compound(
            smiles="OC(=O)c1ccccc1", name="benzoic acid", role="reactant", amount="1.22 g"
        )
    )
    reaction.inputs["m2"].components.append(
        message_helpers.build_compound(name="methanol", role="solvent")
    )
    reaction.inputs["m3"].components.append(
        message_helpers.build_compound(smiles="OS(=O)(=O)O", name="sulfuric acid", role="catalyst")
    )
    reaction.conditions.temperature.setpoint.value = 338.15
    reaction.conditions.temperature.setpoint.units = reaction_pb2.Temperature.KELVIN
    reaction.notes.procedure_details = (
        "Benzoic acid in methanol with sulfuric acid was refluxed for 3 hours."
    )
    reaction.provenance.patent = "US00000001"
    outcome = reaction.outcomes.add()
    outcome.reaction_time.value = 180
    outcome.reaction_time.units = reaction_pb2.Time.MINUTE
    product = outcome.products.add()
    product.identifiers.add(type="SMILES", value="COC(=O)c1ccccc1")
    product.identifiers.add(type="NAME", value="methyl benzoate")
    measurement = product.measurements.add(type="YIELD", details="PERCENTYIELD")
    measurement.percentage.value = 87.5
    return reaction


def test_ord_dataset_round_trip(kb_copy, resolver, tmp_path):
    dataset = dataset_pb2.Dataset(
        name="test-ord", reactions=[_ord_reaction("ord-1"), _ord_reaction("ord-2")]
    )
    path = tmp_path / "tiny.pb.gz"
    message_helpers.save_message(dataset, path)
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_added == 2 and summary.format == "ord"
    r = kb_copy.get_reaction("ord-1")
    assert r.source == "US00000001" and r.dataset == "ord:test-ord"
    assert r.conditions.temperature_c == pytest.approx(
        65.0
    ) and r.conditions.time_h == pytest.approx(3.0)
    assert r.yield_percent == 87.5 and r.provenance["yield_kind"] == "PERCENTYIELD"
    assert r.reactants[0].amount == "1.22 g"
    assert (
        r.solvents[0].name == "methanol" and r.solvents[0].smiles == "CO"
    )  # name-only component resolved
    assert r.products[0].smiles == "COC(=O)c1ccccc1"


def test_truncated_ord_file_is_an_error_and_changes_nothing(kb_copy, resolver, tmp_path):
    dataset = dataset_pb2.Dataset(name="t", reactions=[_ord_reaction("ord-x")])
    good = tmp_path / "good.pb.gz"
    message_helpers.save_message(dataset, good)
    data = good.read_bytes()
    truncated = tmp_path / "trunc.pb.gz"
    truncated.write_bytes(data[: len(data) // 2])
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError, match="not a readable ORD dataset"):
        import_file(kb_copy, truncated, resolver=resolver)
    assert kb_digest(kb_copy) == before


def test_sdf_adds_and_enriches_compounds(kb_copy, resolver, tmp_path):
    path = tmp_path / "compounds.sdf"
    writer = Chem.SDWriter(str(path))
    new = Chem.MolFromSmiles("CC1=CC(=O)N(N1)c1ccc(Cl)cc1Cl")
    new.SetProp("_Name", "test-pyrazolone")
    new.SetProp("PUBCHEM_IUPAC_NAME", "2-(2,4-dichlorophenyl)-5-methyl-1H-pyrazol-3-one")
    new.SetProp("Synonyms", "dichlorophenyl methylpyrazolone\nDCMP-1")
    new.SetProp("Definition", "A test pyrazolone.")
    writer.write(new)
    known = Chem.MolFromSmiles(
        "O=[N+]([O-])c1ccc(Cl)c([N+](=O)[O-])c1"
    )  # in the dictionary, no description yet
    known.SetProp("ChEBI Name", "1-chloro-2,4-dinitrobenzene")
    known.SetProp(
        "Definition", "A C-nitro compound that is chlorobenzene carrying two nitro groups."
    )
    writer.write(known)
    curated = Chem.MolFromSmiles(
        "CCO"
    )  # has a curated description, which an import does not overwrite
    curated.SetProp("Definition", "Some other text.")
    writer.write(curated)
    writer.close()
    summary = import_file(kb_copy, path, resolver=resolver)
    assert (summary.compounds_added, summary.descriptions_added) == (1, 2)
    hit = resolver.resolve("DCMP-1")
    record = kb_copy.get_compound(hit.compound_id)
    assert record.iupac_name == "2-(2,4-dichlorophenyl)-5-methyl-1H-pyrazol-3-one"
    assert record.description == "A test pyrazolone."
    assert kb_copy.get_compound(resolver.resolve("CDNB").compound_id).description.startswith(
        "A C-nitro compound"
    )
    assert (
        kb_copy.get_compound(resolver.resolve("ethanol").compound_id).description
        != "Some other text."
    )
    before = kb_digest(kb_copy)
    import_file(kb_copy, path, resolver=resolver)
    assert kb_digest(kb_copy) == before


OBO = """format-version: 1.2
ontology: chebi

[Term]
id: CHEBI:53053
name: 1-chloro-2,4-dinitrobenzene
def: "A C-nitro compound that is chlorobenzene carrying two nitro substituents at positions 2 and 4." []
synonym: "CDNB" RELATED [ChEBI]
synonym: "C6H3ClN2O4" RELATED FORMULA [ChEBI]
property_value: http://purl.obolibrary.org/obo/chemrof#smiles_string "[O-][N+](=O)c1ccc(Cl)c(c1)[N+]([O-])=O" xsd:string

[Term]
id: CHEBI:50860
name: organic molecular entity
def: "Any molecular entity that contains carbon." []
"""  # noqa: E501 - a real ChEBI OBO record


def test_obo_definitions_become_descriptions(kb_copy, resolver, tmp_path):
    path = write(tmp_path / "chebi.obo", OBO)
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.descriptions_added == 1 and summary.skipped == {
        "no structure and no compound of that name": 1
    }
    cdnb = kb_copy.get_compound(resolver.resolve("2,4-dinitrochlorobenzene").compound_id)
    assert cdnb.description.startswith("A C-nitro compound")
    bad = write(tmp_path / "bad.obo", "format-version: 1.2\n\n[Term\nid: X")
    with pytest.raises(ImportFileError, match="not a readable OBO file"):
        import_file(kb_copy, bad, resolver=resolver)


def test_generic_labels_are_not_names():
    for label in [
        "title compound",
        "yellow oil",
        "the crude product",
        "compound 12",
        "(3a)",
        "aqueous solution",
    ]:
        assert is_generic_name(label), label
    for name in ["ethanol", "benzoic acid", "ether", "2-bromoethanol", "iodine"]:
        assert not is_generic_name(name), name


def test_unknown_format_and_missing_file(kb_copy, resolver, tmp_path):
    with pytest.raises(ImportFileError, match="no such file"):
        import_file(kb_copy, tmp_path / "nope.csv", resolver=resolver)
    odd = write(tmp_path / "data.xyz", "1 2 3")
    with pytest.raises(ImportFileError, match="--format"):
        import_file(kb_copy, odd, resolver=resolver)


def test_killed_import_leaves_the_kb_unchanged(kb_copy, tmp_path):
    """A process killed mid-import (os._exit, no clean-up) leaves the KB exactly as it was."""
    rows = "".join(f'k{i},X,"text {i}",benzaldehyde,,benzoic acid,,,,,,\n' for i in range(30))
    path = write(tmp_path / "kill.csv", CSV_HEADER + rows)
    before = kb_digest(kb_copy)
    kb_path = kb_copy.path
    kb_copy.close()
    script = textwrap.dedent(f"""
        import os
        from chemground.chem.names import NameResolver
        from chemground.kb.importers import import_file
        from chemground.kb.sqlite_store import SQLiteKB
        kb = SQLiteKB({str(kb_path)!r})
        original = kb.add_reactions
        def dying_add(reactions):
            original(reactions)  # everything written, nothing committed yet
            os._exit(9)
        kb.add_reactions = dying_add
        import_file(kb, __import__("pathlib").Path({str(path)!r}), resolver=NameResolver(kb, None))
    """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 9, result.stderr
    from chemground.kb.sqlite_store import SQLiteKB

    reopened = SQLiteKB(kb_path)
    assert kb_digest(reopened) == before
    assert not reopened.has_reaction("k0")
    reopened.close()
