"""Lab abbreviations resolve to the right reagent, and each entry is chemically consistent."""

from __future__ import annotations

import pytest

from chemground.chem.names import NameResolver
from chemground.chem.structure import structure_from_smiles
from chemground.kb.abbreviations import load_abbreviations

# Names OPSIN cannot parse (trade names, complexes, a radical); their formulas are checked by hand.
FORMULAS_BY_HAND = {
    "DMP": "C13H13IO8",
    "TEMPO": "C9H18NO",
    "Pd/C": "Pd",
    "Pd(PPh3)4": "C72H60P4Pd",
    "Pd2(dba)3": "C51H42O3Pd2",
    "PdCl2(PPh3)2": "C36H30Cl2P2Pd",
    "Pd(PPh3)2Cl2": "C36H30Cl2P2Pd",
    "Pd-C": "Pd",
    "Pd on C": "Pd",
    "Pd/charcoal": "Pd",
    "palladium on charcoal": "Pd",
    # OPSIN reads neither isotopologue name; the formula writes deuterium apart (heavy water's
    # formula had been given as H2O)
    "DMSO-d6": "C2D6OS",
    "D2O": "D2O",
    # OPSIN reads no ferrocenyl complex name: Pd(dppf)Cl2, C34H28Cl2FeP2Pd
    "Pd(dppf)Cl2": "C34H28Cl2FeP2Pd",
    "PdCl2(dppf)": "C34H28Cl2FeP2Pd",
    # OPSIN reads no name of this aluminate (Red-Al), NaAlH2(OCH2CH2OCH3)2
    "Red-Al": "C6H16AlNaO4",
}
# Oxides are written as OPSIN reads their names, as ions ([O-2].[Cr+6]), like the descriptions file.
IONIC_IN_OPSIN: set[str] = set()


@pytest.fixture
def resolver(small_kb, opsin):
    return NameResolver(small_kb, opsin)


def test_every_abbreviation_and_name_resolves_to_its_structure(resolver):
    entries = load_abbreviations()
    assert len(entries) >= 140
    wrong = []
    for entry in entries:
        expected = structure_from_smiles(entry.smiles).inchikey
        for text in (entry.abbreviation, entry.name):
            got = resolver.resolve(text).structure
            if got is None or got.inchikey != expected:
                wrong.append((text, got.smiles if got else None, entry.smiles))
    assert not wrong


def test_listed_smiles_match_what_opsin_makes_of_the_name(opsin):
    mismatches, unparsed = [], []
    for entry in load_abbreviations():
        result = opsin.translate(entry.name)
        if not result.ok:
            unparsed.append(entry.abbreviation)
            continue
        if (
            structure_from_smiles(result.smiles).inchikey
            != structure_from_smiles(entry.smiles).inchikey
            and entry.abbreviation not in IONIC_IN_OPSIN
        ):
            mismatches.append((entry.abbreviation, entry.name, result.smiles, entry.smiles))
    assert not mismatches
    assert set(unparsed) == set(FORMULAS_BY_HAND)
    by_abbreviation = {e.abbreviation: e for e in load_abbreviations()}
    for abbreviation, formula in FORMULAS_BY_HAND.items():
        assert structure_from_smiles(by_abbreviation[abbreviation].smiles).formula == formula


@pytest.mark.parametrize(
    "text, smiles",
    [
        ("NBS", "O=C1CCC(=O)N1Br"),  # letters-only abbreviation beats the SMILES reading N-B-S
        ("PCC", "O=[Cr](=O)([O-])Cl.c1cc[nH+]cc1"),
        ("EDC", "CCN=C=NCCCN(C)C"),  # not ethylene dichloride
        ("NaH", "[H-].[Na+]"),  # not nicotinic acid
        ("methanol", "CO"),  # not the hydroxymethyl radical PubChem also calls methanol
        ("MeOH", "CO"),
        ("Et3N", "CCN(CC)CC"),
        ("dcm", "ClCCl"),
        ("CCO", "CCO"),
        ("CO", "CO"),
    ],
)
def test_reagent_abbreviations_and_shared_names(resolver, text, smiles):
    assert resolver.resolve(text).structure.smiles == structure_from_smiles(smiles).smiles
