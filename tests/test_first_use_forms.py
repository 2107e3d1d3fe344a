"""Forms found by probing `ask` as a chemist would on first use (2026-11-29, fourteenth
session), each tested here in other words than the probes'."""

from __future__ import annotations

import pytest

from chemground.chem.names import preferred_iupac_name
from chemground.reasoning.aspects import classify_aspect
from chemground.reasoning.query import Aspect

VANILLIN = "COc1cc(C=O)ccc1O"
VANILLIN_NAMES = [
    "3-methoxy-4-oxidanyl-benzaldehyde",
    "vanillin",
    "benzaldehyde, 4-hydroxy-3-methoxy-",
    "3-hydroxy-4-methoxybenzaldehyde",  # isovanillin's name, filed wrongly: never taken
    "4-hydroxy-3-methoxybenzaldehyde",
]


def test_a_parent_hydride_name_is_given_in_the_usual_prefixes(opsin):
    """13 % of the dictionary's IUPAC names write hydroxy as "oxidanyl" and amino as "azanyl":
    "the IUPAC name of vanillin" was "3-methoxy-4-oxidanyl-benzaldehyde"."""
    name = preferred_iupac_name(VANILLIN_NAMES[0], VANILLIN_NAMES, VANILLIN, opsin)
    assert name == "4-hydroxy-3-methoxybenzaldehyde"


@pytest.mark.parametrize(
    "iupac, synonyms, smiles, expected",
    [
        # no synonym of the same parts: rewritten, the order of the parts unchanged
        ("2-azanylpropanoic acid", [], "CC(N)C(=O)O", "2-aminopropanoic acid"),
        (
            "2,3-bis(oxidanyl)butanedioic acid",
            [],
            "OC(C(O)C(=O)O)C(=O)O",
            "2,3-dihydroxybutanedioic acid",
        ),
        # a semi-trivial synonym is no IUPAC name ("4-hydroxy-L-phenylalanine" for tyrosine)
        (
            "(2S)-2-azanyl-3-(4-hydroxyphenyl)propanoic acid",
            ["4-hydroxy-L-phenylalanine"],
            "N[C@@H](Cc1ccc(O)cc1)C(=O)O",
            "(2S)-2-amino-3-(4-hydroxyphenyl)propanoic acid",
        ),
        # the rewrite would put hydroxy before methoxy out of order, and no synonym helps
        ("3-methoxy-4-oxidanyl-benzaldehyde", ["vanillin"], VANILLIN, None),
        # a name in the usual prefixes is kept as it is
        ("propan-2-ol", ["2-propanol"], "CC(C)O", None),
    ],
)
def test_which_names_are_rewritten(opsin, iupac, synonyms, smiles, expected):
    assert preferred_iupac_name(iupac, synonyms, smiles, opsin) == (expected or iupac)


def test_without_opsin_the_records_name_stands():
    assert (
        preferred_iupac_name(VANILLIN_NAMES[0], VANILLIN_NAMES, VANILLIN, None)
        == (VANILLIN_NAMES[0])
    )


@pytest.mark.parametrize(
    "question, form",
    [
        ("molar mass of the besylate salt of amlodipine?", "besylate of amlodipine"),
        ("mw of the citrate salt form of caffeine", "citrate of caffeine"),
    ],
)
def test_the_salt_of_a_compound_is_not_the_compound(ask_json, question, form):
    """ "molar mass of the tosylate salt of venlafaxine" compared tosylate with venlafaxine, and
    "the mesylate salt form of imatinib" gave both weights: neither is the salt asked for."""
    out = ask_json(question)
    assert out["status"] != "answered", out["answer"]
    assert f"the question asks for the {form}" in out["answer"]


def test_an_iupac_name_asked_is_given_in_the_usual_prefixes(ask_json):
    """Through `ask`: the answer keeps the dictionary's spelling beside the usual one."""
    out = ask_json("what's the systematic name of vanillin")
    assert out["value"] == "4-hydroxy-3-methoxybenzaldehyde", out["answer"]
    assert "also written 3-methoxy-4-oxidanyl-benzaldehyde" in out["answer"]
    assert "common name: vanillin" in out["answer"]


# -- round 26 (written blind by a twenty-third author): forms found, tested in other words ------


def test_a_short_capitalised_synonym_asked_of_is_a_compound(ask_json):
    """'we make HMF from fructose - SMILES of HMF?': HMF was read as a word, and the SMILES of
    fructose answered; a fact asked of the word makes it chemical, and so does a locant."""
    out = ask_json("our DMAP batch came from pyridine - MW of DMAP?")
    assert out["status"] == "answered", out["answer"]
    assert {m["text"] for m in out["query"]["mentions"]} == {"DMAP"}
    assert out["value"] == pytest.approx(122.17, abs=0.01)


@pytest.mark.parametrize(
    "question, asked",
    [
        # the compound asked in its own clause; the others are context
        ("we oxidise ethanol to it on scale – what's the formula of acetaldehyde?", "acetaldehyde"),
        ("toluene, acetone, DCM: MW of the DCM?", "DCM"),
    ],
)
def test_a_fact_asked_of_one_compound_leaves_the_others_as_context(ask_json, question, asked):
    out = ask_json(question)
    assert {m["text"] for m in out["query"]["mentions"]} == {asked}, out["answer"]
    assert any("as context" in p for p in out["query"]["problems"])


@pytest.mark.parametrize(
    "question",
    [
        "what is the MW of aspirin compared with caffeine?",  # one clause: both asked
        "loperamide hydrochloride, 2 mg – MW of the hydrochloride?",  # a form of the first
    ],
)
def test_compounds_of_the_same_clause_or_a_form_asked_stay(ask_json, question):
    out = ask_json(question)
    assert not any("as context" in p for p in out["query"]["problems"]), out["query"]


def test_a_class_word_set_before_its_structure_describes_it(ask_json):
    """'the cyclic carbonate O=C1OCCO1 used in lithium-ion battery electrolytes': carbonate
    and lithium(1+) were given IUPAC names beside ethylene carbonate."""
    out = ask_json("IUPAC name of the pyridine Cc1ccncc1 used in sodium-ion batteries?")
    assert [m["text"] for m in out["query"]["mentions"]] == ["Cc1ccncc1"], out["answer"]
    problems = " ".join(out["query"]["problems"])
    assert "as the class of 'Cc1ccncc1'" in problems and "as a device" in problems


def test_a_description_in_brackets_is_no_compound_asked(ask_json):
    """'MW of diazepam (the benzodiazepine)' compared diazepam with benzodiazepine."""
    out = ask_json("formula of caffeine (a xanthine)?")
    assert out["value"] == "C8H10N4O2" and out["status"] == "answered", out["answer"]
    assert any("description in brackets" in p for p in out["query"]["problems"])


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("what is x called in America?", Aspect.SYNONYMS),
        ("what do Americans call x", Aspect.SYNONYMS),
        ("x - it has another, older name, right? what is it", Aspect.SYNONYMS),
        ("what's the British name of x", Aspect.SYNONYMS),
        ("what is x called", Aspect.SMILES_TO_NAME),  # a name, as before
        # a notebook line's amounts are what was done: the arrow asks the product
        ("x (2.0 g, 12 mmol), x (1.2 eq), x, rt, 2 h → ? structure please", Aspect.PRODUCT),
    ],
)
def test_other_names_and_arrowed_lines(question, aspect):
    assert classify_aspect(question.lower()) == aspect


def test_why_the_user_asks_is_no_why_question(ask_json):
    """'logP of domperidone? trying to explain why it doesn't get into the brain much' was
    refused as a why-question."""
    out = ask_json("TPSA of caffeine? I need it to explain why it crosses membranes so easily")
    assert out["status"] == "answered", out["answer"]
    asked = ask_json("why does caffeine cross membranes so easily?")
    assert asked["status"] != "answered"


def test_an_isotopologue_formula_writes_its_isotopes():
    """'molecular formula of heavy water' was answered H2O."""
    from chemground.chem.structure import structure_from_smiles

    assert structure_from_smiles("[2H]O[2H]").formula == "D2O"
    assert structure_from_smiles("[2H]C(Cl)(Cl)Cl").formula == "CDCl3"
    assert structure_from_smiles("[13CH3]O").formula == "[13C]H4O"
    assert structure_from_smiles("CCO").formula == "C2H6O"


def test_a_unit_word_is_no_misspelt_compound(ask_json):
    """'how heavy is a molecule of caffeine in daltons' read 'daltons' as daltose."""
    out = ask_json("weight of one aspirin molecule in daltons?")
    assert [m["text"] for m in out["query"]["mentions"]] == ["aspirin"], out["answer"]


def test_a_class_of_compounds_is_no_misspelt_compound(ask_json):
    """'reagent to convert an alcohol to an alkyl bromide?' read 'alkyl bromide' as allyl
    bromide (and the alcohol as the product): said, not guessed."""
    out = ask_json("which reagent turns an alcohol into an alkyl chloride?")
    assert not any(m.get("correction") for m in out["query"]["mentions"]), out["query"]
    assert "alcohol to alkyl chloride reactions" in out["answer"], out["answer"]


def test_a_reagent_filed_as_a_reactant_is_named_with_the_reagents(ask_json):
    """'benzyl bromide from benzyl alcohol - what reagents?' gave PPh3 alone: the Appel record
    files CBr4 as a reactant."""
    out = ask_json("reagent for turning octan-1-ol into 1-bromooctane?")
    assert out["status"] == "answered", out["answer"]
    assert "tetrabromomethane, which the record files as a reactant" in out["answer"]


@pytest.mark.parametrize(
    "question, count, expected",
    [
        ("which reagent converts an alcohol into an alkyl bromide?", "7", "triphenylphosphine"),
        ("solvent to turn an ester into a carboxylic acid?", "7", "water"),
    ],
)
def test_a_change_between_compound_classes_is_answered_from_its_reactions(
    ask_json, question, count, expected
):
    """'reagent to convert an alcohol to an alkyl bromide?' read the alcohol as the product
    asked and 'alkyl bromide' as allyl bromide: the reactions that make one class from the
    other (products searched by substructure, a reactant of the class converted and not yet of
    the class made) answer it, counted."""
    out = ask_json(question)
    assert out["status"] == "answered", out["answer"]
    assert f"Across the {count} " in out["answer"] and f"most often {expected}" in out["answer"]


def test_an_anhydride_is_no_ester():
    from rdkit import Chem

    from chemground.kb.functional_groups import GROUPS

    ester = Chem.MolFromSmarts(GROUPS["ester"])
    assert Chem.MolFromSmiles("CCOC(C)=O").HasSubstructMatch(ester)
    assert not Chem.MolFromSmiles("CC(=O)OC(C)=O").HasSubstructMatch(ester)


@pytest.mark.parametrize(
    "name, smiles",
    [
        # the dictionary files both names under a structure with no stereo
        ("beta-D-glucopyranose", "OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O"),
        ("(2R,3S)-2,3-dibromobutane", "C[C@H](Br)[C@@H](C)Br"),
    ],
)
def test_a_stereoisomer_named_is_read_by_opsin_when_the_record_has_no_stereo(
    full_parser, name, smiles
):
    """'SMILES of alpha-D-glucopyranose' gave a SMILES with no stereo at all, and
    '(2R,3S)-2,3-dibromobutane' was refused: OPSIN's reading of the name, when it is the
    record's skeleton with the stereo set, is the compound."""
    from chemground.chem.structure import structure_from_smiles

    query = full_parser.parse(f"SMILES of {name}?")
    [mention] = query.mentions
    assert mention.resolved and mention.resolved_by == "opsin", mention
    assert mention.inchikey == structure_from_smiles(smiles).inchikey


# -- round 27 (reactions as chemists write them, blind): forms found, tested in other words ----


def test_a_locant_written_is_kept_when_a_typo_is_corrected(ask_json):
    """'p-anisaldehyd' was read as o-anisaldehyde (the closest indexed name): another isomer."""
    out = ask_json("MW of p-anisaldehyd?")
    assert [m.get("correction") for m in out["query"]["mentions"]] != ["o-anisaldehyde"]
    if out["value"] is not None:
        assert out["value"] == pytest.approx(136.15, abs=0.01), out["answer"]


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("which two reactants does your record combine to give x?", Aspect.REACTANTS),
        ("? + ? → x (x, x, rt) – coupling partners?", Aspect.REACTANTS),
        ("for the amide coupling, which base is added with x?", Aspect.REAGENT),
        ("all i've got here is x and x – how do i get to x?", Aspect.ROUTE),
        ("wich solvent for x", Aspect.SOLVENT),
    ],
)
def test_reaction_questions_in_a_chemists_words(question, aspect):
    assert classify_aspect(question) == aspect


def test_conditions_in_brackets_after_the_product_are_no_products(ask_json):
    """'? + ? → X (PdCl2(PPh3)2, CuI, Et3N, THF, rt)': the Pd complex was read as a product."""
    out = ask_json("? + ? → 4-methylbiphenyl (Pd(PPh3)4, K2CO3, toluene) – starting materials?")
    roles = {m["text"]: m.get("role") for m in out["query"]["mentions"]}
    assert roles["Pd(PPh3)4"] == "catalyst" and roles["4-methylbiphenyl"] == "product", roles


def test_a_premise_with_a_tag_is_checked_not_required(ask_json):
    """'your Mitsunobu ... uses DEAD, doesn't it?': DEAD was required of the record (DIAD)."""
    out = ask_json("the Suzuki of 4-bromoanisole with phenylboronic acid used PdCl2, didn't it?")
    assert out["answer"].startswith("No ("), out["answer"]


def test_a_compound_replaced_and_a_species_generated_are_context(ask_json):
    out = ask_json("2-MeTHF as a greener replacement for THF – CAS number?")
    assert [m["text"] for m in out["query"]["mentions"]] == ["2-MeTHF"], out["answer"]
    assert any("replaces" in p for p in out["query"]["problems"])


def test_the_composition_of_a_mixture_is_not_asked_alone(full_parser):
    """'aqua regia (3:1 HCl/HNO3) – molar mass?' gave a HCl.HNO3 record's weight, then the
    weights of HCl and HNO3: the mixture is named unresolved, its composition is no question."""
    query = full_parser.parse("aqua regia (HCl/HNO3 3:1) for the gold etch – its molar mass?")
    assert [m.text for m in query.mentions][:1] == ["aqua regia"]
    assert not query.mentions[0].resolved and "mixture" in query.mentions[0].reason
    assert not {"HCl", "HNO3"} & {m.text for m in query.mentions}


def test_scale_up_context_does_not_refuse_the_fact_asked(ask_json):
    out = ask_json("NBS for the scale-up next month – molar mass for the order?")
    assert out["status"] == "answered", out["answer"]
    assert out["value"] == pytest.approx(177.98, abs=0.02)


def test_a_property_compared_is_no_identity_question(ask_json):
    """'is the MW of glucose the same as fructose?' was answered 'No: different compounds'."""
    out = ask_json("is the molar mass of ethanol the same as that of dimethyl ether?")
    assert out["query"]["aspect"] == "molecular_weight", out["answer"]
    assert "same molecular weight" in out["answer"]
    assert classify_aspect("is x the same as x?") == Aspect.SAME_COMPOUND


def test_a_record_holding_the_compounds_only_as_agents_gives_no_product(ask_json):
    """'what is the product of the reaction between NaOH and HCl' gave benzoic acid from an
    ester hydrolysis that uses both as reagents."""
    out = ask_json("what forms when NaOH reacts with HCl?")
    assert out["status"] == "no_evidence" and out["value"] is None, out["answer"]
    assert "reacting" in out["answer"]


def test_a_salt_named_is_not_answered_with_the_free_compound_filed_under_it():
    """'MW of EDTA disodium salt dihydrate' was given EDTA's weight with two waters: PubChem
    files 'EDTA disodium salt' among the free acid's synonyms."""
    from chemground.chem.mentions import Mention, _with_named_counter_ion
    from chemground.chem.structure import structure_from_smiles

    edta = structure_from_smiles("O=C(O)CN(CCN(CC(=O)O)CC(=O)O)CC(=O)O")
    named = Mention("EDTA disodium salt", 0, 18, "common_name", structure=edta, compound_id=1)
    named = named.__class__(**{**named.__dict__, "resolved_by": "dictionary"})
    assert not _with_named_counter_ion(named).resolved
    assert "sodium salt" in _with_named_counter_ion(named).reason
    acetate = structure_from_smiles("CC(=O)[O-].[Na+]")
    kept = named.__class__(**{**named.__dict__, "text": "sodium acetate", "structure": acetate})
    assert _with_named_counter_ion(kept).resolved


def test_a_formula_put_forward_to_check_asks_the_formula(ask_json):
    """'caffeine is C8H10N4O3 isn't it?' was not understood; the record's formula answers."""
    out = ask_json("aspirin is C9H8O3, right?")
    assert out["query"]["aspect"] == "formula" and out["value"] == "C9H8O4", out["answer"]


@pytest.mark.parametrize(
    "question",
    [
        "I dissolved caffeine in methanol, what's its molar mass?",
        "after recrystallising benzoic acid from water, what's its formula?",
    ],
)
def test_the_medium_a_compound_is_handled_in_is_not_asked(ask_json, question):
    """'I dissolved aspirin in ethanol, what's its MW?' gave ethanol's weight beside it."""
    out = ask_json(question)
    assert len(out["query"]["mentions"]) == 1, out["answer"]
    assert any("as the medium" in p for p in out["query"]["problems"])


def test_a_class_read_with_its_substrate_keeps_the_substrate(ask_json):
    """'which catalyst for the hydrogenation of nitrobenzene?' counted the class's 8 reactions
    and said no compound was named."""
    out = ask_json("what solvent is used for the hydrogenation of nitrobenzene?")
    assert [m["text"] for m in out["query"]["mentions"]] == ["nitrobenzene"], out["answer"]
    assert "Across the" not in out["answer"]


def test_two_letters_swapped_are_read_before_a_letter_left_out(ask_json):
    """'molecular wieght of caffiene' was not understood: the typo index ranked 'caffine' (a
    synonym one deletion away, whose ending the typo does not share) first, then refused it."""
    out = ask_json("what's the molar mass of caffiene?")
    assert out["value"] == pytest.approx(194.19, abs=0.01), out["answer"]


# -- fifteenth session: deuterated solvents as NMR users write them ------------------------------


@pytest.mark.parametrize(
    "question, formula",
    [
        # the label first: looked up as the dictionary files it ("acetone-d6")
        ("molar mass of d6-acetone for the NMR tube?", "C3D6O"),
        ("d4-methanol formula", "CD4O"),
        # filed under the protio compound: the label counts every hydrogen, so all are D
        ("what does THF-d8 weigh per mole", "C4D8O"),
        ("exact mass of d5-pyridine", "C5D5N"),
    ],
)
def test_a_deuterated_solvent_is_read_with_its_label(full_parser, question, formula):
    """'exact mass of d6-DMSO' was refused, 'd8-toluene' answered as toluene (a typo of it) and
    'pyridine-d5' given pyridine's weight: the dictionary files it under pyridine itself."""
    from chemground.chem.structure import structure_from_smiles

    [mention] = [m for m in full_parser.parse(question).mentions if m.resolved]
    assert structure_from_smiles(mention.smiles).formula == formula, mention


def test_a_partial_deuteration_the_record_lacks_is_not_answered_for_the_protio_compound(
    full_parser,
):
    """'d5-toluene' (ring-d5 or methyl-d3 plus two?) is no typo of toluene: unresolved, said why."""
    [mention] = full_parser.parse("MW of d5-toluene?").mentions
    assert not mention.resolved and "deuterium" in mention.reason, mention


def test_a_deuteration_label_read_against_a_structure():
    from chemground.chem.names import deuterium_label_reading
    from chemground.chem.structure import structure_from_smiles

    pyridine = structure_from_smiles("c1ccncc1")
    assert deuterium_label_reading("pyridine", pyridine) is None
    assert deuterium_label_reading("pyridine-d5", pyridine).formula == "C5D5N"
    assert "deuterium" in deuterium_label_reading("pyridine-d2", pyridine)
    assert deuterium_label_reading("chloroform-d", structure_from_smiles("[2H]C(Cl)(Cl)Cl")) is None
    # a stereo descriptor is no label
    assert (
        deuterium_label_reading("D-glucose", structure_from_smiles("OCC1OC(O)C(O)C(O)C1O")) is None
    )


# -- round 28 (precision: near misses, written blind): forms found, tested in other words ----


@pytest.mark.parametrize(
    "question, value",
    [
        ("aspirin – Ro5 violations?", 0),  # the violations asked: counted
        ("does aspirin pass the rule of five?", True),  # a verdict asked
    ],
)
def test_rule_of_five_violations_asked_are_counted(ask_json, question, value):
    """'RuPhos (not SPhos) – rule-of-five violations?' was given the verdict (passes) as its
    value, not the one violation it named."""
    out = ask_json(question)
    assert out["value"] == value and type(out["value"]) is type(value), out["answer"]


def test_the_clause_that_asks_decides_when_a_remark_follows_it(ask_json):
    """'... 2-bromothiophene (1.63 g, 10 mmol) ... – what's the CAS number of the
    2-bromothiophene? our shelf only has the 3-isomer' was answered with a mass-to-mole
    conversion: the amounts given in the clauses before had decided."""
    out = ask_json(
        "weighed aspirin (3.60 g, 20 mmol) into the flask – what's the CAS of the aspirin? "
        "the label on our bottle is smudged"
    )
    assert out["query"]["aspect"] == "cas_number" and out["value"] == "50-78-2", out["answer"]


def test_a_remark_that_names_the_fact_asked_still_decides():
    """'how drug-like is caffeine? (QED score)': the remark says which score."""
    assert classify_aspect("how drug-like is x? (qed score)") == Aspect.QED


def test_a_mass_balance_is_no_equation_to_balance():
    """'molar mass of the DCU ...? checking my mass balance' was read as an equation to
    balance."""
    assert classify_aspect("molar mass of x, it's for our material balance") == (
        Aspect.MOLECULAR_WEIGHT
    )
    assert classify_aspect("balance x + x -> x") == Aspect.BALANCE


def test_a_d_or_l_name_filed_under_the_other_enantiomer_is_read_by_opsin(full_parser):
    """'InChIKey of D-lactic acid' gave L-lactic acid's: the dictionary files the D name under
    the L record, and a D/L prefix cannot be checked against a structure."""
    from chemground.chem.structure import structure_from_smiles

    [mention] = full_parser.parse("SMILES of D-lactic acid for the PLA work?").mentions
    assert mention.inchikey == structure_from_smiles("C[C@@H](O)C(=O)O").inchikey, mention
    [mention] = full_parser.parse("SMILES of L-lactic acid?").mentions
    assert mention.inchikey == structure_from_smiles("C[C@H](O)C(=O)O").inchikey, mention


def test_an_abbreviation_the_question_defines_in_brackets_is_that_compound(full_parser):
    """'molar mass of the DCU (the dicyclohexylurea by-product)?' gave the dictionary's DCU
    (dicloralurea): the question says what its abbreviation stands for."""
    from chemground.chem.structure import structure_from_smiles

    query = full_parser.parse("MW of our DCU (the dicyclohexylurea from the coupling)?")
    [mention] = [m for m in query.mentions if m.text == "DCU"]
    assert mention.inchikey == structure_from_smiles("O=C(NC1CCCCC1)NC1CCCCC1").inchikey


def test_a_hydrochloride_filed_under_its_free_base_is_built_as_the_salt(full_parser):
    """'4-bromopyridine hydrochloride' is filed under the free base: it was refused; the salt's
    composition is fixed by its name."""
    from chemground.chem.structure import structure_from_smiles

    [mention] = full_parser.parse("molar mass of 4-bromopyridine hydrochloride?").mentions
    assert structure_from_smiles(mention.smiles).formula == "C5H5BrClN", mention


def test_an_identifier_given_is_not_asked_but_one_asked_of_another_compound_is(ask_json):
    """'we stock 4-nitrophenol (CAS 100-02-7) – what's the CAS number of m-nitrophenol?' was
    refused: every CAS word was taken for the identifier given."""
    out = ask_json("caffeine (CAS 58-08-2) is on the shelf – what's the CAS number of aspirin?")
    assert out["query"]["aspect"] == "cas_number" and out["value"] == "50-78-2", out["answer"]
    out = ask_json("molar mass of 50-78-2? (CAS from the supplier's sheet)")
    assert out["query"]["aspect"] == "molecular_weight", out["answer"]


def test_the_form_set_aside_is_not_asked(full_parser):
    """'dexibuprofen – InChIKey? ... not racemic ibuprofen's key': racemic ibuprofen was
    answered beside it."""
    query = full_parser.parse("InChIKey of (S)-ibuprofen please, not racemic ibuprofen")
    assert [m.text for m in query.mentions] == ["(S)-ibuprofen"], query.mentions


def test_two_classes_a_record_couples_ask_its_reactants():
    """'Which aryl halide and which boronic acid does the stored record couple?' was not
    understood."""
    question = "which aryl chloride and which boronic acid does your record couple to make x?"
    assert classify_aspect(question) == Aspect.REACTANTS


def test_a_class_of_two_words_is_not_its_last_word(full_parser):
    """'which aryl bromide ...' was read as the bromide ion, which no record holds."""
    query = full_parser.parse("which aryl iodide is coupled with phenylboronic acid?")
    assert [m.text for m in query.mentions] == ["phenylboronic acid"], query.mentions


def test_a_claim_tagged_rite_is_checked_not_required(ask_json):
    """'vanillin + NaBH4 – ur record runs it in methanol like all the others, rite?' matched a
    record that holds methanol but not vanillin."""
    out = ask_json("benzyl alcohol + PCC – your record runs it in methanol, rite? which solvent")
    assert out["status"] == "answered" and out["query"]["aspect"] == "solvent", out["answer"]
    assert out["answer"].startswith("No"), out["answer"]


def test_a_hydrate_written_with_a_dot_after_a_two_word_name_is_the_hydrate(ask_json):
    """'MW of citric acid·H2O' was answered with the molar mass of water: the name's last word
    and the waters were one token, and the tools read the water alone."""
    out = ask_json("what's the MW of citric acid·H2O?")
    assert out["value"] == pytest.approx(210.14, abs=0.01), out["answer"]


def test_a_salt_built_from_its_parent_finds_the_record_of_the_salt(full_parser):
    """'metformin HCl – CAS please' said no CAS is recorded: the salt built from metformin is
    the record of metformin hydrochloride, which holds it."""
    [mention] = full_parser.parse("our lot of lidocaine HCl – CAS please").mentions
    assert mention.compound_id is not None and mention.resolved_by == "salt_form", mention


def test_the_asking_clause_is_the_last_question_when_remarks_follow():
    """One reading of 'the clause that asks', for the routing's out-of-scope words and the
    parser: 'what's the CAS of X? we're out of stock' asks the CAS (the remark's 'stock' is no
    share price asked)."""
    from chemground.reasoning.question_text import asking_clause, clause_span

    assert asking_clause("what's the CAS of aspirin? we're out of stock") == (
        "what's the CAS of aspirin"
    )
    assert asking_clause("DBDMH for the scale-up – CAS number?") == "CAS number"
    assert asking_clause("MW of caffeine") == "MW of caffeine"
    text = "we make 5-HMF from fructose – SMILES of HMF?"
    assert text[slice(*clause_span(text, text.index("SMILES")))] == "SMILES of HMF"


def test_a_remark_after_the_question_does_not_decline_it(ask_json):
    out = ask_json("what's the CAS number of aspirin? the stock bottle has no label")
    assert out["status"] == "answered" and out["value"] == "50-78-2", out["answer"]


# -- fifteenth session: every part of a question answered or named -----------------------------


def test_an_inchikey_asked_beside_another_fact_is_answered_too(ask_json):
    """'SMILES and InChIKey for paracetamol' was answered with the InChIKey alone: the SMILES
    part was dropped without a word."""
    out = ask_json("give me the SMILES and the InChIKey of aspirin")
    assert "CC(=O)Oc1ccccc1C(=O)O" in out["answer"], out["answer"]
    assert "BSYNRYMUTXBXSQ-UHFFFAOYSA-N" in out["answer"], out["answer"]
    assert out["status"] == "answered", out["answer"]


def test_a_property_not_held_asked_beside_a_held_one_is_named_not_declined(ask_json):
    """'logP of caffeine and how soluble is it in water?' was declined whole; water, the
    medium, had been a second compound."""
    out = ask_json("MW of aspirin and how soluble is it in water?")
    assert out["status"] == "partial", out["answer"]
    assert out["value"] == pytest.approx(180.16, abs=0.01), out["answer"]
    assert "'soluble' part" in out["answer"] and "water:" not in out["answer"], out["answer"]
    out = ask_json("what's the pKa of aspirin")  # nothing held asked: declined, as before
    assert out["status"] != "answered", out["answer"]


def test_the_reactions_of_a_palladium_complex_are_not_those_of_its_ligand(ask_json):
    """'which reactions use Pd(PPh3)4' listed the Appel reactions, which use PPh3."""
    out = ask_json("which reactions use Pd(PPh3)4")
    assert out["status"] == "answered" and "appel" not in out["answer"], out["answer"]
    assert "suzuki_coupling" in out["answer"], out["answer"]


# -- round 29 (one project's life, written blind): forms found, tested in other words -------


@pytest.mark.parametrize(
    "masked, aspect",
    [
        # the last words of a notebook line, with what they add read without it
        ("x (1.0 g, 5 mmol), x (1.1 eq), x, 80 °c – isolated yield in your record?", Aspect.YIELD),
        ("x | x 1.2 eq | x | rt | time = ?", Aspect.TIME),
        ("x (2 g, 8 mmol), x, x – yield? like our other runs at 70 %?", Aspect.YIELD),
        ("heck reactions in your kb – catalyst(s)?", Aspect.CATALYST),
        ("which catalyst do ur x reactions use?", Aspect.CATALYST),
        ("which reactions use x", Aspect.REACTIONS),
    ],
)
def test_a_notebook_lines_last_words_say_what_is_asked(masked, aspect):
    """'... NaOtBu (1.4 eq), toluene (40 mL), 100 °C – reaction time per your record?' was read
    as an amount conversion; 'solvent(s)?' and 'which solvent do ur Mitsunobu reactions use?'
    were not read as the solvent."""
    assert classify_aspect(masked) == aspect


def test_a_form_stated_of_the_compound_at_hand_is_built(ask_json):
    """'our phosphate is the monohydrate' / 'our citric acid is the monohydrate – MW?' gave the
    anhydrous weight beside that of a compound PubChem files as 'monohydrate'."""
    out = ask_json("our caffeine is the monohydrate – MW?")
    assert out["value"] == pytest.approx(212.21, abs=0.01), out["answer"]


def test_the_salt_pointed_to_is_the_one_named_as_a_salt(ask_json):
    """'... product kept as the TFA salt (2-amino-N-benzylacetamide·TFA) – MW of the salt?'"""
    out = ask_json(
        "Boc removal with TFA in DCM, kept as glycine methyl ester·TFA – MW of the salt?"
    )
    assert out["value"] == pytest.approx(203.12, abs=0.01), out["answer"]


def test_the_reagent_of_a_named_process_is_not_asked_a_compounds_fact(ask_json):
    """'the (S)-amine, not the racemate from the NaBH3CN reductive amination. What is its CAS
    number?' asked the CAS of the borohydride too."""
    out = ask_json("the aspirin we made, not the batch from the H2SO4 acylation – what's its CAS?")
    assert out["value"] == "50-78-2", out["answer"]


def test_an_atom_locant_or_isotope_is_no_compound(full_parser):
    """'C-4 of X' and '(79Br)' were reported as compounds that could not be resolved."""
    query = full_parser.parse("is C-4 of 4-aminopiperidine a stereocentre (13C shift)?")
    assert [m.text for m in query.mentions] == ["4-aminopiperidine"], query.mentions


def test_a_value_given_for_a_fact_is_not_that_fact_asked():
    """'I'll look for the MW, 278.19, as the monoisotopic mass – ok? what is the monoisotopic
    mass?' was answered with the molecular weight."""
    from chemground.reasoning.aspects import first_asked

    question = "the MW, 278.19, or the monoisotopic mass – which is the exact mass of x?"
    assert first_asked(question, Aspect.EXACT_MASS) == Aspect.EXACT_MASS


def test_another_name_in_brackets_with_what_it_is_for_is_no_second_compound(full_parser):
    """'benzene → 2-[(phenylimino)methyl]phenol (salicylidene-aniline ligand), route?' looked
    for a route through three compounds."""
    query = full_parser.parse("route from benzene to biphenyl (our diphenyl building block)?")
    assert [m.text for m in query.mentions] == ["benzene", "biphenyl"], query.mentions


def test_a_route_of_four_steps_is_found(ask_json):
    """A route of four starter records was 'not found within the searched number of steps'."""
    out = ask_json("route from nitrobenzene to 4-aminoacetanilide?")
    assert out["status"] == "answered" and "4 steps" in out["answer"], out["answer"]


def test_an_acid_marked_catalytic_is_the_catalyst(ask_json):
    """'AcOH + EtOH (excess), conc. H2SO4 (cat.), reflux → EtOAc – time?' required H2SO4 as a
    reactant."""
    out = ask_json("benzoic acid + MeOH, H2SO4 (cat.), reflux → methyl benzoate. time?")
    assert out["status"] == "answered", out["answer"]
    roles = {m["text"]: m.get("role") for m in out["query"]["mentions"]}
    assert roles.get("H2SO4") == "catalyst", roles


def test_a_role_word_with_its_plural_marker_is_the_role_asked(ask_json):
    """'Suzuki couplings in your records – solvent(s)?' read 'solvent(s)' as a SMILES."""
    out = ask_json("Fischer esterifications in your records – catalyst(s)?")
    assert out["query"]["aspect"] == "catalyst" and out["status"] == "answered", out["answer"]


def test_a_reaction_named_as_the_purpose_is_not_the_reaction_asked(full_parser):
    """'... NBS, cat. AIBN, CCl4 → ? (we need the benzylic bromide for an N-alkylation)' was
    matched to an alkylation record."""
    from chemground.reasoning.reaction_classes import find_classes

    question = "toluene + NBS, AIBN → ? (we need the bromide for an esterification later)"
    assert [c.reaction_class.name for c in find_classes(question)] == []
    assert find_classes("which solvent for an esterification of benzoic acid?")


def test_a_two_word_class_is_not_its_first_word(full_parser):
    """'which phosphine ligand do your Buchwald records use?' required PH3 of them."""
    query = full_parser.parse("which phosphine ligand do your Buchwald-Hartwig records use?")
    assert query.mentions == [], query.mentions


def test_a_synonym_one_slip_from_a_better_known_compound_is_not_taken(full_parser):
    """'structure of nicotene' gave nicotinic acid, labelled exact: PubChem files "nicotene"
    under it, one letter from nicotine. A name an everyday word is one slip from stays read
    ("carvon" is carvone, though one letter from carbon)."""
    [mention] = full_parser.parse("SMILES of nicotene?").mentions
    assert not mention.resolved and "nicotine" in mention.reason, mention
    [mention] = full_parser.parse("stereocentres of carvon?").mentions
    assert mention.resolved, mention


def test_a_named_synthesis_of_a_compound_is_done_on_it(ask_json):
    """'the Williamson ether synthesis of phenol with benzyl bromide' read phenol as the
    product."""
    out = ask_json("which base for the Williamson ether synthesis of phenol with benzyl bromide?")
    roles = {m["text"]: m.get("role") for m in out["query"]["mentions"]}
    assert roles.get("phenol") == "reactant", roles


def test_the_reagent_of_a_protection_filed_as_a_reactant_is_named(ask_json):
    """'reagent for Boc protection of aniline' said the record has no reagent: it files Boc2O,
    the reagent a chemist means, as a reactant."""
    out = ask_json("what reagent is used for the Boc protection of aniline?")
    assert out["status"] == "answered", out["answer"]
    assert "di-tert-butyl dicarbonate" in out["answer"], out["answer"]


# -- round 30 (the people who write worst, written blind): forms found, tested in other words -


def test_a_misspelt_prefix_and_spaced_locants_read_as_the_systematic_name(full_parser):
    """'1 flouro 4 nitro benzene mw' was answered for nitrobenzene ('nitro benzene' is a
    dictionary synonym)."""
    from chemground.chem.structure import structure_from_smiles

    [mention] = full_parser.parse("mw of 1 chloro 4 nitro benzene").mentions
    assert mention.inchikey == structure_from_smiles("Clc1ccc([N+](=O)[O-])cc1").inchikey
    [mention] = full_parser.parse("logP of 3-flourotoluene?").mentions
    assert mention.inchikey == structure_from_smiles("Cc1cccc(F)c1").inchikey


def test_waters_a_name_counts_are_the_waters_of_its_structure(full_parser):
    """'tin(II) chloride dihydrate' is filed with one water (207.63 g/mol, not 225.65)."""
    from chemground.chem.structure import structure_from_smiles

    [mention] = full_parser.parse("MW of DL-asparagine monohydrate?").mentions
    assert structure_from_smiles(mention.smiles).formula == "C4H10N2O4", mention


def test_a_judgement_of_the_askers_own_work_is_declined(ask_json):
    """'will my supervisor accept a 45% yield for the nitration or do I have to repeat it?'
    was answered with the record's yield."""
    out = ask_json("will my boss be ok with 60 % for the Fischer esterification of benzoic acid?")
    assert out["status"] != "answered", out["answer"]


def test_question_marks_between_arrows_ask_a_route():
    assert classify_aspect("x -> ? -> ? -> x") == Aspect.ROUTE
    assert classify_aspect("x + x -> ?") == Aspect.PRODUCT


def test_the_abbreviation_given_wins_over_a_misspelt_name_before_it(full_parser):
    """'methyl isobuthyl ketone (MIBK)' was corrected to diisobutyl ketone."""
    from chemground.chem.structure import structure_from_smiles

    query = full_parser.parse("CAS of our methyl isobuthyl ketone (MIBK)?")
    assert [m.inchikey for m in query.mentions] == [
        structure_from_smiles("CC(=O)CC(C)C").inchikey
    ], query.mentions


def test_its_fact_is_of_the_compound_named_last_when_that_is_clear(ask_json):
    """'... with silver oxide and I think we got vanillic acid. whats its molar mass?' compared
    all three; 'I have A and B. what is its MW?' leaves both (which one is not clear)."""
    out = ask_json("we heated salicylic acid with acetic anhydride and got aspirin. what's its MW?")
    assert out["value"] == pytest.approx(180.16, abs=0.01), out["answer"]


def test_the_systematic_name_in_brackets_says_which_compound_is_meant(full_parser):
    """'the molar mass of the xanthene it makes? (the purine one, 3,7-dihydropurine-2,6-dione)'
    was answered for xanthene; an enzyme's name ('xanthine oxidase') holds no compound."""
    from chemground.chem.structure import structure_from_smiles

    query = full_parser.parse(
        "xanthine oxidase assay: MW of the xanthene? (the purine one, 3,7-dihydropurine-2,6-dione)"
    )
    xanthine = structure_from_smiles("O=c1[nH]c(=O)c2[nH]cnc2[nH]1").inchikey
    assert [m.inchikey for m in query.mentions] == [xanthine], query.mentions


def test_an_ether_named_after_ether_synthesis_is_its_product(ask_json):
    out = ask_json("reactants of the Williamson ether synthesis of 2-butoxynaphthalene?")
    roles = {m["text"]: m.get("role") for m in out["query"]["mentions"]}
    assert roles.get("2-butoxynaphthalene") == "product", roles


def test_a_misspelt_fact_word_is_no_compound_and_a_misspelt_class_word_continues_a_name(
    full_parser,
):
    """'betain (trimethyl glycine) molecular formual ??' read 'formual' as a compound (the
    question then asked nothing); 'isovaleric acd formula??' found no compound."""
    query = full_parser.parse("caffeine moleculr weigth pls")
    assert [m.text for m in query.mentions] == ["caffeine"], query.mentions
    [mention] = full_parser.parse("benzoic acd formula?").mentions
    assert mention.resolved and mention.correction, mention


def test_a_short_capitalised_synonym_compared_with_is_a_compound(full_parser):
    """'Is 2-butanone the same as MEK?' read MEK as a word and asked nothing."""
    query = full_parser.parse("is 4-methylpentan-2-one identical to MIBK?")
    assert query.aspect == Aspect.SAME_COMPOUND, query
    assert [m.resolved for m in query.mentions] == [True, True], query.mentions


# -- round 31 (neighbouring fields, written blind): forms found, tested in other words ------


def test_a_halogen_in_parent_hydride_prefix_is_given_as_usual():
    from chemground.chem.names import _conventional_prefixes

    assert _conventional_prefixes("1-chloranyl-4-nitro-benzene") == "1-chloro-4-nitro-benzene"


def test_a_metal_a_name_spells_its_structure_lacks_is_not_that_compound():
    """'aluminium isopropoxide' is filed under isopropanol (its molar mass was 60.10 g/mol)."""
    from chemground.chem.mentions import Mention, _with_named_counter_ion
    from chemground.chem.structure import structure_from_smiles

    named = Mention(
        "titanium isopropoxide", 0, 21, "common_name", structure=structure_from_smiles("CC(C)O")
    )
    named = named.__class__(**{**named.__dict__, "resolved_by": "dictionary"})
    assert not _with_named_counter_ion(named).resolved


def test_handling_advice_is_declined(ask_json):
    """'is it ok to weigh acrylamide powder on the open bench ...?' got its molecular weight."""
    out = ask_json("is it ok to weigh caffeine on the open bench without a mask?")
    assert out["status"] != "answered", out["answer"]


def test_a_compound_the_question_calls_a_mixture_is_not_given_one_structure(full_parser):
    """'technical nonylphenol (the branched isomer mixture) smiles' got one isomer's SMILES."""
    [mention] = full_parser.parse("SMILES of cresol (the isomer mixture)?").mentions
    assert not mention.resolved and "mixture" in mention.reason, mention


def test_the_medium_of_a_concentration_is_no_compound_asked(full_parser):
    """'atrazine-d5 (ethyl-d5), 100 µg/mL in methanol – exact mass?' was answered with
    methanol's."""
    query = full_parser.parse("caffeine, 1 mg/mL in methanol – exact mass?")
    assert [m.text for m in query.mentions] == ["caffeine"], query.mentions


def test_a_capitalised_english_word_is_no_formula():
    from chemground.retrieval.tools import is_formula

    assert not is_formula("IS") and not is_formula("IN") and is_formula("NO")


def test_an_unknown_compound_a_fact_is_asked_of_is_not_replaced_by_another(full_parser):
    """'... strips the nickel off – what's the molecular weight of TCEP hydrochloride?' gave
    nickel's weight."""
    query = full_parser.parse("we swapped DTT for it – what's the MW of Zorbifex hydrochloride?")
    assert [m.resolved for m in query.mentions] == [False], query.mentions


def test_a_heavy_atom_label_after_a_name_labels_every_atom_it_counts(full_parser):
    """'L-lysine-13C6,15N2' (a SILAC standard) was unresolved and lysine's mass given instead; a
    label that counts fewer atoms than there are ('caffeine-13C3') says nothing of which."""
    from chemground.chem.names import heavy_label_reading
    from chemground.chem.structure import structure_from_smiles

    [mention] = full_parser.parse("exact mass of glycine-13C2,15N?").mentions
    assert structure_from_smiles(mention.smiles).exact_mass == pytest.approx(78.0358, abs=1e-3)
    caffeine = structure_from_smiles("Cn1c(=O)c2c(ncn2C)n(C)c1=O")
    assert isinstance(heavy_label_reading("caffeine-13C3", caffeine), str)
    assert heavy_label_reading("caffeine", caffeine) is None


def test_a_short_capitalised_synonym_set_against_a_compound_is_a_compound(full_parser):
    """'MEK or THF – which is more polar (TPSA)?' read MEK as a word and answered THF alone."""
    query = full_parser.parse("MIBK or toluene – which has the higher logP?")
    assert [m.resolved for m in query.mentions] == [True, True], query.mentions
