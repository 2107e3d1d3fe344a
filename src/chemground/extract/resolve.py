"""Turning extracted names into structures, in bulk, saying why a name failed.

Order, cheapest and most trustworthy first: SMILES written as such; the KB's names (the
compound dictionary and the curated laboratory abbreviations such as "THF" or "DIPEA", exact
normalised match); British/American spelling variants ("aluminum"); a formula written as a
name ("K2CO3") when exactly one KB compound has it; OPSIN for systematic names; and PubChem
only when the user allowed the network. Results are cached per name. The dictionary, OPSIN
and PubChem are the shared chain of :mod:`chemground.chem.resolvers`; spelling variants and
formulas are this module's, since only extracted text writes them as names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from chemground.chem.names import normalize_name
from chemground.chem.opsin import Opsin
from chemground.chem.resolvers import (
    NOT_IN_DICTIONARY,
    DictionaryResolver,
    NameChain,
    NameHit,
    NotResolved,
    OneByOne,
    OpsinResolver,
    PubChemResolver,
    Unresolved,
)
from chemground.chem.structure import Structure, looks_like_smiles, structure_from_smiles
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
    one (a reagent's formula has only elements of :data:`_COMMON_ELEMENTS`)."""
    from chemground.chem.formula import element_counts

    compact = text.replace(" ", "")
    if len(compact) < 2 or not _FORMULA.match(compact):
        return None
    try:
        counts = element_counts(compact)
    except ChemgroundError:
        return None
    if not set(counts) <= _COMMON_ELEMENTS:
        return None
    return Counter(counts)


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


class ExtractedNameResolver:
    """Resolves the names the extraction pipeline found, in bulk, with why each failure failed.

    The KB's own names come first, through :class:`_KnownNames` (the dictionary, spelling
    variants and formulas, all offline); the shared chain then asks OPSIN, once for all the
    names left, and PubChem if the network is allowed. Results are cached per name (a reagent
    recurs in every record); the cache is not locked, so share one instance between threads
    only for names already resolved.

    Args:
        kb: the knowledge base whose dictionary and formulas are searched.
        opsin: OPSIN, or None when turned off (each failure then says so).
        pubchem: the PubChem client, or None when the network is off (likewise).
    """

    def __init__(
        self, kb: KnowledgeBase, opsin: Opsin | None = None, pubchem: PubChem | None = None
    ) -> None:
        self.kb = kb
        self.opsin = opsin
        self.pubchem = pubchem
        self._cache: dict[str, NameCheck] = {}
        self.chain = NameChain(
            [_KnownNames(kb), OpsinResolver(opsin), PubChemResolver(pubchem)], attach=kb
        )

    def resolve(self, name: str) -> NameCheck:
        """What ``name`` resolved to, or why it did not (see :meth:`resolve_many`)."""
        return self.resolve_many([name])[name]

    def resolve_many(self, names: Iterable[str]) -> dict[str, NameCheck]:
        """One :class:`NameCheck` per distinct name; OPSIN is asked once for all the leftovers.

        Args:
            names: names as extracted (spacing need not be tidy).

        Returns:
            Each distinct name's check; a failed one carries the reasons, never an exception.
        """
        out: dict[str, NameCheck] = {}
        pending: dict[str, list[str]] = {}  # tidied text -> the names written that way
        for name in dict.fromkeys(names):
            if name in self._cache:
                out[name] = self._cache[name]
                continue
            text = " ".join(name.split())
            found = self._screen(name, text)
            if found is None:
                pending.setdefault(text, []).append(name)
            else:
                out[name] = found
        for text, found in self.chain.resolve_many(pending).items():
            for name in pending[text]:
                if isinstance(found, Unresolved):
                    out[name] = NameCheck(name, reason=found.reason)
                else:
                    out[name] = NameCheck(name, found.structure, found.compound_id, found.source)
        for name, found in out.items():
            self._cache[name] = found
        return out

    def _screen(self, name: str, text: str) -> NameCheck | None:
        """What needs no resolver: no name at all, a label, or a SMILES written as such."""
        if not text:
            return NameCheck(name, reason="empty name")
        if is_generic_name(text) or _NOT_A_COMPOUND.match(text) or len(normalize_name(text)) < 2:
            return NameCheck(name, reason="not a compound name (a label or a description)")
        if looks_like_smiles(text) and not text.isalpha():
            found = _smiles_hit(text)
            if found is not None:
                hit = self.chain.with_compound(found)
                return NameCheck(name, hit.structure, hit.compound_id, hit.source)
        return None


class _KnownNames(OneByOne):
    """The extraction chain's first resolver: what the KB knows a name as, offline.

    The dictionary (closed shells first); a letters-only SMILES ("CCO") once the names failed,
    so that "NBS" stays the reagent; British/American spellings ("aluminum"); and a formula
    written as a name ("K2CO3") when exactly one KB compound has it. A dictionary hit for a
    name that is a formula must have that formula: PubChem synonym lists file formulas under
    unrelated compounds ("CS2" for a magnesium silicate).
    """

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.dictionary = DictionaryResolver(kb, prefer_closed_shell=True)
        self._by_formula: dict[str, list[int]] | None = None

    def resolve(self, text: str) -> NameHit:
        """Raises NotResolved ("not in the compound dictionary") when the KB has nothing."""
        counts = formula_counts(text)
        hit = self.dictionary.find(text)
        if hit is not None:
            if (
                counts is None
                or hit.structure is None
                or hit.structure.formula == hill_formula(counts)
            ):
                return hit
            return self._by_formula_unique(counts) or hit
        if looks_like_smiles(text) and text.isalpha():
            found = _smiles_hit(text)
            if found is not None:
                return found
        for variant in _spelling_variants(text):
            hit = self.dictionary.find(variant)
            if hit is not None:
                return replace(hit, source="spelling")
        found = self._by_formula_unique(counts) if counts is not None else None
        if found is None:
            raise NotResolved(NOT_IN_DICTIONARY)
        return found

    def _by_formula_unique(self, counts: Counter) -> NameHit | None:
        if self._by_formula is None:
            self._by_formula = self.kb.compound_ids_by_formula()
        ids = self._by_formula.get(hill_formula(counts), [])
        if len(ids) != 1:
            return None
        structure = _structure_of(self.kb.get_compound(ids[0], with_reactions=0))
        return NameHit(structure, "formula", ids[0]) if structure is not None else None


def _smiles_hit(text: str) -> NameHit | None:
    try:
        return NameHit(structure_from_smiles(text), "smiles")
    except StructureError:
        return None


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


def lookup_for_workspace(workspace) -> ExtractedNameResolver:
    """The resolver a command uses.

    Args:
        workspace: the command's workspace.

    Returns:
        A resolver over the workspace's KB and OPSIN, with PubChem only if the network is
        allowed.
    """
    settings = workspace.settings
    pubchem = PubChem.from_settings(settings) if settings.allow_network else None
    return ExtractedNameResolver(workspace.kb, workspace.opsin, pubchem)
