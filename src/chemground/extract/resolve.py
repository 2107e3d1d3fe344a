"""Turning extracted names into structures, in bulk, saying why a name failed.

Order, cheapest and most trustworthy first: SMILES written as such; the KB's names (the
compound dictionary and the curated laboratory abbreviations such as "THF" or "DIPEA", exact
normalised match); British/American spelling variants ("aluminum"); a formula written as a
name ("K2CO3") when exactly one KB compound has it; OPSIN for systematic names; and PubChem
only when the user allowed the network. Results are cached per name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from rdkit.Chem import Descriptors

from chemground.chem.names import normalize_name
from chemground.chem.opsin import Opsin
from chemground.chem.structure import (
    Structure,
    looks_like_smiles,
    mol_from_smiles,
    structure_from_inchi,
    structure_from_smiles,
)
from chemground.errors import ChemgroundError, StructureError
from chemground.kb.importers.base import is_generic_name
from chemground.kb.store import KnowledgeBase
from chemground.pubchem import PubChem

SOURCES = ("smiles", "dictionary", "spelling", "formula", "opsin", "pubchem")


@dataclass(frozen=True)
class NameCheck:
    """What a name resolved to (a structure, or a known substance without one) or why it did not."""

    name: str
    structure: Structure | None = None
    compound_id: int | None = None
    source: str = ""
    reason: str = ""

    @property
    def resolved(self) -> bool:
        return self.structure is not None or self.compound_id is not None


_SPELLINGS = (
    ("aluminum", "aluminium"),
    ("sulph", "sulf"),
    ("cesium", "caesium"),
    ("phosphorous ", "phosphorus "),
)
# Words that name a form of a compound, not a compound; bracketed labels such as "( a )", "(XVI)".
_NOT_A_COMPOUND = re.compile(
    r"^(?:(?:mono|di|tri|tetra|hemi|sesqui)?hydrate|(?:di|tri)?hydro(?:chloride|bromide|iodide)|free\s+base|"
    r"(?:sodium|potassium|lithium|hydrochloride)\s+salt|[\[(]\s*[\w.'-]{1,6}\s*[\])])$",
    re.IGNORECASE,
)
_FORMULA = re.compile(
    r"^(?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*)+(?:[.·]\d*(?:[A-Z][a-z]?\d*)+)*$"
)
_FORMULA_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)|\(([^()]*)\)(\d*)")
_COMMON_ELEMENTS = {
    "H",
    "Li",
    "B",
    "C",
    "N",
    "O",
    "F",
    "Na",
    "Mg",
    "Al",
    "Si",
    "P",
    "S",
    "Cl",
    "K",
    "Ca",
    "Ti",
    "Cr",
    "Mn",
    "Fe",
    "Co",
    "Ni",
    "Cu",
    "Zn",
    "Se",
    "Br",
    "Rb",
    "Sr",
    "Ru",
    "Rh",
    "Pd",
    "Ag",
    "Sn",
    "Sb",
    "I",
    "Cs",
    "Ba",
    "Ce",
    "W",
    "Os",
    "Ir",
    "Pt",
    "Au",
    "Hg",
    "Pb",
    "Bi",
}


def formula_counts(text: str) -> Counter | None:
    """Element counts of a formula written as a name ("K2CO3", "LiOH.H2O"), or None if it is not
    one."""
    compact = text.replace(" ", "")
    if len(compact) < 2 or not _FORMULA.match(compact):
        return None
    counts: Counter = Counter()
    for part in re.split(r"[.·]", compact):
        multiplier_match = re.match(r"^(\d+)", part)
        multiplier = int(multiplier_match.group(1)) if multiplier_match else 1
        body = part[multiplier_match.end() :] if multiplier_match else part
        part_counts = _parse_formula_body(body)
        if part_counts is None:
            return None
        for element, n in part_counts.items():
            counts[element] += n * multiplier
    return counts or None


def _parse_formula_body(body: str) -> Counter | None:
    counts: Counter = Counter()
    position = 0
    for match in _FORMULA_TOKEN.finditer(body):
        if match.start() != position:
            return None
        position = match.end()
        if match.group(1):
            if match.group(1) not in _COMMON_ELEMENTS:
                return None
            counts[match.group(1)] += int(match.group(2) or 1)
        else:
            inner = _parse_formula_body(match.group(3))
            if inner is None:
                return None
            for element, n in inner.items():
                counts[element] += n * int(match.group(4) or 1)
    return counts if position == len(body) else None


def hill_formula(counts: Counter) -> str:
    """Hill-order formula (C, H, then alphabetical; alphabetical without carbon), as RDKit writes
    it."""

    def term(element: str) -> str:
        n = counts[element]
        return element + (str(n) if n != 1 else "")

    elements = sorted(counts)
    if "C" in counts:
        order = (
            ["C"] + (["H"] if "H" in counts else []) + [e for e in elements if e not in ("C", "H")]
        )
    else:
        order = elements
    return "".join(term(e) for e in order)


class CompoundLookup:
    """Resolves names for the extraction pipeline; thread-safe for reads, cached per name."""

    def __init__(
        self, kb: KnowledgeBase, opsin: Opsin | None = None, pubchem: PubChem | None = None
    ) -> None:
        self.kb = kb
        self.opsin = opsin
        self.pubchem = pubchem
        self._cache: dict[str, NameCheck] = {}
        self._by_formula: dict[str, list[int]] | None = None

    def resolve(self, name: str) -> NameCheck:
        return self.resolve_many([name])[name]

    def resolve_many(self, names: Iterable[str]) -> dict[str, NameCheck]:
        """One :class:`NameCheck` per distinct name; OPSIN is asked once for all the leftovers."""
        out: dict[str, NameCheck] = {}
        pending: list[str] = []
        for name in dict.fromkeys(names):
            if name in self._cache:
                out[name] = self._cache[name]
                continue
            found = self._offline(name)
            if found is None:
                pending.append(name)
            else:
                out[name] = found
        if pending:
            for name, found in self._opsin_and_online(pending).items():
                out[name] = found
        for name, found in out.items():
            self._cache[name] = found
        return out

    # -- the offline steps ------------------------------------------------------------------
    def _offline(self, name: str) -> NameCheck | None:
        text = " ".join(name.split())
        if not text:
            return NameCheck(name, reason="empty name")
        if is_generic_name(text) or _NOT_A_COMPOUND.match(text) or len(normalize_name(text)) < 2:
            return NameCheck(name, reason="not a compound name (a label or a description)")
        smiles_like = looks_like_smiles(text)
        if smiles_like and not text.isalpha():
            found = self._smiles(name, text)
            if found is not None:
                return found
        counts = formula_counts(text)
        hit = self._dictionary(text)
        if hit is not None:
            # PubChem synonym lists file formulas under unrelated compounds ("CS2" for a magnesium
            # silicate): a name that is a formula must have that formula, else the formula decides.
            if counts is None or hit[0] is None or hit[0].formula == hill_formula(counts):
                return NameCheck(name, hit[0], hit[1], "dictionary")
            by_formula = self._by_formula_unique(name, counts)
            return by_formula or NameCheck(name, hit[0], hit[1], "dictionary")
        if smiles_like and text.isalpha():  # "CCO": letters only, so names ("NBS") were tried first
            found = self._smiles(name, text)
            if found is not None:
                return found
        for variant in _spelling_variants(text):
            hit = self._dictionary(variant)
            if hit is not None:
                return NameCheck(name, hit[0], hit[1], "spelling")
        if counts is not None:
            return self._by_formula_unique(name, counts)
        return None

    def _by_formula_unique(self, name: str, counts: Counter) -> NameCheck | None:
        ids = self._formula_index().get(hill_formula(counts), [])
        if len(ids) != 1:
            return None
        structure = _structure_of(self.kb.get_compound(ids[0], with_reactions=0))
        return NameCheck(name, structure, ids[0], "formula") if structure is not None else None

    def _smiles(self, name: str, text: str) -> NameCheck | None:
        try:
            structure = structure_from_smiles(text)
        except StructureError:
            return None
        return self._with_compound(NameCheck(name, structure, source="smiles"))

    def _dictionary(self, text: str) -> tuple[Structure | None, int] | None:
        hits = self.kb.lookup_name(normalize_name(text))
        if not hits:
            return None
        # The KB orders shared names by preference; PubChem also files some radicals under the
        # parent's name ("methanol" for the hydroxymethyl radical), so a closed shell wins.
        hit = next(
            (h for h in hits if h.structure is not None and not _is_radical(h.structure)), hits[0]
        )
        return hit.structure, hit.compound_id

    def _formula_index(self) -> dict[str, list[int]]:
        if self._by_formula is None:
            self._by_formula = self.kb.compound_ids_by_formula()
        return self._by_formula

    def _with_compound(self, check: NameCheck) -> NameCheck:
        if check.structure is None:
            return check
        hits = self.kb.lookup_structure(check.structure)
        if not hits:
            return check
        return NameCheck(check.name, check.structure, hits[0].compound_id, check.source)

    # -- OPSIN, then PubChem ----------------------------------------------------------------
    def _opsin_and_online(self, names: list[str]) -> dict[str, NameCheck]:
        out: dict[str, NameCheck] = {}
        queries = {name: " ".join(name.split()) for name in names}
        reasons = {name: "not in the compound dictionary" for name in names}
        if self.opsin is not None:
            try:
                results = self.opsin.translate_many(list(dict.fromkeys(queries.values())))
            except ChemgroundError as error:  # no Java: say so for every name
                results = {}
                for name in names:
                    reasons[name] += f"; OPSIN unavailable: {error}"
            for name in names:
                result = results.get(queries[name])
                if result is None:
                    continue
                if result.ok:
                    try:
                        structure = structure_from_smiles(result.smiles or "")
                    except StructureError as error:
                        reasons[name] += f"; OPSIN gave a structure RDKit rejects: {error}"
                        continue
                    out[name] = self._with_compound(NameCheck(name, structure, source="opsin"))
                else:
                    reasons[name] += "; OPSIN could not interpret it"
        else:
            for name in names:
                reasons[name] += "; OPSIN disabled"
        for name in names:
            if name in out:
                continue
            if self.pubchem is not None:
                found = self._pubchem(name)
                if found.resolved:
                    out[name] = found
                    continue
                reasons[name] += f"; {found.reason}"
            else:
                reasons[name] += "; PubChem not asked (network off)"
            out[name] = NameCheck(name, reason=reasons[name])
        return out

    def _pubchem(self, name: str) -> NameCheck:
        assert self.pubchem is not None
        try:
            found = self.pubchem.inchi_for_name(name)
        except ChemgroundError as error:
            return NameCheck(name, reason=f"PubChem failed: {error}")
        if found is None:
            return NameCheck(name, reason="not in PubChem")
        try:
            structure = structure_from_inchi(found[1])
        except StructureError as error:
            return NameCheck(
                name, reason=f"PubChem's InChI for CID {found[0]} is not usable: {error}"
            )
        return self._with_compound(NameCheck(name, structure, source="pubchem"))


@lru_cache(maxsize=65536)
def _radical_smiles(smiles: str) -> bool:
    try:
        return Descriptors.NumRadicalElectrons(mol_from_smiles(smiles)) > 0
    except StructureError:
        return False


def _is_radical(structure: Structure | None) -> bool:
    return structure is not None and "[" in structure.smiles and _radical_smiles(structure.smiles)


def _spelling_variants(text: str) -> list[str]:
    lowered = text.lower()
    variants = []
    for a, b in _SPELLINGS:
        for old, new in ((a, b), (b, a)):
            if old in lowered:
                variants.append(lowered.replace(old, new))
    return variants


def _structure_of(compound) -> Structure | None:
    if not compound.smiles or not compound.inchikey:
        return None
    return Structure(
        smiles=compound.smiles,
        inchikey=compound.inchikey,
        formula=compound.formula or "",
        molecular_weight=compound.molecular_weight or 0.0,
        exact_mass=compound.exact_mass or 0.0,
        parent_inchikey=compound.parent_inchikey or compound.inchikey,
    )


def lookup_for_workspace(workspace) -> CompoundLookup:
    """The lookup a command uses: the workspace's KB and OPSIN, PubChem only if the network is
    allowed."""
    settings = workspace.settings
    pubchem = PubChem.from_settings(settings) if settings.allow_network else None
    return CompoundLookup(workspace.kb, workspace.opsin, pubchem)
