"""Reaction questions as a synthetic chemist writes them (issue 13): reaction SMILES, several
conditions asked at once, the acid among the reagents, a quench after the reaction, the answers
offered in the question, a named reaction spelt with an en dash, a misspelt name in an
otherwise exact match, and requests no record answers (a kitchen, a pilot plant, an E/Z ratio).
Found by round 15 of the blind user questions and by probes written beside it."""

from __future__ import annotations

import pytest

from chemground.chem.solvents import is_acid
from chemground.reasoning.question_text import protected_names_joined, reaction_smiles_in_words
from chemground.reasoning.reaction_classes import find_classes


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("CCO.CC(=O)O>>CCOC(C)=O yield?", "CCO + CC(=O)O -> CCOC(C)=O yield?"),
        ("CCO.CC(=O)O>>? (H2SO4, reflux)", "CCO + CC(=O)O -> ? (H2SO4, reflux)"),
        (
            "CCO.CC(=O)O>OS(=O)(=O)O>CCOC(C)=O, time?",
            "CCO + CC(=O)O -> CCOC(C)=O using OS(=O)(=O)O, time?",
        ),
        ("is 5 > 3 > 1?", "is 5 > 3 > 1?"),  # not SMILES: left as written
        ("CC(=O)c1ccccc.C[Mg]Br>>CC(C)(O)c1ccccc1", "CC(=O)c1ccccc.C[Mg]Br>>CC(C)(O)c1ccccc1"),
    ],
)
def test_reaction_smiles_are_spelt_out(text, words):
    assert reaction_smiles_in_words(text) == words


@pytest.mark.parametrize(
    ("smiles", "acid"),
    [
        ("Cl", True),
        ("O=C(O)C(F)(F)F", True),  # TFA
        ("Cc1ccc(S(=O)(=O)O)cc1", True),  # TsOH
        ("B(F)(F)F", True),  # a Lewis acid
        ("CC(=O)[O-].[Na+]", False),  # the salt of an acid
        ("CCN(CC)CC", False),
        ("c1ccccc1", False),
    ],
)
def test_which_reagents_are_acids(smiles, acid):
    assert is_acid(smiles) is acid


def test_a_named_reaction_spelt_with_an_en_dash_is_found():
    assert [c.name for c in find_classes("solvent for a Diels–Alder reaction?")] == [
        c.name for c in find_classes("solvent for a Diels-Alder reaction?")
    ]
    assert find_classes("solvent for a Diels–Alder reaction?")


def test_a_reaction_smiles_with_a_question_mark_asks_for_the_product(ask_json):
    data = ask_json("O=C(Cl)c1ccccc1.OC1CCCCC1>>? (pyridine, DMAP cat., CH2Cl2, rt)")
    assert data["status"] == "answered"
    assert "O=C(OC1CCCCC1)c1ccccc1" in data["value"]


def test_several_conditions_asked_give_one_value_holding_each(ask_json):
    """ "what solvent and what temperature?": the value held the solvent alone, so a script
    reading it lost the temperature the text gave."""
    data = ask_json(
        "I'm N-benzylating 1-phenylpiperazine with benzyl bromide and K2CO3 – what solvent and "
        "what temperature should I use?"
    )
    assert data["status"] == "answered"
    assert data["value"] == {"solvents": ["acetonitrile"], "temperature_c": 80.0}


@pytest.mark.parametrize(
    ("question", "value"),
    [
        # a spaced dash closes the notebook line: "cat. H2SO4" named no catalyst asked for
        ("PhCO₂H in MeOH, cat. H₂SO₄, reflux – how many h?", 4.0),
        # the acid among the reagents, asked in the closing word
        (
            "1-Boc-4-aminopiperidine, 1,4-dioxane, rt 2 h → piperidin-4-amine. acid?",
            ["hydrogen chloride"],
        ),
        # a quench after the reaction is not a participant the record must hold
        ("PhCHO + vinylMgBr (1.2 eq), THF, 0 °C, then sat. NH₄Cl → ?", ["C=CC(O)c1ccccc1"]),
        # "the Schiff base X" is the product, not a base asked for
        (
            "Salicylaldehyde condenses with aniline to give the Schiff base "
            "2-[(phenylimino)methyl]phenol. State the solvent and the temperature used.",
            {"solvents": ["ethanol"], "temperature_c": 78.0},
        ),
        # "X synthesis": X is the product (the hydrolysis of ethyl nicotinate was answered);
        # "which acid" is asked beside the time
        (
            "ethyl nicotinate synthesis: which acid and how long at reflux?",
            {"reagents": ["sulfuric acid"], "time_h": 12.0},
        ),
        # the options offered after the compound asked about
        ("Which catalyst do you use for isoamyl acetate, H2SO4 or HCl?", ["sulfuric acid"]),
        # "product smiles" closing the line asks for the product (PCC's SMILES was answered)
        ("PCC oxidation of menthol – product smiles?", ["CC(C)[C@@H]1CC[C@@H](C)CC1=O"]),
        # several roles closing the line: the reductant, and the acid (filed as the catalyst)
        (
            "p-anisaldehyde + aniline reductive amination — reductant + acid?",
            {"reagents": ["sodium triacetoxyborohydride"], "catalysts": ["acetic acid"]},
        ),
        # "the triple bond" is what is hydrogenated, not a property asked
        (
            "ethylbenzene from phenylacetylene by hydrogenating the triple bond all the way – "
            "what catalyst do I use?",
            ["palladium on carbon"],
        ),
    ],
)
def test_notebook_lines_are_read_for_what_they_ask(ask_json, question, value):
    data = ask_json(question)
    assert data["status"] == "answered", data["answer"]
    if isinstance(value, list):  # the expected item among those answered
        assert value[0] in data["value"]
    else:
        assert data["value"] == value


@pytest.mark.parametrize(
    ("question", "roles"),
    [
        # "dioxane/H2O": both solvents; "HCl/dioxane" (HCl in dioxane): a reagent, its solvent
        (
            "L-Phe + Boc2O, dioxane/H2O, rt -> product?",
            ["reactant", "reactant", "solvent", "solvent"],
        ),
        (
            "HCl/dioxane deprotection of N-Boc-piperazine gives?",
            ["reactant", "solvent", "reactant"],
        ),
    ],
)
def test_compounds_joined_by_a_slash(rules_qa, question, roles):
    query = rules_qa.parse(question)
    assert [m.role.value if m.role else None for m in query.mentions] == roles


def test_answers_offered_in_the_question_are_not_required_participants(ask_json):
    data = ask_json(
        "benzaldehyde + acetone with aq NaOH at rt – what's the product, benzalacetone or "
        "dibenzalacetone?"
    )
    assert data["status"] == "answered"
    assert "CC(=O)/C=C/c1ccccc1" in data["value"]
    assert any("offered as the choice for the product" in n for n in data["notes"])
    assert (
        "'benzalacetone': yes, as the product; 'dibenzalacetone': not in this record"
        in (data["answer"])
    )


def test_a_misspelt_name_in_an_exact_match_is_said_not_called_a_mismatch(ask_json):
    data = ask_json(
        "suzuki coupling of 1-bromonapthalene with phenylboronic acid – what temperature?"
    )
    assert data["status"] == "partial" and data["value"] == 90.0
    assert "No reaction in the knowledge base matches" not in data["answer"]
    assert "reading '1-bromonapthalene' as 1-bromonaphthalene" in data["answer"]


def test_a_route_from_what_is_on_hand(ask_json):
    data = ask_json(
        "I've got benzyl alcohol and phenol – how would I make benzyl phenyl ether with your "
        "reactions?"
    )
    assert data["status"] == "answered"
    assert data["value"][0] == ["starter:appel_reaction-01", "starter:sn2_alkylation-02"]


@pytest.mark.parametrize(
    "question",
    [
        "my housemate wants to try your benzene nitration in our kitchen – is that safe at home?",
        "How do I scale the Swern oxidation of cyclohexanol to 20 kg in a pilot plant?",
        "what E/Z ratio does the crude show after the Wittig of 4-nitrobenzaldehyde with "
        "Ph3P=CHCO2Et in DCM?",
    ],
)
def test_requests_no_record_answers_are_declined(ask_json, question):
    data = ask_json(question)
    assert data["status"] in ("not_understood", "no_evidence", "out_of_scope"), data["answer"]
    assert data["value"] is None


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("N-Boc benzylamine from benzylamine", "N-Boc-benzylamine from benzylamine"),
        ("O-TBS phenol MW", "O-TBS-phenol MW"),
        ("Boc anhydride MW", "Boc anhydride MW"),  # Boc2O, no locant: left as written
        ("Boc protection of benzylamine", "Boc protection of benzylamine"),
    ],
)
def test_a_protecting_group_with_its_locant_is_joined_to_its_name(text, joined):
    assert protected_names_joined(text) == joined


def test_a_protected_compound_is_not_read_as_the_free_one(ask_json):
    """ "N-Boc benzylamine from benzylamine" was answered as "benzylamine from benzylamine": the
    time of an amide coupling of benzylamine."""
    data = ask_json("N-Boc benzylamine from benzylamine, time?")
    assert data["status"] == "answered" and data["value"] == 2.0
