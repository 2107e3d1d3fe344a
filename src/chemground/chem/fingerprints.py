"""Morgan fingerprints and Tanimoto similarity (RDKit).

Fingerprints are stored as RDKit's binary bit-vector format so a KB can keep them on disk
and load them straight into RDKit's bulk similarity routines.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem, DataStructs

from chemground.chem.structure import mol_from_smiles

MORGAN_RADIUS = 2
MORGAN_BITS = 2048


@lru_cache(maxsize=4)
def _generator(radius: int, n_bits: int):
    from rdkit.Chem import (
        rdFingerprintGenerator,  # imports numpy (~50 ms): only when a fingerprint is made
    )

    return rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)


def morgan_fingerprint(
    mol_or_smiles: Chem.Mol | str, radius: int = MORGAN_RADIUS, n_bits: int = MORGAN_BITS
) -> DataStructs.ExplicitBitVect:
    mol = mol_from_smiles(mol_or_smiles) if isinstance(mol_or_smiles, str) else mol_or_smiles
    return _generator(radius, n_bits).GetFingerprint(mol)


def fingerprint_to_bytes(fp: DataStructs.ExplicitBitVect) -> bytes:
    return fp.ToBinary()


def tanimoto(
    a: Chem.Mol | str | DataStructs.ExplicitBitVect, b: Chem.Mol | str | DataStructs.ExplicitBitVect
) -> float:
    """Tanimoto similarity of two structures (Morgan r=2, 2048 bits)."""
    fa = a if isinstance(a, DataStructs.ExplicitBitVect) else morgan_fingerprint(a)
    fb = b if isinstance(b, DataStructs.ExplicitBitVect) else morgan_fingerprint(b)
    return DataStructs.TanimotoSimilarity(fa, fb)


def bulk_tanimoto(
    query: DataStructs.ExplicitBitVect, fingerprints: Sequence[DataStructs.ExplicitBitVect]
) -> list[float]:
    """Tanimoto similarity of ``query`` to each of ``fingerprints``, in their order."""
    return list(DataStructs.BulkTanimotoSimilarity(query, list(fingerprints)))
