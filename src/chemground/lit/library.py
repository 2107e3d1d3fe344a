"""The literature side of a workspace: its store, index folder, embedder and retriever.

One object so the CLI, the API and the benchmarks open the same index the same way: the
index lives under the settings' cache dir (keyed by the KB path), vectors of sentence
windows are cached in ``embeddings.sqlite`` there (a corpus is embedded once), and the
index is rebuilt automatically when the KB's papers changed since it was built.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from chemground.errors import ConfigError
from chemground.lit.index import IndexStats, LitIndex, Progress, default_index_dir, open_index
from chemground.lit.retriever import LitRetriever
from chemground.lit.store import LitStore
from chemground.workspace import Workspace

if TYPE_CHECKING:  # the readers and cleaning rules: imported by add() only, search needs none
    from chemground.lit.ingest import AddSummary

_DEFAULT_MAX_FILE_MB = object()  # lit.ingest.DEFAULT_MAX_FILE_MB, read when add() runs


def dense_available() -> tuple[bool, str]:
    """Whether the offline MiniLM model can be loaded, and why not.

    Only *finds* the packages: importing sentence-transformers (and with it torch, transformers
    and scikit-learn) costs 5-8 s, which every ``lit search`` from a fresh process paid before
    encoding one question on ONNX Runtime, which needs none of them. The model loads lazily,
    once, on the first text it encodes.

    Returns:
        (available, the reason when not).
    """
    from importlib.util import find_spec

    if find_spec("onnxruntime") is None and find_spec("sentence_transformers") is None:
        return False, (
            "dense retrieval needs sentence-transformers (or onnxruntime with an exported model): "
            "pip install 'chemground[dense]'"
        )
    try:
        from chemground.retrieval.embeddings import model_path

        model_path()
    except (ImportError, ConfigError) as error:
        return False, str(error)
    return True, ""


class Library:
    """Papers of one workspace's KB, with search."""

    def __init__(self, workspace: Workspace, dense: bool = True) -> None:
        self.workspace = workspace
        self.settings = workspace.settings
        ok, why = dense_available() if dense else (False, "disabled")
        self.dense = ok
        self.dense_note = "" if ok or not dense else f"dense search unavailable: {why}"
        self.last_build: IndexStats | None = None

    @cached_property
    def store(self) -> LitStore:
        return LitStore(self.workspace.kb)

    @property
    def index_dir(self) -> Path:
        return default_index_dir(self.settings.cache_dir, self.settings.kb.path)

    @cached_property
    def embedder(self):
        if not self.dense:
            return None
        from chemground.retrieval.embeddings import Embedder

        return Embedder(self.settings.cache_dir / "embeddings.sqlite")

    def add(
        self,
        paths,
        *,
        chunk_size: int,
        overlap: int,
        find_mentions: bool = True,
        fmt: str | None = None,
        progress: Progress | None = None,
        encoding: str | None = None,
        max_file_mb: float | None = _DEFAULT_MAX_FILE_MB,  # type: ignore[assignment]
    ) -> AddSummary:
        from chemground.lit.ingest import DEFAULT_MAX_FILE_MB, Ingestor

        if max_file_mb is _DEFAULT_MAX_FILE_MB:
            max_file_mb = DEFAULT_MAX_FILE_MB
        ingestor = Ingestor(
            self.workspace.kb,
            chunk_size=chunk_size,
            overlap=overlap,
            find_mentions=find_mentions,
            fmt=fmt,
            encoding=encoding,
            max_file_mb=max_file_mb,
        )
        return ingestor.add(paths, progress=progress)

    def index(self, progress: Progress | None = None, rebuild: bool = False) -> LitIndex:
        index, stats = open_index(
            self.store,
            self.index_dir,
            dense=self.dense,
            embedder=self.embedder,
            progress=progress,
            rebuild=rebuild,
        )
        if stats is not None:
            self.last_build = stats
        return index

    def retriever(
        self,
        progress: Progress | None = None,
        *,
        reranker=None,
        rerank_depth: int | None = None,
        expand: bool = False,
    ) -> LitRetriever:
        """A retriever over the (current) index.

        Args:
            progress: reports an index (re)build, if one is needed.
            reranker: a :class:`chemground.retrieval.rerank.Reranker` for the second stage.
            rerank_depth: how many fused candidates it re-scores (default 20).
            expand: add the synonyms of the compounds a question names to its lexical query.

        Returns:
            The retriever; the query encoder loads on the first dense search, once.
        """
        from chemground.retrieval.embeddings import Embedder
        from chemground.retrieval.rerank import DEFAULT_DEPTH

        index = self.index(progress)
        query_embedder = Embedder(None) if index.has_dense and self.dense else None
        return LitRetriever(
            self.workspace.kb,
            index,
            embedder=query_embedder,
            resolver=self.workspace.resolver,
            reranker=reranker,
            rerank_depth=rerank_depth or DEFAULT_DEPTH,
            expand=expand,
        )
