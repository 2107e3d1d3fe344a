"""Roles that are right in the data (issue 13, item 7): reagents filed as reactants by patent
text mining are re-filed on import, from the atom maps or from the curated reagent list."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import time
from functools import lru_cache

import pytest
from rdkit import Chem

from chemground.chem.names import NameResolver
from chemground.chem.structure import structure_from_smiles
from chemground.kb.importers import import_file
from chemground.kb.reaction_roles import (
    GIVES,
    GIVES_DOUBTFULLY,
    NO_ATOM,
    RULE_ATOM_MAP,
    RULE_REAGENT_LIST,
    atom_maps,
    is_listed_reagent,
    listed_reagents,
    reassign_roles,
    smiles_elements,
)
from chemground.kb.records import Participant, Role, role_changes_of
from chemground.kb.sqlite_store import SQLiteKB
from chemground.retrieval.records import reaction_record

HCL, WATER, TEA, DIPEA = "Cl", "O", "CCN(CC)CC", "CCN(C(C)C)C(C)C"

# 3-methoxybenzoyl chloride + 4-fluorobenzylamine -> amide, mapped as Lowe's data is
ACID_CHLORIDE = "[CH3:1][O:2][c:3]1[cH:4][cH:5][cH:6][c:7]([C:8](Cl)=[O:9])[cH:10]1"
AMINE = "[NH2:11][CH2:12][c:13]1[cH:14][cH:15][c:16]([F:17])[cH:18][cH:19]1"
AMIDE = (
    "[CH3:1][O:2][c:3]1[cH:4][cH:5][cH:6][c:7]([C:8](=[O:9])[NH:11][CH2:12][c:13]2[cH:14][cH:15]"
    "[c:16]([F:17])[cH:18][cH:19]2)[cH:10]1"
)
AMIDE_SMILES = "COc1cccc(C(=O)NCc2ccc(F)cc2)c1"
MAPPED = f"{ACID_CHLORIDE}.{AMINE}.{DIPEA}.{HCL}.{WATER}>ClCCl>{AMIDE}"


def unmapped(smiles: str) -> str:
    mol = Chem.MolFromSmiles(smiles)
    for atom in mol.GetAtoms():
        atom.SetAtomMapNum(0)
    return Chem.MolToSmiles(mol)


def participant(role: Role, smiles: str, name: str | None = None) -> Participant:
    structure = structure_from_smiles(unmapped(smiles))
    return Participant(
        role=role,
        name=name or structure.smiles,
        smiles=structure.smiles,
        inchikey=structure.inchikey,
        compound_id=1,
    )


def roles(participants: list[Participant]) -> dict[str, str]:
    return {p.smiles: p.role.value for p in participants}


def amide_coupling(*extra: str) -> list[Participant]:
    return [
        participant(Role.REACTANT, ACID_CHLORIDE),
        participant(Role.REACTANT, AMINE),
        *(participant(Role.REACTANT, s) for s in extra),
        participant(Role.SOLVENT, "ClCCl"),
        participant(Role.PRODUCT, AMIDE),
    ]


# -- the curated list ----------------------------------------------------------------------------
def test_the_curated_list_holds_the_reagents_patents_file_as_reactants():
    entries = listed_reagents()
    assert len(entries) > 100
    for smiles in (HCL, WATER, TEA, DIPEA, "[Na+].[OH-]", "O=C([O-])[O-].[K+].[K+]", "[H-].[Na+]"):
        structure = structure_from_smiles(smiles)
        assert is_listed_reagent(structure.inchikey), smiles
        assert is_listed_reagent(None, structure.smiles), smiles  # by canonical SMILES too
    assert not is_listed_reagent(structure_from_smiles(AMIDE_SMILES).inchikey)
    # the common solvents count unless asked for the curated reagents alone
    thf = structure_from_smiles("C1CCOC1").inchikey
    assert is_listed_reagent(thf) and not is_listed_reagent(thf, solvents=False)


# -- atom maps -------------------------------------------------------------------------------
def test_atom_maps_say_which_molecules_give_atoms_to_the_product():
    maps = atom_maps(MAPPED)
    assert maps is not None
    for smiles, fate in (
        (ACID_CHLORIDE, GIVES),
        (AMINE, GIVES),
        (DIPEA, NO_ATOM),
        (HCL, NO_ATOM),
        (WATER, NO_ATOM),
        ("ClCCl", NO_ATOM),  # the agents part
    ):
        assert maps.fate(smiles_elements(smiles)) == fate, smiles


@pytest.mark.parametrize(
    "reaction_smiles",
    [
        None,
        "",
        f"{unmapped(ACID_CHLORIDE)}.{unmapped(AMINE)}>>{AMIDE_SMILES}",  # no maps at all
        "[CH3:1]O.Cl>>Cl",  # maps that tie nothing to a product
        "not a reaction",
        "[CH3:1]Cl>>[CH3:1",  # unreadable product
    ],
)
def test_reactions_without_usable_maps_are_not_mapped(reaction_smiles):
    assert atom_maps(reaction_smiles) is None


@pytest.mark.parametrize(
    "text",
    [
        "[C" * 5000 + ">>[C:1]",  # unclosed bracket atoms: no quadratic scan
        "[C:1" * 4000 + ">>[C:1]",
        "C(" * 19000 + ">>[C:1]",
        "[C:1]" * 4000 + ">>" + "[C:1]" * 4000,
        "[C:1]>>[C:1]" + "." * 50_000,  # over the size limit
        "\x00[C:1]>>[C:1]",
        ">>>",
    ],
)
def test_hostile_reaction_smiles_are_read_quickly_or_refused(text):
    started = time.perf_counter()
    maps = atom_maps(text)
    assert maps is None or isinstance(maps.fragments, tuple)
    assert time.perf_counter() - started < 0.5
    participants = [participant(Role.REACTANT, "CC"), participant(Role.PRODUCT, "CCO")]
    reassign_roles(participants, text)  # never raises


def test_maps_that_put_one_atom_in_two_products_are_not_trusted():
    # real patent data (ORD 1c1c56a8...): propylene + perpropionic acid -> propylene oxide +
    # propionic acid, with the epoxide mapped onto the peracid and propylene left unmapped
    mapped = (
        "C=CC.[CH3:4][CH2:5][C:6]([O:8]O)=[O:7]>>[CH2:6]1[O:8][CH:5]1[CH3:4]."
        "[C:6]([OH:8])(=[O:7])[CH2:5][CH3:4]"
    )
    assert atom_maps(mapped) is None
    participants = [
        participant(Role.REACTANT, "C=CC", "propylene"),
        participant(Role.REACTANT, "CCC(=O)OO", "perpropionic acid"),
        participant(Role.PRODUCT, "CC1CO1"),
        participant(Role.PRODUCT, "CCC(=O)O"),
    ]
    assert reassign_roles(participants, mapped)[1] == []


def test_a_methyl_the_mapper_takes_from_the_base_does_not_demote_methyl_iodide():
    # real patent data (ORD 28334c72...): O-methylation with MeI and K2CO3, the methyl mapped
    # onto the carbonate's carbon and methyl iodide left unmapped
    mapped = (
        "[Br:1][C:2]1[CH:3]=[C:4]([C:9]2[CH:10]=[CH:11][C:12]3[C:13]([CH:17]=2)=[N:14][O:15]"
        "[N:16]=3)[C:5]([OH:8])=[CH:6][CH:7]=1.[C:18](=O)([O-])[O-].[K+].[K+].CI.O>CN(C)C=O>"
        "[Br:1][C:2]1[CH:3]=[C:4]([C:9]2[CH:10]=[CH:11][C:12]3[C:13]([CH:17]=2)=[N:14][O:15]"
        "[N:16]=3)[C:5]([O:8][CH3:18])=[CH:6][CH:7]=1 |f:1.2.3|"
    )
    phenol = "Oc1ccc(Br)cc1-c1ccc2nonc2c1"
    product = "COc1ccc(Br)cc1-c1ccc2nonc2c1"
    maps = atom_maps(mapped)
    assert maps.fate(smiles_elements("O=C([O-])[O-].[K+].[K+]")) == GIVES_DOUBTFULLY
    assert maps.fate(smiles_elements("CI")) is None
    participants = [
        participant(Role.REACTANT, phenol),
        participant(Role.REACTANT, "O=C([O-])[O-].[K+].[K+]", "potassium carbonate"),
        participant(Role.REACTANT, "CI", "methyl iodide"),
        participant(Role.REACTANT, WATER, "water"),
        participant(Role.PRODUCT, product),
    ]
    out, changes = reassign_roles(participants, mapped)
    assert roles(out)["CI"] == "reactant"  # the methyl's real source stays
    assert {(c.smiles, c.new.value, c.rule) for c in changes} == {
        ("O=C([O-])[O-].[K+].[K+]", "reagent", RULE_REAGENT_LIST),
        ("O", "solvent", RULE_ATOM_MAP),
    }


# -- re-filing ---------------------------------------------------------------------------------
def test_mapped_hcl_dipea_and_water_are_refiled_and_the_real_reactants_stay():
    participants = amide_coupling(DIPEA, HCL, WATER)
    out, changes = reassign_roles(participants, MAPPED)
    assert roles(out) == {
        unmapped(ACID_CHLORIDE): "reactant",
        unmapped(AMINE): "reactant",
        DIPEA: "reagent",
        HCL: "reagent",
        WATER: "solvent",  # re-filed as the agents part of a reaction SMILES would be
        "ClCCl": "solvent",
        AMIDE_SMILES: "product",
    }
    assert all(c.rule == RULE_ATOM_MAP and c.old is Role.REACTANT for c in changes)
    assert [c.position for c in changes] == [2, 3, 4]
    assert changes[0].to_dict() == {
        "position": 2,
        "name": DIPEA,
        "smiles": DIPEA,
        "from": "reactant",
        "to": "reagent",
        "rule": "atom-map",
        "why": "contributes no mapped atom to a product",
    }
    assert participants[2].role is Role.REACTANT  # the input is left as it was


def test_a_mapped_reagent_that_gives_atoms_stays_a_reactant():
    # triethylamine giving its nitrogen and ethyls (a quaternary ammonium salt) is a reactant
    mapped = (
        "[CH3:1][CH2:2][N:3]([CH2:4][CH3:5])[CH2:6][CH3:7].[CH3:8]I>>"
        "[CH3:1][CH2:2][N+:3]([CH3:8])([CH2:4][CH3:5])[CH2:6][CH3:7].[I-]"
    )
    participants = [
        participant(Role.REACTANT, TEA),
        participant(Role.REACTANT, "CI"),
        participant(Role.PRODUCT, "CC[N+](C)(CC)CC.[I-]"),
    ]
    assert reassign_roles(participants, mapped)[1] == []


def test_unmapped_reagents_are_refiled_from_the_curated_list():
    participants = amide_coupling(TEA, DIPEA, HCL, WATER)
    out, changes = reassign_roles(participants, None)
    assert roles(out)[TEA] == roles(out)[DIPEA] == roles(out)[HCL] == "reagent"
    assert roles(out)[WATER] == "solvent"
    assert roles(out)[unmapped(AMINE)] == roles(out)[unmapped(ACID_CHLORIDE)] == "reactant"
    assert {c.rule for c in changes} == {RULE_REAGENT_LIST}
    # without the list (roles a person wrote), nothing changes
    assert reassign_roles(participants, None, reagent_list=False)[1] == []


@pytest.mark.parametrize(
    "reactants, products, reason",
    [
        ([AMINE, HCL], ["NCc1ccc(F)cc1.Cl"], "HCl gives the hydrochloride its chlorine"),
        (["OCc1ccccc1", HCL], ["ClCc1ccccc1"], "HCl gives the benzyl chloride its chlorine"),
        (["OC(=O)c1ccccc1", "CO"], ["COC(=O)c1ccccc1"], "methanol gives the methyl ester carbon"),
        (["N#Cc1ccccc1", WATER], ["NC(=O)c1ccccc1"], "water gives the amide its oxygen"),
        ([DIPEA], ["CCN(C(C)C)C(C)C.Cl"], "the only reactant is never demoted"),
        ([HCL, "[Na+].[OH-]"], ["[Na+].[Cl-]"], "all listed: it would leave no reactant"),
        ([AMINE, DIPEA], [], "no product to compare with"),
    ],
)
def test_the_list_rule_keeps_reactants_that_plausibly_give_atoms(reactants, products, reason):
    participants = [participant(Role.REACTANT, s) for s in reactants]
    participants += [participant(Role.PRODUCT, s) for s in products]
    assert reassign_roles(participants, None)[1] == [], reason


def test_the_list_rule_keeps_a_reagent_when_a_product_has_no_structure():
    participants = [
        *amide_coupling(DIPEA),
        Participant(role=Role.PRODUCT, name="title compound", unresolved_reason="no structure"),
    ]
    assert reassign_roles(participants, None)[1] == []


def test_unresolved_reactants_are_left_alone_and_count_as_reactants():
    unresolved = Participant(role=Role.REACTANT, name="compound 12", unresolved_reason="no name")
    participants = [unresolved, participant(Role.REACTANT, DIPEA), participant(Role.PRODUCT, AMIDE)]
    # mapped: DIPEA gives no atom, and the unresolved reactant keeps the reaction a reactant
    out, changes = reassign_roles(participants, MAPPED)
    assert out[0] is unresolved and [c.smiles for c in changes] == [DIPEA]
    # unmapped: the unknown reactant's atoms are unknown, so the product may need DIPEA's
    assert reassign_roles(participants, None)[1] == []


def test_the_evidence_record_says_a_role_was_refiled_and_by_which_rule():
    from chemground.kb.records import Reaction

    participants, changes = reassign_roles(amide_coupling(DIPEA), MAPPED)
    reaction = Reaction(
        id="r1",
        participants=participants,
        provenance={"role_changes": [c.to_dict() for c in changes]},
    )
    record = reaction_record(reaction)
    assert [r["smiles"] for r in record["reactants"]] == [unmapped(ACID_CHLORIDE), unmapped(AMINE)]
    (dipea,) = record["reagents"]
    assert dipea["filed_by_source_as"] == "reactant" and dipea["role_rule"] == "atom-map"
    assert "role_rule" not in record["reactants"][0]
    assert role_changes_of(reaction.provenance)[2]["to"] == "reagent"
    assert role_changes_of({}) == {} and role_changes_of({"role_changes": "junk"}) == {}


# -- real atom-mapped reactions from the shared patent data ---------------------------------------
FLAT = "reactions/ord_uspto_grants/ord_uspto_grants_13501_flat.csv.gz"


@lru_cache(maxsize=1)
def _flat_rows(path: str) -> dict[str, dict]:
    csv.field_size_limit(1 << 30)
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return {row["reaction_id"]: row for row in csv.DictReader(handle)}


def _from_flat(row: dict) -> list[Participant]:
    participants = []
    for field, role in (("reactants_json", Role.REACTANT), ("products_json", Role.PRODUCT)):
        for component in json.loads(row[field]):
            if component["smiles"]:
                participants.append(participant(role, component["smiles"], component["names"][0]))
    return participants


@pytest.mark.parametrize(
    "reaction_id, refiled, kept",
    [
        # sulfonate ester: ether, filed as a reactant, is a solvent
        (
            "ord-4f03e6f1009d4457b4d681fd1416ace9",
            {"CCOCC": "solvent"},
            {"OCCBr", "CCS(=O)(=O)Cl"},
        ),
        # mesylation: triethylamine and dichloromethane out, the alcohol and MsCl stay
        (
            "ord-4687a243affc4910b0d3851140166f48",
            {TEA: "reagent", "ClCCl": "solvent"},
            {"OCCc1cccc(F)c1", "CS(=O)(=O)Cl"},
        ),
        # hydrolysis of a benzoylthiourea in hydrochloric acid: HCl is the reagent
        (
            "ord-0a6fbf346934482d880efff9a5832b05",
            {HCL: "reagent"},
            {"CCCN(C(=S)NC(=O)c1ccccc1)C(C)c1ccncc1Cl"},
        ),
    ],
)
def test_real_mapped_patent_reactions(shared_data, reaction_id, refiled, kept):
    rows = _flat_rows(str(shared_data / FLAT))
    row = rows[reaction_id]
    out, changes = reassign_roles(_from_flat(row), row["reaction_cxsmiles"])
    assert {c.smiles: c.new.value for c in changes} == refiled
    assert {p.smiles for p in out if p.role is Role.REACTANT} == kept


def _rdkit_elements(smiles: str) -> tuple:
    mol = Chem.MolFromSmiles(smiles, sanitize=False)
    counts: dict[str, int] = {}
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() > 1:
            counts[atom.GetSymbol()] = counts.get(atom.GetSymbol(), 0) + 1
    return tuple(sorted(counts.items()))


def test_element_counts_read_from_smiles_text_agree_with_rdkit(shared_data):
    """The counts are read from the SMILES tokens (fast); RDKit must read the same."""
    rows = list(_flat_rows(str(shared_data / FLAT)).values())[:1500]
    seen = 0
    for row in rows:
        texts = row["reaction_cxsmiles"].split(" ")[0].replace(">", ".").split(".")
        for component in ("reactants_json", "products_json"):
            texts += [c["smiles"] for c in json.loads(row[component]) if c["smiles"]]
        for text in texts:
            if text and Chem.MolFromSmiles(text, sanitize=False) is not None:
                assert smiles_elements(text) == _rdkit_elements(text), text
                seen += 1
    assert seen > 10_000
    for text in ("[se]1cccc1", "[13CH3:1][Sn](Cl)(Cl)Cl", "[Cs+].[F-]", "[2H]C([2H])Br", "*C"):
        assert smiles_elements(text) == _rdkit_elements(text), text


def test_refilings_on_real_patent_reactions_agree_with_the_maps(shared_data):
    """Over the first 400 ORD reactions: every atom-map re-filing is a molecule none of whose map
    numbers is in a product (checked with RDKit's reaction reader, independently of the module),
    no reaction loses all its reactants, and HCl, triethylamine, DIPEA and water filed as
    reactants leave the reactants unless the map places their atoms in a product."""
    rows = list(_flat_rows(str(shared_data / FLAT)).values())[:400]
    checked = refiled = 0
    for row in rows:
        participants = _from_flat(row)
        if not any(p.role is Role.REACTANT for p in participants):
            continue
        out, changes = reassign_roles(participants, row["reaction_cxsmiles"])
        checked += 1
        refiled += len(changes)
        assert any(p.role is Role.REACTANT for p in out), row["reaction_id"]
        rxn = Chem.rdChemReactions.ReactionFromSmarts(
            row["reaction_cxsmiles"].split(" ")[0], useSmiles=True
        )
        product_maps = {
            a.GetAtomMapNum() for m in rxn.GetProducts() for a in m.GetAtoms() if a.GetAtomMapNum()
        }
        side = [*rxn.GetReactants(), *rxn.GetAgents()]
        for change in changes:
            if change.rule != RULE_ATOM_MAP:
                continue
            for part in change.smiles.split("."):  # a salt's ions are separate molecules here
                wanted = smiles_elements(part)
                same = [m for m in side if smiles_elements(Chem.MolToSmiles(m)) == wanted]
                # (another copy may be mapped: a hydrochloride's HCl beside a free HCl)
                assert any(
                    not any(a.GetAtomMapNum() in product_maps for a in m.GetAtoms()) for m in same
                ), (row["reaction_id"], change.smiles)
        maps = atom_maps(row["reaction_cxsmiles"])
        for p in out:
            if p.role is Role.REACTANT and p.smiles in (HCL, TEA, DIPEA) and maps is not None:
                assert maps.fate(smiles_elements(p.smiles)) in (GIVES, GIVES_DOUBTFULLY, None), (
                    row["reaction_id"],
                    p.smiles,
                )
    assert checked > 350 and refiled > 300


# -- end to end: import, "reactants of X", routes ------------------------------------------------
def _write_reaction_smiles(path, *reactions: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["reaction_smiles", "patent", "paragraph"])
        for index, smiles in enumerate(reactions):
            writer.writerow([smiles, f"US-TEST-{index}", f"test reaction {index}"])


@pytest.fixture
def imported_kb(small_kb_path, tmp_path, opsin):
    """A copy of the small KB with a mapped amide coupling (HCl, DIPEA and water among the
    reactants) and an unmapped O-benzylation (triethylamine and HCl among the reactants)."""
    path = tmp_path / "kb.sqlite"
    shutil.copy(small_kb_path, path)
    source = tmp_path / "patent_reactions.csv"
    _write_reaction_smiles(
        source,
        MAPPED,
        f"Oc1ccc(C#N)cc1.BrCc1ccccc1.{TEA}.{HCL}>CC(C)=O>N#Cc1ccc(OCc2ccccc2)cc1",
    )
    kb = SQLiteKB(path)
    summary = import_file(kb, source, resolver=NameResolver(kb, opsin))
    assert summary.reactions_added == 2
    assert summary.roles_reassigned == {RULE_ATOM_MAP: 3, RULE_REAGENT_LIST: 2}
    assert summary.to_dict()["roles_reassigned"] == {"atom-map": 3, "reagent-list": 2}
    yield kb, path
    kb.close()


def test_imported_roles_are_refiled_and_recorded(imported_kb):
    kb, _ = imported_kb
    reactions = {r.description: r for r in kb.iter_reactions() if r.dataset != "starter"}
    amide = reactions["test reaction 0"]
    assert {p.smiles for p in amide.reactants} == {unmapped(ACID_CHLORIDE), unmapped(AMINE)}
    assert {p.smiles for p in amide.reagents} == {DIPEA, HCL}
    assert {c["rule"] for c in role_changes_of(amide.provenance).values()} == {RULE_ATOM_MAP}
    ether = reactions["test reaction 1"]
    assert {p.smiles for p in ether.reactants} == {"N#Cc1ccc(O)cc1", "BrCc1ccccc1"}
    assert {c["rule"] for c in role_changes_of(ether.provenance).values()} == {RULE_REAGENT_LIST}
    # the compound links the retrievers read follow the new roles
    hcl = kb.compounds_for_inchikeys([structure_from_smiles(HCL).inchikey])
    (hcl_id, _) = next(iter(hcl.values()))
    links = [link for link in kb.reaction_links([hcl_id]) if link.reaction_id == amide.id]
    assert links and all(link.role is Role.REAGENT for link in links)


def test_reactants_of_the_product_do_not_list_hcl_or_dipea(imported_kb, opsin):
    from chemground.qa import QA
    from chemground.workspace import Workspace

    kb, _ = imported_kb
    qa = QA(Workspace(kb=kb, opsin=opsin, readonly=True))
    answer = qa.ask(f"What are the reactants used to make {AMIDE_SMILES}?", method="table")
    assert answer.aspect == "reactants" and answer.status == "answered"
    assert set(answer.value) == {unmapped(ACID_CHLORIDE), unmapped(AMINE)}
    assert HCL not in answer.value and DIPEA not in answer.value
    assert "hydrochloric" not in answer.answer.lower() and "chloride" not in answer.answer.lower()
    record = answer.evidence[0].record
    refiled = {r["smiles"]: r for r in record["reagents"]}
    assert refiled[HCL]["filed_by_source_as"] == "reactant"
    assert refiled[DIPEA]["role_rule"] == "atom-map"


def test_a_route_does_not_start_from_dipea(imported_kb):
    from chemground.graph.build import build_graph
    from chemground.graph.config import graph_dir_for
    from chemground.graph.ladybug_backend import LadybugBackend
    from chemground.graph.routes import find_routes, forward_products

    kb, path = imported_kb
    kb.close()
    build_graph(path, backend="ladybug", full=True)
    graph = LadybugBackend(graph_dir_for(path) / "graph.lbug", readonly=True)
    try:
        amide = structure_from_smiles(AMIDE_SMILES).inchikey
        dipea = structure_from_smiles(DIPEA).inchikey
        amine = structure_from_smiles(unmapped(AMINE)).inchikey
        assert find_routes(graph, [amine], amide, max_depth=1).routes
        assert not find_routes(graph, [dipea], amide, max_depth=2).routes
        reached = forward_products(graph, dipea, max_depth=2).routes
        assert amide not in {route.molecules[-1]["key"] for route in reached}
        assert not graph.query(
            "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction) WHERE m.key = $key RETURN r.id AS id",
            {"key": dipea},
            trusted=True,
        ).rows
    finally:
        graph.close()


def test_roles_a_person_wrote_are_left_alone(small_kb):
    """The starter set (curated roles, no maps) is imported as written: the default KB's stored
    roles are unchanged, so it needs no rebuild."""
    starter = [r for r in small_kb.iter_reactions() if r.dataset == "starter"]
    assert len(starter) > 200
    assert not any(role_changes_of(r.provenance) for r in starter)
    # listed compounds the curators filed as reactants stay so (nitric acid in a nitration)
    assert any(is_listed_reagent(p.inchikey, p.smiles) for r in starter for p in r.reactants)
