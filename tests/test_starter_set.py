"""The curated starter reaction set: coverage, structure validity, template checks, names."""

from __future__ import annotations

import dataclasses
import shutil
import tomllib
import warnings
from importlib import resources

import pytest
from rdkit import Chem, RDLogger

from chemground.kb.starter import (
    StarterReaction,
    canonical_smiles,
    check_reaction,
    load_starter_set,
    template_outcomes,
)

RDLogger.DisableLog("rdApp.*")

CLASSES, REACTIONS = load_starter_set()

# The 15 classes the starter set must cover. Catalytic hydrogenation is split in two classes
# (C=C/C#C and nitroarenes) because one reaction template cannot express both.
REQUIRED_CLASSES = {
    "fischer_esterification",
    "amide_coupling",
    "suzuki_coupling",
    "heck_reaction",
    "sonogashira_coupling",
    "grignard_addition",
    "wittig_olefination",
    "appel_reaction",
    "mitsunobu_reaction",
    "reductive_amination",
    "diels_alder",
    "sn2_alkylation",
    "boc_protection",
    "boc_deprotection",
    "catalytic_hydrogenation",
    "nitro_hydrogenation",
}


def _participants(reaction: StarterReaction):
    for role in ("reactants", "products", "reagents", "catalysts", "solvents"):
        for compound in getattr(reaction, role):
            yield role, compound


def _inchikey(smiles: str) -> str | None:
    mol = Chem.MolFromSmiles(smiles) if smiles else None
    if mol is None:
        return None
    key = Chem.MolToInchiKey(mol)
    return key or None


# --------------------------------------------------------------------------- coverage


def test_size_of_the_set():
    assert len(REACTIONS) >= 150
    assert len(CLASSES) >= 25


def test_required_classes_present():
    missing = REQUIRED_CLASSES - set(CLASSES)
    assert not missing, f"required reaction classes missing: {sorted(missing)}"


def test_every_class_has_several_reactions():
    counts = {cid: 0 for cid in CLASSES}
    for reaction in REACTIONS:
        counts[reaction.reaction_class] += 1
    thin = {cid: n for cid, n in counts.items() if n < 5}
    assert not thin, f"classes with fewer than 5 reactions: {thin}"


def test_hydrogenation_covers_alkenes_alkynes_and_nitro_groups():
    patterns = {
        "alkene": Chem.MolFromSmarts("C=C"),
        "alkyne": Chem.MolFromSmarts("C#C"),
        "nitroarene": Chem.MolFromSmarts("c[N+](=O)[O-]"),
    }
    substrates = [
        Chem.MolFromSmiles(r.reactants[0].smiles)
        for r in REACTIONS
        if r.reaction_class in {"catalytic_hydrogenation", "nitro_hydrogenation"}
    ]
    for what, patt in patterns.items():
        assert any(m.HasSubstructMatch(patt) for m in substrates), f"no {what} hydrogenation"


@pytest.mark.parametrize(
    ("name", "smiles"),
    [
        ("aspirin", "CC(=O)Oc1ccccc1C(=O)O"),
        ("paracetamol", "CC(=O)Nc1ccc(O)cc1"),
        ("ethyl acetate", "CCOC(C)=O"),
        ("benzocaine", "CCOC(=O)c1ccc(N)cc1"),
        ("N'-benzylidenebenzohydrazide", "O=C(NN=Cc1ccccc1)c1ccccc1"),
    ],
)
def test_well_known_examples_are_main_products(name, smiles):
    key = _inchikey(smiles)
    hits = [r.id for r in REACTIONS if _inchikey(r.main_product.smiles) == key]
    assert hits, f"no reaction makes {name}"


# --------------------------------------------------------------------------- validity


def test_ids_unique_in_the_file():
    data = resources.files("chemground.kb").joinpath("data")
    doc = tomllib.loads(data.joinpath("starter_reactions.toml").read_text("utf-8"))
    class_ids = [c["id"] for c in doc["class"]]
    reaction_ids = [r["id"] for r in doc["reaction"]]
    assert len(class_ids) == len(set(class_ids))
    assert len(reaction_ids) == len(set(reaction_ids))
    for reaction in REACTIONS:
        prefix, _, number = reaction.id.rpartition("-")
        assert prefix == reaction.reaction_class and number.isdigit(), reaction.id


def test_every_smiles_parses():
    bad = [
        f"{r.id} {role}: {c.name} {c.smiles}"
        for r in REACTIONS
        for role, c in _participants(r)
        if Chem.MolFromSmiles(c.smiles) is None
    ]
    assert not bad, "unparsable SMILES:\n" + "\n".join(bad)


def test_conditions_are_present():
    for r in REACTIONS:
        assert r.note.strip(), r.id
        assert -100.0 <= r.temperature_c <= 400.0, r.id
        assert r.reagents or r.catalysts or r.solvents, f"{r.id} lists no conditions"


@pytest.mark.parametrize("reaction", REACTIONS, ids=[r.id for r in REACTIONS])
def test_template_gives_listed_product(reaction):
    outcomes = template_outcomes(CLASSES[reaction.reaction_class], reaction)
    product = reaction.main_product
    assert check_reaction(CLASSES, reaction), (
        f"{reaction.id}: {product.name} ({canonical_smiles(product.smiles)}) "
        f"not among template outcomes {sorted(outcomes)}"
    )


def _with_main_product(reaction: StarterReaction, smiles: str) -> StarterReaction:
    main = dataclasses.replace(reaction.products[0], smiles=smiles)
    return dataclasses.replace(reaction, products=(main,))


def test_check_rejects_a_wrong_product():
    reaction = next(r for r in REACTIONS if r.reaction_class == "fischer_esterification")
    assert not check_reaction(CLASSES, _with_main_product(reaction, "COC(C)=O"))


def test_check_keeps_stereo_when_the_template_sets_it():
    reaction = next(r for r in REACTIONS if r.reaction_class == "heck_reaction")
    mol = Chem.MolFromSmiles(reaction.main_product.smiles)
    for bond in mol.GetBonds():
        if bond.GetStereo() == Chem.BondStereo.STEREOE:
            bond.SetStereo(Chem.BondStereo.STEREOZ)
    z_isomer = Chem.MolToSmiles(mol)
    assert z_isomer != canonical_smiles(reaction.main_product.smiles)
    assert not check_reaction(CLASSES, _with_main_product(reaction, z_isomer))


# --------------------------------------------------------------------------- loader errors

GOOD_CLASS = """
[[class]]
id = "fischer_esterification"
name = "Fischer esterification"
template = "[C:1](=[O:2])[OX2H1].[OX2H1][CX4:3]>>[C:1](=[O:2])O[C:3]"
description = "Acid-catalysed esterification."
"""


ACID = '{ name = "acetic acid", smiles = "CC(=O)O" }'
ETHANOL = '{ name = "ethanol", smiles = "CCO" }'


def _reaction_toml(
    rid="fischer_esterification-01", cls="fischer_esterification", reactants=None, extra=""
):
    reactants = reactants or f"[ {ACID}, {ETHANOL} ]"
    return f"""
[[reaction]]
id = "{rid}"
class = "{cls}"
reactants = {reactants}
products = [ {{ name = "ethyl acetate", smiles = "CCOC(C)=O" }} ]
catalysts = [ {{ name = "sulfuric acid", smiles = "OS(=O)(=O)O" }} ]
temperature_c = 78.0
note = "Equilibrium."
{extra}
"""


def test_loader_accepts_a_minimal_file(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(GOOD_CLASS + _reaction_toml())
    classes, reactions = load_starter_set(path)
    assert list(classes) == ["fischer_esterification"]
    assert reactions[0].solvents == () and reactions[0].time_h is None
    assert check_reaction(classes, reactions[0])


RID = "fischer_esterification-01"
CLS = "fischer_esterification"


def _file(**kw) -> str:
    return GOOD_CLASS + _reaction_toml(**kw)


BAD_ENTRIES = {
    "unknown-class": (_file(cls="no_such_class"), [RID, "'class'", "no_such_class"]),
    "missing-name": (
        _file(reactants=f'[ {{ smiles = "CC(=O)O" }}, {ETHANOL} ]'),
        [RID, "reactants[0]", "'name'"],
    ),
    "missing-smiles": (
        _file(reactants=f'[ {{ name = "acetic acid" }}, {ETHANOL} ]'),
        [RID, "reactants[0]", "'smiles'"],
    ),
    "bad-smiles": (
        _file(reactants=f'[ {ACID}, {{ name = "ethanol", smiles = "C1CC" }} ]'),
        [RID, "reactants[1].smiles"],
    ),
    "reactant-count": (_file(reactants=f"[ {ACID} ]"), [RID, "'reactants'", "takes 2"]),
    "duplicate-reaction": (_file() + _reaction_toml(), [RID, "duplicate"]),
    "duplicate-class": (GOOD_CLASS + _file(), [CLS, "duplicate"]),
    "unknown-field": (_file(extra="temprature_c = 5.0"), [RID, "temprature_c"]),
    "missing-temperature": (_file().replace("temperature_c = 78.0", ""), [RID, "'temperature_c'"]),
    "bad-template": (_file().replace(">>[C:1]", ">>[C:1"), [CLS, "'template'"]),
    "bad-toml": ("[[reaction]\nid = 1", ["not valid TOML"]),
}


@pytest.mark.parametrize(("body", "expected"), list(BAD_ENTRIES.values()), ids=list(BAD_ENTRIES))
def test_loader_rejects_malformed_entries(tmp_path, body, expected):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ValueError) as info:
        load_starter_set(path)
    message = str(info.value)
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in {message!r}"


# --------------------------------------------------------------------------- names


@pytest.mark.skipif(shutil.which("java") is None, reason="OPSIN needs a Java runtime")
def test_names_match_structures():
    """Every participant name resolves (OPSIN, else the PubChem-derived dictionary of
    `chemicals`) to the same standard InChIKey as its SMILES."""
    from chemicals.identifiers import pubchem_db
    from py2opsin import py2opsin

    expected: dict[str, set[str]] = {}
    for r in REACTIONS:
        for _, c in _participants(r):
            expected.setdefault(c.name, set()).add(_inchikey(c.smiles))
    inconsistent = {n: keys for n, keys in expected.items() if len(keys) != 1}
    assert not inconsistent, f"names used with different structures: {inconsistent}"

    names = sorted(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # py2opsin warns about every name it cannot parse
        opsin = py2opsin(names)
    assert len(opsin) == len(names)

    unresolved, mismatched = [], []
    for name, smiles in zip(names, opsin):
        key = _inchikey(smiles) if smiles else None
        source = "OPSIN"
        if key is None:
            hit = pubchem_db.search_name(name)
            key = hit.InChI_key if hit else None
            source = "PubChem dictionary"
        if key is None:
            unresolved.append(name)
        elif key not in expected[name]:
            smiles_keys = sorted(expected[name])
            mismatched.append(f"{name!r}: {source} gives {key}, its SMILES give {smiles_keys}")
    assert not unresolved, f"names neither OPSIN nor the PubChem dictionary resolve: {unresolved}"
    assert not mismatched, "names that do not match their SMILES:\n" + "\n".join(mismatched)
