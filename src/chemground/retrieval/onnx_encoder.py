"""MiniLM on ONNX Runtime: the same vectors as sentence-transformers, about twice as fast on a CPU.

A literature question waits on its embedding (hybrid search cannot finish before it), and
on these CPUs PyTorch spends ~20 ms on one MiniLM forward pass where ONNX Runtime spends
~8 ms; corpus indexing gains the same factor. The ONNX file is exported once from the
packaged model (PyTorch's exporter, which needs the ``onnx`` package), checked against
PyTorch on sample texts (any difference above ``MAX_EXPORT_DIFFERENCE`` discards it), and
kept in the cache directory. Tokenisation uses the model's own ``tokenizer.json`` with the
model's settings (truncation at 256 word pieces), pooling is the model's mean pooling, and
vectors are L2-normalised, as in :func:`chemground.retrieval.embeddings.load_model`.

Start-up (issue 17): building a session from the exported file re-runs ONNX Runtime's graph
optimisations and copies 90 MB of weights out of one protobuf (~110 ms of a ~900 ms
``lit search``). So the first session also saves its optimised graph next to the export
(``<export>.opt-<ort version>/``: the graph, with its weights in a separate file that ONNX
Runtime memory-maps), and later sessions load that with no optimisation passes (~30 ms).
The saved graph holds the same fused operators the session computed with (level
``ORT_ENABLE_EXTENDED``, no hardware-specific layouts) and is checked once against the
session that wrote it: any difference in the vectors discards it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chemground.retrieval.embeddings import DIMENSION

log = logging.getLogger(__name__)

MAX_EXPORT_DIFFERENCE = 1e-4
_CHECK_TEXTS = [
    "Benzaldehyde reacts with benzohydrazide in ethanol to give the hydrazone.",
    "What is the molecular weight of CC(=O)Nc1ccc(O)cc1?",
    "The Suzuki coupling of 4-bromotoluene with phenylboronic acid used Pd(PPh3)4 and K2CO3 in "
    "toluene/water at 90 °C for 12 h. " * 12,  # longer than the 256-token limit: truncation
]
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def backend_wanted() -> str:
    """The embedding runtime asked for.

    Returns:
        ``auto`` (ONNX when available, else PyTorch), ``onnx`` or ``torch``: the
        ``embed_backend`` setting (env CHEMGROUND_EMBED_BACKEND).
    """
    from chemground.settings import get_settings

    return get_settings().embed_backend


def onnx_runtime_available() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def _model_fingerprint(model_dir: Path) -> str:
    digest = hashlib.sha256()
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        path = model_dir / name
        if path.is_file():
            stat = path.stat()
            digest.update(f"{name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:12]


def onnx_path_for(model_dir: Path, cache_dir: Path) -> Path:
    return cache_dir / "models" / f"all-MiniLM-L6-v2-{_model_fingerprint(model_dir)}.onnx"


def export_onnx(model_dir: Path, target: Path) -> Path:
    """Export the packaged MiniLM to ``target`` (atomically) and check it against PyTorch."""
    import torch

    from chemground.retrieval.embeddings import load_model

    model = load_model()
    transformer = model[0].auto_model.eval()

    class _LastHiddenState(torch.nn.Module):
        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    features = model.tokenizer(_CHECK_TEXTS[:2], return_tensors="pt", padding=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".{os.getpid()}.tmp")
    import warnings

    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer warnings about Python control flow in the model
        torch.onnx.export(
            _LastHiddenState(transformer),
            tuple(features[name] for name in _INPUTS),
            str(partial),
            input_names=list(_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes={
                name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")
            },
            opset_version=17,
            dynamo=False,
        )
    try:
        encoder = OnnxEncoder(partial, model_dir, optimized=False)
        reference = model.encode(
            _CHECK_TEXTS, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        difference = float(np.abs(encoder.encode(_CHECK_TEXTS) - reference).max())
        if difference > MAX_EXPORT_DIFFERENCE:
            raise RuntimeError(f"the ONNX export differs from PyTorch by {difference:.2g}")
        os.replace(partial, target)
        target.with_suffix(".json").write_text(json.dumps({"max_difference_to_torch": difference}))
    finally:
        partial.unlink(missing_ok=True)
    return target


def optimized_path_for(onnx_file: Path, ort_version: str) -> Path:
    """Where the optimised graph of ``onnx_file`` is kept: a folder per ONNX Runtime version
    (another version fuses differently) and per export (its size and time: an export made
    again gets a new graph)."""
    stat = onnx_file.stat()
    folder = f"{onnx_file.name}.opt-{ort_version}-{stat.st_size}-{stat.st_mtime_ns}"
    return onnx_file.with_name(folder) / "model.onnx"


class OnnxEncoder:
    """Sentence embeddings from an exported MiniLM; the same vectors as sentence-transformers."""

    def __init__(self, onnx_file: Path, model_dir: Path, *, optimized: bool = True) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "sentence_bert_config.json").read_text())
        self.max_tokens = int(config.get("max_seq_length", 256))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.no_padding()
        self._file = str(onnx_file)
        self._sessions: dict[int, object] = {}
        self._lock = threading.Lock()
        self._ort = onnxruntime
        self._optimized = (
            optimized_path_for(Path(onnx_file), onnxruntime.__version__) if optimized else None
        )
        self._save_optimized = False
        if self._optimized is not None and not self._optimized.is_file():
            self._save_optimized, self._optimized = True, None
        self._session(1)  # fail here, not on the first question, if the file is unusable

    def _options(self, threads: int):
        options = self._ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return options

    def _session(self, threads: int):
        """One session per thread count: one thread for a single question (more only contend
        with the BM25 search running beside it), all cores for a corpus batch."""
        with self._lock:
            if threads not in self._sessions:
                self._sessions[threads] = self._new_session(threads)
            return self._sessions[threads]

    def _new_session(self, threads: int):
        """A session on the saved optimised graph (no optimisation passes, weights
        memory-mapped) when there is one; else on the export, saving its optimised graph the
        first time."""
        ort = self._ort
        if self._optimized is not None:
            options = self._options(threads)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            try:
                return ort.InferenceSession(
                    str(self._optimized), options, providers=["CPUExecutionProvider"]
                )
            except Exception as error:  # a damaged or partial folder: use the export
                log.warning("the optimised ONNX graph %s is unusable (%s)", self._optimized, error)
                self._optimized = None
        session = ort.InferenceSession(
            self._file, self._options(threads), providers=["CPUExecutionProvider"]
        )
        if self._save_optimized:
            self._save_optimized = False
            try:
                self._write_optimized(session)
            except Exception as error:  # a read-only cache: every start optimises again
                log.info("could not keep the optimised ONNX graph (%s)", error)
        return session

    def _write_optimized(self, session) -> None:
        """Save the export's optimised graph and weights (atomically, as one folder), and keep
        them only if they give the vectors ``session`` gives."""
        ort = self._ort
        target = optimized_path_for(Path(self._file), ort.__version__)
        partial = target.parent.with_name(target.parent.name + f".{os.getpid()}.tmp")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            options = self._options(1)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
            options.optimized_model_filepath = str(partial / target.name)
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", target.name + ".data"
            )
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
            )
            ort.InferenceSession(self._file, options, providers=["CPUExecutionProvider"])
            options = self._options(1)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            saved = ort.InferenceSession(
                str(partial / target.name), options, providers=["CPUExecutionProvider"]
            )
            arrays = self._arrays(self.tokenizer.encode_batch(_CHECK_TEXTS), range(2))
            expected = session.run(None, arrays)[0]
            if not np.array_equal(saved.run(None, arrays)[0], expected):
                raise RuntimeError("the optimised graph computes other vectors")
            del saved
            try:
                partial.rename(target.parent)
            except OSError:  # another process kept its copy first
                return
            for stale in target.parent.parent.glob(Path(self._file).name + ".opt-*"):
                if stale != target.parent and not stale.name.endswith(".tmp"):
                    shutil.rmtree(stale, ignore_errors=True)  # an earlier export's or version's
        finally:
            shutil.rmtree(partial, ignore_errors=True)

    @staticmethod
    def _arrays(encodings, batch) -> dict[str, np.ndarray]:
        """The model's inputs for the ``batch`` rows of ``encodings``, zero-padded."""
        width = max(len(encodings[i].ids) for i in batch)
        arrays = {name: np.zeros((len(batch), width), dtype=np.int64) for name in _INPUTS}
        for row, i in enumerate(batch):
            e = encodings[i]
            n = len(e.ids)
            arrays["input_ids"][row, :n] = e.ids
            arrays["attention_mask"][row, :n] = e.attention_mask
            arrays["token_type_ids"][row, :n] = e.type_ids
        return arrays

    def encode(self, texts: Sequence[str], batch_size: int = 64, progress=None) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        session = self._session(1 if len(texts) <= 8 else max(1, os.cpu_count() or 1))
        encodings = self.tokenizer.encode_batch(texts)
        order = np.argsort(
            [len(e.ids) for e in encodings], kind="stable"
        )  # similar lengths pad less
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            arrays = self._arrays(encodings, batch)
            hidden = session.run(None, arrays)[0]
            mask = arrays["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.maximum(norms, 1e-12)
            if progress:
                progress(len(batch))
        return out


_ENCODER: OnnxEncoder | None = None
_ENCODER_FAILED: str | None = None
_ENCODER_LOCK = threading.Lock()


def onnx_encoder(model_dir: Path, cache_dir: Path) -> OnnxEncoder | None:
    """The process-wide ONNX encoder (exported on first use), or None when it cannot be had;
    the reason is logged once and PyTorch is used instead."""
    global _ENCODER, _ENCODER_FAILED
    with _ENCODER_LOCK:
        if _ENCODER is not None or _ENCODER_FAILED is not None:
            return _ENCODER
        if not onnx_runtime_available():
            _ENCODER_FAILED = "onnxruntime is not installed"
            return None
        target = onnx_path_for(model_dir, cache_dir)
        try:
            if target.is_file():
                try:
                    _ENCODER = OnnxEncoder(target, model_dir)
                except Exception as error:
                    log.warning(
                        "the cached ONNX model %s is unusable (%s); exporting it again",
                        target,
                        error,
                    )
                    target.unlink()
            if _ENCODER is None:
                log.info("exporting MiniLM to ONNX at %s (once)", target)
                export_onnx(model_dir, target)
                _ENCODER = OnnxEncoder(target, model_dir)
        except Exception as error:
            _ENCODER_FAILED = f"{type(error).__name__}: {error}"
            log.warning(
                "MiniLM on ONNX Runtime is unavailable (%s); using PyTorch", _ENCODER_FAILED
            )
        return _ENCODER


def load_in_background() -> threading.Thread | None:
    """Start loading the process-wide ONNX encoder on another thread, for a command that will
    encode a question after loading other things (``lit search`` loads ~0.5 s of modules and its
    index first): the encoder's start (ONNX Runtime, the tokenizer, the session) then overlaps
    them instead of following them. The same :func:`onnx_encoder` call the first encode makes,
    so nothing else changes; errors are left for that call to meet and report.

    Returns:
        The thread, or None when the settings ask for PyTorch.
    """

    def load() -> None:
        try:
            from chemground.retrieval.embeddings import model_path
            from chemground.settings import get_settings

            onnx_encoder(model_path(), get_settings().cache_dir)
        except Exception:  # the first encode meets and reports the same error
            log.debug("loading the ONNX encoder in the background failed", exc_info=True)

    if backend_wanted() == "torch":
        return None
    # A daemon that is joined at exit: a command that ends first (an empty library, a bad
    # option) must not leave it loading while the interpreter shuts down. Left running, it
    # failed and logged "MiniLM on ONNX Runtime is unavailable ...; using PyTorch" after the
    # command's own error, or, with a cold disk cache, ONNX Runtime was still building its
    # session when the process exited and C++ aborted it ("terminate called without an active
    # exception", exit 134). atexit runs before daemon threads are frozen, so the join is safe.
    thread = threading.Thread(target=load, name="chemground-onnx-load", daemon=True)
    thread.start()
    atexit.register(thread.join)
    return thread


def onnx_failure() -> str | None:
    """Why the ONNX encoder is not in use (None when it is, or was not tried)."""
    return _ENCODER_FAILED
