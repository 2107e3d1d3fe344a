"""Computing structures for many SMILES/InChI strings at once, on all cores.

Seeding the dictionary (~76k compounds) and importing patent reactions (~20k distinct
molecules) are dominated by RDKit parsing and InChIKey generation; this module fans that
work out over a process pool and returns plain, picklable results.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from chemground.chem.fingerprints import fingerprint_to_bytes, morgan_fingerprint
from chemground.chem.structure import (
    Structure,
    canonical_smiles,
    mol_from_inchi,
    mol_from_smiles,
    strip_atom_maps,
    structure_from_mol,
)
from chemground.errors import StructureError
from chemground.kb.workers import pool, pool_started, worker_count

PARALLEL_THRESHOLD = 400  # below this, starting worker processes costs more than it saves
MIN_POOL_JOB = 50  # once they run, feeding them this few costs more than it saves


@dataclass(frozen=True)
class ComputedStructure:
    """A structure with its fingerprint, or the reason it could not be computed.

    With ``kind="canonical"`` only ``canonical`` is filled: importers ask no more for a
    molecule whose identity the KB already knows from the source's InChI.
    """

    text: str
    structure: Structure | None
    fingerprint: bytes | None
    error: str | None = None
    canonical: str | None = None


def compute_one(
    text: str,
    kind: str = "smiles",
    known_inchikey: str | None = None,
    stored: StoredStructures | None = None,
) -> ComputedStructure:
    """``kind`` is "smiles", "inchi" or "canonical" (SMILES in, canonical SMILES only out).

    With ``stored``, a molecule whose canonical SMILES the KB already holds takes its
    identifiers from there: the InChI generation that dominates the cost is skipped (and no
    fingerprint is made, since no compound will be created for it).
    """
    try:
        mol = mol_from_inchi(text) if kind == "inchi" else mol_from_smiles(text)
        smiles = canonical_smiles(mol)
        if ":" in smiles:  # atom-mapped input
            mol = strip_atom_maps(mol)
            smiles = canonical_smiles(mol)
        if kind == "canonical":
            return ComputedStructure(text, None, None, canonical=smiles)
        found = stored.get(smiles) if stored is not None and known_inchikey is None else None
        if found is not None:
            return ComputedStructure(text, found, None, canonical=smiles)
        structure = structure_from_mol(mol, known_inchikey, smiles=smiles)
        fingerprint = fingerprint_to_bytes(morgan_fingerprint(mol))
        return ComputedStructure(text, structure, fingerprint, canonical=structure.smiles)
    except StructureError as error:
        return ComputedStructure(text, None, None, str(error))
    except Exception as error:  # RDKit raises bare RuntimeErrors on odd inputs
        return ComputedStructure(text, None, None, f"RDKit failed on {text!r}: {error}")


def _compute_chunk(
    args: tuple[list[str], str, dict[str, str], str | None],
) -> list[ComputedStructure]:
    texts, kind, keys, kb_path = args
    with StoredStructures(kb_path) as stored:
        return [compute_one(t, kind, keys.get(t), stored) for t in texts]


class StoredStructures:
    """Read-only look-ups of the identifiers a KB stores for a canonical SMILES.

    Opened on first use and closed after each chunk of work, so that no worker keeps the KB
    open between jobs: an open connection would block a change of journal mode and keep the
    write-ahead log file alive.
    """

    def __init__(self, kb_path: str | Path | None) -> None:
        self._path = str(kb_path) if kb_path else None
        self._conn = None  # a sqlite3 connection, or a psycopg one for a PostgreSQL KB

    def get(self, smiles: str) -> Structure | None:
        if self._path is None:
            return None
        if self._path.startswith(("postgresql:", "postgres:")):  # a KB on a server (pg_store)
            return self._get_postgres(smiles)
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(
                    f"file:{self._path}?mode=ro", uri=True, isolation_level=None
                )
            row = self._conn.execute(
                "SELECT inchikey, formula, molecular_weight, exact_mass, parent_inchikey FROM "
                "compounds "
                "WHERE smiles = ? AND inchikey IS NOT NULL LIMIT 1",
                (smiles,),
            ).fetchone()
        except sqlite3.Error:  # no KB to ask (yet): compute, as without one
            self._path = None
            return None
        return self._structure(smiles, row)

    def _get_postgres(self, smiles: str) -> Structure | None:
        import psycopg

        try:
            if self._conn is None:
                self._conn = psycopg.connect(self._path, autocommit=True)
            row = self._conn.execute(
                "SELECT inchikey, formula, molecular_weight, exact_mass, parent_inchikey FROM "
                "compounds "
                "WHERE smiles = %s AND inchikey IS NOT NULL ORDER BY id LIMIT 1",
                (smiles,),
            ).fetchone()
        except psycopg.Error:  # the server is not reachable from here: compute, as without a KB
            self._path = None
            return None
        return self._structure(smiles, row)

    @staticmethod
    def _structure(smiles: str, row) -> Structure | None:
        if row is None or None in row:
            return None
        inchikey, formula, molecular_weight, exact_mass, parent_inchikey = row
        return Structure(smiles, inchikey, formula, molecular_weight, exact_mass, parent_inchikey)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> StoredStructures:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _chunks(
    unique: Sequence[str],
    kind: str,
    keys: dict[str, str],
    kb_path: str | None,
    workers: int,
    chunk_size: int,
) -> list[tuple[list[str], str, dict[str, str], str | None]]:
    chunk_size = max(
        100, min(chunk_size, -(-len(unique) // (2 * workers)))
    )  # every worker gets work
    chunks = []
    for i in range(0, len(unique), chunk_size):
        part = list(unique[i : i + chunk_size])
        chunks.append((part, kind, {t: keys[t] for t in part if t in keys}, kb_path))
    return chunks


def compute_many(
    texts: Iterable[str],
    kind: str = "smiles",
    progress: Callable[[int], None] | None = None,
    chunk_size: int = 1000,
    known_inchikeys: dict[str, str] | None = None,
) -> dict[str, ComputedStructure]:
    """Structures for many distinct strings; in parallel when there are enough of them.

    ``known_inchikeys`` maps a string to an InChIKey a trusted source already computed
    (the dictionary's), which saves the InChI generation that dominates the cost.
    """
    return submit_many(texts, kind, known_inchikeys, chunk_size).result(progress)


class StructureJob:
    """Structures being computed in the worker pool while the caller does other work.

    Importers submit one job per batch of rows as they read, so that reading, computing and
    writing overlap; a job too small to be worth the pool is computed here, on ``result()``.
    """

    def __init__(
        self,
        futures: list[Future],
        deferred: list[str],
        kind: str,
        keys: dict[str, str],
        kb_path: str | None,
        size: int,
        done: dict[str, ComputedStructure] | None = None,
        remember: bool = False,
    ) -> None:
        self._futures = futures
        self._deferred = deferred
        self._kind = kind
        self._keys = keys
        self._kb_path = kb_path
        self._done = done or {}  # computed earlier in this process
        self._remember = remember
        self.size = size  # distinct strings in the job

    def result(self, progress: Callable[[int], None] | None = None) -> dict[str, ComputedStructure]:
        out: dict[str, ComputedStructure] = dict(self._done)
        if progress and self._done:
            progress(len(self._done))
        for future in self._futures:
            results = future.result()
            if self._remember:
                _remember(results, self._kind, self._keys)
            for result in results:
                out[result.text] = result
            if progress:
                progress(len(results))
        with StoredStructures(self._kb_path) as stored:
            computed = [
                compute_one(text, self._kind, self._keys.get(text), stored)
                for text in self._deferred
            ]
        if self._remember:
            _remember(computed, self._kind, self._keys)
        out.update((result.text, result) for result in computed)
        if progress and computed:
            progress(len(computed))
        return out

    def cancel(self) -> None:
        for future in self._futures:
            future.cancel()


def submit_many(
    texts: Iterable[str],
    kind: str = "smiles",
    known_inchikeys: dict[str, str] | None = None,
    chunk_size: int = 500,
    kb_path: str | Path | None = None,
    remember: bool = False,
) -> StructureJob:
    """Start computing structures for ``texts`` (see :class:`StructureJob`); returns at once.

    ``kb_path``: a KB file whose stored identifiers may be reused (see :func:`compute_one`).
    ``remember``: keep the results for later jobs of this process (the files of one import
    share their solvents and reagents).
    """
    keys = known_inchikeys or {}
    path = str(kb_path) if kb_path else None
    unique: Sequence[str] = list(dict.fromkeys(t for t in texts if t))
    done = (
        {t: hit for t in unique if (hit := _MEMO.get((t, kind, keys.get(t)))) is not None}
        if remember
        else {}
    )
    todo = [t for t in unique if t not in done] if done else unique
    workers = worker_count()
    if workers == 1 or len(todo) < (MIN_POOL_JOB if pool_started() else PARALLEL_THRESHOLD):
        return StructureJob([], list(todo), kind, keys, path, len(unique), done, remember)
    futures = [
        pool().submit(_compute_chunk, chunk)
        for chunk in _chunks(todo, kind, keys, path, workers, chunk_size)
    ]
    return StructureJob(futures, [], kind, keys, path, len(unique), done, remember)


# Results that depend only on the string (not on a KB's contents), kept for later jobs.
_MEMO: dict[tuple[str, str, str | None], ComputedStructure] = {}
_MEMO_LIMIT = 100_000


def _remember(results: Iterable[ComputedStructure], kind: str, keys: dict[str, str]) -> None:
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    for result in results:
        if result.structure is None or result.fingerprint is not None:  # not taken from a KB
            _MEMO[(result.text, kind, keys.get(result.text))] = result
