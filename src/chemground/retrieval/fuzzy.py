"""Approximate name matching: typo correction and string similarity over compound names.

rapidfuzz compares normalised names; ``fuzz.ratio`` is 2·LCS/(|a|+|b|) on characters, i.e. the
character-level ROUGE-L F1 the published table retriever uses for names. Names are bucketed
by length so a look-up compares against thousands of names, not the whole dictionary.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from chemground.chem.names import normalize_name
from chemground.chem.structure import MAX_NAME_CHARS
from chemground.kb.sqlite_store import CURATED_DICTIONARY_SOURCES
from chemground.kb.store import KnowledgeBase

DEFAULT_MIN_SCORE = 85.0
CORRECTION_POOL = 20  # names above the score cutoff compared by edit distance


def rouge_l(candidate: str | list[str], reference: str | list[str]) -> float:
    """ROUGE-L F1 between two sequences (characters of strings, or token lists)."""
    if not candidate or not reference:
        return 0.0
    from rapidfuzz.distance import LCSseq  # imported on first use: ~10 ms a question may not need

    lcs = LCSseq.similarity(candidate, reference)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(candidate), lcs / len(reference)
    return 2 * precision * recall / (precision + recall)


class FuzzyNameIndex:
    """Names worth correcting towards: every IUPAC and common name, all names of the curated
    dictionary files and abbreviations, and the names reactions use."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self._buckets: dict[int, list[str]] | None = None
        self._owner: dict[str, tuple[str, int]] = {}
        self._lock = threading.Lock()

    def _load(self) -> dict[int, list[str]]:
        with self._lock:
            if self._buckets is not None:
                return self._buckets
            owner: dict[str, tuple[str, int]] = {}

            def add(name: str | None, compound_id: int) -> None:
                if name:
                    norm = normalize_name(name)
                    if len(norm) >= 4 and norm not in owner:
                        owner[norm] = (name, compound_id)

            rows = self.kb.compound_names_for_index(CURATED_DICTIONARY_SOURCES)
            for compound_id, iupac, common, synonyms, source in rows:
                add(common, compound_id)
                add(iupac, compound_id)
                if source in CURATED_DICTIONARY_SOURCES:
                    for name in synonyms[:40]:
                        add(name, compound_id)
            for name, compound_id in self.kb.participant_names():
                add(name, compound_id)
            buckets: dict[int, list[str]] = defaultdict(list)
            for norm in owner:
                buckets[len(norm)].append(norm)
            self._owner = owner
            self._buckets = dict(buckets)
            return self._buckets

    def candidates(self, norm: str, slack: int) -> list[str]:
        buckets = self._load()
        out: list[str] = []
        for length in range(max(1, len(norm) - slack), len(norm) + slack + 1):
            out.extend(buckets.get(length, ()))
        return out

    def correct(
        self, text: str, min_score: float = DEFAULT_MIN_SCORE
    ) -> tuple[str, int, float] | None:
        """(name, compound id, score) of the one closest known name above ``min_score``; None
        when nothing is close or when several compounds are equally close (see
        :meth:`corrections`)."""
        found = self.corrections(text, min_score)
        return found[0] if len(found) == 1 else None

    def corrections(
        self, text: str, min_score: float = DEFAULT_MIN_SCORE
    ) -> list[tuple[str, int, float]]:
        """The known names closest to ``text``, one (name, compound id, score) per compound.

        Candidates are the names whose ``fuzz.ratio`` reaches ``min_score``. They are ranked as a
        typist's slips: fewest OSA edits first (a wrong, missing, extra or swapped letter costs
        one; the ratio alone counts a wrong letter twice, so it read "ethelbenzene" as
        "ethenylbenzene", styrene), then the name that only adds a final "e" ("acridin",
        "squalen": the German and Dutch spelling), then the longer shared beginning (a first
        letter is rarely mistyped). Two edits or more are also ranked by the ratio. Several
        entries come back when different compounds rank equal ("azbenzene": azabenzene or
        azobenzene), and the caller must not pick one. Empty when nothing is close or ``text``
        is a known name itself.
        """
        if len(text) > MAX_NAME_CHARS:
            return []  # longer than any name worth correcting towards
        norm = normalize_name(text)
        if len(norm) < 5:
            return []
        choices = self.candidates(norm, slack=2)
        from rapidfuzz import fuzz, process
        from rapidfuzz.distance import OSA

        found = process.extract(
            norm, choices, scorer=fuzz.ratio, score_cutoff=min_score, limit=CORRECTION_POOL
        )
        if not found or any(choice == norm for choice, _, _ in found):
            return []

        def rank(choice: str, score: float) -> tuple:
            edits = OSA.distance(norm, choice)
            shared = next(
                (k for k, (a, b) in enumerate(zip(norm[:4], choice[:4])) if a != b),
                min(4, len(norm), len(choice)),
            )
            # two letters swapped ("caffiene") before a letter left out ("caffine", a synonym
            # whose ending "-ine" the typo does not share): the same letters, in another order
            swapped = sorted(norm) == sorted(choice)
            return (
                edits,
                not swapped,
                choice != norm + "e",
                -shared,
                -score if edits >= 2 else 0.0,
            )

        ranks = {choice: rank(choice, score) for choice, score, _ in found}
        best = min(ranks.values())
        out: list[tuple[str, int, float]] = []
        seen: set[int] = set()
        for choice, score, _ in found:  # ordered by score
            name, compound_id = self._owner[choice]
            if ranks[choice] == best and compound_id not in seen:
                seen.add(compound_id)
                out.append((name, compound_id, float(score)))
        return out

    def similar(
        self, text: str, limit: int = 5, min_score: float = 50.0
    ) -> list[tuple[str, int, float]]:
        """Names most similar to ``text`` (character ROUGE-L), for "did you mean" evidence."""
        if len(text) > MAX_NAME_CHARS:
            return []  # longer than any name worth comparing with
        norm = normalize_name(text)
        if not norm:
            return []
        choices = self.candidates(norm, slack=max(3, len(norm) // 3))
        from rapidfuzz import fuzz, process

        found = process.extract(
            norm, choices, scorer=fuzz.ratio, limit=limit * 3, score_cutoff=min_score
        )
        out, seen = [], set()
        for choice, score, _ in found:
            name, compound_id = self._owner[choice]
            if compound_id not in seen:
                seen.add(compound_id)
                out.append((name, compound_id, float(score)))
            if len(out) == limit:
                break
        return out
