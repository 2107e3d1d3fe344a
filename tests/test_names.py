"""Names -> structures: dictionary (insensitive to case, spacing, punctuation), then OPSIN."""

from __future__ import annotations

import pytest

from chemground.chem.names import NameResolver, normalize_name
from chemground.chem.opsin import Opsin
from chemground.errors import NameResolutionError, StructureError


@pytest.fixture
def resolver(small_kb, opsin):
    return NameResolver(small_kb, opsin)


def test_normalize_name_ignores_case_space_punctuation_and_greek():
    assert normalize_name("2,5-Dichloro Pyrimidine") == normalize_name("2,5-dichloropyrimidine")
    assert normalize_name("N,N-DIMETHYLFORMAMIDE") == normalize_name("n,n-dimethyl formamide")
    assert normalize_name("α-pinene") == normalize_name("alpha-Pinene")


@pytest.mark.parametrize(
    "name", ["ethanol", "Ethanol", "ETHANOL", "ethyl alcohol", "  ethanol ", "64-17-5"]
)
def test_dictionary_names_synonyms_cas_and_variants(resolver, name):
    resolution = resolver.resolve(name)
    assert resolution.structure.smiles == "CCO"
    assert resolution.compound_id is not None
    assert resolution.source == "dictionary"


def test_cas_number_from_the_dictionarys_cas_column(resolver):
    resolution = resolver.resolve("50-78-2")
    assert (
        resolution.input_format == "cas" and resolution.structure.smiles == "CC(=O)Oc1ccccc1C(=O)O"
    )


def test_common_solvents_are_in_the_dictionary(resolver):
    for name, smiles in [
        ("water", "O"),
        ("tetrahydrofuran", "C1CCOC1"),
        ("dichloromethane", "ClCCl"),
    ]:
        assert resolver.resolve(name).structure.smiles == smiles


def test_punctuation_variant_of_a_systematic_name(resolver):
    a = resolver.resolve("1,2-dichloroethane")
    b = resolver.resolve("1,2 DICHLORO-ETHANE")
    assert a.structure.inchikey == b.structure.inchikey == "WSLDOOZREJYCGB-UHFFFAOYSA-N"


def test_smiles_resolution_links_the_dictionary_record(resolver):
    resolution = resolver.resolve("OCC")
    assert resolution.source == "smiles" and resolution.input_format == "smiles"
    assert resolution.compound_id == resolver.resolve("ethanol").compound_id


def test_opsin_resolves_a_name_the_dictionary_lacks(resolver):
    resolution = resolver.resolve("2-methyl-1-(4-nitrophenyl)propan-1-ol")
    assert resolution.source == "opsin"
    assert resolution.structure.formula == "C10H13NO3"


def test_nonsense_name_is_a_clear_error_with_opsins_reason(resolver):
    with pytest.raises(NameResolutionError) as error:
        resolver.resolve("flubbergasted-wobble")
    message = str(error.value)
    assert "flubbergasted-wobble" in message and "not in the compound dictionary" in message
    assert "uninterpretable" in message or "unparsable" in message  # OPSIN's own words
    assert "chemical name to begin" not in message  # not OPSIN's greeting


def test_bad_smiles_reports_both_attempts(resolver):
    with pytest.raises(NameResolutionError, match="as SMILES: invalid SMILES 'C1CC'"):
        resolver.resolve("C1CC")


def test_inchi_and_unknown_inchikey(resolver):
    assert resolver.resolve("InChI=1S/CH4O/c1-2/h2H,1H3").structure.smiles == "CO"
    with pytest.raises(NameResolutionError, match="InChIKey"):
        resolver.resolve("AAAAAAAAAAAAAA-BBBBBBBBBB-N")


def test_opsin_results_are_cached_on_disk(tmp_path):
    cache = tmp_path / "opsin.sqlite"
    first = Opsin(cache)
    assert first.translate("3-ethylhexan-2-one").ok
    first.close()
    second = Opsin(cache)
    result = second.translate("3-ethylhexan-2-one")
    assert result.ok and second._process is None  # answered from the cache: no JVM started
    second.close()


def test_opsin_batch_matches_single_translation(opsin):
    names = ["propan-2-ol", "4-bromotoluene", "not a chemical at all", "cyclohexanone"]
    batch = opsin.translate_many(names)
    assert [batch[n].ok for n in names] == [True, True, False, True]
    assert batch["cyclohexanone"].smiles == opsin.translate("cyclohexanone").smiles


def test_structure_errors_are_chemground_errors():
    assert issubclass(StructureError, ValueError) and issubclass(NameResolutionError, LookupError)


def test_opsin_retries_lower_case_locants_and_pubchem_salt_notation(opsin):
    from chemground.chem.opsin import name_variants

    assert name_variants("butyl n-phenylcarbamate") == ["butyl N-phenylcarbamate"]
    assert name_variants("n,n'-diphenylurea") == ["N,N'-diphenylurea"]
    assert "tin(2+) octadec-9-enoate" in name_variants("octadec-9-enoate;tin(2+)")
    assert name_variants("ethanol") == []
    result = opsin.translate("butyl n-phenylcarbamate")
    assert result.ok and "N-phenylcarbamate" in result.message
    assert opsin.translate("sodium;chloride").smiles in ("[Na+].[Cl-]", "[Cl-].[Na+]")


def test_failures_cached_by_an_older_cache_version_are_tried_again(tmp_path):
    import sqlite3

    cache = tmp_path / "opsin.sqlite"
    with sqlite3.connect(cache) as db:  # the version-1 table, with a stale failure in it
        db.execute("CREATE TABLE opsin (name TEXT PRIMARY KEY, smiles TEXT, message TEXT)")
        db.execute("INSERT INTO opsin VALUES ('butyl n-phenylcarbamate', NULL, 'old failure')")
    opsin = Opsin(cache)
    assert opsin.translate("butyl n-phenylcarbamate").ok
    opsin.close()
