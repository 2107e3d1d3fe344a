"""The knowledge-base interface every caller uses.

Callers (resolver, retrievers, importers, CLI) depend on :class:`KnowledgeBase` only, so a
server backend (e.g. PostgreSQL with the RDKit cartridge) can be added behind it later
without touching them. The embedded default is :class:`chemground.kb.sqlite_store.SQLiteKB`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.names import DictionaryHit
from chemground.chem.structure import Structure
from chemground.kb.graph_rows import MoleculeRow, ParticipantRow, ReactionRow
from chemground.kb.papers import MentionHit, MentionLike
from chemground.kb.records import Compound, Reaction, Role
from chemground.kb.structure_search import (
    QueryFormat,
    ReactionMatch,
    StructureMatch,
    StructureSearch,
    check_limit,
    check_mode,
    check_roles,
    query_inchikey,
)
from chemground.lit.records import Chunk, Document


@dataclass
class KBStats:
    path: str
    compounds: int
    compounds_with_structure: int
    compound_names: int
    reactions: int
    participants: int
    flagged_reactions: int
    reactions_by_source: dict[str, int] = field(default_factory=dict)
    compounds_by_source: dict[str, int] = field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    size_bytes: int = 0
    meta: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReactionLink:
    """A compound's part in one reaction (a row of the link table)."""

    reaction_id: str
    compound_id: int
    role: Role


class KnowledgeBase(ABC):
    """Compounds, reactions and the links between them."""

    # -- compounds -----------------------------------------------------------------------
    @abstractmethod
    def get_compound(self, compound_id: int, with_reactions: int = 50) -> Compound: ...

    @abstractmethod
    def get_compounds(self, compound_ids: Sequence[int]) -> dict[int, Compound]: ...

    @abstractmethod
    def lookup_name(self, normalized: str) -> list[DictionaryHit]: ...

    @abstractmethod
    def lookup_inchikey(self, inchikey: str) -> list[DictionaryHit]: ...

    @abstractmethod
    def lookup_structure(self, structure: Structure) -> list[DictionaryHit]:
        """Compounds with exactly this structure."""

    @abstractmethod
    def lookup_cas(self, cas: str) -> list[DictionaryHit]: ...

    @abstractmethod
    def lookup_connectivity(self, connectivity_key: str) -> list[DictionaryHit]: ...

    @abstractmethod
    def lookup_parent(self, parent_inchikey: str) -> list[DictionaryHit]: ...

    @abstractmethod
    def iter_compounds(self, batch_size: int = 5000) -> Iterator[Compound]: ...

    @abstractmethod
    def fingerprints(self) -> tuple[list[int], list[Any]]:
        """(compound ids, RDKit bit vectors) for every compound with a structure."""

    @abstractmethod
    def name_table(self) -> list[tuple[str, int, int]]:
        """(name as written, compound id, rank) for fuzzy matching over names."""

    # -- reactions -----------------------------------------------------------------------
    @abstractmethod
    def get_reaction(self, reaction_id: str) -> Reaction: ...

    @abstractmethod
    def get_reactions(self, reaction_ids: Sequence[str]) -> dict[str, Reaction]: ...

    @abstractmethod
    def reaction_links(
        self, compound_ids: Iterable[int], roles: Iterable[Role] | None = None
    ) -> list[ReactionLink]: ...

    @abstractmethod
    def iter_reactions(self, batch_size: int = 2000) -> Iterator[Reaction]: ...

    @abstractmethod
    def search_reaction_text(self, query: str, limit: int = 10) -> list[tuple[str, float]]: ...

    # -- structure search (see chemground.kb.structure_search) ---------------------------
    # The arguments are checked here, once for every store; a store implements the search
    # itself (_compounds_by_structure, _reactions_by_structure) with its engine.
    def search_compounds_by_structure(
        self,
        query: str,
        *,
        mode: str = "substructure",
        threshold: float = 0.7,
        limit: int = 50,
        query_format: QueryFormat = "auto",
    ) -> list[StructureMatch]:
        """Compounds matching a structure query.

        Args:
            query: a SMILES or SMARTS pattern (substructure), a SMILES (similarity), or an
                InChIKey or SMILES (exact).
            mode: "substructure", "similarity" (Tanimoto of Morgan r=2, 2,048-bit
                fingerprints) or "exact" (same InChIKey, alias keys included).
            threshold: the least similarity reported (similarity only), in (0, 1].
            limit: the most compounds returned, 1..10,000.
            query_format: "auto", "smiles" or "smarts" (substructure only).

        Returns:
            Substructure and exact matches in KB order (compound id); similarity matches
            best first, ties in KB order.

        Raises:
            StructureError: an invalid query; StructureLimitError: one over the limits;
            InputLimitError: a bad threshold or limit; ValueError: an unknown mode.
        """
        check_limit(limit)
        check_mode(mode)
        return self._compounds_by_structure(
            StructureSearch(query, mode, threshold, limit, query_format)
        )

    def search_reactions_by_structure(
        self,
        query: str,
        *,
        mode: str = "substructure",
        roles: Iterable[Role | str] | None = None,
        threshold: float = 0.7,
        limit: int = 50,
        query_format: QueryFormat = "auto",
    ) -> list[ReactionMatch]:
        """Reactions with a participant (in ``roles``; None: any) matching a structure query.

        Args and Raises are those of :meth:`search_compounds_by_structure`; ``roles`` takes
        :class:`Role` values or names ("reactant", "reactants", "solvent"...).

        Returns:
            Substructure and exact matches in KB order (order of import); similarity matches
            by their best participant's score, ties in KB order. Each lists its matching
            participants in the roles asked.
        """
        check_limit(limit)
        checked_roles = check_roles(roles)
        check_mode(mode)
        return self._reactions_by_structure(
            StructureSearch(query, mode, threshold, limit, query_format, checked_roles)
        )

    @abstractmethod
    def _compounds_by_structure(self, search: StructureSearch) -> list[StructureMatch]:
        """:meth:`search_compounds_by_structure`, by the store's engine."""

    @abstractmethod
    def _reactions_by_structure(self, search: StructureSearch) -> list[ReactionMatch]:
        """:meth:`search_reactions_by_structure`, by the store's engine."""

    def _exact_compound_ids(self, query: str) -> list[int]:
        """The compounds an exact query (an InChIKey or a SMILES) names, alias keys included,
        in KB order."""
        return sorted({hit.compound_id for hit in self.lookup_inchikey(query_inchikey(query))})

    @abstractmethod
    def table_exists(self, name: str) -> bool:
        """Whether the KB holds this table (``chunks`` exists once papers were added)."""

    # -- named look-ups for callers outside kb/ (see chemground.kb.named_queries) ---------
    @abstractmethod
    def reaction_state(self) -> tuple[int, int]:
        """(number of reactions, last reaction rowid): changes when reactions are added."""

    @abstractmethod
    def records_state(self) -> tuple[int, int, int, int]:
        """(compounds, last compound id, reactions, last reaction rowid)."""

    @abstractmethod
    def reaction_classes(self) -> list[tuple[str, str]]:
        """(reaction id, reaction class) of every reaction with a class, in KB order."""

    @abstractmethod
    def candidate_reaction_ids(self, require: str = "any") -> list[str]:
        """Unflagged reactions with a field ("temperature", "yield", "time", "solvent"...)."""

    @abstractmethod
    def candidate_compound_ids(self, require: str = "structure") -> list[int]:
        """Compounds with "structure", "description" or "name_conversion" (structure + IUPAC)."""

    @abstractmethod
    def compound_id_for_pubchem_cid(self, cid: int) -> int | None: ...

    @abstractmethod
    def max_compound_id(self) -> int: ...

    @abstractmethod
    def reaction_flags(self, reaction_id: str) -> list[str]: ...

    @abstractmethod
    def set_reaction_flags(self, reaction_id: str, flags: list[str]) -> None: ...

    @abstractmethod
    def name_ranks(self, norms: Iterable[str]) -> dict[str, int]:
        """Normalised name -> best rank, for the names the KB knows."""

    @abstractmethod
    def all_name_norms(self) -> set[str]: ...

    @abstractmethod
    def compound_ids_by_formula(self) -> dict[str, list[int]]: ...

    @abstractmethod
    def compound_names_for_index(
        self, first_sources: Iterable[str] = ()
    ) -> list[tuple[int, str | None, str | None, list[str], str]]:
        """(id, IUPAC name, common name, synonyms, source) of every compound (typo index)."""

    @abstractmethod
    def participant_names(self) -> list[tuple[str, int]]:
        """(name, compound id) of the named reaction participants linked to a compound."""

    @abstractmethod
    def has_chunks(self) -> bool:
        """Whether papers were added to the KB."""

    @abstractmethod
    def remove_records(self, reaction_ids: Sequence[str], compound_ids: Sequence[int]) -> None:
        """Delete reactions and compounds (a benchmark's out-of-corpus copy); participants that
        named a removed compound keep their name and SMILES, without the link."""

    @abstractmethod
    def import_count(self) -> int:
        """How many files were imported (rows of the imports ledger)."""

    # -- graph export (see chemground.graph.export) --------------------------------------
    @abstractmethod
    def reaction_rows_after(self, rowid: int) -> list[ReactionRow]:
        """The graph's reaction columns of every reaction stored after ``rowid``, in order."""

    @abstractmethod
    def participant_rows_after(self, rowid: int) -> list[ParticipantRow]:
        """The participants of the reactions stored after ``rowid``, with their compound's
        InChIKey and weight, by reaction then position."""

    @abstractmethod
    def molecule_rows(self, compound_ids: Iterable[int]) -> list[MoleculeRow]:
        """The graph's molecule columns of these compounds (unknown ids left out), by id."""

    # -- papers (see chemground.kb.papers) -----------------------------------------------
    @abstractmethod
    def has_paper_tables(self) -> bool:
        """Whether the KB has the paper tables (created when a first paper is added)."""

    @abstractmethod
    def ensure_paper_tables(self) -> None:
        """Create the paper tables where they are missing."""

    @abstractmethod
    def paper_counts(self) -> tuple[int, int]:
        """(documents, chunks) stored."""

    @abstractmethod
    def add_document(
        self,
        document: Document,
        chunks: Iterable[tuple[Chunk, Sequence[MentionLike]]],
        replace: Iterable[str] = (),
    ) -> int:
        """Store a document, its chunks and their mentions in one transaction, first
        deleting the documents in ``replace``; returns the number of chunks."""

    @abstractmethod
    def delete_document(self, document_id: str) -> None:
        """Delete a document with its chunks (NotFoundError if there is none)."""

    @abstractmethod
    def find_documents(
        self, *, sha256: str | None = None, path: str | None = None
    ) -> list[Document]:
        """Stored documents with this content hash and/or path."""

    @abstractmethod
    def list_documents(self) -> list[Document]:
        """Every stored document, oldest first."""

    @abstractmethod
    def get_document(self, document_id: str) -> Document:
        """One stored document (NotFoundError if there is none)."""

    @abstractmethod
    def document_titles(self, document_ids: Iterable[str]) -> dict[str, tuple[str | None, str]]:
        """Document id -> (title, path)."""

    @abstractmethod
    def document_texts(
        self, document_ids: Sequence[str] | None = None
    ) -> Iterator[tuple[str, str | None, str]]:
        """(id, title, text) of stored documents, by id (all when None)."""

    @abstractmethod
    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunk id -> chunk, for the ids that are stored."""

    @abstractmethod
    def chunks_of_document(self, document_id: str) -> list[Chunk]:
        """A document's chunks in order."""

    @abstractmethod
    def iter_chunks(self, batch_size: int = 2000) -> Iterator[Chunk]:
        """Every chunk, in storage order."""

    @abstractmethod
    def chunks_mentioning(self, inchikeys: Iterable[str], limit: int = 5000) -> list[MentionHit]:
        """Chunks naming these compounds (exact InChIKey first, then same skeleton)."""

    @abstractmethod
    def chunk_mentions(self, chunk_id: str) -> list[dict[str, Any]]:
        """The compounds a chunk names, in text order."""

    def update_structure_index(self) -> int:
        """Bring the structure-search pre-screen up to date after writes; returns how many
        compounds were indexed (backends whose index the database maintains: 0)."""
        return 0

    # -- writing -------------------------------------------------------------------------
    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all."""

    @abstractmethod
    def upsert_compound(self, compound: Compound) -> tuple[int, bool]:
        """Insert or merge (by InChIKey); returns (id, created)."""

    @abstractmethod
    def add_reaction(self, reaction: Reaction) -> bool:
        """Insert a reaction whose participants are already linked; False if the id exists."""

    @abstractmethod
    def set_description(self, compound_id: int, description: str) -> None: ...

    # -- bookkeeping ---------------------------------------------------------------------
    @abstractmethod
    def stats(self) -> KBStats: ...

    @abstractmethod
    def get_meta(self, key: str, default: str | None = None) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
