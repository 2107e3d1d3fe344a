"""Literature index at scale: indexing throughput and query latency for 100k chunks.

Synthetic corpus: chunks of about 1,500 characters assembled from real sentences of the
ChemLit-QA chunks (random order, fixed seed) when ../shared/data is present, otherwise
from a synthetic chemistry vocabulary. Measured:

- storing chunks in the KB (chunks/s), mention finding with the full dictionary (chunks/s,
  on a sample), BM25 index build over the three views (chunks/s);
- MiniLM encoding of sentence windows on this CPU (windows/s on a sample, and what that
  means in chunks/s); the 100k-chunk index itself is built with random unit vectors in
  place of the window embeddings (search cost does not depend on the values; embedding
  600k windows on a CPU takes hours), which the output says;
- query latency p50/p95 for bm25, dense and hybrid over real ChemLit-QA questions (or
  synthetic ones), the question encoded by the real MiniLM model.

    python benchmarks/lit_scale.py [--chunks 100000] [--queries 200] [--kb KB.sqlite]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lit_results import write_section

from chemground.chem.mentions import MemoryNameIndex, MentionFinder
from chemground.kb.sqlite_store import SQLiteKB
from chemground.lit.index import LitIndex
from chemground.lit.library import dense_available
from chemground.lit.records import Chunk, Document
from chemground.lit.retriever import LitRetriever
from chemground.lit.sentences import sentence_spans
from chemground.lit.store import LitStore, chunk_id_for, document_id_for
from chemground.settings import get_settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "chemlit_qa"
CHUNKS_PER_DOCUMENT = 100


class RandomUnitEmbedder:
    """Stand-in for MiniLM when building the 100k index: random unit vectors (search cost
    depends on the matrix size, not its values). Never used for quality numbers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def encode(self, texts, progress=None):
        out = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        if progress:
            progress(len(texts))
        return out


def sentence_pool() -> tuple[list[str], list[str], str]:
    """Sentences to build chunks from, questions to ask, and where they came from."""
    files = [
        DATA / "ChemLit-QA-neg" / "chemlit_qa_neg_dataset.csv",
        DATA / "ChemLit-QA-multi" / "chemlit_qa_multi_sampled.csv",
    ]
    if all(f.is_file() for f in files):
        from chemground.lit.evaluate import pool_chunks
        from chemground.lit.qac.schema import read_qac_csv

        records = [r for f in files for r in read_qac_csv(f)]
        sentences = [
            c[s:e] for c in pool_chunks(records) for s, e in sentence_spans(c) if e - s > 40
        ]
        return sentences, [r.question for r in records], "sentences of the ChemLit-QA chunks"
    rng = random.Random(1)
    words = [
        f"{stem}{suffix}"
        for stem in (
            "benz",
            "tolu",
            "pyrid",
            "carb",
            "sulf",
            "phosph",
            "nitr",
            "ox",
            "hydr",
            "chlor",
            "brom",
            "fluor",
            "meth",
            "eth",
            "prop",
            "but",
            "cycl",
            "arom",
        )
        for suffix in ("ene", "ane", "ol", "one", "ide", "ate", "ine", "yl", "ium", "ation", "ysis")
    ]
    words += [
        "catalyst",
        "yield",
        "reaction",
        "solvent",
        "temperature",
        "pressure",
        "mechanism",
        "rate",
        "selectivity",
        "spectra",
    ]
    sentences = [
        " ".join(rng.choice(words) for _ in range(rng.randint(12, 30))).capitalize() + "."
        for _ in range(20000)
    ]
    return sentences, [s[:90] + "?" for s in rng.sample(sentences, 300)], "a synthetic vocabulary"


def make_chunks(sentences: list[str], n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    chunks = []
    for _ in range(n):
        parts, size = [], 0
        while size < 1400:
            sentence = rng.choice(sentences)
            parts.append(sentence)
            size += len(sentence) + 1
        chunks.append(" ".join(parts)[:2000])
    return chunks


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--embed-sample", type=int, default=1000, help="windows encoded with MiniLM for throughput"
    )
    parser.add_argument(
        "--kb", type=Path, default=None, help="KB with the dictionary (mentions); default: settings"
    )
    args = parser.parse_args()
    settings = get_settings()
    base_kb = args.kb or settings.kb.path
    dense = dense_available()[0]
    sentences, questions, source = sentence_pool()
    texts = make_chunks(sentences, args.chunks)
    folder = Path(tempfile.mkdtemp(prefix="chemground-lit-scale-"))
    rows: list[tuple[str, str]] = []
    try:
        kb_path = folder / "kb.sqlite"
        if base_kb.exists():
            source_kb = SQLiteKB(base_kb, readonly=True)
            source_kb.connection.execute(f"VACUUM INTO '{kb_path}'")
            source_kb.close()
        kb = SQLiteKB(kb_path)
        store = LitStore(kb)

        started = time.perf_counter()
        for start in range(0, len(texts), CHUNKS_PER_DOCUMENT):
            part = texts[start : start + CHUNKS_PER_DOCUMENT]
            document_text = "\n\n".join(part)
            sha = hashlib.sha256(f"synthetic-{start}".encode()).hexdigest()
            document_id = document_id_for(sha)
            chunks, offset = [], 0
            for seq, text in enumerate(part):
                chunks.append(
                    Chunk(
                        chunk_id_for(document_id, seq),
                        document_id,
                        seq,
                        offset,
                        offset + len(text),
                        text,
                    )
                )
                offset += len(text) + 2
            store.insert(
                Document(document_id, sha, f"synthetic:{start}", "text", document_text), chunks
            )
        store_seconds = time.perf_counter() - started
        rows.append(
            (
                "store chunks in the KB",
                f"{len(texts) / store_seconds:,.0f} chunks/s ({store_seconds:.1f} s)",
            )
        )

        if base_kb.exists():
            finder = MentionFinder(kb=kb, names=MemoryNameIndex(kb), passages=True)
            sample = texts[:2000]
            started = time.perf_counter()
            found = sum(len(finder.find_compounds(t)) for t in sample)
            seconds = time.perf_counter() - started
            rows.append(
                (
                    "find compound mentions (full dictionary)",
                    f"{len(sample) / seconds:,.0f} chunks/s on {len(sample)} chunks ({found} "
                    "mentions)",
                )
            )

        window_sample = [t[s:e] for t in texts[:400] for s, e in sentence_spans(t)][
            : args.embed_sample
        ]
        windows_per_chunk = None
        started = time.perf_counter()
        index, stats = LitIndex.build(
            store, folder / "index", dense=True, embedder=RandomUnitEmbedder()
        )
        build_seconds = time.perf_counter() - started
        windows_per_chunk = stats.windows / max(stats.chunks, 1)
        rows.append(
            (
                "BM25 index, three views (plain, stemmed, stemmed sentence windows)",
                f"{stats.chunks / stats.seconds_bm25:,.0f} chunks/s ({stats.seconds_bm25:.1f} s, "
                f"{stats.windows:,} windows = {windows_per_chunk:.1f} per chunk)",
            )
        )
        rows.append(
            (
                "whole index build with random vectors (BM25 + vector files)",
                f"{build_seconds:.1f} s",
            )
        )
        if dense:
            from chemground.retrieval.embeddings import Embedder

            embedder = Embedder(None)
            embedder.encode(window_sample[:16])  # load the model
            started = time.perf_counter()
            embedder.encode(window_sample)
            seconds = time.perf_counter() - started
            per_window = len(window_sample) / seconds
            from chemground.retrieval import onnx_encoder

            backend = (
                "PyTorch"
                if onnx_encoder.onnx_failure() or onnx_encoder.backend_wanted() == "torch"
                else "ONNX Runtime"
            )
            rows.append(
                (
                    f"MiniLM encoding of sentence windows (CPU, {backend})",
                    f"{per_window:,.0f} windows/s = {per_window / windows_per_chunk:,.1f} chunks/s "
                    f"(so {args.chunks:,} chunks take "
                    f"~{args.chunks / (per_window / windows_per_chunk) / 3600:.1f} h once; "
                    "vectors are cached)",
                )
            )
            query_embedder = Embedder(None)
        else:
            query_embedder = None
            rows.append(("MiniLM encoding", "skipped: the model is not installed"))

        from chemground.chem.names import NameResolver

        retriever = LitRetriever(
            kb, index, embedder=query_embedder, resolver=NameResolver(kb, None)
        )
        rng = random.Random(2)
        asked = [rng.choice(questions) for _ in range(args.queries)]
        latency: dict[str, list[float]] = {}
        parts: dict[str, list[float]] = {}
        methods = ["bm25", "dense", "hybrid"] if query_embedder else ["bm25", "hybrid"]
        for question in asked[:5]:
            for method in methods:
                retriever.search(question, k=5, method=method)  # warm caches
        for question in asked:
            for method in methods:
                started = time.perf_counter()
                result = retriever.search(question, k=5, method=method)
                latency.setdefault(method, []).append((time.perf_counter() - started) * 1000)
                if method == "hybrid":
                    for key, value in result.timings_ms.items():
                        parts.setdefault(key, []).append(value)
        lines = [
            f"## Scale: {args.chunks:,} chunks",
            "",
            f"Chunks of ~1,500 characters assembled from {source} (seed 0). The machine: "
            f"{_machine()}.",
            "",
            "| what | measured |",
            "| --- | --- |",
        ]
        lines += [f"| {what} | {value} |" for what, value in rows]
        lines += [
            "",
            f"Query latency over {args.queries} questions (top 5, warm index, question encoded "
            "by MiniLM "
            "on one thread; the 100k index holds random unit vectors in place of window "
            "embeddings; chunk vectors "
            f"scanned by {index.chunk_search.backend if index.chunk_search else 'numpy'}):",
            "",
            "| method | p50 ms | p95 ms | mean ms |",
            "| --- | ---: | ---: | ---: |",
        ]
        for method, values in latency.items():
            lines.append(
                f"| {method} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} | "
                f"{statistics.mean(values):.1f} |"
            )
        lines += [
            "",
            "Hybrid, median per step (ms): "
            + ", ".join(
                f"{k} {statistics.median(v):.1f}" for k, v in parts.items() if k != "total"
            ),
        ]
        text = "\n".join(lines)
        print(text)
        write_section("scale", text)
        kb.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def _machine() -> str:
    import os
    import platform

    try:
        load = f", load average {os.getloadavg()[0]:.1f}"
    except OSError:
        load = ""
    return f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}{load}"


if __name__ == "__main__":
    raise SystemExit(main())
