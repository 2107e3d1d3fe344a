"""BM25 over short texts (bm25s), with a saved vocabulary so indexes can live on disk.

Used by every text channel: serialised KB records (the text-RAG baseline), literature
chunks and tool manifests. Tokens are lower-cased words of two or more characters with
English stop words removed, as bm25s does by default.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG

_SPLIT = re.compile(r"(?u)\b\w\w+\b")  # the bm25s tokenizer's own splitter
_IMPORT_LOCK = threading.Lock()


def bm25s_module(*, indexing: bool = False):
    """The ``bm25s`` module; imported without scipy when the process only searches.

    bm25s imports ``scipy.sparse`` up front, but needs it only to build an index (its CSC
    matrix); searching a built index is numpy. scipy.sparse costs ~140 ms of CPU at start-up
    (its array-API layer imports half of numpy's submodules), as much as numpy itself, so a
    search (``lit search``, ``tools search``) imports bm25s with scipy.sparse blocked, and the
    first index build in such a process hands bm25s scipy.sparse then. Its progress bars are
    never shown here, so it is imported without tqdm as well (``DISABLE_TQDM``, ~20 ms).

    Args:
        indexing: the caller builds an index (scipy.sparse is imported and given to bm25s).
    """
    with _IMPORT_LOCK:
        module = sys.modules.get("bm25s")
        if module is None:
            block = not indexing and "scipy.sparse" not in sys.modules
            if block:  # `import scipy.sparse` fails, and bm25s goes on without it
                sys.modules["scipy.sparse"] = None
            tqdm_setting = os.environ.get("DISABLE_TQDM")
            os.environ["DISABLE_TQDM"] = "1"  # no tqdm import: every call here shows no progress
            try:
                import bm25s as module
            finally:
                if block and sys.modules.get("scipy.sparse", False) is None:
                    del sys.modules["scipy.sparse"]
                if tqdm_setting is None:
                    del os.environ["DISABLE_TQDM"]
                else:
                    os.environ["DISABLE_TQDM"] = tqdm_setting
        if indexing and not module.SCIPY_AVAILABLE:
            import scipy.sparse

            module.sp = scipy.sparse
            module.SCIPY_AVAILABLE = True
        return module


def _tokenizer(**options):
    bm25s_module()
    from bm25s.tokenization import Tokenizer

    return Tokenizer(**options)


class BM25Index:
    """A BM25 index over ``texts`` whose hits are reported by ``ids``."""

    def __init__(
        self, texts: Sequence[str], ids: Sequence[str], *, stopwords: str | list[str] = "en"
    ) -> None:
        if len(texts) != len(ids):
            raise ValueError(f"{len(texts)} texts but {len(ids)} ids")
        self.ids = list(ids)
        bm25s = bm25s_module(indexing=True)
        self.tokenizer = _tokenizer(stopwords=stopwords, lower=True)
        self.model = bm25s.BM25()
        if self.ids:
            tokens = self.tokenizer.tokenize(list(texts), return_as="tuple", show_progress=False)
            self.model.index(tokens, show_progress=False)

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` best (id, score) pairs, best first; words never seen in the corpus are
        ignored."""
        if not self.ids or not query.strip():
            return []
        stop = set(self.tokenizer.stopwords or ())
        words = [w for w in _SPLIT.findall(query.lower()) if w not in stop]
        known = [w for w in words if w in self.model.vocab_dict]
        if not known:
            return []
        docs, scores = self.model.retrieve(
            [known], k=min(k, len(self.ids)), show_progress=False, n_threads=1
        )
        return [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save(str(folder / "bm25"))
        self.tokenizer.save_stopwords(str(folder / "bm25"))
        (folder / "ids.json").write_text(json.dumps(self.ids))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        index = cls.__new__(cls)
        index.ids = json.loads((folder / "ids.json").read_text())
        index.tokenizer = _tokenizer(lower=True)
        index.tokenizer.load_stopwords(str(folder / "bm25"))
        index.model = bm25s_module().BM25.load(str(folder / "bm25"))
        return index
