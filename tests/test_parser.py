"""Rule-based question parsing: mentions in every notation, aspects, roles, clear failures."""

from __future__ import annotations

import pytest

from chemground.chem.names import NameResolver
from chemground.kb.records import Role
from chemground.reasoning.parser import RuleParser
from chemground.reasoning.query import Aspect
from chemground.retrieval.fuzzy import FuzzyNameIndex


@pytest.fixture
def parser(small_kb, opsin):
    return RuleParser(NameResolver(small_kb, opsin), FuzzyNameIndex(small_kb))


def mentions(query):
    return [(m.text, m.smiles) for m in query.mentions]


@pytest.mark.parametrize(
    "question, text, smiles",
    [
        (
            "what is the molecular weight of CC(=O)Nc1ccc(O)cc1?",
            "CC(=O)Nc1ccc(O)cc1",
            "CC(=O)Nc1ccc(O)cc1",
        ),
        ('MW of "OCC".', "OCC", "CCO"),
        ("formula of 'O=C(O)c1ccccc1O', please", "O=C(O)c1ccccc1O", "O=C(O)c1ccccc1O"),
        ("What is the IUPAC name of C1=CC=C(C=C1)C=O?", "C1=CC=C(C=C1)C=O", "O=Cc1ccccc1"),
        ("Name this: [Na+].[Cl-]", "[Na+].[Cl-]", "[Cl-].[Na+]"),
    ],
)
def test_smiles_anywhere_with_punctuation_or_quotes(parser, question, text, smiles):
    query = parser.parse(question)
    assert mentions(query) == [(text, smiles)]
    assert query.mentions[0].input_format == "smiles" and query.input_format == "smiles"


@pytest.mark.parametrize(
    "question, text, smiles",
    [
        (
            "What is the formula of 2,5-dichloropyrimidine?",
            "2,5-dichloropyrimidine",
            "Clc1cnc(Cl)nc1",
        ),
        (
            "What is the formula of 4-(2-methylpropyl)benzoic acid?",
            "4-(2-methylpropyl)benzoic acid",
            "CC(C)Cc1ccc(C(=O)O)cc1",
        ),
        (
            "molecular weight of N'-benzylidenebenzohydrazide",
            "N'-benzylidenebenzohydrazide",
            "O=C(NN=Cc1ccccc1)c1ccccc1",
        ),
        ("SMILES for N,N-dimethylformamide?", "N,N-dimethylformamide", "CN(C)C=O"),
        (
            "What is the MW of 1-[bis(dimethylamino)methylene]-1H-1,2,3-triazolo[4,5-b]pyridinium "
            "3-oxide "
            "hexafluorophosphate?",
            "1-[bis(dimethylamino)methylene]-1H-1,2,3-triazolo[4,5-b]pyridinium 3-oxide "
            "hexafluorophosphate",
            None,
        ),
    ],
)
def test_systematic_names_with_commas_brackets_primes(parser, question, text, smiles):
    query = parser.parse(question)
    assert [m.text for m in query.mentions] == [text]
    assert query.mentions[0].resolved
    if smiles:
        assert query.mentions[0].smiles == smiles


def test_common_names_synonyms_and_abbreviations(parser):
    query = parser.parse("What do I get if I mix acetic anhydride with 4-aminophenol in DCM?")
    assert [m.text for m in query.mentions] == ["acetic anhydride", "4-aminophenol", "DCM"]
    assert query.aspect == Aspect.PRODUCT
    assert [m.role for m in query.mentions] == [Role.REACTANT, Role.REACTANT, Role.SOLVENT]
    assert parser.parse("smiles for ethyl alcohol").mentions[0].smiles == "CCO"


def test_typo_is_corrected_and_reported(parser):
    query = parser.parse("What is the molecular weight of benzaldehide?")
    mention = query.mentions[0]
    assert mention.resolved and mention.smiles == "O=Cc1ccccc1"
    assert mention.correction == "benzaldehyde" and mention.resolved_by == "fuzzy"
    assert 0.85 <= mention.confidence < 1.0


def test_ordinary_words_are_not_compounds(parser):
    query = parser.parse("What is the boiling point of the moon?")
    # boiling point is a tool aspect now; the router sends a question naming no compound out of
    # scope
    assert query.mentions == [] and query.aspect == Aspect.BOILING_POINT
    assert any("no compound in the question could be resolved" in p for p in query.problems)
    query = parser.parse("What is the colour of the moon?")
    assert query.mentions == [] and query.aspect is None
    assert any("could not tell what the question asks for" in p for p in query.problems)


def test_several_compounds_and_role_words(parser):
    query = parser.parse(
        "What is the yield of N'-benzylidenebenzohydrazide from benzaldehyde and benzohydrazide?"
    )
    assert query.aspect == Aspect.YIELD and query.level == "reaction"
    assert [m.role for m in query.mentions] == [Role.PRODUCT, Role.REACTANT, Role.REACTANT]
    query = parser.parse("Which catalyst converts nitrobenzene to give aniline?")
    assert query.aspect == Aspect.CATALYST
    assert [m.role for m in query.mentions] == [Role.REACTANT, Role.PRODUCT]
    query = parser.parse("How is ethyl acetate made?")
    assert query.aspect == Aspect.REACTANTS and query.mentions[0].role == Role.PRODUCT


@pytest.mark.parametrize(
    "question, aspect",
    [
        ("what's the MW of aspirin", Aspect.MOLECULAR_WEIGHT),
        ("smiles for caffeine", Aspect.NAME_TO_SMILES),
        ("what do I get if I mix benzaldehyde and benzohydrazide?", Aspect.PRODUCT),
        ("What forms when benzaldehyde reacts with benzohydrazide?", Aspect.PRODUCT),
        ("What is the exact mass of caffeine?", Aspect.EXACT_MASS),
        ("What is the chemical formula of caffeine?", Aspect.FORMULA),
        ("What is the IUPAC name of caffeine?", Aspect.SMILES_TO_NAME),
        ("What are other names for caffeine?", Aspect.SYNONYMS),
        ("Tell me about caffeine", Aspect.DESCRIPTION),
        ("caffeine", Aspect.DESCRIPTION),
        ("compounds similar to caffeine", Aspect.SIMILAR),
        (
            "Which solvent is used for the reaction of benzaldehyde with benzohydrazide?",
            Aspect.SOLVENT,
        ),
        ("At what temperature does benzaldehyde react with benzohydrazide?", Aspect.TEMPERATURE),
        ("How long does benzaldehyde react with benzohydrazide?", Aspect.TIME),
        ("What conditions are used to react benzaldehyde with benzohydrazide?", Aspect.CONDITIONS),
        ("Which reagents are used with benzaldehyde?", Aspect.REAGENT),
        ("Which reactions involve benzaldehyde?", Aspect.REACTIONS),
        ("What are the starting materials for aspirin?", Aspect.REACTANTS),
    ],
)
def test_aspects(parser, question, aspect):
    assert parser.parse(question).aspect == aspect


def test_unresolvable_compound_is_a_specific_message(parser):
    query = parser.parse("What is the MW of 3-frobnicyl-2,2-dizorbane?")
    assert not any(m.resolved for m in query.mentions)
    assert any(
        "3-frobnicyl-2,2-dizorbane" in p and "could not be resolved" in p for p in query.problems
    )
    assert any("no compound in the question could be resolved" in p for p in query.problems)


def test_bad_smiles_reports_rdkits_reason(parser):
    query = parser.parse("What is the MW of C1CC(=O?")
    assert any("C1CC(=O" in p for p in query.problems)


def test_route_questions_and_bare_numbers(parser):
    query = parser.parse("route from 4-nitrophenol to paracetamol in 3 steps")
    assert query.aspect == Aspect.ROUTE and [m.text for m in query.mentions] == [
        "4-nitrophenol",
        "paracetamol",
    ]
    assert parser.parse("What can I make from benzaldehyde in two steps?").aspect == Aspect.ROUTE


def test_a_dictionary_prefix_does_not_cut_a_longer_systematic_name(parser):
    query = parser.parse(
        "What is the molecular weight of propan-2-yl 2-[2,4-bis(chloranyl)phenoxy]ethanoate?"
    )
    assert [m.text for m in query.mentions] == [
        "propan-2-yl 2-[2,4-bis(chloranyl)phenoxy]ethanoate"
    ]
    assert query.mentions[0].smiles == "CC(C)OC(=O)COc1ccc(Cl)cc1Cl"


def test_two_word_ester_names_and_element_names_reach_opsin(parser):
    """Out-of-dictionary names that match no systematic pattern word by word still resolve."""
    query = parser.parse("Compute the molar mass of butyl n-phenylcarbamate.")
    assert [(m.text, m.smiles) for m in query.mentions] == [
        ("butyl n-phenylcarbamate", "CCCCOC(=O)Nc1ccccc1")
    ]
    query = parser.parse("What is the formula weight of praseodymium?")
    assert [(m.text, m.smiles) for m in query.mentions] == [("praseodymium", "[Pr]")]
    # an alkyl word opens an ester name only when a chemical word follows it
    assert [
        m.text for m in parser.parse("What is the MW of butyl in methyl benzoate?").mentions
    ] == ["methyl benzoate"]


def test_a_misspelt_multi_word_name_is_corrected_as_a_whole(parser):
    query = parser.parse("What is the molecular weight of acetic anhydrde?")
    assert [(m.text, m.smiles) for m in query.mentions] == [("acetic anhydrde", "CC(=O)OC(C)=O")]
    assert query.mentions[0].correction == "acetic anhydride"


def test_a_substituent_name_alone_is_not_read_as_a_radical(parser):
    """ "propan-2-yl" parses (OPSIN) to the isopropyl radical; in a question it is a fragment."""
    query = parser.parse("What is the molecular weight of propan-2-yl?")
    assert all(m.smiles is None or "[CH]" not in m.smiles for m in query.mentions)
    assert (
        parser.parse("What is the molecular weight of propan-2-ol?").mentions[0].smiles == "CC(C)O"
    )


@pytest.mark.parametrize(
    "question, text, smiles",
    [
        # a verb ending like a systematic name ("Translate") must not hide the name that follows it
        (
            "Translate 4-(aminomethyl)cyclohexane-1-carboxylic acid into SMILES.",
            "4-(aminomethyl)cyclohexane-1-carboxylic acid",
            "NCC1CCC(C(=O)O)CC1",
        ),
        # an alkyl word before a dictionary name ("borate") makes one ester name
        (
            "Provide the SMILES of trioctyl borate.",
            "trioctyl borate",
            "CCCCCCCCOB(OCCCCCCCC)OCCCCCCCC",
        ),
        (
            "Provide the SMILES of tris(3-chloranylpropyl) phosphate.",
            "tris(3-chloranylpropyl) phosphate",
            "O=P(OCCCCl)(OCCCCl)OCCCCl",
        ),
        # lower-cased N- and O-locants with numbers, as lower-casing dictionaries write them
        (
            "SMILES of 6-ethylsulfanyl-n2,n4-di(propan-2-yl)-1,3,5-triazine-2,4-diamine?",
            "6-ethylsulfanyl-n2,n4-di(propan-2-yl)-1,3,5-triazine-2,4-diamine",
            "CCSc1nc(NC(C)C)nc(NC(C)C)n1",
        ),
    ],
)
def test_names_that_used_to_be_cut_or_misread(parser, question, text, smiles):
    assert [(m.text, m.smiles) for m in parser.parse(question).mentions] == [(text, smiles)]


def test_conversion_of_x_to_y_is_the_reaction_not_a_yield_question():
    """'What is the catalyst in the conversion of X to Y?' was read as a yield question (the
    table-RAG benchmark's catalyst items answered 'records no yield')."""
    from chemground.reasoning.aspects import classify_aspect

    assert classify_aspect("what is the catalyst in the conversion of x to x?").value == "catalyst"
    assert classify_aspect("what is the solvent in the conversion of x into x?").value == "solvent"
    assert classify_aspect("what conversion was reached?").value == "yield"
