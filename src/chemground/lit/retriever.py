"""Search over paper chunks: BM25, dense, hybrid (reciprocal-rank fusion) and compound mentions.

Every method returns :class:`~chemground.evidence.Evidence` of kind ``chunk`` whose record
carries the citation (document, title, page/section, character offsets) and the best
matching sentence window as the snippet. Hybrid fuses, by weighted reciprocal rank
(:data:`DEFAULT_FUSION`), the rankings of plain BM25, stemmed BM25, stemmed sentence-window
BM25, dense sentence-window search and, when the question names a compound, the chunks that
name the same compound (same InChIKey: exact; same skeleton: similar). Optionally the lexical
query is expanded with the compounds' other names, and a :class:`Reranker` re-scores the top
fused candidates.

The pieces are the ones every hybrid search here uses (``retrieval.hybrid``): the BM25 index
(``retrieval.bm25``), the vector index (``retrieval.vectors``, over chunk and window vectors)
and the weighted fusion (``retrieval.fusion.Fusion``). What is the literature's own is which
channels run and how they feed each other: the window views re-score the chunk-level views'
candidates, and the mention channel only adds what the words cannot see.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from chemground.chem.mentions import Mention, MentionFinder
from chemground.chem.names import NameResolver, normalize_name
from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.kb.store import KnowledgeBase
from chemground.lit.index import LitIndex, stem_text
from chemground.lit.store import LitStore
from chemground.retrieval import fusion as _fusion
from chemground.retrieval.rerank import DEFAULT_DEPTH, Reranker, rerank_order

Method = Literal["bm25", "dense", "hybrid", "mentions"]
METHODS: tuple[str, ...] = ("hybrid", "bm25", "dense", "mentions")
CHANNELS: tuple[str, ...] = ("bm25", "bm25-stem", "bm25-windows", "dense", "mentions")
CANDIDATES = 100  # depth of each ranking that goes into fusion
DENSE_COARSE = 200  # chunks whose windows the dense stage re-scores
EXPANSION_NAMES = 4  # other names added per compound named in the question
EXPANSION_MAX_CHARS = 40  # longer names (systematic ones) add words no paper writes


@dataclass
class Ranking:
    """One channel's chunk positions, best first, with a score and the best window of each."""

    name: str
    positions: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)
    windows: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Fusion(_fusion.Fusion):
    """The one weighted reciprocal-rank fusion (:class:`chemground.retrieval.fusion.Fusion`),
    listing the literature's channels, each weighing 1 unless set (so reports name them)."""

    weights: tuple[tuple[str, float], ...] = tuple((c, 1.0) for c in CHANNELS)


# Tuned on the ChemLit-QA development sets (neg + multi) by benchmarks/lit_compare.py, which
# also reports the out-of-sample figure (weights tuned on one set, scored on the other) and how
# sensitive Recall@1 is to them. Word-level views count most; dense adds half a vote; the
# mention channel keeps weight 1 (it fires only for names the papers spell differently).
DEFAULT_FUSION = Fusion(
    (("bm25", 2.0), ("bm25-stem", 0.5), ("bm25-windows", 2.0), ("dense", 0.5), ("mentions", 1.0)),
    k=60,
)


def fuse(rankings: Sequence[Ranking], fusion: Fusion) -> list[tuple[int, float]]:
    """Chunk positions and fused scores, best first: the channels' rankings fused by the one
    :class:`~chemground.retrieval.fusion.Fusion` every hybrid search uses (ties by the
    position's text, so runs repeat).

    Args:
        rankings: the channels' rankings.
        fusion: the channel weights.

    Returns:
        (chunk position, fused score) pairs, best first.
    """
    fused = fusion.fuse([(r.name, [str(p) for p in r.positions]) for r in rankings])
    return [(int(p), score) for p, score in fused]


@dataclass
class Channels:
    """What :meth:`LitRetriever.channel_rankings` found for one question."""

    rankings: list[Ranking] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    mention_why: dict[int, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    expansions: list[str] = field(default_factory=list)


@dataclass
class SearchResult:
    evidence: list[Evidence]
    mentions: list[Mention]
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)


class LitRetriever:
    """Searches one KB's chunks through a loaded :class:`LitIndex`."""

    def __init__(
        self,
        kb: KnowledgeBase,
        index: LitIndex,
        *,
        embedder=None,
        resolver: NameResolver | None = None,
        mention_finder: MentionFinder | None = None,
        fusion: Fusion | None = None,
        reranker: Reranker | None = None,
        rerank_depth: int = DEFAULT_DEPTH,
        expand: bool = False,
    ) -> None:
        self.kb = kb
        self.fusion = fusion or DEFAULT_FUSION
        self.reranker = reranker
        self.rerank_depth = rerank_depth
        self.expand = expand
        self.store = LitStore(kb)
        self.index = index
        self.embedder = embedder  # without a cache: questions are not worth storing
        # the question is read by the rules its passages were read by (passages=True), so both
        # sides name the same compounds; one SQL look-up of names per question
        self.finder = mention_finder or MentionFinder(resolver, kb=kb, passages=True)

    # -- channels ---------------------------------------------------------------------------
    def rank_bm25(self, query: str, depth: int = CANDIDATES) -> Ranking:
        return self._from_hits("bm25", self.index.bm25.search(query, depth))

    def rank_bm25_stem(self, query: str, depth: int = CANDIDATES) -> Ranking:
        return self._from_hits("bm25-stem", self.index.bm25_stem.search(stem_text(query), depth))

    def rank_bm25_windows(
        self, query: str, candidates: Sequence[int] | None = None, depth: int = CANDIDATES
    ) -> Ranking:
        """Candidate chunks (by default those of the two chunk-level BM25 views) ranked by
        the BM25 score of their best sentence window."""
        ranking = Ranking("bm25-windows")
        if candidates is None:
            candidates = sorted(
                {*self.rank_bm25(query).positions, *self.rank_bm25_stem(query).positions}
            )
        if not len(candidates):
            return ranking
        chunks = np.asarray(sorted(set(candidates)), dtype=np.int64)
        best, window = self.index.best_windows(
            chunks, lambda windows: self.index.window_scores(query, windows)
        )
        for i in np.argsort(-best, kind="stable")[:depth]:
            if best[i] <= 0:
                break
            position = int(chunks[i])
            ranking.positions.append(position)
            ranking.scores[position] = float(best[i])
            ranking.windows[position] = int(window[i])
        return ranking

    def encode(self, query: str) -> np.ndarray:
        """The question's vector (one CPU thread: ``encode_texts`` uses one for a few texts)."""
        if self.embedder is None:
            raise ChemgroundError("dense search needs an embedder (the MiniLM model)")
        return self.embedder.encode([query])[0]

    def coarse_dense(self, query_vector: np.ndarray) -> np.ndarray:
        """Chunk positions whose mean window vector is closest to the question (unordered)."""
        if not self.index.has_dense or not len(self.index):
            return np.zeros(0, dtype=np.int64)
        return self.index.chunk_search.top(query_vector, DENSE_COARSE)

    def encode_and_coarse(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Runs on the encoder thread, so the coarse scan overlaps the BM25 views too."""
        vector = self.encode(query)
        return vector, self.coarse_dense(vector)

    def rank_dense(
        self,
        query_vector: np.ndarray,
        extra: Sequence[int] = (),
        depth: int = CANDIDATES,
        coarse: np.ndarray | None = None,
    ) -> Ranking:
        """Coarse: chunks by the mean of their window vectors (``coarse`` when already
        computed); fine: each candidate (plus ``extra``, e.g. BM25's hits) by its best window."""
        ranking = Ranking("dense")
        if not self.index.has_dense or not len(self.index):
            return ranking
        if coarse is None:
            coarse = self.coarse_dense(query_vector)
        candidates = np.unique(
            np.concatenate([coarse, np.asarray(list(extra), dtype=np.int64)])
        ).astype(np.int64)
        if not len(candidates):
            return ranking
        best, window = self.index.best_windows(
            candidates, lambda windows: self.index.window_search.score(query_vector, windows)
        )
        for i in np.argsort(-best)[:depth]:
            position = int(candidates[i])
            ranking.positions.append(position)
            ranking.scores[position] = float(best[i])
            ranking.windows[position] = int(window[i])
        return ranking

    def rank_mentions(
        self,
        mentions: list[Mention],
        depth: int = CANDIDATES,
        tie_order: dict[int, int] | None = None,
        selective_only: bool = False,
    ) -> tuple[Ranking, dict[int, str]]:
        """Chunks naming the question's compounds. A chunk scores the sum over the compounds it
        shares of their inverse document frequency (rare compounds say more; a skeleton-only
        match counts half); ties go to the better lexical match (``tie_order``). With
        ``selective_only`` (hybrid), the channel adds only what the words cannot see: a
        compound the question writes in a way no chunk does (a SMILES or InChI, a synonym the
        papers do not use) and which is named in at most 5 % of the chunks (or three):
        "water" would rank hundreds of chunks by nothing, and a name the papers also use is
        already matched, better, by the BM25 views."""
        ranking = Ranking("mentions")
        why: dict[int, str] = {}
        hits = self.store.chunks_mentioning([m.inchikey for m in mentions], limit=5000)
        n = max(len(self.index), 1)
        by_key = {m.inchikey: m for m in mentions}
        by_skeleton = {m.inchikey[:14]: m for m in mentions}
        frequency: dict[str, set[str]] = {}
        spellings: dict[str, set[str]] = {}
        for hit in hits:
            query = by_key.get(hit.inchikey) or by_skeleton.get(hit.inchikey[:14])
            if query is not None:
                frequency.setdefault(query.inchikey, set()).add(hit.chunk_id)
                spellings.setdefault(query.inchikey, set()).add(normalize_name(hit.mention))
        visible = {
            m.inchikey
            for m in mentions
            if selective_only and _spelled_alike(m.text, spellings.get(m.inchikey))
        }
        limit = max(3, int(0.05 * n))
        scores: dict[int, float] = {}
        for hit in hits:
            query = by_key.get(hit.inchikey) or by_skeleton.get(hit.inchikey[:14])
            position = self.index.position.get(hit.chunk_id)
            if query is None or position is None:
                continue
            df = len(frequency[query.inchikey])
            if selective_only and (df > limit or query.inchikey in visible):
                continue
            weight = math.log(1 + n / df) * (1.0 if hit.exact else 0.5)
            if position not in why or (hit.exact and "same skeleton" in why[position]):
                why[position] = (
                    f"names {hit.mention!r} (same structure as {query.text!r})"
                    if hit.exact
                    else f"names {hit.mention!r} (same skeleton as {query.text!r}: "
                    "a stereo/isotope/charge variant)"
                )
                ranking.windows[position] = self._window_at(position, hit.offset)
            scores[position] = scores.get(position, 0.0) + weight
        tie_order = tie_order or {}
        ordered = sorted(scores, key=lambda p: (-scores[p], tie_order.get(p, len(tie_order) + p)))[
            :depth
        ]
        ranking.positions = ordered
        ranking.scores = {p: scores[p] for p in ordered}
        return ranking, {p: why[p] for p in ordered}

    def _window_at(self, position: int, offset: int) -> int:
        """The first window of a chunk that contains ``offset`` (for the snippet)."""
        for window in self.index.windows_of(position):
            start, end = self.index.window_spans[window]
            if start <= offset < end:
                return window
        return int(self.index.window_start[position])

    # -- search -----------------------------------------------------------------------------
    def channel_rankings(
        self,
        query: str,
        method: Method = "hybrid",
        channels: set[str] | None = None,
        expand: bool | None = None,
    ) -> Channels:
        """Each channel's ranking of ``query`` (what :meth:`search` fuses), with the compounds
        found in it and the timings; for ablations and for tuning the fusion offline.

        Args:
            query: the question.
            method: hybrid (every channel in ``channels``) or one of bm25, dense, mentions.
            channels: what hybrid fuses (default all of :data:`CHANNELS`).
            expand: add the synonyms of the compounds named to the lexical views' query
                (default: this retriever's ``expand``).

        Returns:
            A :class:`Channels` with the rankings in :data:`CHANNELS` order.

        Raises:
            ChemgroundError: on an unknown method or channel, an empty question, or dense search
                asked of an index without vectors.
        """
        use = set(CHANNELS if channels is None else channels)
        unknown = use - set(CHANNELS)
        if unknown:
            raise ChemgroundError(f"unknown channels {sorted(unknown)}; use {', '.join(CHANNELS)}")
        if method not in METHODS:
            raise ChemgroundError(
                f"unknown retrieval method {method!r}; use one of {', '.join(METHODS)}"
            )
        if not query.strip():
            raise ChemgroundError("empty question")
        expand = self.expand if expand is None else expand
        out = Channels()
        timings = out.timings

        def timed(name, fn, *args):
            started = time.perf_counter()
            value = fn(*args)
            timings[name] = round((time.perf_counter() - started) * 1000, 2)
            return value

        hybrid = method == "hybrid"
        rankings = out.rankings
        want_dense = method == "dense" or (hybrid and "dense" in use)
        can_dense = self.index.has_dense and self.embedder is not None
        if want_dense and not can_dense and method == "dense":
            raise ChemgroundError(
                "the literature index has no vectors; rebuild it with dense search enabled "
                "(needs `pip install 'chemground[dense]'`)"
            )
        want_mentions = method == "mentions" or (hybrid and "mentions" in use)
        # the question is encoded on another thread while the BM25 views are searched
        started_encode = time.perf_counter()
        pending = (
            _ENCODER.submit(self.encode_and_coarse, query) if want_dense and can_dense else None
        )
        lexical_query = query
        if want_mentions or (expand and method in ("hybrid", "bm25")):
            out.mentions = timed(
                "mentions_find", self.finder.find_compounds, query
            )  # while the encoder works
        if expand and method in ("hybrid", "bm25") and out.mentions:
            lexical_query, out.expansions = timed("expand", self.expansion, query, out.mentions)
        if method == "bm25" or (hybrid and "bm25" in use):
            rankings.append(timed("bm25", self.rank_bm25, lexical_query))
        if hybrid and "bm25-stem" in use:
            rankings.append(timed("bm25_stem", self.rank_bm25_stem, lexical_query))
        if hybrid and "bm25-windows" in use:
            lexical = {p for r in rankings for p in r.positions}
            if (
                not lexical
            ):  # the chunk-level views were left out (an ablation): take their candidates anyway
                lexical = {
                    *self.rank_bm25(lexical_query).positions,
                    *self.rank_bm25_stem(lexical_query).positions,
                }
            rankings.append(
                timed("bm25_windows", self.rank_bm25_windows, lexical_query, sorted(lexical))
            )
        if pending is not None:
            vector, coarse = pending.result()
            waited = (time.perf_counter() - started_encode) * 1000 - sum(timings.values())
            timings["encode_wait"] = round(max(0.0, waited), 2)  # what BM25 did not hide
            extra = {p for r in rankings for p in r.positions}
            rankings.append(
                timed("dense", self.rank_dense, vector, sorted(extra), CANDIDATES, coarse)
            )
        elif want_dense:
            out.notes.append(
                "dense search unavailable (index built without vectors); fused BM25 only"
            )
        if want_mentions:
            if out.mentions:
                lexical = rankings[0].positions if rankings else []
                tie_order = {p: i for i, p in enumerate(lexical)}
                ranking, out.mention_why = timed(
                    "mentions", self.rank_mentions, out.mentions, CANDIDATES, tie_order, hybrid
                )
                if ranking.positions:
                    rankings.append(ranking)
                elif hybrid:
                    out.notes.append(  # (it said "in too many chunks" when they were in none)
                        "the compound channel added no chunk: the compounds named are in none, "
                        "or are written as the words already match them, or are in too many "
                        "chunks to rank by"
                    )
            elif method == "mentions":
                out.notes.append("no compound recognised in the question")
        if out.expansions:
            out.notes.append("query expanded with " + "; ".join(out.expansions))
        return out

    def expansion(self, query: str, mentions: list[Mention]) -> tuple[str, list[str]]:
        """``query`` plus other names of the compounds it names (synonyms, abbreviations, the
        common and systematic names and a short formula, from the KB record the resolver
        linked), so BM25 meets a paper that writes "THF" for "tetrahydrofuran".

        Args:
            query: the question.
            mentions: the compounds found in it.

        Returns:
            The expanded query and, per compound, a note of the names added.
        """
        ids = [m.compound_id for m in mentions if m.compound_id is not None]
        if not ids:
            return query, []
        compounds = self.kb.get_compounds(ids)
        seen = {normalize_name(query)}
        added: list[str] = []
        notes: list[str] = []
        for mention in mentions:
            compound = (
                compounds.get(mention.compound_id) if mention.compound_id is not None else None
            )
            if compound is None:
                continue
            names = [compound.common_name, *compound.synonyms, compound.iupac_name]
            if compound.formula and len(compound.formula) <= 8:
                names.append(compound.formula)
            mine: list[str] = []
            for name in names:
                if not name or not 2 <= len(name) <= EXPANSION_MAX_CHARS or not name.isascii():
                    continue
                norm = normalize_name(name)
                if not norm or any(norm in s or s in norm for s in seen if s):
                    continue
                seen.add(norm)
                mine.append(name)
                if len(mine) == EXPANSION_NAMES:
                    break
            if mine:
                added.extend(mine)
                notes.append(f"{mention.text} -> {', '.join(mine)}")
        return (f"{query} {' '.join(added)}" if added else query), notes

    def search(
        self,
        query: str,
        k: int = 5,
        method: Method = "hybrid",
        channels: set[str] | None = None,
        rerank: bool | None = None,
        expand: bool | None = None,
    ) -> SearchResult:
        """The ``k`` best chunks.

        Args:
            query: the question.
            k: how many chunks.
            method: hybrid, bm25, dense or mentions.
            channels: what hybrid fuses (for ablations): any of bm25, bm25-stem, bm25-windows,
                dense, mentions.
            rerank: re-rank the first ``rerank_depth`` candidates with this retriever's
                re-ranker (default: when it has one).
            expand: expand the lexical query with the compounds' synonyms (default: the
                retriever's setting).

        Returns:
            The evidence, the compounds found, per-step timings and notes.

        Raises:
            ChemgroundError: see :meth:`channel_rankings`; also when ``rerank`` is asked of a
                retriever without a re-ranker.
        """
        if rerank and self.reranker is None:
            raise ChemgroundError("re-ranking was asked for but no re-ranker is configured")
        if not len(self.index):
            if not query.strip():
                raise ChemgroundError("empty question")
            return SearchResult(
                [], [], {}, ["no papers have been added (chemground lit add FILES...)"]
            )
        search_started = time.perf_counter()
        found = self.channel_rankings(query, method, channels, expand)
        rankings, timings, notes = found.rankings, found.timings, found.notes
        started = time.perf_counter()
        if method == "hybrid":
            order = fuse(rankings, self.fusion)
            retriever = "hybrid"
        else:
            ranking = rankings[-1] if rankings else Ranking(method)
            order = [(p, ranking.scores[p]) for p in ranking.positions]
            retriever = method if method != "mentions" else "lit-mentions"
        timings["fuse"] = round((time.perf_counter() - started) * 1000, 2)
        if (rerank or rerank is None) and self.reranker is not None and order:
            started = time.perf_counter()
            order = self._rerank(query, order)
            retriever += f"+{self.reranker.name}"
            timings["rerank"] = round((time.perf_counter() - started) * 1000, 2)
        started = time.perf_counter()
        evidence = self._evidence(order[:k], rankings, found.mention_why, retriever, method)
        timings["fetch"] = round((time.perf_counter() - started) * 1000, 2)
        timings["total"] = round((time.perf_counter() - search_started) * 1000, 2)
        return SearchResult(evidence, found.mentions, timings, notes)

    def _rerank(self, query: str, order: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The first ``rerank_depth`` candidates reordered by the re-ranker (their score becomes
        the re-ranker's); the rest follow in fused order."""
        head, tail = order[: self.rerank_depth], order[self.rerank_depth :]
        chunks = self.store.chunks([self.index.chunk_ids[p] for p, _ in head])
        texts = [
            chunks[self.index.chunk_ids[p]].text if self.index.chunk_ids[p] in chunks else ""
            for p, _ in head
        ]
        scores = self.reranker.score(query, texts)
        by_position = {p: s for (p, _), s in zip(head, scores)}
        fused = dict(head)
        ranked = rerank_order([p for p, _ in head], scores)
        return [
            (p, by_position[p] if by_position[p] is not None else fused[p]) for p in ranked
        ] + tail

    # -- evidence ---------------------------------------------------------------------------
    def _from_hits(self, name: str, hits: list[tuple[str, float]]) -> Ranking:
        ranking = Ranking(name)
        for chunk_id, score in hits:
            position = self.index.position.get(chunk_id)
            if position is not None and position not in ranking.scores:
                ranking.positions.append(position)
                ranking.scores[position] = score
        return ranking

    def _evidence(
        self,
        top: list[tuple[int, float]],
        rankings: list[Ranking],
        mention_why: dict[int, str],
        retriever: str,
        method: str,
    ) -> list[Evidence]:
        ids = [self.index.chunk_ids[p] for p, _ in top]
        chunks = self.store.chunks(ids)
        titles = self.store.document_titles(c.document_id for c in chunks.values())
        out = []
        for position, score in top:
            chunk_id = self.index.chunk_ids[position]
            chunk = chunks.get(chunk_id)
            if chunk is None:
                continue  # removed since the index was built; the next search rebuilds it
            reasons = []
            window = None
            for ranking in rankings:
                if position in ranking.scores:
                    rank = ranking.positions.index(position) + 1
                    reasons.append(f"{ranking.name} #{rank} ({ranking.scores[position]:.3g})")
                    if window is None and position in ranking.windows:
                        window = ranking.windows[position]
            if window is None:
                window = int(self.index.window_start[position])
            start, end = (int(x) for x in self.index.window_spans[window])
            if end > len(chunk.text):  # defensive: index and store disagree
                start, end = 0, min(len(chunk.text), 400)
            exact = "same structure" in mention_why.get(position, "")
            if position in mention_why:
                reasons.append(mention_why[position])
            title, path = titles.get(chunk.document_id, (None, ""))
            record = {
                "chunk_id": chunk.id,
                "document_id": chunk.document_id,
                "title": title,
                "path": path,
                "seq": chunk.seq,
                "page": chunk.page,
                "page_end": chunk.page_end,
                "section": chunk.section,
                "start": chunk.start,
                "end": chunk.end,
                "text": chunk.text,
                "snippet": chunk.text[start:end],
                "snippet_start": chunk.start + start,
                "snippet_end": chunk.start + end,
                "location": chunk.location(),
            }
            out.append(
                Evidence(
                    kind="chunk",
                    id=chunk.id,
                    score=float(score),
                    match="exact" if exact else "similar",
                    record=record,
                    why="; ".join(reasons),
                    retriever=retriever,
                    provenance={
                        "document": chunk.document_id,
                        "title": title,
                        "path": path,
                        "page": chunk.page,
                        "page_end": chunk.page_end,
                        "section": chunk.section,
                        "offsets": [chunk.start, chunk.end],
                        "method": method,
                    },
                )
            )
        return out


def _spelled_alike(question_text: str, spellings: set[str] | None) -> bool:
    """Does the question write the compound as the papers do (or contain their spelling, as
    "anatase-TiO2" contains "TiO2")? Then BM25 already matches it by its words."""
    mine = normalize_name(question_text)
    return bool(spellings) and any(s and (s in mine or mine in s) for s in spellings)


_ENCODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lit-encode")
