"""The on-disk search index over the KB's chunks: three BM25 views and sentence-window vectors.

Why these views. Questions about a paper usually restate one or two of its sentences, in
other word forms, and neighbouring chunks of the same paper share most of its vocabulary.
So besides plain BM25 over whole chunks (exact word forms), the index keeps BM25 over
stemmed chunks ("accumulate" meets "accumulated") and over stemmed two-sentence windows,
scored per chunk by its best window (the sentence-level evidence that separates a chunk
from its neighbours; stored as a windows x terms score matrix, so the windows of the chunks
the chunk-level views found are re-scored instead of searching every window), and MiniLM
vectors of the same windows (a chunk scores by its best
window: MiniLM reads only 256 tokens, a 2,000-character chunk is longer, and one sentence
is diluted in a whole-chunk vector). Dense search first ranks chunks by the mean of their
window vectors, then re-scores the candidates (and BM25's) by their best window, so the
query cost stays that of one vector per chunk.

Files live in a folder of the cache dir keyed by the KB path; ``manifest.json`` records the
KB's literature generation, so a changed KB is detected and the index rebuilt. Window
vectors are stored as float16 (half the disk and memory; cosine ranks are unaffected at
the precision that matters here).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from chemground.errors import ChemgroundError, ConfigError, NotFoundError
from chemground.lit.errors import LitIndexError
from chemground.lit.sentences import WINDOW_SENTENCES, sentence_windows
from chemground.lit.store import LitStore
from chemground.progress import Progress
from chemground.retrieval.bm25 import BM25Index
from chemground.retrieval.vectors import VectorIndex

INDEX_VERSION = "2"
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG
_WORD = re.compile(r"\w+", re.UNICODE)
_STEMMER = None


def stem_text(text: str) -> str:
    """Lower-cased Snowball (English) stems joined by spaces: the text BM25 sees in the
    stemmed views (PyStemmer, the C implementation bm25s recommends)."""
    global _STEMMER
    if _STEMMER is None:
        try:
            import Stemmer
        except ImportError as error:  # pragma: no cover - dependency
            raise ConfigError("literature search needs PyStemmer: pip install PyStemmer") from error
        _STEMMER = Stemmer.Stemmer("english")
    return " ".join(_STEMMER.stemWords(_WORD.findall(text.lower())))


def default_index_dir(cache_dir: Path, kb_path: Path | str) -> Path:
    """Where the literature index of a KB is kept.

    Args:
        cache_dir: the cache folder.
        kb_path: the KB: a SQLite file or a PostgreSQL URL.

    Returns:
        ``<cache_dir>/lit-index/<hash of the KB's location key>``.
    """
    from chemground.kb.backends import location_key

    key = hashlib.sha1(location_key(kb_path).encode()).hexdigest()[:16]
    return cache_dir / "lit-index" / key


@dataclass
class IndexStats:
    chunks: int = 0
    windows: int = 0
    dense: bool = False
    seconds_bm25: float = 0.0
    seconds_dense: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class LitIndex:
    """Loaded index: chunk ids, BM25 views, window offsets and (optionally) vectors."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.manifest: dict = {}
        self.chunk_ids: list[str] = []
        self.position: dict[str, int] = {}
        self.bm25: BM25Index | None = None
        self.bm25_stem: BM25Index | None = None
        self.window_tokenizer = None  # bm25s tokenizer of the stemmed sentence windows
        self.window_bm25 = (
            None  # windows x vocabulary, BM25 term scores (CSR: a window's row is cheap)
        )
        self.window_owner = np.zeros(0, dtype=np.int32)  # window -> chunk position
        self.window_start = np.zeros(0, dtype=np.int32)  # first window of each chunk (n_chunks + 1)
        self.window_spans = np.zeros((0, 2), dtype=np.int32)  # offsets inside the chunk text
        self.window_vectors: np.ndarray | None = None  # float16, n_windows x 384
        self.chunk_vectors: np.ndarray | None = None  # float32 mean of windows, unit length
        # the one vector index (retrieval.vectors) over each: the chunks are scanned (faiss
        # float16 when installed), the windows only re-scored (candidates' rows, read as float32)
        self.chunk_search: VectorIndex | None = None
        self.window_search: VectorIndex | None = None

    # -- state -------------------------------------------------------------------------------
    @property
    def has_dense(self) -> bool:
        return self.window_vectors is not None and self.chunk_vectors is not None

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def window_scores(self, query: str, windows: np.ndarray) -> np.ndarray:
        """BM25 scores of ``windows`` (ids) for the stemmed ``query``, read from the windows'
        rows of the precomputed term-score matrix: re-scoring a few thousand candidate
        windows costs a millisecond, where searching all of them costs tens."""
        if self.window_bm25 is None or not len(windows):
            return np.zeros(len(windows), dtype=np.float32)
        tokens = self.window_tokenizer.tokenize(
            [stem_text(query)], update_vocab=False, return_as="ids", show_progress=False
        )[0]
        vocabulary = self.window_bm25.shape[1]
        known = sorted({t for t in tokens if 0 < t < vocabulary})
        if not known:
            return np.zeros(len(windows), dtype=np.float32)
        return self.window_bm25.row_sums(np.asarray(windows), known)

    def windows_of(self, position: int) -> range:
        return range(int(self.window_start[position]), int(self.window_start[position + 1]))

    def best_windows(
        self, chunks: np.ndarray, score_windows: Callable[[np.ndarray], np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each chunk's score as that of its best sentence window, and that window.

        Why: a chunk is longer than one statement, so both the window BM25 view and the dense
        view score a chunk by its best window (one sentence is diluted in a whole chunk); this
        is that rule, once, whatever scores the windows.

        Args:
            chunks: chunk positions (each has at least one window).
            score_windows: scores of window ids (one per id, in their order).

        Returns:
            (best score per chunk, id of its first best-scoring window), in ``chunks`` order.
        """
        starts = self.window_start[chunks].astype(np.int64)
        lengths = self.window_start[chunks + 1].astype(np.int64) - starts
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        # window ids of every chunk, in order: start of its chunk + rank inside the chunk
        group = np.repeat(np.arange(len(chunks)), lengths)
        window_ids = starts[group] + (np.arange(offsets[-1]) - offsets[group])
        scores = score_windows(window_ids)
        best = np.maximum.reduceat(scores, offsets[:-1])
        at_best = np.flatnonzero(scores == best[group])  # the first of them, as argmax picks
        _, first = np.unique(group[at_best], return_index=True)
        return best, window_ids[at_best[first]]

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        store: LitStore,
        folder: Path,
        *,
        dense: bool = True,
        embedder=None,
        progress: Progress | None = None,
    ) -> tuple[LitIndex, IndexStats]:
        """Index every chunk of ``store`` into ``folder`` (replaced atomically)."""
        stats = IndexStats()
        generation = store.generation()
        chunks = list(store.iter_chunks())
        titles = store.document_titles(c.document_id for c in chunks)
        ids = [c.id for c in chunks]
        stats.chunks = len(chunks)
        started = time.perf_counter()
        full_texts = []
        window_texts: list[str] = []
        owner: list[int] = []
        spans: list[tuple[int, int]] = []
        window_start = [0]
        for position, chunk in enumerate(chunks):
            title = (titles.get(chunk.document_id) or (None, ""))[0] or ""
            full_texts.append("\n".join(x for x in (title, chunk.section or "", chunk.text) if x))
            windows = sentence_windows(chunk.text, WINDOW_SENTENCES) or [(0, len(chunk.text))]
            for start, end in windows:
                window_texts.append(chunk.text[start:end])
                owner.append(position)
                spans.append((start, end))
            window_start.append(len(window_texts))
        stats.windows = len(window_texts)
        if progress:
            progress("bm25", 0, 3)
        bm25 = BM25Index(full_texts, ids)
        if progress:
            progress("bm25", 1, 3)
        bm25_stem = BM25Index([stem_text(t) for t in full_texts], ids)
        if progress:
            progress("bm25", 1, 3)
        bm25_windows = BM25Index(
            [stem_text(t) for t in window_texts], [str(i) for i in range(len(window_texts))]
        )
        window_matrix = _window_matrix(bm25_windows)
        if progress:
            progress("bm25", 1, 3)
        stats.seconds_bm25 = time.perf_counter() - started
        window_vectors = chunk_vectors = None
        if dense and window_texts:
            started = time.perf_counter()
            if embedder is None:
                raise ConfigError("dense indexing needs an Embedder")
            if progress:
                progress("dense", 0, len(window_texts))
            encoded = 0

            def advance(n: int) -> None:
                nonlocal encoded
                encoded += n
                if progress:
                    progress("dense", n, None)

            vectors = embedder.encode(window_texts, progress=advance)
            if progress and encoded < len(window_texts):
                progress("dense", len(window_texts) - encoded, None)  # the rest came from the cache
            window_vectors = vectors.astype(np.float16)
            owner_array = np.asarray(owner, dtype=np.int64)
            sums = np.zeros((len(chunks), vectors.shape[1]), dtype=np.float32)
            np.add.at(sums, owner_array, vectors)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            chunk_vectors = sums / np.where(norms == 0, 1, norms)
            stats.dense = True
            stats.seconds_dense = time.perf_counter() - started
        tmp = folder.with_name(folder.name + ".tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        for name, view in (("bm25", bm25), ("bm25_stem", bm25_stem)):
            view.save(tmp / name)
        (tmp / "bm25_windows").mkdir()
        bm25_windows.tokenizer.save_vocab(str(tmp / "bm25_windows"))
        bm25_windows.tokenizer.save_stopwords(str(tmp / "bm25_windows"))
        from scipy import sparse

        sparse.save_npz(tmp / "window_bm25.npz", window_matrix)
        np.save(tmp / "window_owner.npy", np.asarray(owner, dtype=np.int32))
        np.save(tmp / "window_start.npy", np.asarray(window_start, dtype=np.int32))
        np.save(tmp / "window_spans.npy", np.asarray(spans, dtype=np.int32).reshape(-1, 2))
        if window_vectors is not None:
            np.save(tmp / "window_vectors.npy", window_vectors)
            np.save(tmp / "chunk_vectors.npy", chunk_vectors)
        (tmp / "chunk_ids.json").write_text(json.dumps(ids))
        manifest = {
            "version": INDEX_VERSION,
            "generation": generation,
            "chunks": len(ids),
            "windows": len(window_texts),
            "window_sentences": WINDOW_SENTENCES,
            "dense": window_vectors is not None,
            "model": _model_name() if window_vectors is not None else None,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1))
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
        index = cls.load(folder)
        return index, stats

    # -- loading ------------------------------------------------------------------------------
    @classmethod
    def load(cls, folder: Path) -> LitIndex:
        manifest_path = folder / "manifest.json"
        if not manifest_path.is_file():
            raise LitIndexError(f"no literature index at {folder}")
        index = cls(folder)
        try:
            index.manifest = json.loads(manifest_path.read_text())
            if index.manifest.get("version") != INDEX_VERSION:
                raise LitIndexError(
                    f"literature index at {folder} has version {index.manifest.get('version')!r}"
                )
            index.chunk_ids = json.loads((folder / "chunk_ids.json").read_text())
            index.position = {cid: i for i, cid in enumerate(index.chunk_ids)}
            index.bm25 = BM25Index.load(folder / "bm25")
            index.bm25_stem = BM25Index.load(folder / "bm25_stem")
            from chemground.retrieval.bm25 import bm25s_module

            bm25s_module()  # without scipy when only searching
            from bm25s.tokenization import Tokenizer

            index.window_tokenizer = Tokenizer(lower=True)
            index.window_tokenizer.load_vocab(str(folder / "bm25_windows"))
            index.window_tokenizer.load_stopwords(str(folder / "bm25_windows"))
            index.window_bm25 = TermScores.load(folder / "window_bm25.npz")
            index.window_owner = np.load(folder / "window_owner.npy")
            index.window_start = np.load(folder / "window_start.npy")
            index.window_spans = np.load(folder / "window_spans.npy")
            if index.manifest.get("dense"):
                index.window_vectors = np.load(folder / "window_vectors.npy", mmap_mode="r")
                index.chunk_vectors = np.load(folder / "chunk_vectors.npy")
                index.chunk_search = VectorIndex(index.chunk_vectors, fp16=True)
                index.window_search = VectorIndex(index.window_vectors)
        except (OSError, ValueError, KeyError) as error:
            raise LitIndexError(
                f"the literature index at {folder} is damaged ({error}); rebuild it with "
                "`chemground lit index --rebuild`"
            ) from error
        return index


def open_index(
    store: LitStore,
    folder: Path,
    *,
    dense: bool = True,
    embedder=None,
    progress: Progress | None = None,
    rebuild: bool = False,
) -> tuple[LitIndex, IndexStats | None]:
    """The index for ``store``: loaded when it is current, (re)built when it is missing, stale,
    or lacks vectors that are now wanted.

    Args:
        store: the papers and chunks to index.
        folder: where the index lives on disk.
        dense: whether chunk vectors are wanted.
        embedder: encodes the chunks when vectors must be built.
        progress: reports a (re)build.
        rebuild: build even when the index on disk is current.

    Returns:
        The index, and the build's statistics (None when it was loaded).

    Raises:
        NotFoundError: the library holds no chunks, so there is nothing to index.
        ChemgroundError: vectors are wanted and no embedder was given.
    """
    if not rebuild:
        try:
            index = LitIndex.load(folder)
        except LitIndexError:
            index = None
        if (
            index is not None
            and index.manifest.get("generation") == store.generation()
            and (index.has_dense or not dense)
        ):
            return index, None
    if not store.counts()[1]:
        # bm25s cannot index (or save) an empty corpus; a search of nothing is the user's cue
        raise NotFoundError(
            "the literature library holds no papers: add some with `chemground lit add FILES...`"
        )
    if dense and embedder is None:
        raise ChemgroundError("an Embedder is needed to build dense vectors")
    return LitIndex.build(store, folder, dense=dense, embedder=embedder, progress=progress)


class TermScores:
    """The windows x vocabulary BM25 term scores, as the CSR arrays scipy saved them: reading
    a search's few rows needs numpy only (scipy.sparse costs ~140 ms of start-up)."""

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape) -> None:
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = (int(shape[0]), int(shape[1]))

    @classmethod
    def load(cls, path: Path) -> TermScores:
        """The matrix in a ``scipy.sparse.save_npz`` file (CSR; another layout through scipy)."""
        with np.load(path, allow_pickle=False) as npz:
            layout = npz["format"].item()
            layout = layout.decode() if isinstance(layout, bytes) else str(layout)
            if layout == "csr":
                return cls(npz["data"], npz["indices"], npz["indptr"], npz["shape"])
        from scipy import sparse

        matrix = sparse.load_npz(path).tocsr()
        return cls(matrix.data, matrix.indices, matrix.indptr, matrix.shape)

    def row_sums(self, rows: np.ndarray, columns: list[int]) -> np.ndarray:
        """For each of ``rows``, the sum of its entries in ``columns`` (sorted, distinct), as
        float32: bit for bit what scipy gives for ``matrix[rows][:, columns].sum(axis=1)`` (the
        entries kept in each row's stored order, summed by ``np.add.reduceat`` over the rows
        that have any)."""
        rows = rows.astype(np.int64, copy=False)
        out = np.zeros(len(rows), dtype=self.data.dtype)
        starts = self.indptr[rows].astype(np.int64)
        lengths = self.indptr[rows + 1].astype(np.int64) - starts
        total = int(lengths.sum())
        if not total:
            return out.astype(np.float32, copy=False)
        row_of = np.repeat(np.arange(len(rows)), lengths)
        offsets = np.cumsum(lengths) - lengths
        positions = starts[row_of] + (np.arange(total) - offsets[row_of])
        keep = np.isin(self.indices[positions], np.asarray(columns, dtype=self.indices.dtype))
        values = self.data[positions[keep]]
        counts = np.bincount(row_of[keep], minlength=len(rows))
        filled = np.flatnonzero(counts)
        if len(filled):
            bounds = (np.cumsum(counts) - counts)[filled]
            out[filled] = np.add.reduceat(values, bounds)
        return out.astype(np.float32, copy=False)


def _window_matrix(index: BM25Index):
    """The window index's BM25 term scores as a windows x vocabulary CSR matrix (bm25s keeps
    them by term, CSC; re-scoring candidates needs them by window)."""
    from scipy import sparse

    scores = index.model.scores
    vocabulary = len(scores["indptr"]) - 1
    matrix = sparse.csc_matrix(
        (scores["data"], scores["indices"], scores["indptr"]),
        shape=(scores["num_docs"], vocabulary),
    )
    return matrix.tocsr()


def _model_name() -> str:
    from chemground.retrieval.embeddings import MODEL_NAME

    return MODEL_NAME
