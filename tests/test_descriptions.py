"""The curated compound descriptions: file format, coverage, structures, names, text quality."""

from __future__ import annotations

import shutil
import warnings
from importlib import resources

import pytest
from rdkit import Chem, RDLogger

from chemground.kb import descriptions as descriptions_module
from chemground.kb.abbreviations import load_abbreviations
from chemground.kb.descriptions import CompoundDescription, load_descriptions
from chemground.kb.starter import load_starter_set

RDLogger.DisableLog("rdApp.*")

RESOURCE = resources.files("chemground.kb.data") / "descriptions.tsv"
ENTRIES = load_descriptions()


def _inchikey(smiles: str) -> str | None:
    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToInchiKey(mol) if mol is not None else None


# --------------------------------------------------------------------------- format


def test_file_has_header_comment_and_three_field_rows():
    lines = RESOURCE.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#") and "chemground developers" in lines[0]
    bad = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if (
            len(fields) != 3
            or not all(f.strip() for f in fields)
            or any(f != f.strip() for f in fields)
        ):
            bad.append(number)
    assert not bad, f"rows without exactly three clean non-empty fields: lines {bad}"


def test_loader_returns_frozen_records():
    entry = ENTRIES[0]
    assert isinstance(entry, CompoundDescription)
    with pytest.raises(AttributeError):
        entry.name = "changed"  # type: ignore[misc]


def test_malformed_row_raises_with_line_number(tmp_path, monkeypatch):
    (tmp_path / "descriptions.tsv").write_text(
        "# header\nwater\tO\tA fine description of water.\nbroken\tO\n", encoding="utf-8"
    )
    monkeypatch.setattr(descriptions_module.resources, "files", lambda package: tmp_path)
    with pytest.raises(ValueError, match="line 3"):
        load_descriptions()


def test_at_least_400_compounds():
    assert len(ENTRIES) >= 400


def test_no_duplicate_names_or_structures():
    names = [e.name.lower() for e in ENTRIES]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    seen: dict[str, str] = {}
    duplicates = []
    for entry in ENTRIES:
        key = _inchikey(entry.smiles)
        if key in seen:
            duplicates.append(f"{entry.name!r} and {seen[key]!r} ({key})")
        seen[key] = entry.name
    assert not duplicates, "same structure described twice:\n" + "\n".join(duplicates)


# --------------------------------------------------------------------------- structures


def test_every_smiles_parses():
    bad = [(e.name, e.smiles) for e in ENTRIES if Chem.MolFromSmiles(e.smiles) is None]
    assert not bad


def test_covers_every_starter_compound_and_abbreviation():
    described = {_inchikey(e.smiles) for e in ENTRIES}
    _, reactions = load_starter_set()
    missing = set()
    for reaction in reactions:
        for role in ("reactants", "products", "reagents", "catalysts", "solvents"):
            for compound in getattr(reaction, role):
                if _inchikey(compound.smiles) not in described:
                    missing.add(f"starter: {compound.name}")
    for entry in load_abbreviations():
        if _inchikey(entry.smiles) not in described:
            missing.add(f"abbreviation: {entry.abbreviation} ({entry.name})")
    assert not missing, f"compounds without a description: {sorted(missing)}"


def test_smiles_copied_from_starter_set_and_abbreviations():
    """Compounds shared with the curated files use exactly the SMILES written there."""
    reference: dict[str, set[str]] = {}
    _, reactions = load_starter_set()
    for reaction in reactions:
        for role in ("reactants", "products", "reagents", "catalysts", "solvents"):
            for compound in getattr(reaction, role):
                reference.setdefault(_inchikey(compound.smiles), set()).add(compound.smiles)
    for entry in load_abbreviations():
        reference.setdefault(_inchikey(entry.smiles), set()).add(entry.smiles)
    differing = [
        (e.name, e.smiles, sorted(reference[key]))
        for e in ENTRIES
        if (key := _inchikey(e.smiles)) in reference and e.smiles not in reference[key]
    ]
    assert not differing


# --------------------------------------------------------------------------- names


@pytest.mark.skipif(shutil.which("java") is None, reason="OPSIN needs a Java runtime")
def test_names_resolve_to_their_structures():
    """Every name resolves (OPSIN; else the PubChem-derived dictionary of `chemicals`; else the
    name column of abbreviations.tsv) to the same standard InChIKey as its SMILES."""
    from chemicals.identifiers import pubchem_db
    from py2opsin import py2opsin

    abbreviation_keys = {a.name.lower(): _inchikey(a.smiles) for a in load_abbreviations()}
    names = [e.name for e in ENTRIES]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # py2opsin warns about every name it cannot parse
        opsin = py2opsin(names)
    assert len(opsin) == len(names)

    unresolved, mismatched = [], []
    for entry, smiles in zip(ENTRIES, opsin):
        expected = _inchikey(entry.smiles)
        if smiles:
            key, source = _inchikey(smiles), "OPSIN"
        else:
            hit = pubchem_db.search_name(entry.name)
            key, source = (hit.InChI_key, "PubChem dictionary") if hit else (None, None)
            if key is None and entry.name.lower() in abbreviation_keys:
                key, source = abbreviation_keys[entry.name.lower()], "abbreviations.tsv"
        if key is None:
            unresolved.append(entry.name)
        elif key != expected:
            mismatched.append(f"{entry.name!r}: {source} gives {key}, its SMILES give {expected}")
    assert not unresolved, (
        f"names that OPSIN, the dictionary and abbreviations.tsv all miss: {unresolved}"
    )
    assert not mismatched, "names that do not match their SMILES:\n" + "\n".join(mismatched)


# --------------------------------------------------------------------------- text


def _contains_smiles(text: str, smiles: str) -> bool:
    if len(smiles) >= 5:
        return smiles in text
    # Short SMILES ("O", "CO", "Cl") are only a problem as a standalone token, not inside "H2O".
    return any(token.strip(".,;:()'\"") == smiles for token in text.split())


def test_descriptions_are_short_sentences_without_smiles():
    problems = []
    for entry in ENTRIES:
        text = entry.description
        words = len(text.split())
        if not 20 <= words <= 80:
            problems.append(f"{entry.name}: {words} words")
        if not text.endswith("."):
            problems.append(f"{entry.name}: does not end with a period")
        if _contains_smiles(text, entry.smiles):
            problems.append(f"{entry.name}: contains its SMILES")
        if "\t" in text or "\n" in text:
            problems.append(f"{entry.name}: tab or newline inside the text")
    assert not problems, "\n".join(problems)
