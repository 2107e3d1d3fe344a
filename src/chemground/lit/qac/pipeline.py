"""The whole QAC run: chunks in parallel, a resumable work file, filters, negatives, multi-hop.

Per-chunk results are appended to ``OUT.work.jsonl`` as soon as a chunk is done, so an
interrupted run (or a crashed endpoint) resumes where it stopped; negatives and multi-hop
questions are cached the same way. The drop rules need the whole set, so they run at the
end, over every candidate of every chunk, and the summary reports how many each rule
removed and the thresholds it used. Outputs, in the ChemLit-QA layout: ``OUT`` (kept
questions), ``OUT_neg.csv`` (negatives) and ``OUT_multi.csv`` (multi-hop questions).
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from chemground.agent.jsonsafe import fields_json
from chemground.errors import ChemgroundError
from chemground.jsonl import read_jsonl
from chemground.lit.library import Library
from chemground.lit.qac.filters import apply_drop_rules
from chemground.lit.qac.generate import Candidate, QACGenerator, align_context, keywords_of
from chemground.lit.qac.schema import (
    NEGATIVE,
    NEGATIVE_ANSWER,
    MultiHopRecord,
    QACRecord,
    write_multihop_csv,
    write_qac_csv,
)
from chemground.lit.records import Chunk
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render
from chemground.progress import Progress


@dataclass
class QACConfig:
    samples: int = 5
    negatives: bool = True
    multihop: bool = True
    workers: int = 4
    max_chunks: int | None = None
    documents: list[str] | None = None
    similar_k: int = 4
    min_chunk_chars: int = 200


@dataclass
class RunSummary:
    chunks: int = 0
    chunks_resumed: int = 0
    useful: int = 0
    candidates: int = 0
    unusable: dict[str, int] = field(default_factory=dict)
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    thresholds: dict[str, Any] = field(default_factory=dict)
    negatives: int = 0
    multihop: int = 0
    files: dict[str, str] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    real_model: bool = True
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The summary as ``lit qac --json`` prints it: its fields (``fields_json``)."""
        return fields_json(self)

    def lines(self) -> list[str]:
        out = [
            f"{self.chunks} chunks ({self.chunks_resumed} from the work file), {self.useful} "
            "useful, "
            f"{self.candidates} questions generated"
        ]
        if self.unusable:
            out.append("  not judged: " + ", ".join(f"{k} {v}" for k, v in self.unusable.items()))
        out.append(
            f"kept {self.kept} after the drop rules; dropped by rule: "
            + (", ".join(f"{k} {v}" for k, v in self.dropped.items()) or "none")
        )
        out.append(f"negatives {self.negatives}, multi-hop {self.multihop}")
        out += [f"wrote {path}" for path in self.files.values()]
        out.append(
            f"LLM {self.model}: {self.usage.get('calls', 0)} calls, "
            f"{self.usage.get('total_tokens', 0)} tokens, "
            f"${self.usage.get('cost_usd', 0)}"
        )
        if not self.real_model:
            out.append("NOTE: a scripted test LLM produced this run; it is not a model's output")
        out += [f"error: {e}" for e in self.errors[:20]]
        return out


class _WorkFile:
    """Append-only JSON lines keyed by ``key``; what is there is not recomputed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.done: dict[str, dict[str, Any]] = {}
        if path.exists():
            # a last line cut by a crash mid-write is skipped: that item is simply redone
            for _number, entry in read_jsonl(path, torn_tail_ok=True):
                self.done[entry["key"]] = entry

    def add(self, key: str, value: dict[str, Any]) -> None:
        entry = {"key": key, **value}
        with self.lock:
            self.done[key] = entry
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")


class _Negative(BaseModel):
    question: str
    context: list[str] = Field(default_factory=list)


class _Answerable(BaseModel):
    answerable: bool


class _MultiHop(BaseModel):
    keyword: str | None = None
    updated_question: str | None = None
    bridge_context: list[str] = Field(default_factory=list)


def _select_chunks(library: Library, config: QACConfig) -> list[Chunk]:
    chunks = [
        c
        for c in library.store.iter_chunks()
        if (not config.documents or c.document_id in config.documents)
        and len(c.text) >= config.min_chunk_chars
    ]
    if config.documents:
        known = {d.id for d in library.store.documents()}
        missing = [d for d in config.documents if d not in known]
        if missing:
            raise ChemgroundError(f"no documents with ids {missing}")
    return chunks[: config.max_chunks] if config.max_chunks else chunks


def similar_chunks(index, chunk_id: str, k: int) -> list[tuple[str, float]]:
    """The ``k`` chunks of the same document nearest to ``chunk_id`` by cosine similarity of
    their (mean sentence-window) embeddings."""
    position = index.position[chunk_id]
    document = chunk_id.split("#", 1)[0]
    same = [
        i
        for i, cid in enumerate(index.chunk_ids)
        if cid.split("#", 1)[0] == document and i != position
    ]
    if not same or index.chunk_vectors is None:
        return []
    scores = index.chunk_vectors[same] @ index.chunk_vectors[position]
    order = np.argsort(-scores)[:k]
    return [(index.chunk_ids[same[i]], float(scores[i])) for i in order]


def run_pipeline(
    library: Library, llm: LLM, out: Path, config: QACConfig, progress: Progress | None = None
) -> RunSummary:
    summary = RunSummary(model=llm.model, real_model=llm.is_real_model)
    before = llm.ledger.snapshot()
    index = library.index(progress)
    if not index.has_dense:
        raise ChemgroundError(
            "QAC generation needs chunk embeddings for similar chunks (dense index)"
        )
    chunks = _select_chunks(library, config)
    summary.chunks = len(chunks)
    generator = QACGenerator(llm, samples=config.samples)
    work = _WorkFile(out.with_name(out.name + ".work.jsonl"))
    todo = [c for c in chunks if c.id not in work.done]
    summary.chunks_resumed = len(chunks) - len(todo)
    if progress:
        progress("chunks", summary.chunks_resumed, len(chunks))
    with ThreadPoolExecutor(max_workers=max(1, config.workers)) as pool:
        futures = {pool.submit(generator.run_chunk, c.text): c for c in todo}
        for future in as_completed(futures):
            chunk = futures[future]
            work.add(chunk.id, future.result())
            if progress:
                progress("chunks", 1, None)

    # every candidate of the selected chunks, judged ones go to the filters
    candidates: list[tuple[Chunk, Candidate, list[str]]] = []
    for chunk in chunks:
        entry = work.done.get(chunk.id)
        if entry is None:
            continue
        summary.useful += int(bool(entry.get("useful")))
        summary.errors.extend(f"{chunk.id}: {e}" for e in entry.get("errors", []))
        for data in entry.get("candidates", []):
            candidate = Candidate.from_json(data)
            summary.candidates += 1
            if candidate.error:
                reason = candidate.error.split(":", 1)[0][:60]
                summary.unusable[reason] = summary.unusable.get(reason, 0) + 1
                continue
            candidates.append((chunk, candidate, entry.get("topic", [])))
    report = apply_drop_rules(
        [c.scores for _, c, _ in candidates],
        [c.se_penalized for _, c, _ in candidates],
        [c.difficulty for _, c, _ in candidates],
    )
    summary.dropped, summary.thresholds = report.counts(), report.thresholds
    kept: list[QACRecord] = []
    for number, i in enumerate(report.kept, start=1):
        chunk, candidate, topic = candidates[i]
        similar = similar_chunks(index, chunk.id, config.similar_k)
        similar_text = library.store.chunks([cid for cid, _ in similar])
        kept.append(
            QACRecord(
                chunk=chunk.text,
                reasoning_type=candidate.reasoning_type,
                question=candidate.question,
                answer=candidate.answer,
                difficulty=candidate.difficulty,
                context=candidate.context,
                spans=candidate.spans,
                similar_chunks=[
                    similar_text[cid].text for cid, _ in similar if cid in similar_text
                ],
                cluster_labels=list(topic),
                id=str(number),
                scores=dict(candidate.scores),
                se_penalized=candidate.se_penalized,
                keywords=candidate.keywords,
                chunk_id=chunk.id,
                document_id=chunk.document_id,
                judge_model=llm.model,
            )
        )
    summary.kept = len(kept)
    write_qac_csv(out, kept)
    summary.files["qac"] = str(out)

    if config.negatives:
        negatives = _negatives(library, llm, index, chunks, work, out, config, progress, summary)
        path = out.with_name(out.stem + "_neg.csv")
        write_qac_csv(path, negatives)
        summary.negatives, summary.files["negatives"] = len(negatives), str(path)
    if config.multihop:
        multihop = _multihop(library, llm, index, kept, out, config, progress, summary)
        path = out.with_name(out.stem + "_multi.csv")
        write_multihop_csv(path, multihop)
        summary.multihop, summary.files["multihop"] = len(multihop), str(path)
    summary.usage = llm.ledger.since(before).to_dict()
    return summary


def _ask(llm: LLM, prompt: str, schema: type[BaseModel], **values: Any):
    return llm.chat_json(
        [{"role": "user", "content": render(prompt, **values)}], schema=schema, temperature=0.0
    )[0]


def _negatives(
    library, llm, index, chunks, work, out, config, progress, summary
) -> list[QACRecord]:
    """One coherent question per useful chunk that the chunk does not answer, kept when an
    independent check agrees it is unanswerable and its context sentences are in the chunk."""
    cache = _WorkFile(out.with_name(out.name + ".neg.jsonl"))
    useful = [c for c in chunks if work.done.get(c.id, {}).get("useful")]
    if progress:
        progress("negatives", 0, len(useful))

    def make(chunk: Chunk) -> dict[str, Any]:
        try:
            negative = _ask(llm, "lit/qac_negative", _Negative, chunk=chunk.text)
            answerable = _ask(
                llm, "lit/qac_answerable", _Answerable, chunk=chunk.text, question=negative.question
            )
        except LLMError as error:
            return {"error": str(error)}
        return {
            "question": negative.question,
            "context": negative.context,
            "answerable": answerable.answerable,
        }

    with ThreadPoolExecutor(max_workers=max(1, config.workers)) as pool:
        futures = {pool.submit(make, c): c for c in useful if c.id not in cache.done}
        for future in as_completed(futures):
            cache.add(futures[future].id, future.result())
            if progress:
                progress("negatives", 1, None)
    records = []
    for chunk in useful:
        entry = cache.done.get(chunk.id, {})
        if entry.get("error"):
            summary.errors.append(f"negative for {chunk.id}: {entry['error']}")
            continue
        if not entry or entry.get("answerable"):
            continue
        spans = align_context(entry.get("context", []), chunk.text)
        if spans is None:
            continue
        types = work.done.get(chunk.id, {}).get("types") or ["Explanatory"]
        similar = similar_chunks(index, chunk.id, config.similar_k)
        texts = library.store.chunks([cid for cid, _ in similar])
        records.append(
            QACRecord(
                chunk=chunk.text,
                reasoning_type=types[0],
                question=entry["question"],
                answer=NEGATIVE_ANSWER,
                difficulty=NEGATIVE,
                context=[chunk.text[s:e] for s, e in spans],
                spans=spans,
                similar_chunks=[texts[cid].text for cid, _ in similar if cid in texts],
                cluster_labels=work.done.get(chunk.id, {}).get("topic", []),
                id=f"neg-{len(records) + 1}",
                keywords=keywords_of(entry["question"]),
                chunk_id=chunk.id,
                document_id=chunk.document_id,
                judge_model=llm.model,
            )
        )
    return records


def _multihop(library, llm, index, kept, out, config, progress, summary) -> list[MultiHopRecord]:
    """For each kept question: the most similar other chunk of the same paper is the bridge;
    the LLM replaces an entity of the question by its description from the bridge chunk."""
    cache = _WorkFile(out.with_name(out.name + ".multi.jsonl"))
    if progress:
        progress("multihop", 0, len(kept))

    def make(record: QACRecord) -> dict[str, Any]:
        similar = similar_chunks(index, record.chunk_id, 1)
        if not similar:
            return {"skip": "the paper has no other chunk to bridge through"}
        bridge_id, similarity = similar[0]
        bridge = library.store.chunk(bridge_id)
        try:
            value = _ask(
                llm,
                "lit/qac_multihop",
                _MultiHop,
                question=record.question,
                answer=record.answer,
                chunk=record.chunk,
                bridge=bridge.text,
            )
        except LLMError as error:
            return {"error": str(error)}
        return {"bridge": bridge_id, "similarity": similarity, **value.model_dump()}

    def key(r):
        return f"{r.chunk_id}|{r.reasoning_type}|{r.question}"

    with ThreadPoolExecutor(max_workers=max(1, config.workers)) as pool:
        futures = {pool.submit(make, r): r for r in kept if key(r) not in cache.done}
        for future in as_completed(futures):
            cache.add(key(futures[future]), future.result())
            if progress:
                progress("multihop", 1, None)
    records = []
    for record in kept:
        entry = cache.done.get(key(record), {})
        if entry.get("error"):
            summary.errors.append(f"multi-hop for {record.chunk_id}: {entry['error']}")
            continue
        keyword, updated = entry.get("keyword"), entry.get("updated_question")
        if (
            not keyword
            or not updated
            or keyword.lower() not in record.question.lower()
            or keyword.lower() in updated.lower()
            or updated.strip() == record.question.strip()
        ):
            continue  # no bridge entity, or the rewrite did not replace it
        bridge = library.store.chunk(entry["bridge"])
        spans = align_context(entry.get("bridge_context", []), bridge.text)
        if spans is None:
            continue
        records.append(
            MultiHopRecord(
                question=record.question,
                updated_question=updated.strip(),
                answer=record.answer,
                context=record.context + [bridge.text[s:e] for s, e in spans],
                similarity=entry.get("similarity"),
                keyword=keyword,
                id=str(len(records) + 1),
                chunk_id=record.chunk_id,
                bridge_chunk_id=bridge.id,
            )
        )
    return records
