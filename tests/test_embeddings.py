"""MiniLM embeddings: ONNX Runtime gives the same vectors as sentence-transformers, and falls back
cleanly."""

from __future__ import annotations

import logging

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="dense retrieval is the 'dense' extra")

from chemground.errors import ConfigError
from chemground.retrieval import embeddings, onnx_encoder
from chemground.settings import get_settings

TEXTS = [
    "benzaldehyde",
    "What forms when benzaldehyde reacts with benzohydrazide?",
    "Palladium-catalysed Suzuki coupling of aryl bromides in aqueous dioxane at 90 °C. "
    * 20,  # > 256 tokens
    "CC(=O)Nc1ccc(O)cc1",
]


def _torch_vectors(texts):
    return embeddings.load_model().encode(
        texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )


def test_onnx_vectors_equal_pytorch_vectors(tmp_path):
    pytest.importorskip("onnxruntime", reason="ONNX Runtime is part of the dense extra")
    target = onnx_encoder.onnx_path_for(embeddings.model_path(), tmp_path)
    onnx_encoder.export_onnx(embeddings.model_path(), target)  # checks itself against PyTorch, too
    encoder = onnx_encoder.OnnxEncoder(target, embeddings.model_path())
    batch = encoder.encode(
        TEXTS * 3, batch_size=4
    )  # mixed lengths, several batches, sorted internally
    assert np.abs(batch - _torch_vectors(TEXTS * 3)).max() < 1e-5
    single = encoder.encode([TEXTS[1]])
    assert np.abs(single[0] - batch[1]).max() < 1e-5
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)

    # the first encoder kept its optimised graph; the next one loads it (faster start, issue 17)
    # and computes the very same vectors, one text or a batch
    import onnxruntime

    optimized = onnx_encoder.optimized_path_for(target, onnxruntime.__version__)
    assert optimized.is_file() and optimized.with_name("model.onnx.data").is_file()
    again = onnx_encoder.OnnxEncoder(target, embeddings.model_path())
    assert again._optimized == optimized
    assert np.array_equal(again.encode(TEXTS * 3, batch_size=4), batch)
    assert np.array_equal(again.encode([TEXTS[1]]), single)
    # a damaged optimised graph is passed over for the export
    optimized.write_bytes(b"not a graph")
    fallback = onnx_encoder.OnnxEncoder(target, embeddings.model_path())
    assert fallback._optimized is None
    assert np.array_equal(fallback.encode([TEXTS[1]]), single)


def test_backend_choice_and_fallback(monkeypatch, caplog):
    monkeypatch.setenv("CHEMGROUND_EMBED_BACKEND", "torch")
    get_settings.cache_clear()
    monkeypatch.setattr(
        onnx_encoder, "onnx_encoder", lambda *a: pytest.fail("ONNX used despite 'torch'")
    )
    vectors = embeddings.encode_texts(TEXTS[:2])
    assert np.abs(vectors - _torch_vectors(TEXTS[:2])).max() < 1e-5
    monkeypatch.undo()
    get_settings.cache_clear()

    # an export that fails (here: no onnxruntime) is reported once, and PyTorch answers
    monkeypatch.setattr(onnx_encoder, "_ENCODER", None)
    monkeypatch.setattr(onnx_encoder, "_ENCODER_FAILED", None)
    monkeypatch.setattr(onnx_encoder, "onnx_runtime_available", lambda: False)
    monkeypatch.setenv("CHEMGROUND_EMBED_BACKEND", "auto")
    get_settings.cache_clear()
    vectors = embeddings.encode_texts(TEXTS[:1])
    assert np.abs(vectors - _torch_vectors(TEXTS[:1])).max() < 1e-5
    assert onnx_encoder.onnx_failure() == "onnxruntime is not installed"
    monkeypatch.setenv("CHEMGROUND_EMBED_BACKEND", "onnx")
    get_settings.cache_clear()
    with pytest.raises(ConfigError, match="onnxruntime is not installed"):
        embeddings.encode_texts(TEXTS[:1])


def test_a_damaged_cached_onnx_file_is_exported_again(tmp_path, monkeypatch, caplog):
    pytest.importorskip("onnxruntime", reason="ONNX Runtime is part of the dense extra")
    target = onnx_encoder.onnx_path_for(embeddings.model_path(), tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not an onnx model")
    monkeypatch.setattr(onnx_encoder, "_ENCODER", None)
    monkeypatch.setattr(onnx_encoder, "_ENCODER_FAILED", None)
    with caplog.at_level(logging.WARNING):
        encoder = onnx_encoder.onnx_encoder(embeddings.model_path(), tmp_path)
    assert "unusable" in caplog.text and encoder is not None
    assert np.abs(encoder.encode(TEXTS[:1]) - _torch_vectors(TEXTS[:1])).max() < 1e-5


def test_progress_counts_the_cached_vectors_too(tmp_path, monkeypatch):
    """A first dense search over a half-cached KB sat at 0/76,993 while thousands of vectors
    were read from the cache: the bar advanced only for texts encoded now."""
    import numpy as np

    from chemground.retrieval import embeddings

    def fake(texts, batch_size=64):
        return np.ones((len(texts), embeddings.DIMENSION), dtype=np.float32)

    monkeypatch.setattr(embeddings, "encode_texts", fake)
    embedder = embeddings.Embedder(tmp_path / "vectors.sqlite")
    embedder.encode(["a", "b", "c"])
    steps: list[int] = []
    embedder.encode(["a", "b", "c", "d", "e"], progress=steps.append)
    assert steps == [3, 2]  # three from the cache, then the two encoded


def test_a_command_that_ends_first_waits_for_the_background_encoder_load(tmp_path):
    """`lit search` starts loading the encoder on a thread; a command that then ends at once
    (an empty library) must not exit while ONNX Runtime is still building its session, which
    aborted the process in C++ ("terminate called without an active exception", exit 134)."""
    import subprocess
    import sys

    done = tmp_path / "loaded"
    script = f"""
import time
from pathlib import Path
from chemground.retrieval import onnx_encoder

def slow_load(*args):
    time.sleep(1.0)
    Path({str(done)!r}).write_text("done")

onnx_encoder.onnx_encoder = slow_load
onnx_encoder.backend_wanted = lambda: "onnx"
onnx_encoder.load_in_background()
raise SystemExit(2)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert done.read_text() == "done"  # the load finished before the interpreter shut down
