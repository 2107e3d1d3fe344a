"""Evaluation on QAC sets: retrieval Recall@k of the gold chunk, and answer correctness.

Corpus. By default the chunks of the QAC files themselves (each record's ``chunk`` and its
``similar_chunks``, pooled and de-duplicated) are stored, one document per chunk, in a
temporary copy of the KB (so compound mentions are indexed with the real dictionary) and
searched with the same index and retriever as ``chemground lit search``.

Gold. A record's gold chunks are its own chunk plus every corpus chunk that contains all of
its context sentences (the supporting evidence, compared on letters and digits only), and
the near-duplicates of those (same text up to encoding damage: rapidfuzz ratio >= 90 on
the normalised text). Multi-hop records have no chunk: their gold chunks are those holding
any of their context sentences, and ``all hops@k`` asks that every context sentence found
in the corpus is in the top k. Records with no gold chunk in the corpus are not scored.

Answers (only with an LLM). Baseline: the question alone. RAG: the top-k hybrid chunks and
the cited-answer prompt. A judge scores agreement with the reference in [0, 1]; a positive
question counts as correct at >= 0.5, a negative one (reference "Answer not available from
the given context") at >= 0.7, as ChemLit-QA does for its negative set.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from chemground.chem.mentions import MemoryNameIndex, MentionFinder
from chemground.kb.sqlite_store import SQLiteKB
from chemground.lit.answer import NOT_AVAILABLE, answer_with_llm
from chemground.lit.index import LitIndex
from chemground.lit.qac.schema import QACRecord
from chemground.lit.records import Chunk, Document
from chemground.lit.retriever import CHANNELS, LitRetriever
from chemground.lit.store import LitStore, chunk_id_for, document_id_for
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render
from chemground.progress import Progress

KS = (1, 5, 10)
POSITIVE_THRESHOLD = 0.5
NEGATIVE_THRESHOLD = 0.7
DUPLICATE_RATIO = 90.0


def normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


@dataclass
class Corpus:
    """Pooled chunks, stored in a temporary KB, with their near-duplicate groups."""

    folder: Path
    kb: SQLiteKB
    texts: list[str]
    ids: list[str]
    duplicates: dict[str, set[str]]
    build_seconds: dict[str, float] = field(default_factory=dict)
    norms: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.norms = [normalise(t) for t in self.texts]
        self.by_text = {t: i for i, t in enumerate(self.texts)}

    def close(self) -> None:
        self.kb.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def pool_chunks(records: list[QACRecord]) -> list[str]:
    texts: list[str] = []
    for record in records:
        if record.chunk:
            texts.append(record.chunk)
        texts.extend(record.similar_chunks)
    return list(dict.fromkeys(t for t in texts if t.strip()))


def near_duplicates(texts: list[str]) -> list[set[int]]:
    """For each text, the indices of texts that are the same up to encoding damage."""
    from rapidfuzz import fuzz

    norms = [normalise(t) for t in texts]
    groups = [{i} for i in range(len(texts))]
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = norms[i], norms[j]
            if (
                abs(len(a) - len(b)) <= 0.1 * max(len(a), len(b), 1)
                and fuzz.ratio(a, b) >= DUPLICATE_RATIO
            ):
                groups[i].add(j)
                groups[j].add(i)
    return groups


def build_corpus(
    texts: list[str],
    base_kb: Path | None,
    *,
    dense: bool,
    embedder=None,
    mentions: bool = True,
    progress: Progress | None = None,
) -> Corpus:
    folder = Path(tempfile.mkdtemp(prefix="chemground-lit-bench-"))
    kb_path = folder / "kb.sqlite"
    if base_kb is not None and base_kb.exists():
        with SQLiteKB(base_kb, readonly=True) as source:
            source.copy_to(kb_path)  # a consistent copy, even of a WAL database
    kb = SQLiteKB(kb_path)
    store = LitStore(kb)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    finder = (
        MentionFinder(kb=kb, names=MemoryNameIndex(kb), passages=True)
        if mentions and base_kb is not None
        else None
    )
    ids = []
    if progress:
        progress("corpus", 0, len(texts))
    for text in texts:
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        document_id = document_id_for(sha)
        chunk = Chunk(chunk_id_for(document_id, 0), document_id, 0, 0, len(text), text)
        store.insert(
            Document(document_id, sha, f"corpus:{document_id}", "text", text),
            [chunk],
            [finder.find_compounds(text)] if finder else None,
        )
        ids.append(chunk.id)
        if progress:
            progress("corpus", 1, None)
    timings["store_and_mentions"] = time.perf_counter() - started
    groups = near_duplicates(texts)
    duplicates = {ids[i]: {ids[j] for j in group} for i, group in enumerate(groups)}
    return Corpus(folder, kb, texts, ids, duplicates, timings)


@dataclass
class Query:
    record: QACRecord
    source: str  # which file
    gold: set[str]
    hops: list[set[str]]  # per context sentence found in the corpus: the chunks holding it


def gold_for(record: QACRecord, corpus: Corpus) -> Query | None:
    norms, by_text = corpus.norms, corpus.by_text
    sentences = [normalise(s) for s in record.context if len(normalise(s)) >= 20]
    holding = [{corpus.ids[i] for i, n in enumerate(norms) if s in n} for s in sentences]
    gold: set[str] = set()
    if record.chunk and record.chunk in by_text:
        gold.add(corpus.ids[by_text[record.chunk]])
    if record.chunk:
        if holding and all(holding):
            gold |= set.intersection(*holding)
    else:  # multi-hop: any supporting chunk
        for chunks in holding:
            gold |= chunks
    if not gold:
        return None
    expanded = set()
    for chunk_id in gold:
        expanded |= corpus.duplicates.get(chunk_id, {chunk_id})
    hops = []
    for chunks in holding:
        if chunks:
            group = set()
            for chunk_id in chunks:
                group |= corpus.duplicates.get(chunk_id, {chunk_id})
            hops.append(group)
    return Query(record, "", expanded, hops)


@dataclass
class MethodResult:
    hits: dict[int, list[bool]] = field(default_factory=lambda: {k: [] for k in KS})
    reciprocal_ranks: list[float] = field(default_factory=list)
    all_hops: dict[int, list[bool]] = field(default_factory=lambda: {k: [] for k in KS})
    latencies_ms: list[float] = field(default_factory=list)
    groups: dict[str, dict[int, list[bool]]] = field(
        default_factory=lambda: defaultdict(lambda: {k: [] for k in KS})
    )

    def add(self, ranked: list[str], query: Query, latency_ms: float) -> None:
        first = next((i for i, c in enumerate(ranked) if c in query.gold), None)
        self.reciprocal_ranks.append(0.0 if first is None else 1.0 / (first + 1))
        for k in KS:
            hit = first is not None and first < k
            self.hits[k].append(hit)
            for key in (
                f"type:{query.record.reasoning_type or '?'}",
                f"difficulty:{query.record.difficulty or '?'}",
            ):
                self.groups[key][k].append(hit)
            if query.hops:
                top = set(ranked[:k])
                self.all_hops[k].append(all(top & hop for hop in query.hops))
        self.latencies_ms.append(latency_ms)

    def summary(self) -> dict[str, Any]:
        n = len(self.reciprocal_ranks)
        out: dict[str, Any] = {"queries": n}
        for k in KS:
            out[f"recall@{k}"] = round(sum(self.hits[k]) / n, 4) if n else None
        out["mrr"] = round(sum(self.reciprocal_ranks) / n, 4) if n else None
        if self.all_hops[1]:
            for k in KS:
                out[f"all_hops@{k}"] = round(sum(self.all_hops[k]) / len(self.all_hops[k]), 4)
        if self.latencies_ms:
            out["latency_ms_p50"] = round(statistics.median(self.latencies_ms), 2)
        out["by_group"] = {
            g: {f"recall@{k}": round(sum(v[k]) / len(v[k]), 4) for k in KS} | {"n": len(v[1])}
            for g, v in sorted(self.groups.items())
        }
        return out


def evaluate_retrieval(
    retriever: LitRetriever,
    queries: list[Query],
    methods: list[str],
    progress: Progress | None = None,
) -> dict[str, MethodResult]:
    results = {m: MethodResult() for m in methods}
    if progress:
        progress("queries", 0, len(queries) * len(methods))
    for query in queries:
        for method in methods:
            started = time.perf_counter()
            ranked = rank(retriever, query.record.question, method, depth=max(KS))
            results[method].add(ranked, query, (time.perf_counter() - started) * 1000)
            if progress:
                progress("queries", 1, None)
    return results


def rank(retriever: LitRetriever, question: str, method: str, depth: int = 10) -> list[str]:
    """Chunk ids, best first, for a product method (hybrid, bm25, dense, mentions), one of the
    hybrid's components (bm25-stem, bm25-windows), or hybrid without one channel
    ("hybrid-without-dense"...), for ablations."""
    index = retriever.index
    if method.startswith("hybrid-without-"):
        dropped = method.removeprefix("hybrid-without-")
        channels = {c for c in CHANNELS if c != dropped}
        return [
            e.id
            for e in retriever.search(
                question, k=depth, method="hybrid", channels=channels
            ).evidence
        ]
    if method == "bm25-stem":
        positions = retriever.rank_bm25_stem(question, depth).positions
    elif method == "bm25-windows":
        positions = retriever.rank_bm25_windows(question, depth=depth).positions
    else:
        return [e.id for e in retriever.search(question, k=depth, method=method).evidence]
    return [index.chunk_ids[p] for p in positions[:depth]]


# -- answers ------------------------------------------------------------
class _Judged(BaseModel):
    score: float
    reason: str = ""


@dataclass
class AnswerResult:
    scores: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    correct: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    groups: dict[str, dict[str, list[bool]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        out = {
            mode: {
                "n": len(v),
                "accuracy": round(sum(v) / len(v), 4) if v else None,
                "mean_score": round(statistics.mean(self.scores[mode]), 4)
                if self.scores[mode]
                else None,
            }
            for mode, v in self.correct.items()
        }
        out["by_group"] = {
            g: {mode: round(sum(v) / len(v), 4) for mode, v in modes.items() if v}
            for g, modes in sorted(self.groups.items())
        }
        out["errors"] = self.errors[:20]
        return out


def judge(llm: LLM, question: str, reference: str, prediction: str) -> float:
    value, _ = llm.chat_json(
        [
            {
                "role": "user",
                "content": render(
                    "lit/judge_correctness",
                    question=question,
                    reference=reference,
                    prediction=prediction,
                ),
            }
        ],
        schema=_Judged,
        temperature=0.0,
    )
    return max(0.0, min(1.0, value.score))


def evaluate_answers(
    retriever: LitRetriever,
    queries: list[Query],
    llm: LLM,
    judge_llm: LLM,
    k: int = 5,
    progress: Progress | None = None,
) -> AnswerResult:
    result = AnswerResult()
    if progress:
        progress("answers", 0, len(queries))
    for query in queries:
        record = query.record
        reference = record.answer or NOT_AVAILABLE
        threshold = NEGATIVE_THRESHOLD if record.is_negative else POSITIVE_THRESHOLD
        try:
            baseline = llm.chat(
                [
                    {
                        "role": "user",
                        "content": render("lit/answer_no_context", question=record.question),
                    }
                ],
                temperature=0.0,
            ).text.strip()
            rag = answer_with_llm(
                record.question, retriever.search(record.question, k=k), llm, context_k=k
            ).answer
            for mode, prediction in (("baseline", baseline), ("rag", rag)):
                score = judge(judge_llm, record.question, reference, prediction)
                ok = score >= threshold
                result.scores[mode].append(score)
                result.correct[mode].append(ok)
                for key in (
                    f"type:{record.reasoning_type or '?'}",
                    f"difficulty:{record.difficulty or '?'}",
                    f"set:{query.source}",
                ):
                    result.groups[key][mode].append(ok)
        except LLMError as error:
            result.errors.append(f"{record.id}: {error}")
        if progress:
            progress("answers", 1, None)
    return result


def load_queries(
    records_by_source: dict[str, list[QACRecord]], corpus: Corpus
) -> tuple[list[Query], dict[str, int]]:
    queries: list[Query] = []
    skipped: dict[str, int] = {}
    for source, records in records_by_source.items():
        for record in records:
            query = gold_for(record, corpus)
            if query is None:
                skipped[source] = skipped.get(source, 0) + 1
                continue
            query.source = source
            queries.append(query)
    return queries, skipped


def corpus_retriever(
    corpus: Corpus, *, dense: bool, embedder=None, progress: Progress | None = None, resolver=None
) -> tuple[LitRetriever, dict[str, float]]:
    from chemground.retrieval.embeddings import Embedder

    started = time.perf_counter()
    index, stats = LitIndex.build(
        LitStore(corpus.kb),
        corpus.folder / "index",
        dense=dense,
        embedder=embedder,
        progress=progress,
    )
    timings = {
        "index_seconds": time.perf_counter() - started,
        "bm25_seconds": stats.seconds_bm25,
        "dense_seconds": stats.seconds_dense,
        "windows": stats.windows,
    }
    return LitRetriever(
        corpus.kb, index, embedder=Embedder(None) if index.has_dense else None, resolver=resolver
    ), timings


# -- honest intervals --------------------------------------------------
BOOTSTRAP_RESAMPLES = 2000


def bootstrap_ci(
    values: list[float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """Mean of ``values`` and its percentile bootstrap interval (questions resampled with
    replacement), so a Recall@1 on 139 questions is reported with the spread it has.

    Args:
        values: one number per question (1/0 for a hit, a reciprocal rank...).
        resamples: bootstrap resamples.
        seed: random seed (runs repeat).
        level: the interval's coverage.

    Returns:
        (mean, low, high).

    Raises:
        ValueError: for no values or a level outside (0, 1).
    """
    import numpy as np

    if not values:
        raise ValueError("no values to bootstrap")
    if not 0 < level < 1:
        raise ValueError(f"level {level} must be between 0 and 1")
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return (
        float(data.mean()),
        float(np.percentile(means, tail)),
        float(np.percentile(means, 100 - tail)),
    )


def paired_bootstrap_difference(
    a: list[float], b: list[float], **options
) -> tuple[float, float, float]:
    """Mean of ``a - b`` over the same questions, with its bootstrap interval: the questions are
    resampled once for both systems, so the interval is of the difference, not of two means.

    Args:
        a: per-question values of one system.
        b: the other system's, in the same question order.
        **options: passed to :func:`bootstrap_ci`.

    Returns:
        (mean difference, low, high).

    Raises:
        ValueError: when the two lists differ in length or are empty.
    """
    if len(a) != len(b):
        raise ValueError(
            f"{len(a)} values against {len(b)}: a paired comparison needs the same questions"
        )
    return bootstrap_ci([x - y for x, y in zip(a, b)], **options)


def first_gold_rank(ranked: list[str], gold: set[str]) -> int | None:
    """1-based rank of the first gold chunk in ``ranked``, or None."""
    return next((i + 1 for i, chunk_id in enumerate(ranked) if chunk_id in gold), None)
