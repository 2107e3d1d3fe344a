"""Forms of questions a sixth round of blind user questions and probes found answered wrongly or
not at all (issue 13): charge and isotope states, vitamins by letter, atom counts, routes to a
target, mechanisms, identifiers given rather than asked, the asking clause, the first fact of
two, condensed structural formulas and the name the chemist typed."""

from __future__ import annotations

import pytest

from chemground.chem.condensed import condensed_to_smiles
from chemground.reasoning.aspects import classify_aspect, first_asked
from chemground.reasoning.atom_counts import asked_element
from chemground.reasoning.query import Aspect


@pytest.fixture(scope="module")
def qa(rules_qa):
    return rules_qa


def ask(qa, question):
    return qa.ask(question).to_json()


# -- charge, hydrate and isotope states ---------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "what is the TPSA of the ibuprofen anion?",
        "logP of protonated lidocaine",
        "formula of caffeine radical cation",
        "MW of 13C-labelled glucose",
        "exact mass of deuterated caffeine",
    ],
)
def test_a_charge_or_isotope_state_is_not_answered_for_the_neutral_compound(qa, question):
    """Each was answered, 'answered', with the neutral, unlabelled compound's value."""
    out = ask(qa, question)
    assert out["status"] != "answered", question
    assert "not that form" in out["answer"]


def test_an_ion_named_as_such_is_answered(qa):
    """The acetate ion is an anion already: its name and structure agree."""
    out = ask(qa, "MW of acetate anion")
    assert out["status"] == "answered" and out["value"] == pytest.approx(59.04, abs=0.01)


def test_a_deuterated_nmr_solvent_is_the_isotopologue(qa):
    out = ask(qa, "What is the molar mass of DMSO-d6?")
    assert out["status"] == "answered" and out["value"] == pytest.approx(84.17, abs=0.01)


# -- vitamins -------------------------------------------------------------------------------
def test_a_vitamin_by_letter_is_its_compound_or_says_why_not(qa):
    vitamin_c = ask(qa, "MW of vitamin C")
    assert vitamin_c["status"] == "answered"
    assert vitamin_c["value"] == pytest.approx(176.12, abs=0.01)
    family = ask(qa, "what is the molecular formula of vitamin D")
    assert family["status"] != "answered"
    assert "vitamin D" in family["answer"]


# -- atom counts ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "question, value",
    [
        ("how many carbons in ibuprofen?", 13),
        ("how many nitrogen atoms does caffeine have?", 4),
        ("how many hydrogens in hexane", 14),
        ("number of atoms in benzene", 12),
        ("how many Cl atoms in chloroform", 3),
    ],
)
def test_atoms_are_counted_by_element(qa, question, value):
    """These were refused ('no tool holds carbon atoms'), and 'hydrogens' resolved to H2."""
    out = ask(qa, question)
    assert out["status"] == "answered", out["answer"]
    assert out["value"] == value


def test_an_atom_count_does_not_take_other_counts():
    assert asked_element("How many hydrogen bond donors does x have?") is None
    assert asked_element("how many heavy atoms in x") is None
    assert asked_element("how many carbons does the product have") is None
    assert asked_element("how many C atoms in x") == ("C", (9, 10))
    assert classify_aspect("how many hydrogen bond donors does x have") == Aspect.HBD
    assert classify_aspect("how many chiral carbons in x") == Aspect.STEREOCENTRES


def test_the_atoms_of_an_unnamed_product_are_not_counted_for_a_reactant(qa):
    out = ask(qa, "how many carbons does the product of benzaldehyde and acetone have")
    assert out["status"] != "answered"


# -- routes, mechanisms ---------------------------------------------------------------------
def test_a_route_to_a_compound_ends_in_it(qa):
    """'route to paracetamol' was answered with a route from paracetamol to phenacetin."""
    out = ask(qa, "route to paracetamol")
    assert out["status"] == "answered"
    route = out["evidence"][0]["record"]
    assert route["molecules"][-1]["key"] == out["query"]["mentions"][0]["inchikey"]
    assert "phenacetin" not in out["answer"].split("\n")[1]


@pytest.mark.parametrize(
    "question",
    [
        "what is the mechanism of the Diels-Alder reaction of butadiene and maleic anhydride",
        "who discovered the Suzuki coupling",
        "is the Suzuki coupling stereospecific?",
    ],
)
def test_a_mechanism_is_not_answered_from_the_records(qa, question):
    """The first was answered with the record's participants."""
    out = ask(qa, question)
    assert out["status"] != "answered"


# -- what the question asks -----------------------------------------------------------------
def test_an_identifier_given_is_not_the_aspect_asked():
    assert classify_aspect("formula of the compound with inchikey x") == Aspect.FORMULA


def test_the_structure_of_the_product_is_the_product():
    assert (
        classify_aspect("x is treated with x in x. give the structure of the organic product.")
        == Aspect.PRODUCT
    )


def test_the_clause_that_asks_decides_even_without_a_compound():
    masked = "in the cui-catalysed click reaction of x with x in x, which amine base is added?"
    assert classify_aspect(masked) == Aspect.REAGENT


def test_conditions_listed_in_parentheses_are_the_conditions():
    masked = "under what conditions (solvent, temperature) is x added to x?"
    assert classify_aspect(masked) == Aspect.CONDITIONS


def test_of_two_facts_the_first_named_is_the_answer_value():
    assert first_asked("solvent and base for the coupling of x with x?", Aspect.REAGENT) == (
        Aspect.SOLVENT
    )
    assert first_asked("what base is used?", Aspect.REAGENT) == Aspect.REAGENT


@pytest.mark.parametrize(
    "question",
    [
        "is there a measured (experimental, shake-flask) logP for caffeine?",
        "Which solvent should I NOT use for a Grignard reaction?",
    ],
)
def test_qualified_and_negated_questions_are_declined(qa, question):
    assert ask(qa, question)["status"] != "answered"


def test_a_typo_of_does_is_not_a_medical_dose(qa):
    out = ask(qa, "how long dose the esterification of benzoic acid with methanol take?")
    assert "medical" not in out["answer"]


# -- names ----------------------------------------------------------------------------------
def test_a_typo_inside_a_suffix_is_corrected():
    from chemground.chem.mentions import _plausible_correction

    assert _plausible_correction("metoclopromide", "metoclopramide")
    assert not _plausible_correction("phenylhydrazone", "phenylhydrazine")


@pytest.mark.parametrize(
    "formula, smiles",
    [
        ("CH3CH2OH", "CCO"),
        ("CH3COOCH2CH3", "CCOC(C)=O"),
        ("(CH3)3CCOCl", "CC(C)(C)C(=O)Cl"),
        ("HOCH2CH2OCH2CH2OH", "OCCOCCO"),
        ("CH3CH(OH)CH3", "CC(C)O"),
        ("CH3(CH2)4CH3", "CCCCCC"),
        ("CH3COCH3", "CC(C)=O"),
        ("CH3CN", "CC#N"),
        ("C6H5CH2Br", "BrCc1ccccc1"),
        ("HOOCCH2COOH", "O=C(O)CC(=O)O"),
        # the shorthand chemists write inside them: CO2H, CO2Me, Me2 (PhCH2CO2H was dropped)
        ("PhCH2CO2H", "O=C(O)Cc1ccccc1"),
        ("PhCO2Me", "COC(=O)c1ccccc1"),
        ("CH3CO2Et", "CCOC(C)=O"),
        ("PhCH2NMe2", "CN(C)Cc1ccccc1"),
        # a substituted phenyl written first, the locant counted from the rest's ring atom
        ("4-BrC6H4CHO", "O=Cc1ccc(Br)cc1"),
        ("p-MeOC6H4CO2H", "COc1ccc(C(=O)O)cc1"),
        ("3-NO2C6H4CH2OH", "O=[N+]([O-])c1cccc(CO)c1"),
        ("2-ClC6H4COCH3", "CC(=O)c1ccccc1Cl"),
    ],
)
def test_a_condensed_formula_names_its_structure(formula, smiles):
    assert condensed_to_smiles(formula) == smiles


@pytest.mark.parametrize("formula", ["C2H6O", "C6H12O6", "H2SO4", "NaCl", "CH3CH2Q", "CH3)2"])
def test_a_molecular_formula_or_garbage_is_no_condensed_formula(formula):
    """A molecular formula fits several isomers; it is never read as one."""
    assert condensed_to_smiles(formula) is None


def test_a_condensed_formula_is_answered_as_its_compound(qa):
    out = ask(qa, "what is CH3COOCH2CH3 called")
    assert out["status"] == "answered" and "ethyl acetate" in out["answer"]


# -- requests that are not data, and conditions no tool models ------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "Tell me a joke about sodium",
        "What's the best brand of ibuprofen?",
        "Can I mix bleach and ammonia to clean my bathroom?",
        "What is the boiling point of water on Mount Everest?",
        "Calculate the yield of aspirin if 2.0 g salicylic acid gives 2.1 g aspirin.",
    ],
)
def test_requests_no_record_answers_are_declined(qa, question):
    """Each was answered: sodium's description, ibuprofen's synonyms, an unrelated reaction,
    the normal boiling point, and 2.0 g converted to moles as if it were aspirin."""
    assert ask(qa, question)["status"] != "answered", question


def test_a_household_name_is_still_a_name_question():
    assert classify_aspect("what is the household name of x") == Aspect.SYNONYMS


# -- notebook lines -------------------------------------------------------------------------
def test_a_notebook_line_with_amounts_asks_what_its_last_word_asks():
    """The amounts were converted to moles instead of the product being given."""
    masked = "x (1.22 g, 10 mmol), x (20 ml), x (cat.), reflux 4 h -> product?"
    assert classify_aspect(masked) == Aspect.PRODUCT
    assert classify_aspect("x (5 mmol), x, x, rt. yield?") == Aspect.YIELD
    assert classify_aspect("how many moles is 5 g of x") == Aspect.AMOUNT


def test_an_acid_or_metal_in_a_bare_list_is_an_agent(qa):
    """H2SO4 and Pd/C were matched as reactants, so the record that files them as catalysts
    was only a 'closest' match."""
    out = ask(qa, "nitrobenzene, H2 (1 atm), Pd/C, EtOH, rt, 4 h. what did I get?")
    assert out["status"] == "answered" and "aniline" in out["answer"]


def test_a_kind_asked_does_not_hide_the_other_fact(qa):
    """'oxidant and solvent': the solvent was cut with the roles that are not oxidants."""
    out = ask(qa, "epoxidation of cyclohexene - oxidant and solvent?")
    assert "chloroperoxybenzoic" in out["answer"] and "dichloromethane" in out["answer"]


def test_a_verb_of_what_is_done_is_no_compound():
    from chemground.chem.mentions import MentionFinder

    assert not MentionFinder._fuzzy_word("brominates")  # was corrected to "bromates"
    assert not MentionFinder._acceptable("deprotonates", 2, 1)


@pytest.mark.parametrize("question", ["Is water polar?", "what is the bond angle in water"])
def test_structure_physics_no_tool_computes_is_not_answered_with_a_neighbour(qa, question):
    """Answered with the TPSA and with the rotatable bonds."""
    out = ask(qa, question)
    assert out["status"] != "answered"
    assert "no record or tool here holds" in out["answer"]


def test_a_temperature_asked_in_fahrenheit_is_given_in_fahrenheit(qa):
    out = ask(qa, "boiling point of water in fahrenheit")
    assert out["status"] == "answered" and out["value"] == pytest.approx(212.0, abs=0.5)


def test_toxicity_without_a_toxicity_figure_is_partial(qa):
    """'is DMSO toxic?' was 'answered' with a flash point."""
    assert ask(qa, "is DMSO toxic")["status"] == "partial"


def test_a_compound_named_before_its_counter_ion_is_the_salt(qa):
    """'ibuprofen lysinate' was answered as two compounds, ibuprofen and the lysinate ion."""
    out = ask(qa, "MW of ibuprofen lysinate")
    assert out["status"] != "answered"
    assert "lysinate salt of ibuprofen" in out["answer"]


def test_turning_one_compound_into_another_is_a_route(qa):
    """'how could I turn X into Y' was read as the conditions of one reaction that has both, and
    no record has: a partial answer from a record of X alone."""
    out = ask(qa, "I have 4-nitrophenol - how could I turn it into paracetamol?")
    assert out["status"] == "answered" and out["method"] == "routes"
    assert "4-aminophenol" in out["answer"]


@pytest.mark.parametrize(
    "question, same",
    [
        ("Is paracetamol the same as acetaminophen?", True),
        ("is CCO ethanol", True),
        ("are ibuprofen and naproxen the same compound", False),
    ],
)
def test_two_names_are_compared_by_structure(qa, question, same):
    """These were 'could not tell what the question asks for'."""
    out = ask(qa, question)
    assert out["status"] == "answered" and out["value"] is same


def test_a_stereoisomer_is_not_the_same_compound(qa):
    out = ask(qa, "is C[C@H](N)C(=O)O the same as C[C@@H](N)C(=O)O?")
    assert out["status"] == "answered" and out["value"] is False
    assert "same skeleton" in out["answer"]


def test_an_identifier_given_does_not_decide_the_aspect(qa):
    """'formula of the bottle labelled CAS 58-08-2' was answered with the CAS number, and 'molar
    mass of <InChIKey>? (InChIKey from our ELN)' with the InChIKey."""
    cas = ask(qa, 'A bottle labelled only "CAS 58-08-2": which compound, and what is its formula?')
    assert cas["aspect"] == "formula" and cas["value"] == "C8H10N4O2"
    key = ask(qa, "molar mass of RYYVLZVUVIJVGH-UHFFFAOYSA-N? (InChIKey from our ELN export)")
    assert key["aspect"] == "molecular_weight"


def test_a_diels_alder_adduct_is_its_product(qa):
    out = ask(qa, "What's the Diels-Alder adduct of 1,3-butadiene and maleic anhydride?")
    assert out["status"] == "answered" and out["aspect"] == "product"


def test_a_reaction_run_without_its_catalyst_is_hypothetical(qa):
    question = (
        "if I ran the Suzuki of bromobenzene with phenylboronic acid palladium-free, what yield "
        "would I get?"
    )
    assert ask(qa, question)["status"] != "answered"


def test_hydrogens_in_a_formula_question_do_not_decline_it(qa):
    out = ask(
        qa, "is the molecular formula of caffeine C8H10N4O2, or have I got the hydrogens wrong?"
    )
    assert out["status"] == "answered" and out["value"] == "C8H10N4O2"


def test_a_notebook_line_asking_how_many_hours_asks_the_time():
    assert classify_aspect("x (5.0 g, 40 mmol) in x, x, reflux -> x. how many h?") == Aspect.TIME


def test_explain_what_a_compound_is_asks_for_its_description(qa):
    """The why/how rule took 'Explain what X is.' for an explanation (table recall fell)."""
    out = ask(qa, "Explain what benzaldehyde is.")
    assert out["aspect"] == "description" and out["status"] != "not_understood"


def test_a_class_to_be_made_constrains_the_records(qa):
    """'reagent to make an acid chloride from benzoic acid' was answered with the reagents of an
    amide coupling of benzoic acid."""
    out = ask(qa, "reagent to make an acid chloride from benzoic acid")
    assert out["status"] != "answered"
    assert "acid chloride" in out["answer"]


def test_what_is_made_from_a_compound_asks_for_the_product():
    assert classify_aspect("what is made from x") == Aspect.PRODUCT
    assert classify_aspect("what is x made from") == Aspect.REACTANTS


def test_the_name_of_this_compound_is_its_name_with_the_case_that_carries_meaning(qa):
    out = ask(qa, "what's the name of this compound: CN(C)C=O")
    assert out["aspect"] == "smiles_to_iupac"
    assert "N,N-dimethylmethanamide" in out["answer"] and "N,N-dimethylformamide" in out["answer"]


@pytest.mark.parametrize(
    "masked, aspect",
    [
        ("how many atoms in x can accept a hydrogen bond", None),
        ("x: how many atoms other than h", Aspect.HEAVY_ATOMS),
        ("how many atoms in x", Aspect.ATOM_COUNT),
    ],
)
def test_atom_counts_leave_other_counts_alone(masked, aspect):
    """The new atom count took 'atoms that can accept a hydrogen bond' and 'atoms other than
    H' (held-out paraphrase set 1)."""
    assert classify_aspect(masked) == aspect


def test_counting_two_elements_asks_for_the_formula(qa):
    out = ask(qa, "how many carbon atoms and hydrogens does naphthalene contain")
    assert out["aspect"] == "formula"


def test_non_hydrogen_atoms_are_heavy_atoms(qa):
    out = ask(qa, "How many non-hydrogen atoms does caffeine contain?")
    assert out["status"] == "answered" and out["value"] == 14


# -- a seventh blind round (round 9) -----------------------------------------------------------
@pytest.mark.parametrize(
    "question, parts",
    [
        (
            "What's the molecular formula of ibuprofen, and how many stereocentres does it have?",
            ["C13H18O2", "stereocentres of ibuprofen is 1"],
        ),
        ("logP and TPSA of caffeine", ["logP (Crippen) of caffeine is -1.03", "61.82"]),
        ("MW and H-bond donors of paracetamol?", ["151.16 g/mol", "H-bond donors of paracetamol"]),
    ],
)
def test_a_computed_fact_asked_beside_another_is_answered_too(qa, question, parts):
    """The records hold the formula and a tool counts the stereocentres: only one of the two was
    answered (the stereocentres, though the formula was asked first), the other dropped."""
    out = ask(qa, question)
    assert out["status"] == "answered"
    for part in parts:
        assert part in out["answer"], (question, part)
    assert out["answer"].index(parts[0]) < out["answer"].index(parts[1])


def test_a_stereocentre_word_that_asks_no_count_leaves_the_smiles_asked(qa):
    """'Isomeric SMILES for paroxetine, with both stereocentres (3S,4R) defined' was answered
    with the count of stereocentres."""
    out = ask(qa, "Isomeric SMILES for L-phenylalanine please, with its stereocentre (S) defined.")
    assert out["aspect"] == "name_to_smiles"
    assert out["value"] == "N[C@@H](Cc1ccccc1)C(=O)O" and "stereocentres" not in out["answer"]


def test_a_computed_value_for_a_corrected_typo_is_labelled_the_closest_match(qa):
    """The table channel says '(closest match: ...)' and 'partial'; a tool computed the value
    for the corrected name and called it 'answered', under the typed name."""
    out = ask(qa, "logP of ibuprofin")
    assert out["status"] == "partial"
    assert out["answer"].startswith("(closest match: ibuprofen) The logP (Crippen) of ibuprofen")


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("whats the molecular wait of quinine im making tonic water", "molecular_weight"),
        ("How many mg per mmol is papaverine?", "molecular_weight"),
        ("TBAB (10 mol%) added to the biphasic alkylation - what does TBAB do?", "description"),
        (
            "I need trans-stilbene as a standard - which two compounds would I react to make it?",
            "reactants",
        ),
        ("Suzuki of bromobenzene with phenylboronic acid: is the base K2CO3 or Cs2CO3?", "reagent"),
        (
            "Brc1cccc2ccccc12 + OB(O)c1ccccc1, Pd(PPh3)4 -> ? (SMILES of the biaryl please)",
            "product",
        ),
    ],
)
def test_round_nine_phrasings_read_the_fact_asked(qa, question, aspect):
    """A dictated homophone, mg per mmol, 'what does X do' after an amount, 'which two compounds
    would I react', 'is the base A or B' after a colon, an arrow with a note in brackets."""
    assert qa.parse(question).aspect.value == aspect


def test_dose_mistyped_for_does_is_not_a_medical_question(qa):
    """'how many hydrogen bond donors dose fluconazol have' was declined as a dosing question."""
    out = ask(qa, "how many hydrogen bond donors dose paracetamol have")
    assert out["status"] == "answered" and out["value"] == 2


@pytest.mark.parametrize(
    "text, name",
    [("fluconazol", "fluconazole"), ("maleic anhydrid", "maleic anhydride")],
)
def test_a_name_without_its_final_e_is_corrected(qa, text, name):
    mention = qa.parse(f"MW of {text}").mentions[0]
    assert mention.text == text and mention.correction == name


@pytest.mark.parametrize("question", ["the biaryl product", "benzalacetone, H2, Pd/C, rt 2 h -> ?"])
def test_class_words_and_stop_words_with_numbers_are_no_compounds(qa, question):
    """'biaryl' was typo-corrected to biarsyl (diarsine); 'rt 2' is a dictionary synonym of
    magnesium silicate."""
    texts = [m.text for m in qa.parse(question).mentions]
    assert "biaryl" not in texts and "rt 2" not in texts
    from chemground.chem.mentions import MentionFinder

    # a dye's name of stop words and a number stays a name (retrieval lost 'acid green 5')
    assert MentionFinder._acceptable("acid green 5", 0, 3)
    assert not MentionFinder._acceptable("rt 2", 0, 2)


def test_an_inchi_in_a_question_finds_the_record_and_its_names(qa):
    """The resolver read an InChI to a structure without its KB record: 'No names are recorded'
    in an answer, 'not in the knowledge base' in `chemground compound`."""
    inchi = "InChI=1S/C8H10N4O2/c1-10-4-9-6-5(10)7(13)12(3)8(14)11(6)2/h4H,1-3H3"
    out = ask(qa, f"common name of {inchi}")
    assert out["status"] == "answered" and "caffeine" in out["answer"]
    from chemground.kb.lookup import lookup_compound

    report = lookup_compound(qa.workspace.kb, qa.workspace.resolver, inchi)
    assert report.in_kb and report.compound.common_name == "caffeine"


@pytest.mark.parametrize(
    "question, answer, offered",
    [
        (
            "For the EDC/HOBt amidation of cyclohexanecarboxylic acid with piperidine, is the "
            "solvent DCM or DMF?",
            "N,N-dimethylformamide",
            "'DCM' or 'DMF'",
        ),
        (
            "thiophene + acetic anhydride with 85% H3PO4 at 75 °C - do I get 2- or "
            "3-acetylthiophene?",
            "2-acetylthiophene",
            "'3-acetylthiophene'",
        ),
    ],
)
def test_choices_offered_for_the_fact_asked_are_not_required_of_the_record(
    qa, question, answer, offered
):
    """No record holds both DCM and DMF: matched as constraints the options gave 'no reaction
    matches all of ...'; they are the candidates, and the note says so."""
    out = ask(qa, question)
    assert out["status"] == "answered" and answer in out["answer"]
    assert any(n.startswith(offered) and "offered as the choice" in n for n in out["notes"])


def test_alternative_reactants_are_not_taken_for_offered_choices(qa):
    query = qa.parse(
        "which catalyst for the Suzuki coupling of bromobenzene or iodobenzene with "
        "phenylboronic acid?"
    )
    from chemground.reasoning.options import read_offered

    assert read_offered(query) is query


# -- an eighth blind round (round 10) ----------------------------------------------------------
def test_a_yield_if_a_reagent_were_left_out_is_not_the_records(qa):
    """'What yield would the Boc protection of L-proline give if I left out the triethylamine?'
    was answered with the record's 90 %, confidently."""
    out = ask(
        qa, "What yield would the esterification of benzoic acid give if I left out the acid?"
    )
    assert out["status"] != "answered" and "if i left out" in out["answer"]


@pytest.mark.parametrize(
    "question",
    [
        "HMPA (cosolvent, 2 equiv) - full name? the safety office wants it spelled out",
        "we stock DMF - what else is it called?",
    ],
)
def test_full_name_and_what_else_it_is_called_ask_for_synonyms(qa, question):
    assert qa.parse(question).aspect == Aspect.SYNONYMS


def test_a_reagent_named_like_its_reaction_class_is_still_the_compound(qa):
    """'Dess-Martin periodinane (1.5 equiv) ... - MW?': the class 'Dess-Martin oxidation' is read
    from the reagent's name, and stripping the class's words left no compound."""
    from chemground.reasoning.reaction_classes import find_classes, without_class_words

    query = qa.parse("Dess-Martin periodinane (1.5 equiv) for the oxidation - MW?")
    assert without_class_words(query, find_classes(query.question)).mentions == query.mentions
    appel = qa.parse("what is the Appel reaction?")
    assert not without_class_words(appel, find_classes(appel.question)).resolved_mentions


def test_three_offered_solvents_and_a_bare_list_solvent(qa):
    """'which solvent - THF, DMF or neat Et3N?' offers three; in '2-nitroanisole H2 Pd/C MeOH
    product' methanol is the solvent, not a reactant the record must hold."""
    from chemground.reasoning.options import read_offered

    query = qa.parse(
        "for the Suzuki coupling of bromobenzene, which solvent - THF, DMF or neat Et3N?"
    )
    kept = read_offered(query).mentions
    assert [m.text for m in kept] == ["bromobenzene"]
    notebook = qa.parse("benzoic acid, toluene, EtOH, water - catalyst?")
    assert read_offered(notebook) is notebook  # commas alone offer no choice
    listed = qa.parse("nitrobenzene H2 Pd/C MeOH product")
    assert next(m for m in listed.mentions if m.text == "MeOH").role is None


# -- eighth session: probes written after reading the first-sight failures of rounds 5-10 -------
@pytest.mark.parametrize(
    "question",
    [
        "expected yield of the mCPBA epoxidation of cyclohexene at 50 C instead?",
        "would the Swern oxidation of cyclohexanol still work at room temp?",
        "yield of the Grignard addition of PhMgBr to benzophenone in wet ether?",
        "if the NaBH4 reduction of benzaldehyde were run at a higher temperature, what yield?",
    ],
)
def test_a_changed_condition_is_not_answered_with_the_records_value(qa, question):
    """Each was answered, 'answered', with the record's yield or temperature, as if the change
    the question makes did not matter."""
    out = ask(qa, question)
    assert out["status"] != "answered", question
    assert "changed conditions" in out["answer"]


@pytest.mark.parametrize(
    ("question", "product"),
    [
        ("give me the SMILES of what you get from benzaldehyde + NaBH4", "OCc1ccccc1"),
        ("acetophenone + NaBH4 in MeOH -> ? smiles pls", "CC(O)c1ccccc1"),
    ],
)
def test_the_structure_of_what_a_reaction_gives_is_the_products(qa, question, product):
    """The SMILES of the reactants were answered."""
    out = ask(qa, question)
    assert out["status"] == "answered", out["answer"]
    assert f"({product})" in out["answer"] and out["answer"].startswith("Product:")


def test_a_fact_named_after_the_arrow_is_computed_for_the_product(qa):
    out = ask(qa, "acetophenone + NaBH4 in MeOH -> ? MW please")
    assert out["value"] == pytest.approx(122.17, abs=0.01), out["answer"]


@pytest.mark.parametrize(
    "question", ["formula of ethanol's oxidation product", "mw of benzaldehyde's reduction product"]
)
def test_a_compounds_product_is_not_the_compound(qa, question):
    """ "ethanol's oxidation product" was answered with ethanol's own formula."""
    out = ask(qa, question)
    assert out["status"] != "answered"
    assert "not that form" in out["answer"]


def test_the_product_and_another_fact_are_both_answered(qa):
    """ "the product SMILES and the yield": the yield was dropped silently."""
    out = ask(qa, "Give the product SMILES and the yield for cyclohexene + mCPBA")
    assert "C1CCC2OC2C1" in out["answer"] and "Yield:" in out["answer"]
    only_yield = ask(qa, "what is the product yield of the mCPBA epoxidation of cyclohexene?")
    assert not only_yield["answer"].startswith("Product:"), only_yield["answer"]


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("logP of 58-08-2", "caffeine (CAS 58-08-2)"),
        ("TPSA of BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "aspirin (BSYNRYMUTXBXSQ-UHFFFAOYSA-N)"),
    ],
)
def test_a_computed_value_names_the_compound_not_only_its_identifier(qa, question, shown):
    """ "The logP (Crippen) of 58-08-2 is -1.03": a CAS number is no name."""
    out = ask(qa, question)
    assert out["status"] == "answered" and shown in out["answer"], out["answer"]


# -- a ninth blind round (round 11) ----------------------------------------------------------
def test_a_bare_chain_of_heteroatom_capitals_is_an_acronym_not_a_smiles(qa):
    """ "impurity profiling SOP for Eliquis tablets - molecular formula of the API (apixaban)?"
    was answered with the formula of SOP read as a SMILES (H3OPS)."""
    out = ask(qa, "impurity profiling SOP for Eliquis tablets - molecular formula of apixaban?")
    assert out["status"] == "answered" and out["value"] == "C25H25N5O4", out["answer"]
    assert ask(qa, "MW of CCO")["value"] == pytest.approx(46.07, abs=0.01)


def test_a_smiles_with_its_stereocentre_specified_asks_for_the_smiles(qa):
    question = "Please give sitagliptin as an isomeric SMILES with its (R) stereocentre specified."
    assert qa.parse(question).aspect == Aspect.NAME_TO_SMILES
    assert qa.parse("stereocentres in ibuprofen?").aspect == Aspect.STEREOCENTRES


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("condtions for MeMgBr adding to acetophenone (solvent + temp)?", Aspect.CONDITIONS),
        (
            "2-Phenylethanol is treated with 4-methoxyphenol, PPh3 and DIAD in THF. Give the "
            "product as a SMILES string.",
            Aspect.PRODUCT,
        ),
        (
            "isoprene (2 eq) + methyl acrylate, AlCl3, CH2Cl2, rt 4 h. major regioisomer?",
            Aspect.PRODUCT,
        ),
        ("SM ethyl benzoate -> target methyl 3-nitrobenzoate. steps?", Aspect.ROUTE),
        (
            "boc-protecting aniline with Boc2O, no base - which solvent does the record use?",
            Aspect.SOLVENT,
        ),
        ("heck reaction base?", Aspect.REAGENT),
    ],
)
def test_round_eleven_phrasings_ask_what_they_ask(qa, question, aspect):
    assert qa.parse(question).aspect == aspect


def test_amounts_a_notebook_line_gives_are_not_amounts_asked(qa):
    """A notebook line with "PdCl2(PPh3)2 (2 mol%), CuI (4 mol%) ... -> product?" was declined
    as asking for an amount."""
    out = ask(
        qa,
        "4-iodotoluene (1.0 eq), 2-methyl-3-butyn-2-ol (1.2 eq), PdCl2(PPh3)2 (2 mol%), CuI "
        "(4 mol%), Et3N, THF, rt 6 h -> product?",
    )
    assert "amount" not in out["answer"] and out["answer"].startswith("Product:"), out["answer"]
    asked = ask(qa, "how much catalyst (mol%) for the Suzuki coupling of 4-bromoanisole?")
    assert asked["status"] != "answered" and "amount" in asked["answer"]


# -- robustness: the same question with a greeting, a thank-you, a typo or no question mark ------
# (found by perturbing right dev answers; 56 of 362 questions with a misspelt aspect word were
# answered confidently wrong, mostly with the product)
@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        (
            "Which sovlent is used for the Suzuki coupling of bromobenzene with PhB(OH)2?",
            Aspect.SOLVENT,
        ),
        ("Knoevenagel of benzaldehyde and malononitrile - catlayst?", Aspect.CATALYST),
        (
            "tempertaure for the Buchwald-Hartwig coupling of 2-bromopyridine and piperidine?",
            Aspect.TEMPERATURE,
        ),
        ("what's capsaicin's fomrula? the chilli stuff", Aspect.FORMULA),
        (
            "HWE: PhCHO + diethyl benzylphosphonate -> stilbene. base?? thx in advance",
            Aspect.REAGENT,
        ),
        ("hey, quick one - MeNO2 + chalcone -> product - thx in advance", Aspect.PRODUCT),
        ("whats formed when 4-tert-butylcyclohexanone is reduced with NaBH4?", Aspect.PRODUCT),
        ("For my lab report: identify LFQSCWFLJHTTHZ-UHFFFAOYSA-N", Aspect.DESCRIPTION),
    ],
)
def test_greetings_thanks_and_typos_do_not_change_what_is_asked(qa, question, aspect):
    assert qa.parse(question).aspect == aspect


def test_english_words_near_an_aspect_word_are_not_corrected():
    from chemground.reasoning.aspects import correct_aspect_words

    text = "the reaction of x with x on heating, named after a polar group"
    assert correct_aspect_words(text, rare_only=True) == text
    assert correct_aspect_words("which sovlent", rare_only=True) == "which solvent"


def test_a_misspelt_property_at_conditions_is_still_declined(qa):
    out = ask(qa, "bioling point of toluene at 20 mbar?")
    assert out["status"] != "answered" and "conditions the tools do not model" in out["answer"]


def test_an_essay_request_with_a_prefix_is_declined(qa):
    out = ask(qa, "Q: discuss, in no more than 300 words, the ethical lessons of thalidomide.")
    assert out["status"] != "answered"


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("Which palladium cat. is used for the Heck reaction of iodobenzene?", Aspect.CATALYST),
        ("MeNO2 + chalcone, cat.", Aspect.CATALYST),
        (
            "Give the organic product of the condensation of benzaldehyde with acetophenone.",
            Aspect.PRODUCT,
        ),
    ],
)
def test_lab_shorthand_for_catalyst_and_the_organic_product(qa, question, aspect):
    """'cat.' left the question to the product rule; 'the organic product' to the catalyst."""
    assert qa.parse(question).aspect == aspect


# -- the same questions about another name of the same compound ---------------------------------
def test_a_stereo_smiles_of_a_record_without_stereo_is_hedged(qa):
    """ "isomeric SMILES with stereo for tyrosine?" gave DL-tyrosine's SMILES, 'answered'."""
    out = ask(qa, "isomeric SMILES with stereo for ibuprofen?")
    assert out["status"] == "partial" and "undefined" in out["answer"], out["answer"]
    named = ask(qa, "isomeric smiles of L-tyrosine")
    assert named["status"] == "answered" and "@" in named["value"]


def test_a_description_under_another_name_gives_the_common_name(qa):
    out = ask(qa, "identify ethyl hydroxide")
    assert out["answer"].startswith("ethyl hydroxide (ethanol;"), out["answer"]


def test_a_condition_given_is_not_a_fact_asked(qa):
    """ "... in CH2Cl2 at room temperature. Give the structure of the organic product." was
    answered with the temperature first (its value)."""
    question = (
        "benzene, 2-propenyl- is treated with mCPBA in CH2Cl2 at room temperature. Give the "
        "structure of the organic product."
    )
    assert qa.parse(question).aspect == Aspect.PRODUCT


def test_names_list_leaves_out_the_name_answered_under(qa):
    out = ask(qa, "abbreviation for dimethylformamide")
    listed = [n.strip(" .").lower() for n in out["answer"].split("also known as:")[1].split(";")]
    assert listed.count("dmf") == 1 and "dimethylformamide" not in listed


@pytest.mark.parametrize(
    "question",
    [
        "What ester forms from hexanoic acid and butanol with TsOH",
        "Appel: 1-decanol with PPh3 in refluxing CCl4 - what halide do I end up with",
        "benzalacetone, H2 (balloon), 10% Pd/C, EtOAc, rt 2 h ->",
    ],
)
def test_a_product_question_without_its_question_mark(qa, question):
    """Each was 'could not tell what the question asks for' once its '?' was left out."""
    assert qa.parse(question).aspect == Aspect.PRODUCT
    assert qa.parse("what yield do I get from benzaldehyde and NaBH4?").aspect == Aspect.YIELD


def test_was_is_not_read_as_whats():
    from chemground.reasoning.aspects import without_chatter

    assert without_chatter("when was aspirin first synthesized?") == (
        "when was aspirin first synthesized?"
    )
    assert without_chatter("whats the MW of x") == "what's the MW of x?"


@pytest.mark.parametrize(
    "question", ["when was aspirin first synthesized?", "is DMSO safe to put on my skin?"]
)
def test_history_and_use_on_the_body_are_not_record_facts(qa, question):
    """Answered with aspirin's description and DMSO's flash point."""
    assert ask(qa, question)["status"] != "answered"


@pytest.mark.parametrize("question", ["MW of unobtainium chloride", "mw of zylkonium bromide"])
def test_an_anion_after_an_unknown_name_is_not_the_ion(qa, question):
    """ "MW of unobtainium chloride" was answered with the chloride ion's 35.45 g/mol."""
    out = ask(qa, question)
    assert out["status"] != "answered" and out["value"] is None
    # said either way: a salt of an unknown cation, or an unknown two-word name
    assert (
        "no element or compound I know" in out["answer"]
        or "is not in the compound dictionary" in out["answer"]
    )
    assert ask(qa, "MW of sodium chloride")["value"] == pytest.approx(58.44, abs=0.01)


def test_a_yield_in_the_absence_of_a_reagent_is_not_the_records(qa):
    out = ask(
        qa, "what yield does the Suzuki coupling of bromobenzene give in the absence of base?"
    )
    assert out["status"] != "answered"


def test_a_work_up_asked_is_not_answered_with_the_product(qa):
    out = ask(qa, "grignard of PhMgBr + benzophenone: workup?")
    assert out["status"] != "answered" and "worked up" in out["answer"]
    after = ask(qa, "yield of the Suzuki coupling of bromobenzene after purification?")
    assert after["answer"].startswith("Yield:"), after["answer"]


def test_a_closing_aside_of_context_does_not_decide_what_is_asked(qa):
    """ "(InChIKey from our ELN export, ...)" after "molar mass of isoquinoline?" is context: the
    InChIKey was answered. A short aside still says what is asked."""
    question = (
        "molar mass of isoquinoline? (InChIKey from our ELN export, the name column is empty)"
    )
    assert qa.parse(question).aspect == Aspect.MOLECULAR_WEIGHT
    assert qa.parse("how drug-like is caffeine? (QED score)").aspect == Aspect.QED


def test_what_a_compound_is_usually_called_asks_for_its_names(qa):
    assert qa.parse("what's vanillic aldehyde usually called?").aspect == Aspect.SYNONYMS
    assert qa.parse("what is aspirin called?").aspect != Aspect.SYNONYMS


def test_a_urea_made_from_an_amine_is_the_reaction_class(qa):
    """'a urea' is the class (urea formation), and the amine after 'from' is used, not made."""
    out = ask(qa, "What solvent is typically used to make a urea from an amine and an isocyanate?")
    assert out["status"] == "answered" and "dichloromethane" in out["answer"]


def test_what_a_reagent_is_for_is_its_description(qa):
    out = ask(qa, "aldehyde, TMSCN (1.2 eq), ZnI2 (cat.), DCM, rt - what is the TMSCN for?")
    assert out["query"]["aspect"] == "description" and "cyanide" in out["answer"]


def test_what_a_reaction_is_run_in_is_its_solvent(qa):
    out = ask(qa, "What do I run a Swern oxidation in?")
    assert out["query"]["aspect"] == "solvent" and "dichloromethane" in out["answer"]


@pytest.mark.parametrize("question", ["pKa of acetic acid", "refractive index of toluene"])
def test_a_terse_question_for_a_property_not_held_says_so(qa, question):
    """With no aspect read, the papers were tried and the answer was 'could not tell what the
    question asks for'."""
    out = ask(qa, question)
    assert (
        out["status"] == "not_understood" and "which no record or tool here holds" in out["answer"]
    )


def test_one_compound_named_twice_is_computed_once(qa):
    """'ibuprofen (2-(4-isobutylphenyl)propanoic acid)' had its two equal logPs compared."""
    out = ask(qa, "What's the logP of ibuprofen (2-(4-isobutylphenyl)propanoic acid)?")
    assert out["status"] == "answered" and out["value"] == pytest.approx(3.07, abs=0.01)
    assert "same" not in out["answer"]


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("what is the formula of aspirin's active metabolite salicylic acid?", "C7H6O3"),
        ("MW of aspirin's metabolite salicylic acid?", 138.12),
    ],
)
def test_a_relation_followed_by_its_compound_asks_for_that_compound(qa, question, value):
    """Both formulas were answered, or aspirin was 'not resolved' beside the right answer."""
    out = ask(qa, question)
    assert out["status"] == "answered"
    assert out["value"] == (value if isinstance(value, str) else pytest.approx(value, abs=0.01))


def test_words_joined_into_an_english_word_are_no_compound(qa):
    """ "100 °C (Heck)" normalises to "check", which the dictionary lists as a synonym of a
    cephalosporin: it was read as a reactant."""
    query = qa.parse("4-bromobenzaldehyde + ethyl acrylate, Et3N, DMF, 100 °C (Heck) - ligand?")
    assert all("heck" not in m.text.lower() for m in query.mentions)


def test_a_metal_source_asked_is_the_catalyst_not_a_compound(qa):
    """ "Pd source + ligand?" asks the catalyst system; palladium metal was required of the record
    and the question read as asking the product."""
    out = ask(qa, "Heck of 4-bromobenzaldehyde with ethyl acrylate, Et3N, DMF: Pd source + ligand?")
    assert out["status"] == "answered", out["answer"]
    assert "palladium(II) acetate" in out["value"]
