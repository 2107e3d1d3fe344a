"""Forms found by round 25 of the user questions (a working chemist's ordinary day), each
tested here in other words than the benchmark's."""

from __future__ import annotations

import pytest

from chemground.chem.condensed import condensed_to_smiles
from chemground.chem.names import expanded_substituents, positional_isomers
from chemground.chem.solvents import is_radical_initiator
from chemground.reasoning.aspects import classify_aspect
from chemground.reasoning.query import Aspect


@pytest.mark.parametrize(
    "text, smiles",
    [
        ("EtOTf", "CCOS(=O)(=O)C(F)(F)F"),  # a triflate: "MeOTf" was not read
        ("BnOMs", "CS(=O)(=O)OCc1ccccc1"),  # a mesylate
        ("PhCF3", "FC(F)(F)c1ccccc1"),  # a CF3 group anywhere
        ("CF3CH2OH", "OCC(F)(F)F"),
    ],
)
def test_sulfonate_esters_and_cf3_in_condensed_formulas(text, smiles):
    assert condensed_to_smiles(text) == smiles


@pytest.mark.parametrize(
    "name, spelled",
    [
        ("furan-2-COCl", "furan-2-carbonyl chloride"),  # "thiophene-2-SO2Cl" was not read
        ("pyridine-4-CHO", "pyridine-4-carbaldehyde"),
        ("benzene-1,3-SO2Cl", "benzene-1,3-SO2Cl"),  # two locants, one group: left alone
    ],
)
def test_a_principal_group_written_as_a_formula_after_its_locant(name, spelled):
    assert expanded_substituents(name) == spelled


def test_a_sulfonyl_chloride_written_as_a_formula_takes_part_in_a_reaction(ask_json):
    out = ask_json("aniline + thiophene-2-SO2Cl in DCM – which base?")
    names = [m["text"] for m in out["query"]["mentions"] if m["resolved"]]
    assert "thiophene-2-SO2Cl" in names


def test_paba_is_a_compound_beside_others(ask_json):
    """'PABA (5.0 g), abs. EtOH, conc. H2SO4 → product?' read PABA as a word."""
    out = ask_json("PABA, EtOH, cat. H2SO4, reflux overnight - what do I get?")
    resolved = {m["text"]: m["smiles"] for m in out["query"]["mentions"] if m["resolved"]}
    assert resolved.get("PABA") == "Nc1ccc(C(=O)O)cc1"
    assert out["status"] == "answered" and "CCOC(=O)c1ccc(N)cc1" in out["value"]


@pytest.mark.parametrize(
    "question",
    [
        "which salt is added to buffer the acetylation of aniline in water?",
        "what is used to neutralise the HCl formed?",
    ],
)
def test_what_is_added_for_a_purpose_is_a_reagent(question):
    assert classify_aspect(question) == Aspect.REAGENT


def test_which_salt_forms_is_no_reagent():
    assert classify_aspect("which salt forms from aniline and HCl?") != Aspect.REAGENT


def test_a_replacement_the_record_made_is_no_hypothetical(ask_json):
    """'... in MeCN instead of CCl4 – what temperature does your record run it at?' was
    declined as a changed condition, and CCl4 was matched as a participant."""
    out = ask_json(
        "Wohl-Ziegler of 4-methylbenzonitrile with NBS and AIBN in acetonitrile rather than "
        "carbon tetrachloride: how long does the record run it?"
    )
    assert out["status"] == "answered" and out["value"] == 4.0
    hypothetical = ask_json(
        "Wohl-Ziegler of 4-methylbenzonitrile with NBS and AIBN: how long in benzene instead?"
    )
    assert hypothetical["status"] != "answered"


def test_a_radical_initiator_after_a_slash_is_no_co_reactant(ask_json):
    assert is_radical_initiator("CC(C)(C#N)N=NC(C)(C)C#N")  # AIBN
    assert is_radical_initiator("O=C(OOC(=O)c1ccccc1)c1ccccc1")  # BPO
    assert not is_radical_initiator("c1ccc(N=Nc2ccccc2)cc1")  # azobenzene: a dye
    out = ask_json(
        "radical bromination of 4-methylbenzonitrile with NBS/AIBN in acetonitrile: yield?"
    )
    roles = {m["text"]: m["role"] for m in out["query"]["mentions"]}
    assert roles["AIBN"] == "catalyst"
    assert out["status"] == "answered" and out["value"] == 75.0


def test_a_parent_named_as_the_class_of_the_compound_is_not_asked(ask_json):
    """'CCOC(=O)C1CCNCC1 – IUPAC name? it's a piperidine building block' also named piperidine."""
    out = ask_json("molar mass of nicotinamide (a pyridine derivative)?")
    assert [m["text"] for m in out["query"]["mentions"]] == ["nicotinamide"]
    assert out["status"] == "answered" and abs(out["value"] - 122.13) < 0.01
    # two compounds asked side by side stay two
    both = ask_json("molar masses of pyridine and nicotinamide?")
    assert len(both["query"]["mentions"]) == 2


def test_safety_tables_with_nothing_on_a_compound_are_no_answer(ask_json):
    """'an SOP for handling hydrazine hydrate' was 'answered' with 'no offline safety data'."""
    out = ask_json("safety data for hydrazine hydrate please")
    if "no offline safety data" in out["answer"]:
        assert out["status"] == "no_evidence"


def test_a_cas_number_given_is_not_the_fact_asked(ask_json):
    """'can we post sodium azide (CAS 26628-22-8) by regular mail?' was answered with the CAS."""
    out = ask_json("may I ship potassium cyanide (CAS 151-50-8) to a customer by courier?")
    assert out["query"]["aspect"] != "cas_number" and out["status"] != "answered"


@pytest.mark.parametrize(
    "name, count",
    [
        ("aminopyridine", 3),
        ("dichlorobenzene", 3),
        ("toluidine", 3),
        ("pentanone", 2),  # 2- and 3-pentanone; "1-pentanone" (pentanal) is no isomer of them
        ("chlorobenzene", 0),
        ("benzimidazole", 0),  # one compound: OPSIN's locant readings are not isomers
        ("sulfanilamide", 0),
        ("2-aminopyridine", 0),
        ("p-cresol", 0),
        ("naphthylamine", 2),  # alpha- and beta-, read with a Greek letter in front
        ("pinene", 3),  # alpha-, beta- and the reading of the bare name, which is neither
        ("glucose", 0),  # alpha- and beta-glucose differ only in stereo: anomers of one
        ("alanine", 0),  # only beta-alanine is read with a Greek letter: alanine is one
    ],
)
def test_positional_isomers_of_a_name_without_locants(opsin, name, count):
    read = opsin.translate(name)
    assert read.ok
    assert len(positional_isomers(name, read.smiles, opsin)) == count


def test_a_structure_fact_of_a_name_without_locants_says_which_isomer(ask_json):
    """'logP of aminopyridine?' was answered for 2-aminopyridine as if no other existed."""
    out = ask_json("TPSA of nitrophenol")
    assert out["status"] == "partial"
    assert "gives no locant" in out["answer"] and any(
        "3 positional isomers" in n for n in out["notes"]
    )
    same = ask_json("molecular weight of nitrophenol")  # the same for every isomer
    assert same["status"] == "answered"
    named = ask_json("TPSA of 4-nitrophenol")
    assert named["status"] == "answered"
