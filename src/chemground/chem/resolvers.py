"""One name -> structure chain: the compound dictionary, then OPSIN, then (opt-in) PubChem.

Every place that turns a compound *name* into a structure (the question parser's
:class:`~chemground.chem.names.NameResolver`, the extraction pipeline, the reaction importers)
goes through these resolvers, so that a name resolves to the same structure everywhere and a
failure reads the same everywhere. As in ord-schema's resolvers, each resolver either returns a
:class:`NameHit` or raises :class:`NotResolved` ("not mine, try the next one"); the chain stops
at the first hit, and when none hits, :class:`Unresolved` lists what each resolver said, in
order ("not in the compound dictionary; OPSIN: ...; not in PubChem").

What differs between callers stays with them: which resolvers a chain has (PubChem only where
the network is allowed), whether a broken OPSIN (no Java) is an error or one more miss, how the
SMILES OPSIN gives become structures (one by one, or in the importers' worker pool), and what a
failure becomes (an exception, a reason on a record).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, TypeVar

from chemground.chem.structure import (
    Structure,
    mol_from_smiles,
    structure_from_inchi,
    structure_from_smiles,
)
from chemground.errors import ChemgroundError, NameResolutionError, StructureError, clip, preview

if TYPE_CHECKING:
    from chemground.chem.names import DictionaryHit, NameDictionary
    from chemground.chem.opsin import Opsin
    from chemground.pubchem import PubChem

NOT_IN_DICTIONARY = "not in the compound dictionary"
T = TypeVar("T")
E = TypeVar("E", bound=Exception)


class NotResolved(Exception):
    """The signal to try the next resolver: this one does not know the name.

    Not a :class:`~chemground.errors.ChemgroundError` on purpose: it never reaches a user on
    its own, only as one of the reasons an :class:`Unresolved` lists.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class NameHit:
    """The structure (or KB compound) a name stands for, and which resolver found it."""

    structure: Structure | None
    source: str  # dictionary | opsin | pubchem, or a caller's own step (spelling, formula, ...)
    compound_id: int | None = None
    matched_name: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unresolved:
    """A name no resolver of a chain knew, with what each one said (in the chain's order)."""

    name: str
    reasons: tuple[str, ...]

    @property
    def reason(self) -> str:
        """The reasons joined, as records and reports show them."""
        return "; ".join(self.reasons)

    def error(
        self, also: str | None = None, kind: type[ChemgroundError] = NameResolutionError
    ) -> ChemgroundError:
        """The error to raise for it.

        Args:
            also: a further reason that is not the chain's (e.g. why the text is no SMILES
                either), appended after the chain's.
            kind: the error class (NameLimitError for a name refused before any resolver).

        Returns:
            An error whose message says the name and every reason.
        """
        message = f"could not resolve {preview(self.name)}: {clip(self.reason, 200)}"
        if also:
            message += f"; {also}"
        return kind(message)


class NameResolverStep(Protocol):
    """One resolver of a chain."""

    def resolve(self, name: str) -> NameHit:
        """The hit for ``name``; raises NotResolved when this resolver does not know it."""
        ...

    def resolve_many(self, names: Sequence[str]) -> dict[str, NameHit | NotResolved]:
        """A hit or a NotResolved for each of ``names`` (a resolver may batch the work)."""
        ...


def each(names: Iterable[str], resolve: Callable[[str], T], miss: type[E]) -> dict[str, T | E]:
    """``resolve`` for each distinct name, a ``miss`` it raises kept as that name's answer.

    Args:
        names: the names (repeats are resolved once).
        resolve: resolves one name.
        miss: the exception that means "not this name", kept instead of raised.

    Returns:
        Each distinct name's result or miss, in first-seen order.
    """
    out: dict[str, T | E] = {}
    for name in dict.fromkeys(names):
        try:
            out[name] = resolve(name)
        except miss as error:
            out[name] = error
    return out


class OneByOne:
    """``resolve_many`` for resolvers that have no batch mode."""

    def resolve(self, name: str) -> NameHit:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def resolve_many(self, names: Sequence[str]) -> dict[str, NameHit | NotResolved]:
        """:meth:`resolve` for each name, a NotResolved kept as that name's answer."""
        return each(names, self.resolve, NotResolved)


class DictionaryResolver(OneByOne):
    """The compound dictionary (the KB): exact match on the normalised name.

    The dictionary orders compounds sharing a name by preference and the best-ranked one is
    taken; a None dictionary knows no name. ``prefer_closed_shell`` skips radicals among
    them: PubChem files some radicals under their parent's name ("methanol" for the
    hydroxymethyl radical), which matters where names come from free text (the extraction
    pipeline).
    """

    def __init__(
        self, dictionary: NameDictionary | None, prefer_closed_shell: bool = False
    ) -> None:
        self.dictionary = dictionary
        self.prefer_closed_shell = prefer_closed_shell

    def find(self, name: str) -> NameHit | None:
        """The dictionary's compound for ``name``, or None.

        Args:
            name: a compound name as written (case, spacing and punctuation do not count).

        Returns:
            The best-ranked compound filed under the name, or None when there is none.
        """
        from chemground.chem.names import deuterium_label_last, normalize_name  # (a cycle)

        if self.dictionary is None:  # no KB (tests, tools): as empty as an empty dictionary
            return None
        hits = self.dictionary.lookup_name(normalize_name(name))
        relabelled = None if hits else deuterium_label_last(name)
        if relabelled is not None:  # "d6-DMSO" is filed as "DMSO-d6"
            hits = self.dictionary.lookup_name(normalize_name(relabelled))
        if not hits:
            return None
        hit = self._pick(hits)
        notes: tuple[str, ...] = ()
        if len({h.compound_id for h in hits}) > 1:
            notes = (f"{len(hits)} dictionary entries share this name; using the best-ranked one",)
        return NameHit(hit.structure, "dictionary", hit.compound_id, hit.matched_name, notes)

    def resolve(self, name: str) -> NameHit:
        """The dictionary's compound for ``name``, set to the stereoisomer a descriptor in the
        name asks for ("(S)-ibuprofen" is filed under the racemate; see chem.stereo_names).

        Raises:
            NotResolved: the dictionary has no such name, or its structure cannot be the
                stereoisomer the name asks for.
        """
        from chemground.chem.names import deuterium_label_reading
        from chemground.chem.stereo_names import StereoMismatch, reconcile_stereo

        hit = self.find(name)
        if hit is None:
            raise NotResolved(NOT_IN_DICTIONARY)
        labelled = hit.structure is not None and deuterium_label_reading(name, hit.structure)
        if isinstance(labelled, str):
            raise NotResolved(labelled)
        if labelled:  # "pyridine-d5", filed under pyridine: every hydrogen a deuterium
            return NameHit(labelled, "dictionary", None, name, hit.notes)
        try:
            structure = reconcile_stereo(name, hit.structure)
        except StereoMismatch as mismatch:
            raise NotResolved(mismatch.reason) from None
        if structure is hit.structure or structure.inchikey == hit.structure.inchikey:
            return hit
        return NameHit(structure, "dictionary", None, name, hit.notes)

    def _pick(self, hits: list[DictionaryHit]) -> DictionaryHit:
        if not self.prefer_closed_shell:
            return hits[0]
        return next(
            (h for h in hits if h.structure is not None and not is_radical(h.structure)), hits[0]
        )


def structures_from_smiles(smiles: Iterable[str]) -> dict[str, Structure | StructureError]:
    """RDKit's structure (or its error) for each SMILES, one by one: OPSIN's default builder."""
    return each(smiles, structure_from_smiles, StructureError)


StructureBuilder = Callable[[Iterable[str]], Mapping[str, "Structure | StructureError"]]


class OpsinResolver:
    """OPSIN, for systematic names the dictionary lacks.

    ``opsin`` None (turned off) answers "OPSIN disabled" for every name. When OPSIN cannot run
    (no Java), ``errors_pass`` makes that one more miss ("OPSIN unavailable: ..."), so that the
    next resolver is still asked; otherwise the ChemgroundError is raised, for a caller that
    must tell the user to install Java. ``build`` turns OPSIN's SMILES into structures; the
    importers pass their worker pool's.
    """

    def __init__(
        self,
        opsin: Opsin | None,
        errors_pass: bool = True,
        build: StructureBuilder = structures_from_smiles,
    ) -> None:
        self.opsin = opsin
        self.errors_pass = errors_pass
        self.build = build

    def resolve(self, name: str) -> NameHit:
        """Asks OPSIN for one name (its own failure message, unlike a batch's generic one).

        Raises:
            NotResolved: OPSIN is off, cannot parse the name, or gave a structure RDKit rejects.
            ChemgroundError: OPSIN cannot run and ``errors_pass`` is false.
        """
        if self.opsin is None:
            raise NotResolved("OPSIN disabled")
        try:
            result = self.opsin.translate(name)
        except ChemgroundError as error:
            if not self.errors_pass:
                raise
            raise NotResolved(f"OPSIN unavailable: {error}") from error
        found = self.structures(
            {name: result.smiles if result.ok else NotResolved(_opsin_says(result.message))}
        )[name]
        if isinstance(found, NotResolved):
            raise found
        return found

    def resolve_many(self, names: Sequence[str]) -> dict[str, NameHit | NotResolved]:
        """One OPSIN batch for all ``names``; see :meth:`translate_many` and :meth:`structures`."""
        return self.structures(self.translate_many(names))

    def translate_many(self, names: Sequence[str]) -> dict[str, str | NotResolved]:
        """OPSIN's SMILES (or its miss) for each name, without building structures.

        The importers call this in a thread of its own (OPSIN runs in its own JVM) and build
        the structures later, in their worker pool, with :meth:`structures`.

        Args:
            names: the names (repeats are asked once).

        Returns:
            Each distinct name's SMILES, or the NotResolved that says why there is none.

        Raises:
            ChemgroundError: OPSIN cannot run and ``errors_pass`` is false.
        """
        names = list(dict.fromkeys(names))
        if not names:
            return {}
        if self.opsin is None:
            return {name: NotResolved("OPSIN disabled") for name in names}
        try:
            results = self.opsin.translate_many(names)
        except ChemgroundError as error:
            if not self.errors_pass:
                raise
            return {name: NotResolved(f"OPSIN unavailable: {error}") for name in names}
        out: dict[str, str | NotResolved] = {}
        for name in names:
            result = results.get(name)
            if result is None:
                out[name] = NotResolved("OPSIN: no answer")
            elif result.ok:
                out[name] = result.smiles or ""
            else:
                out[name] = NotResolved(_opsin_says(result.message))
        return out

    def structures(
        self, translations: Mapping[str, str | NotResolved]
    ) -> dict[str, NameHit | NotResolved]:
        """Hits for the names OPSIN translated, misses passed through.

        Args:
            translations: :meth:`translate_many`'s answer.

        Returns:
            Each name's hit (its SMILES built by ``build``) or NotResolved, RDKit's rejection
            of a SMILES included.
        """
        built = self.build({t for t in translations.values() if isinstance(t, str)})
        out: dict[str, NameHit | NotResolved] = {}
        for name, translation in translations.items():
            if isinstance(translation, NotResolved):
                out[name] = translation
                continue
            structure = built.get(translation)
            if isinstance(structure, Structure):
                out[name] = NameHit(structure, "opsin")
            else:
                why = f": {structure}" if structure is not None else ""
                out[name] = NotResolved(f"OPSIN gave a structure RDKit rejects{why}")
        return out


class PubChemResolver(OneByOne):
    """PubChem by name: the online fallback, used only where the user allowed the network.

    ``pubchem`` None (network off) answers "PubChem not asked (network off)", so that a report
    says the name might still be found online.
    """

    def __init__(self, pubchem: PubChem | None) -> None:
        self.pubchem = pubchem

    def resolve(self, name: str) -> NameHit:
        """Raises NotResolved when PubChem is off, fails, lacks the name or gives a bad InChI."""
        if self.pubchem is None:
            raise NotResolved("PubChem not asked (network off)")
        try:
            found = self.pubchem.inchi_for_name(name)
        except ChemgroundError as error:
            raise NotResolved(f"PubChem failed: {error}") from error
        if found is None:
            raise NotResolved("not in PubChem")
        try:
            structure = structure_from_inchi(found[1])
        except StructureError as error:
            raise NotResolved(
                f"PubChem's InChI for CID {found[0]} is not usable: {error}"
            ) from error
        return NameHit(structure, "pubchem")


class NameChain:
    """Resolvers asked in order; the first hit wins.

    Args:
        steps: the resolvers, most trustworthy and cheapest first.
        attach: a dictionary in which to look up the compound of a structure a later resolver
            (OPSIN, PubChem) found, so that a name and the dictionary's own name for the same
            compound give the same compound id; None to leave that to the caller (the
            importers look structures up in bulk).
    """

    def __init__(self, steps: Sequence[NameResolverStep], attach: NameDictionary | None = None):
        self.steps = list(steps)
        self.attach = attach

    def attempt(self, name: str) -> NameHit | Unresolved:
        """The first resolver's hit for ``name``, or what each resolver said.

        Args:
            name: the name as the resolvers should see it.

        Returns:
            The hit (with the dictionary's compound attached), or an Unresolved.

        Raises:
            ChemgroundError: a resolver failed in a way its caller asked to hear about (OPSIN
                with no Java and ``errors_pass`` false).
        """
        reasons: list[str] = []
        for step in self.steps:
            try:
                return self.with_compound(step.resolve(name))
            except NotResolved as miss:
                reasons.append(miss.reason)
        return Unresolved(name, tuple(reasons))

    def resolve(self, name: str) -> NameHit:
        """Like :meth:`attempt`, but a name no resolver knows is an error.

        Raises:
            NameResolutionError: no resolver knew the name; the message lists why, per resolver.
        """
        found = self.attempt(name)
        if isinstance(found, Unresolved):
            raise found.error()
        return found

    def resolve_many(self, names: Iterable[str]) -> dict[str, NameHit | Unresolved]:
        """:meth:`attempt` for many names, each resolver asked once for all the names still
        left (OPSIN in one batch).

        Args:
            names: the names (repeats are resolved once).

        Returns:
            Each distinct name's hit or Unresolved, in first-seen order.
        """
        left = list(dict.fromkeys(names))
        reasons: dict[str, list[str]] = {name: [] for name in left}
        out: dict[str, NameHit | Unresolved] = {}
        for step in self.steps:
            if not left:
                break
            for name, found in step.resolve_many(left).items():
                if isinstance(found, NotResolved):
                    reasons[name].append(found.reason)
                else:
                    out[name] = self.with_compound(found)
            left = [name for name in left if name not in out]
        for name in left:
            out[name] = Unresolved(name, tuple(reasons[name]))
        return {name: out[name] for name in reasons}

    def with_compound(self, hit: NameHit) -> NameHit:
        """``hit`` with the compound id and name of its structure in ``attach``, when it has
        no compound yet and ``attach`` holds one."""
        if self.attach is None or hit.compound_id is not None or hit.structure is None:
            return hit
        hits = self.attach.lookup_structure(hit.structure)
        if not hits:
            return hit
        return NameHit(
            hit.structure, hit.source, hits[0].compound_id, hits[0].matched_name, hit.notes
        )


def _opsin_says(message: str) -> str:
    """OPSIN's failure message, said to be OPSIN's once ("OPSIN could not interpret ...")."""
    return message if message.startswith("OPSIN") else f"OPSIN: {message}"


@lru_cache(maxsize=65536)
def _radical_smiles(smiles: str) -> bool:
    from rdkit.Chem import Descriptors

    try:
        return Descriptors.NumRadicalElectrons(mol_from_smiles(smiles)) > 0
    except StructureError:
        return False


def is_radical(structure: Structure | None) -> bool:
    """Whether ``structure`` has unpaired electrons (a radical needs a bracket atom)."""
    return structure is not None and "[" in structure.smiles and _radical_smiles(structure.smiles)
