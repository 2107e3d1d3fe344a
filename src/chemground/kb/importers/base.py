"""The import engine shared by every reaction file format.

A reader turns a file into :class:`RawReaction` rows (or :class:`RowError` for rows it
cannot read). The engine then: refuses the file on bad rows before writing anything (unless
told to skip them); computes structures in the worker pool, batch by batch, while it reads
and writes; resolves name-only participants (the shared name chain of
chem/resolvers: dictionary, then OPSIN); links each participant
to the compound table, adding compounds when needed; and writes everything in ONE
transaction, so a bad row or a killed process
leaves the KB exactly as it was. Reaction ids are deterministic, so re-importing a file
changes nothing.
"""

from __future__ import annotations

import gc
import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rdkit import Chem

from chemground.chem.names import NameResolver, guess_name_format, normalize_name
from chemground.chem.resolvers import (
    NOT_IN_DICTIONARY,
    DictionaryResolver,
    NotResolved,
    OpsinResolver,
    Unresolved,
)
from chemground.chem.structure import Structure, rdkit_messages
from chemground.errors import ImportFileError, StructureError
from chemground.kb.reaction_roles import reassign_roles
from chemground.kb.records import ROLE_CHANGES, Compound, Conditions, Participant, Reaction, Role
from chemground.kb.store import KnowledgeBase
from chemground.kb.structures import ComputedStructure, StructureJob, compute_many, submit_many
from chemground.kb.workers import start_pool
from chemground.progress import Progress

# OPSIN runs in its own JVM; this thread only feeds it while RDKit works in the process pool.
_OPSIN_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="opsin-names")


@dataclass
class RawParticipant:
    """A participant as the source gives it: a name and/or a structure string."""

    role: Role
    name: str | None = None
    smiles: str | None = None
    inchi: str | None = None
    amount: str | None = None


@dataclass
class RawReaction:
    participants: list[RawParticipant]
    id: str | None = None
    source: str = ""
    dataset: str = ""
    title: str | None = None
    reaction_class: str | None = None
    description: str = ""
    reaction_smiles: str | None = None
    conditions: Conditions = field(default_factory=Conditions)
    yield_percent: float | None = None
    operations: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    # The source's reaction SMILES with its atom maps (not stored; reaction_smiles is stored
    # without them): tells reactants from reagents (kb.reaction_roles).
    mapped_smiles: str | None = None
    # The source files reagents among its reactants (patent text mining, reaction SMILES):
    # the curated reagent list applies. False where a person wrote the roles.
    reagents_among_reactants: bool = False


@dataclass
class RowError:
    """A row the reader could not turn into a reaction."""

    line: int | None
    message: str


@dataclass
class ImportSummary:
    path: str
    format: str
    rows_read: int = 0
    reactions_added: int = 0
    reactions_unchanged: int = 0
    reactions_flagged: int = 0
    reactions_skipped: int = 0
    compounds_added: int = 0
    participants: int = 0
    unresolved: Counter = field(default_factory=Counter)
    roles_reassigned: Counter = field(default_factory=Counter)  # rule -> participants re-filed
    errors: list[tuple[int | None, str]] = field(default_factory=list)
    seconds: float = 0.0
    already_imported: bool = False

    @property
    def rate(self) -> float:
        return self.rows_read / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "rows_read": self.rows_read,
            "reactions_added": self.reactions_added,
            "reactions_unchanged": self.reactions_unchanged,
            "reactions_flagged": self.reactions_flagged,
            "reactions_skipped": self.reactions_skipped,
            "compounds_added": self.compounds_added,
            "participants": self.participants,
            "unresolved_names": dict(self.unresolved.most_common()),
            "roles_reassigned": dict(sorted(self.roles_reassigned.items())),
            "errors": [{"line": line, "message": msg} for line, msg in self.errors],
            "seconds": round(self.seconds, 3),
            "reactions_per_second": round(self.rate, 1),
            "already_imported": self.already_imported,
        }


_APPEARANCE = (
    r"(?:(?:pale|light|dark|bright|deep|slightly|faint|almost)\s+)?"
    r"(?:(?:yellow|white|colou?rless|brown|red|orange|green|blue|purple|violet|tan|beige|off-white|"
    r"black|grey|gray|pink|amber|clear|cream|golden|yellowish|brownish|reddish|greenish|viscous|"
    r"crystalline|amorphous|waxy|sticky|thick|crude|pure|solid|dry|wet)[\s,-]+)*"
)
_GENERIC_NAME = re.compile(
    r"^(?:the\s+|a\s+|an\s+)?(?:"
    r"title\s+(?:compounds?|products?|materials?|substances?)|compounds?(?:\s+\S+)?|"
    r"(?:(?:desired|crude|final|pure|purified|oily|resulting|resultant|expected|main|major|minor|isolated|"
    r"obtained|above|said|dried|recrystallized|solid|target|reaction|intermediate)\s+)*"
    r"(?:products?|materials?|substances?)(?:\s+\S+)?|"
    r"residue|(?:aqueous\s+|organic\s+|saturated\s+)?(?:solution|layer|phase|suspension|slurry|extracts?)|"
    r"(?:reaction\s+)?mixture|filtrate|intermediate(?:\s+\S+)?|example\s+\S+|resin|ice(?:\s+water)?|"
    r"ice-water|precipitate|salt|starting\s+materials?|grignard\s+reagent|reagent|catalyst|solvent|base|acid|"
    r"ester|amine|ketone|aldehyde|alcohol|ether\s+solution|hydrochloride|"
    + _APPEARANCE
    + r"(?:oils?|solids?|crystals?|powders?|foams?|gums?|glass|syrups?|liquids?|needles|prisms|"
    r"plates|material|mass)|"
    r"[\[(]?\s*\d+[a-z]?\s*[\])]?|[a-z]\d*|[ivx]+"
    r")$",
    re.IGNORECASE,
)


@lru_cache(maxsize=1 << 15)
def is_generic_name(name: str) -> bool:
    """Labels that do not name a compound ("title compound", "compound 12", "residue")."""
    text = " ".join(name.split())
    return len(text) < 2 or bool(_GENERIC_NAME.match(text))


# C0 and C1 control characters (NUL, ESC, DEL...): never part of a name, a structure or an id.
# Free text (a procedure, notes) may hold tabs and line breaks, nothing else of the kind.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FREE_TEXT = {"title", "description", "notes", "operations", "provenance", "temperature_text"}


def control_character_problem(raw: RawReaction) -> str | None:
    """Why a row must be refused for a control character in one of its fields, or None.

    Such a character (a NUL byte, most often) is a sign of a damaged or binary file; stored,
    it would make a name that looks right but never matches, so the row is reported instead."""
    strict = [
        raw.id,
        raw.source,
        raw.dataset,
        raw.reaction_class,
        raw.reaction_smiles,
        raw.conditions.atmosphere,
    ]
    for p in raw.participants:
        strict += (p.name, p.smiles, p.inchi, p.amount)
    free = (raw.title, raw.description, raw.notes, raw.conditions.temperature_text)
    if (
        _CONTROL.search(_joined(strict)) is None  # one search for the lot: the usual case
        and _CONTROL_IN_TEXT.search(_joined(free)) is None
        and (not raw.operations or _find_control(raw.operations, _CONTROL_IN_TEXT) is None)
        and (not raw.provenance or _find_control(raw.provenance, _CONTROL_IN_TEXT) is None)
    ):
        return None
    fields: list[tuple[str, Any]] = [
        ("id", raw.id),
        ("source", raw.source),
        ("dataset", raw.dataset),
        ("reaction_class", raw.reaction_class),
        ("reaction_smiles", raw.reaction_smiles),
        ("title", raw.title),
        ("description", raw.description),
        ("notes", raw.notes),
        ("atmosphere", raw.conditions.atmosphere),
        ("temperature_text", raw.conditions.temperature_text),
        ("operations", raw.operations),
        ("provenance", raw.provenance),
    ]
    for p in raw.participants:
        role = getattr(p.role, "value", p.role)
        fields += [
            (f"{role} name", p.name),
            (f"{role} SMILES", p.smiles),
            (f"{role} InChI", p.inchi),
            (f"{role} amount", p.amount),
        ]
    for label, value in fields:
        found = control_character_in(value, free_text=label in _FREE_TEXT)
        if found:
            return f"control character {found} in {label}: the row is refused, not stored"
    return None


def _joined(values) -> str:
    try:
        return "".join(filter(None, values))
    except TypeError:  # a number where a string usually is (a JSON amount): not text to check
        return "".join(v for v in values if isinstance(v, str))


def control_character_in(value: Any, free_text: bool = False) -> str | None:
    """The first control character in ``value`` (a string, or strings in lists and dicts) and
    where it is, for an error message; None when there is none. ``free_text`` allows tabs and
    line breaks."""
    found = _find_control(value, _CONTROL_IN_TEXT if free_text else _CONTROL)
    if found is None:
        return None
    text, at = found
    return f"{_char_name(text[at])} {_excerpt(text, at)}"


def _find_control(value: Any, pattern: re.Pattern, depth: int = 0) -> tuple[str, int] | None:
    if isinstance(value, str):
        match = pattern.search(value)
        return (value, match.start()) if match else None
    if depth > 4:
        return None
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return None
    for item in items:
        found = _find_control(item, pattern, depth + 1)
        if found is not None:
            return found
    return None


def _char_name(char: str) -> str:
    names = {"\x00": "NUL", "\t": "TAB", "\n": "LF", "\r": "CR", "\x1b": "ESC", "\x7f": "DEL"}
    code = f"U+{ord(char):04X}"
    return f"{code} ({names[char]})" if char in names else code


def _excerpt(text: str, at: int) -> str:
    """Where in the value the character is, shown safely (control characters escaped)."""
    start = max(0, at - 20)
    shown = text[start : at + 20].encode("unicode_escape").decode("ascii")
    return f"at position {at} ({'…' if start else ''}{shown}{'…' if at + 20 < len(text) else ''})"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def content_id(prefix: str, *parts: Any) -> str:
    """A deterministic reaction id from the row's content (for sources without ids)."""
    digest = hashlib.sha1(
        "\x1f".join("" if p is None else str(p) for p in parts).encode("utf-8")
    ).hexdigest()
    return f"{prefix}:{digest[:16]}"


@dataclass
class PreparedBatch:
    """A batch of rows whose structures and names are being worked out in the background."""

    reactions: list[RawReaction]
    structures: StructureJob  # full structures of molecules new to the KB
    canonical: StructureJob  # canonical SMILES only, for molecules the KB knows by InChIKey
    opsin: Future | None


class ParticipantLinker:
    """Turns raw participants into linked participants, adding compounds as needed.

    Work is done in bulk and in the background: :meth:`submit` (while the file is still
    being read, no writes) starts computing a batch's structures in the process pool and
    sends its bare names to OPSIN; :meth:`complete` collects them; :meth:`link` then only
    looks up or inserts compounds. A participant whose source InChI already names a KB
    compound needs no structure work at all. Names learnt from the source are stored with
    new compounds when they are inserted, and merged into older ones once, at
    :meth:`flush_names`.
    """

    def __init__(self, kb: KnowledgeBase, resolver: NameResolver, source: str) -> None:
        self.kb = kb
        self.resolver = resolver
        self.source = source
        # the shared name chain's resolvers, called one at a time: the dictionary here, OPSIN
        # in its own thread while the pool computes structures, its SMILES then in the pool
        self._dictionary = DictionaryResolver(kb)
        self._opsin = OpsinResolver(resolver.opsin, build=self._build)
        self.structures: dict[str, ComputedStructure] = {}
        self.inchi_structures: dict[str, ComputedStructure] = {}
        self.name_structures: dict[str, tuple[Structure | None, int | None, str]] = {}
        self._source_keys: dict[
            str, str
        ] = {}  # SMILES -> InChIKey of the InChI the source gave with it
        # InChIKey -> (compound id, SMILES) of the KB compound; None: looked up, not in the KB
        self._known: dict[str, tuple[int, str | None] | None] = {}
        self._submitted: set[str] = set()
        self._names_sent: set[str] = set()
        self._compound_ids: dict[str, int] = {}
        self._pending_names: dict[int, dict[str, str]] = {}
        self._remembered: set[tuple[int, str]] = set()
        self._linked: dict[
            tuple[str | None, str | None], tuple[int, str, str]
        ] = {}  # (SMILES, InChI) -> link
        self._new_compounds: dict[
            int, tuple[Compound, bytes | None, set[str]]
        ] = {}  # id -> (.., names known)
        self._next_id: int | None = None
        self.compounds_added = 0

    # -- preparation (no writes) -----------------------------------------------------------
    def submit(self, reactions: list[RawReaction]) -> PreparedBatch:
        """Start the structure and name work for ``reactions``; returns at once."""
        participants = [p for r in reactions for p in r.participants]
        # Names with no structure at all go to OPSIN (its own JVM process) now, so that it
        # works while RDKit computes the structures on the other cores.
        early = [
            name
            for name in dict.fromkeys(
                p.name
                for p in participants
                if p.name and not p.smiles and not p.inchi and not is_generic_name(p.name)
            )
            if name not in self.name_structures and name not in self._names_sent
        ]
        pending = self._names_from_dictionary(early)
        self._names_sent.update(pending)
        opsin = _OPSIN_THREAD.submit(self._translate, pending) if pending else None
        # A standard InChI given by the source fixes the InChIKey cheaply; when the KB already
        # holds that compound, the participant needs no structure work at all.
        given = {
            p.smiles: p.inchi
            for p in participants
            if p.smiles and p.inchi and p.smiles not in self._source_keys
        }
        keys_given = inchikeys_from_inchis(given.values())
        new_keys = []
        for smiles, inchi in given.items():
            key = keys_given.get(inchi)
            if key:
                self._source_keys[smiles] = key
                if key not in self._known:
                    self._known[key] = None
                    new_keys.append(key)
        self._known.update(self.kb.compounds_for_inchikeys(new_keys))
        full, canonical_only = [], []
        for p in participants:
            if p.smiles and p.smiles not in self._submitted:
                self._submitted.add(p.smiles)
                held = self._known.get(self._source_keys.get(p.smiles, ""))
                (full if held is None else canonical_only).append(p.smiles)
        keys = {s: self._source_keys[s] for s in full if s in self._source_keys}
        # workers read stored identifiers straight from the KB (a SQLite file or a server URL)
        kb_path = getattr(self.kb, "structure_source", None)
        return PreparedBatch(
            reactions,
            submit_many(full, known_inchikeys=keys, kb_path=kb_path, remember=True),
            submit_many(canonical_only, "canonical", remember=True),
            opsin,
        )

    def complete(self, batch: PreparedBatch, progress: Progress | None = None) -> None:
        """Wait for a batch's structures and names; resolve names whose SMILES/InChI failed."""
        try:
            report = (lambda n: progress("structures", n, None)) if progress else None
            self.structures.update(batch.structures.result(report))
            self.structures.update(
                batch.canonical.result(report)
            )  # canonical SMILES only: no structure
            # each distinct participant once (solvents and reagents repeat in most reactions)
            participants = list(
                {
                    (p.smiles, p.inchi, p.name): p for r in batch.reactions for p in r.participants
                }.values()
            )
            inchis = [
                p.inchi
                for p in participants
                if p.inchi
                and p.inchi not in self.inchi_structures
                and self._structure_of(p) is None
                and self._known_compound(p) is None
            ]
            self.inchi_structures.update(compute_many(inchis, kind="inchi"))
        finally:
            results = batch.opsin.result() if batch.opsin is not None else {}
        late = [
            name
            for name in dict.fromkeys(
                p.name
                for p in participants
                if p.name
                and self._structure_of(p) is None
                and self._known_compound(p) is None
                and not is_generic_name(p.name)
            )
            if name not in self.name_structures and name not in results
        ]
        results.update(self._translate(self._names_from_dictionary(late)))
        self._apply_translations(results)
        self._prefetch(participants)

    @staticmethod
    def cancel(batches: Iterable[PreparedBatch]) -> None:
        for batch in batches:
            batch.structures.cancel()
            batch.canonical.cancel()
            if batch.opsin is not None:
                batch.opsin.cancel()

    def _names_from_dictionary(self, names: list[str]) -> list[str]:
        """Resolve ``names`` from the KB's dictionary; returns those it does not know."""
        pending = []
        for name in names:
            hit = self._dictionary.find(name)
            if hit is not None:
                self.name_structures[name] = (hit.structure, hit.compound_id, "")
            else:
                pending.append(name)
        return pending

    def _translate(self, names: list[str]) -> dict[str, str | NotResolved]:
        """OPSIN's SMILES for ``names`` (or why there are none: OPSIN off, no Java, no parse).

        Runs in the OPSIN thread, so it builds no structures (see _apply_translations).
        """
        return self._opsin.translate_many(names)

    def _apply_translations(self, results: dict[str, str | NotResolved]) -> None:
        """Structures for OPSIN's SMILES, built in the worker pool; failures get the chain's
        reason (the dictionary's, then OPSIN's)."""
        for name, found in self._opsin.structures(results).items():
            if isinstance(found, NotResolved):
                reason = Unresolved(name, (NOT_IN_DICTIONARY, found.reason)).reason
                self.name_structures[name] = (None, None, reason)
            else:
                self.name_structures[name] = (found.structure, None, "")

    def _build(self, smiles: Iterable[str]) -> dict[str, Structure | StructureError]:
        """OPSIN's SMILES as structures, computed in the worker pool; each is kept (with its
        fingerprint) for when its compound is inserted."""
        out: dict[str, Structure | StructureError] = {}
        for text, found in compute_many(set(smiles)).items():
            if found.structure is not None:
                self.structures.setdefault(found.text, found)
                out[text] = found.structure
            else:
                out[text] = StructureError(found.error or "no structure")
        return out

    def _structure_of(self, raw: RawParticipant) -> ComputedStructure | None:
        for table, key in ((self.structures, raw.smiles), (self.inchi_structures, raw.inchi)):
            if key and key in table and table[key].structure is not None:
                return table[key]
        return None

    def _known_compound(self, raw: RawParticipant) -> tuple[str, int, str | None] | None:
        """(InChIKey, compound id, SMILES) when the source's InChI names a compound the KB held."""
        key = self._source_keys.get(raw.smiles) if raw.smiles else None
        hit = self._known.get(key) if key else None
        return (key, *hit) if key and hit else None  # type: ignore[return-value]

    def _prefetch(self, participants: list[RawParticipant]) -> None:
        """Find, in a few batched queries, which of a batch's structures the KB already holds."""
        structures: dict[str, Structure] = {}
        for p in participants:
            computed = self._structure_of(p)
            found = computed.structure if computed else None
            if found is None and p.name in self.name_structures:
                found = self.name_structures[p.name][0]
            if found is not None and found.inchikey not in self._compound_ids:
                structures[found.inchikey] = found
        self._compound_ids.update(self.kb.compound_ids_for_structures(structures.values()))
        if self._next_id is None:
            self._next_id = self.kb.next_compound_id()

    # -- linking (writes) ------------------------------------------------------------------
    def link(self, raw: RawParticipant) -> Participant:
        name = raw.name if raw.name and not is_generic_name(raw.name) else None
        linked = self._linked.get((raw.smiles, raw.inchi)) if raw.smiles else None
        if linked is None:
            linked = self._link_structure(raw, name)
            if linked is None:
                return self._link_by_name(raw, name)
            self._linked[(raw.smiles, raw.inchi)] = linked
        elif name:
            self._remember_name(linked[0], name)
        compound_id, smiles, key = linked
        return Participant(
            role=raw.role,
            name=raw.name or smiles,
            smiles=smiles,
            inchikey=key,
            compound_id=compound_id,
            amount=raw.amount,
        )

    def _link_structure(self, raw: RawParticipant, name: str | None) -> tuple[int, str, str] | None:
        """(compound id, canonical SMILES, InChIKey) from the participant's own SMILES/InChI."""
        known = self._known_compound(raw)
        if known is not None:
            key, compound_id, smiles = known
            computed = self.structures.get(raw.smiles or "")
            smiles = (
                computed.canonical if computed and computed.canonical else smiles
            )  # as the source drew it
            if name:
                self._remember_name(compound_id, name)
            return compound_id, smiles, key
        computed = self._structure_of(raw)
        if computed is None or computed.structure is None:
            return None
        structure = computed.structure
        return (
            self._compound_for(structure, computed.fingerprint, name),
            structure.smiles,
            structure.inchikey,
        )

    def _link_by_name(self, raw: RawParticipant, name: str | None) -> Participant:
        """A participant whose SMILES/InChI gave nothing: by its name, or unresolved (with why)."""
        structure: Structure | None = None
        fingerprint: bytes | None = None
        compound_id = None
        reason = None
        if raw.name and raw.name in self.name_structures:
            structure, compound_id, reason = self.name_structures[raw.name]
            if structure is not None:
                by_smiles = self.structures.get(structure.smiles)
                fingerprint = by_smiles.fingerprint if by_smiles else None
        if structure is None and compound_id is None:
            problems = []
            if raw.smiles:
                bad = self.structures.get(raw.smiles)
                problems.append(
                    bad.error if bad and bad.error else f"invalid SMILES {raw.smiles!r}"
                )
            if raw.name:
                problems.append(
                    reason
                    or ("not a compound name" if is_generic_name(raw.name) else "name not resolved")
                )
            if not problems:
                problems.append("no name or structure given")
            return Participant(
                role=raw.role,
                name=raw.name or raw.smiles,
                amount=raw.amount,
                unresolved_reason="; ".join(problems),
            )
        if compound_id is None:
            compound_id = self._compound_for(structure, fingerprint, name)  # type: ignore[arg-type]
        elif name:
            self._remember_name(compound_id, name)
        return Participant(
            role=raw.role,
            name=raw.name or (structure.smiles if structure else None),
            smiles=structure.smiles if structure else None,
            inchikey=structure.inchikey if structure else None,
            compound_id=compound_id,
            amount=raw.amount,
        )

    def _compound_for(
        self, structure: Structure, fingerprint: bytes | None, name: str | None
    ) -> int:
        compound_id = self._compound_ids.get(structure.inchikey)
        if compound_id is None:
            fmt = guess_name_format(name) if name else None
            compound = Compound.from_structure(
                structure,
                iupac_name=name if fmt == "iupac" else None,
                common_name=name if fmt == "common_name" else None,
                source=self.source,
            )
            assert self._next_id is not None, "complete() reserves compound ids before linking"
            compound_id = (
                self._next_id
            )  # reserved now, inserted with its batch at flush_compounds()
            self._next_id += 1
            self._new_compounds[compound_id] = (
                compound,
                fingerprint,
                {normalize_name(n) for n in compound.all_names()},
            )
            self.compounds_added += 1
            self._compound_ids[structure.inchikey] = compound_id
        if name:
            self._remember_name(compound_id, name)
        return compound_id

    def _remember_name(self, compound_id: int, name: str) -> None:
        if (compound_id, name) in self._remembered:  # a solvent's name comes back in every reaction
            return
        self._remembered.add((compound_id, name))
        norm = normalize_name(name)
        if not norm:
            return
        new = self._new_compounds.get(compound_id)
        if new is not None:  # not inserted yet: the name goes in with it
            compound, _, known = new
            if norm not in known:
                known.add(norm)
                compound.synonyms.append(name)
            return
        self._pending_names.setdefault(compound_id, {}).setdefault(norm, name)

    def flush_compounds(self) -> None:
        """Insert the compounds created while linking (before the reactions that refer to them)."""
        if self._new_compounds:
            self.kb.insert_compounds(
                [(cid, compound, fp) for cid, (compound, fp, _) in self._new_compounds.items()]
            )
            self._new_compounds = {}

    def flush_names(self) -> None:
        """Add the names the source used to older compounds' synonyms (one update per compound)."""
        known = self.kb.known_names(
            (norm, cid) for cid, names in self._pending_names.items() for norm in names
        )
        new_names = {
            compound_id: new
            for compound_id, names in self._pending_names.items()
            if (new := [name for norm, name in names.items() if (norm, compound_id) not in known])
        }
        compounds = self.kb.get_compounds(list(new_names))
        for compound_id, new in new_names.items():
            if compound_id in compounds:
                self.kb.add_synonyms(compounds[compound_id], new, self.source)
        self._pending_names.clear()


def inchikeys_from_inchis(inchis: Iterable[str]) -> dict[str, str]:
    """InChIKeys of standard InChI strings (cheap: no structure perception); others are left out."""
    keys = {}
    with rdkit_messages():  # one capture for the lot: it costs as much as a key
        for inchi in inchis:
            text = inchi.strip()
            if text.startswith("InChI=1S/") and inchi not in keys:
                key = Chem.InchiToInchiKey(text)
                if key:
                    keys[inchi] = key
    return keys


BATCH_SIZE = 250  # rows per batch: enough to keep both workers busy, few enough to overlap well
FIRST_BATCH = 125  # the first batch is smaller, so that the workers start early


def run_import(
    kb: KnowledgeBase,
    rows: Iterable[RawReaction | RowError],
    *,
    path: Path,
    fmt: str,
    resolver: NameResolver,
    strict: bool = False,
    skip_bad_rows: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import reactions read from ``path``: all or nothing (see the module docstring).

    Reading, structure computation and writing overlap: each batch of rows starts its
    structures in the worker pool as soon as it is read, and batch k is linked and written
    while the workers compute batch k+1. Nothing is written before the whole file has been
    read and found readable, and everything is written in one transaction.
    """
    with _cyclic_gc_paused():
        return _run_import(kb, rows, path, fmt, resolver, strict, skip_bad_rows, progress)


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """An import makes hundreds of thousands of acyclic objects that live until it ends; the
    cyclic collector walking them again and again cost a fifth of the import's time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _run_import(
    kb: KnowledgeBase,
    rows: Iterable[RawReaction | RowError],
    path: Path,
    fmt: str,
    resolver: NameResolver,
    strict: bool,
    skip_bad_rows: bool,
    progress: Progress | None,
) -> ImportSummary:
    started = time.perf_counter()
    summary = ImportSummary(path=str(path), format=fmt)
    sha = file_sha256(path)
    linker: ParticipantLinker | None = None
    batches: list[PreparedBatch] = []
    pending: list[RawReaction] = []

    def submit() -> None:
        nonlocal linker
        existing = kb.existing_reaction_ids([r.id for r in pending if r.id])
        fresh = [r for r in pending if not (r.id and r.id in existing)]
        summary.reactions_unchanged += len(pending) - len(fresh)
        pending.clear()
        if not fresh:
            return
        if linker is None:
            linker = ParticipantLinker(kb, resolver, source=fresh[0].dataset or fmt)
        batches.append(linker.submit(fresh))
        if progress:
            progress("structures", 0, sum(b.structures.size + b.canonical.size for b in batches))

    reported = 0

    def report_read(done: bool = False) -> None:
        nonlocal reported
        if progress:
            progress("read", summary.rows_read - reported, summary.rows_read if done else None)
            reported = summary.rows_read

    try:
        for row in rows:
            summary.rows_read += 1
            if not isinstance(row, RowError):
                problem = control_character_problem(row)
                if problem is None and not row.participants:
                    # ">>" (an empty reaction SMILES) was stored as a reaction of nothing
                    problem = "the reaction names no reactant, reagent, solvent or product"
                if problem:
                    row = RowError(row.line, problem)
            if isinstance(row, RowError):
                summary.errors.append((row.line, row.message))
            elif (
                skip_bad_rows or not summary.errors
            ):  # a file about to be refused needs no more work
                pending.append(row)
                if len(pending) >= min(BATCH_SIZE, FIRST_BATCH << len(batches)):
                    report_read()
                    if not batches:  # a file of more than one batch: worth the worker processes
                        start_pool()
                    submit()
        if summary.errors and not skip_bad_rows:
            shown = "; ".join(
                f"line {line}: {msg}" if line else msg for line, msg in summary.errors[:10]
            )
            more = f" (and {len(summary.errors) - 10} more)" if len(summary.errors) > 10 else ""
            raise ImportFileError(
                f"{path}: {len(summary.errors)} row(s) could not be read, nothing was imported: "
                f"{shown}{more}. "
                "Fix the file, or pass --skip-bad-rows to import the readable rows."
            )
        report_read(done=True)
        if pending:
            submit()
        if progress:
            progress("write", 0, sum(len(b.reactions) for b in batches))
        with kb.transaction():
            for batch in batches:
                assert linker is not None
                linker.complete(batch, progress)
                _write_batch(kb, linker, batch.reactions, path, fmt, strict, summary)
                if progress:
                    progress("write", len(batch.reactions), None)
            if linker is not None:
                linker.flush_names()
                summary.compounds_added = linker.compounds_added
            summary.seconds = time.perf_counter() - started
            summary.already_imported = (
                summary.reactions_added == 0 and kb.import_record(sha) is not None
            )
            kb.record_import(sha, str(path), fmt, summary.to_dict())
        summary.seconds = time.perf_counter() - started  # what the caller waited, commit included
    except BaseException:
        ParticipantLinker.cancel(batches)
        raise
    return summary


def _write_batch(
    kb: KnowledgeBase,
    linker: ParticipantLinker,
    reactions: list[RawReaction],
    path: Path,
    fmt: str,
    strict: bool,
    summary: ImportSummary,
) -> None:
    """Link one batch's participants and write its new compounds and reactions."""
    built: list[Reaction] = []
    for raw in reactions:
        linker.source = raw.dataset or linker.source
        participants = [linker.link(p) for p in raw.participants]
        provenance = {**raw.provenance, "file": path.name, "line": raw.line}
        if raw.mapped_smiles or raw.reagents_among_reactants:
            participants, changes = reassign_roles(
                participants, raw.mapped_smiles, reagent_list=raw.reagents_among_reactants
            )
            if changes:
                provenance[ROLE_CHANGES] = [c.to_dict() for c in changes]
                summary.roles_reassigned.update(c.rule for c in changes)
        unresolved = [p for p in participants if not p.resolved]
        for p in unresolved:
            summary.unresolved[p.name or "?"] += 1
        if unresolved and strict:
            summary.reactions_skipped += 1
            continue
        built.append(
            Reaction(
                id=raw.id
                or content_id(
                    raw.dataset or fmt,
                    raw.reaction_smiles,
                    raw.description,
                    [(p.role.value, p.name, p.smiles) for p in raw.participants],
                ),
                source=raw.source,
                dataset=raw.dataset,
                title=raw.title,
                reaction_class=raw.reaction_class,
                description=raw.description,
                reaction_smiles=raw.reaction_smiles,
                participants=participants,
                operations=raw.operations,
                conditions=raw.conditions,
                yield_percent=raw.yield_percent,
                notes=raw.notes,
                provenance=provenance,
                flags=[f"unresolved {p.role.value}: {p.name}" for p in unresolved],
            )
        )
    linker.flush_compounds()
    added = set(kb.add_reactions(built))
    for reaction in built:
        if reaction.id in added:
            added.discard(reaction.id)  # a row repeated in the file is inserted (and counted) once
            summary.reactions_added += 1
            summary.participants += len(reaction.participants)
            summary.reactions_flagged += int(bool(reaction.flags))
        else:
            summary.reactions_unchanged += 1
