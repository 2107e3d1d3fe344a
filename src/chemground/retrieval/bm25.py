"""BM25 over short texts (bm25s), with a saved vocabulary so indexes can live on disk.

Used by every text channel: serialised KB records (the text-RAG baseline), literature
chunks and tool manifests. Tokens are lower-cased words of two or more characters with
English stop words removed, as bm25s does by default.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path

import bm25s
from bm25s.tokenization import Tokenizer

logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG

_SPLIT = re.compile(r"(?u)\b\w\w+\b")  # the bm25s tokenizer's own splitter


class BM25Index:
    """A BM25 index over ``texts`` whose hits are reported by ``ids``."""

    def __init__(
        self, texts: Sequence[str], ids: Sequence[str], *, stopwords: str | list[str] = "en"
    ) -> None:
        if len(texts) != len(ids):
            raise ValueError(f"{len(texts)} texts but {len(ids)} ids")
        self.ids = list(ids)
        self.tokenizer = Tokenizer(stopwords=stopwords, lower=True)
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
        index.tokenizer = Tokenizer(lower=True)
        index.tokenizer.load_stopwords(str(folder / "bm25"))
        index.model = bm25s.BM25.load(str(folder / "bm25"))
        return index
