"""The one hybrid text search: BM25 and dense rankings of the same texts, fused by rank.

BM25 meets the words a text shares with the question, the dense channel (MiniLM cosines)
meets a paraphrase, and reciprocal-rank fusion (:class:`~chemground.retrieval.fusion.Fusion`)
combines them without comparing their scores. KB records (``retrieval.text_records``) and tool
manifests (``agent.retriever``) search through this class; the literature
(``lit.retriever``) adds its own channels (stemmed and sentence-window views, the mention
channel, a two-stage dense search over sentence windows) and fuses all of them with the same
:class:`Fusion`. What differs between the three is input, not code: the texts and ids, where
the indexes are kept, the channel weights.

The indexes are made on first use (``bm25`` and ``vectors`` may be functions that load or
build them, usually with :func:`load_or_build`), so a BM25-only search never loads the MiniLM
model, and a dense one never builds BM25.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

from chemground.errors import ChemgroundError
from chemground.retrieval.fusion import Fusion

if TYPE_CHECKING:
    from pathlib import Path

if TYPE_CHECKING:  # importing them costs start-up time (numpy) that a caller may not need yet
    import numpy as np

    from chemground.retrieval.bm25 import BM25Index
    from chemground.retrieval.vectors import VectorIndex

METHODS = ("bm25", "dense", "hybrid")
T = TypeVar("T")


def load_or_build(folder: Path, load: Callable[[Path], T], build: Callable[[], T]) -> T:
    """The index saved in ``folder``, or one built by ``build()`` and saved there atomically.

    Why one function: the records' and the tools' indexes are both kept on disk (loading is
    much cheaper than building, which also imports scipy.sparse), and both must survive the
    same accidents: a half-written index is never loaded (each process writes a folder of its
    own and renames it), two server workers building at once keep one copy, a damaged index
    is built again, and a read-only cache keeps the index in memory.

    Args:
        folder: where the index lives; its name should change with what is indexed.
        load: reads an index from a folder (``BM25Index.load``, ``VectorIndex.load``).
        build: makes the index (anything with ``save(folder)``).

    Returns:
        The loaded or built index.
    """
    if (folder / "ids.json").is_file():
        try:
            return load(folder)
        except (OSError, ValueError, KeyError):
            shutil.rmtree(folder, ignore_errors=True)  # damaged: built again
    index = build()
    tmp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        index.save(tmp)
        try:
            tmp.rename(folder)  # atomic; fails when another worker got there first
        except OSError:
            if (folder / "ids.json").exists():  # the other worker's identical index: keep it
                shutil.rmtree(tmp, ignore_errors=True)
            else:  # a stale copy sits there
                shutil.rmtree(folder, ignore_errors=True)
                tmp.rename(folder)
    except OSError:  # a read-only cache: keep the index in memory
        shutil.rmtree(tmp, ignore_errors=True)
    return index


class _Lazy(Generic[T]):
    """A value made by ``make`` on first use, once, even with several threads asking."""

    def __init__(self, value: T | Callable[[], T]) -> None:
        self._make = value if callable(value) else None  # an index is not callable
        self._value = None if self._make is not None else value
        self._lock = threading.Lock()

    def get(self) -> T:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._make()
        return self._value


class HybridSearch:
    """BM25, dense and fused (hybrid) search over one set of texts, reported by id.

    Args:
        bm25: the texts' BM25 index, or a function that loads or builds it.
        vectors: the texts' vector index (with the same ids), or a function that makes it.
        encode: texts -> unit vectors (the encoder the vectors were made with), for questions.
        fusion: channel weights for hybrid (channels ``bm25`` and ``dense``; default equal).
    """

    def __init__(
        self,
        bm25: BM25Index | Callable[[], BM25Index],
        vectors: VectorIndex | Callable[[], VectorIndex],
        encode: Callable[[Sequence[str]], np.ndarray] | None = None,
        fusion: Fusion | None = None,
    ) -> None:
        self._bm25 = _Lazy(bm25)
        self._vectors = _Lazy(vectors)
        self.encode = encode
        self.fusion = fusion or Fusion()

    @property
    def bm25(self) -> BM25Index:
        """The BM25 index (made on first use)."""
        return self._bm25.get()

    @property
    def vectors(self) -> VectorIndex:
        """The vector index (made on first use)."""
        return self._vectors.get()

    def vector(self, query: str) -> np.ndarray:
        """The question's unit vector.

        Raises:
            ChemgroundError: when this search has no encoder.
        """
        if self.encode is None:
            raise ChemgroundError("dense search needs an encoder")
        return self.encode([query])[0]

    def fused(
        self, query: str, vector: np.ndarray | None = None, depth: int = 30
    ) -> list[tuple[str, float]]:
        """Every id either channel ranks in its first ``depth``, by fused score, best first.

        Args:
            query: the question (BM25's query).
            vector: its vector (encoded here when not given).
            depth: how deep each channel's ranking goes into the fusion.

        Returns:
            (id, fused score) pairs; ties by id.
        """
        if vector is None:
            vector = self.vector(query)
        return self.fusion.fuse(
            [
                ("bm25", [i for i, _ in self.bm25.search(query, depth)]),
                ("dense", [i for i, _ in self.vectors.search(vector, depth)]),
            ]
        )

    def search(
        self,
        query: str,
        k: int = 5,
        method: str = "hybrid",
        vector: np.ndarray | None = None,
        depth: int = 30,
    ) -> list[tuple[str, float]]:
        """The ``k`` best ids by one method.

        Args:
            query: the question.
            k: how many.
            method: ``bm25`` (BM25 scores), ``dense`` (cosines) or ``hybrid`` (fused scores).
            vector: the question's vector, when the caller encoded it (in a batch).
            depth: how deep each channel's ranking goes into the fusion (hybrid).

        Returns:
            (id, score) pairs, best first.

        Raises:
            ChemgroundError: on an unknown method, or dense search without an encoder.
        """
        if method not in METHODS:
            raise ChemgroundError(
                f"unknown retrieval method {method!r}; use one of {', '.join(METHODS)}"
            )
        if method == "bm25":
            return self.bm25.search(query, k)
        if vector is None:
            vector = self.vector(query)
        if method == "dense":
            return self.vectors.search(vector, k)
        return self.fused(query, vector, max(depth, k))[:k]
