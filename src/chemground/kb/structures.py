"""Computing structures for many SMILES/InChI strings at once, on all cores.

Seeding the dictionary (~76k compounds) and importing patent reactions (~20k distinct
molecules) are dominated by RDKit parsing and InChIKey generation; this module fans that
work out over a process pool and returns plain, picklable results.
"""

from __future__ import annotations

import atexit
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from chemground.chem.fingerprints import fingerprint_to_bytes, morgan_fingerprint
from chemground.chem.structure import Structure, mol_from_inchi, mol_from_smiles, structure_from_mol
from chemground.errors import StructureError

PARALLEL_THRESHOLD = 400  # below this, starting/feeding worker processes costs more than it saves


@dataclass(frozen=True)
class ComputedStructure:
    """A structure with its fingerprint, or the reason it could not be computed."""

    text: str
    structure: Structure | None
    fingerprint: bytes | None
    error: str | None = None


def compute_one(text: str, kind: str = "smiles", known_inchikey: str | None = None) -> ComputedStructure:
    try:
        mol = mol_from_inchi(text) if kind == "inchi" else mol_from_smiles(text)
        structure = structure_from_mol(mol, known_inchikey)
        fingerprint = fingerprint_to_bytes(morgan_fingerprint(mol))
        return ComputedStructure(text, structure, fingerprint)
    except StructureError as error:
        return ComputedStructure(text, None, None, str(error))
    except Exception as error:  # noqa: BLE001 - RDKit raises bare RuntimeErrors on odd inputs
        return ComputedStructure(text, None, None, f"RDKit failed on {text!r}: {error}")


def _compute_chunk(args: tuple[list[str], str, dict[str, str]]) -> list[ComputedStructure]:
    texts, kind, keys = args
    return [compute_one(t, kind, keys.get(t)) for t in texts]


def worker_count() -> int:
    env = os.environ.get("CHEMGROUND_WORKERS")
    if env:
        return max(1, int(env))
    return max(1, min(os.cpu_count() or 1, 8))


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
    keys = known_inchikeys or {}
    unique: Sequence[str] = list(dict.fromkeys(t for t in texts if t))
    out: dict[str, ComputedStructure] = {}
    workers = worker_count()
    if len(unique) < PARALLEL_THRESHOLD or workers == 1:
        for text in unique:
            out[text] = compute_one(text, kind, keys.get(text))
            if progress:
                progress(1)
        return out
    chunk_size = max(100, min(chunk_size, -(-len(unique) // (2 * workers))))  # every worker gets work
    chunks = []
    for i in range(0, len(unique), chunk_size):
        part = list(unique[i:i + chunk_size])
        chunks.append((part, kind, {t: keys[t] for t in part if t in keys}))
    for results in _pool(workers).map(_compute_chunk, chunks):
        for result in results:
            out[result.text] = result
        if progress:
            progress(len(results))
    return out


_POOL: ProcessPoolExecutor | None = None


def _pool(workers: int) -> ProcessPoolExecutor:
    """One worker pool per process, reused across files (starting workers costs ~0.2 s)."""
    global _POOL
    if _POOL is None:
        _POOL = ProcessPoolExecutor(max_workers=workers)
        atexit.register(_POOL.shutdown, wait=False, cancel_futures=True)
    return _POOL
