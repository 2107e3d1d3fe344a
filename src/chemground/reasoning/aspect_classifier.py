"""Which aspect a question asks about when no rule reads it: nearest exemplar phrasings.

The aspect rules (:mod:`chemground.reasoning.aspects`) are precise but literal: "how many
grams does one mole of X weigh" or "what do I dissolve X in for the reaction" escape them. This
classifier generalises. ``data/aspect_exemplars.tsv`` holds about a thousand hand-written
phrasings (compounds masked to ``x``, as the rules see them), each labelled with an aspect, with
``out_of_scope`` (chit-chat, prices, people, lab logistics, non-chemistry) or with
``explanation`` (why/how/mechanism questions, which the papers answer, not a record). A question
is embedded with the bundled MiniLM (:class:`chemground.retrieval.embeddings.Embedder`) and its
``k`` nearest exemplars by cosine (:class:`~chemground.retrieval.embeddings.VectorIndex`) vote,
each with its similarity as weight. The winner is accepted only when the nearest exemplar of its
label is close enough (``min_similarity``) and it holds a clear share of the vote
(``min_share``); otherwise the classifier abstains: precision before recall.

It is consulted only when no rule fires (:func:`read_aspect`), so a question the rules read is
answered exactly as before, with no model loaded. The exemplar vectors are embedded once and
kept in the embedding cache (``<cache_dir>/embeddings.sqlite``); the model loads on the first
question that needs it. Without the model (the ``dense`` extra is not installed) the classifier
is unavailable and questions are read by the rules alone, with a note saying so.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chemground.errors import ChemgroundError
from chemground.reasoning.query import Aspect

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

EXEMPLARS_FILE = Path(__file__).resolve().parent / "data" / "aspect_exemplars.tsv"
OUT_OF_SCOPE = "out_of_scope"
EXPLANATION = "explanation"  # why / how / mechanism: no aspect; the routing table sends it on
# Aspects only the rules read: "is X the same as Y" needs its two compounds and a word such as
# "same", and exemplars of it drew a held-out question of another aspect below the vote's
# threshold (measured on the user-question benchmark), so none are written for it
RULE_ONLY_ASPECTS = frozenset({"same_compound"})
# Why / mechanism questions are not classified: the routing table sends them to the papers, and
# their nearest exemplars ("what catalyses ...") would name an aspect they do not ask for.
EXPLAINING = re.compile(r"\bwhy\b|\bhow come\b|\bmechanis(m|ms|tic|tically)\b")
LABELS = frozenset({a.value for a in Aspect} | {OUT_OF_SCOPE, EXPLANATION})

# Chosen by leave-one-out over the exemplars themselves (benchmarks/aspect_classifier.py
# --tune), never on the held-out paraphrases.
DEFAULT_K = 7
DEFAULT_MIN_SIMILARITY = 0.4
DEFAULT_MIN_SHARE = 0.8
DEFAULT_TEMPERATURE: float | None = 0.05


@dataclass(frozen=True)
class Exemplar:
    """One labelled phrasing: ``label`` is an Aspect value, ``out_of_scope`` or
    ``explanation``; ``text`` is lower-case with compounds written ``x``."""

    label: str
    text: str


def load_exemplars(path: Path = EXEMPLARS_FILE) -> tuple[Exemplar, ...]:
    """The exemplars of a ``label<TAB>phrasing`` file (``#`` comments and blank lines skipped).

    Args:
        path: the TSV file (default: the one shipped in the package).

    Returns:
        The exemplars in file order, each phrasing lower-cased and its spaces collapsed;
        duplicates (same label and phrasing) are kept once.

    Raises:
        ChemgroundError: a line without a tab, with an unknown label, with an empty phrasing,
            or the same phrasing under two labels (the line number says where).
    """
    seen: dict[str, tuple[str, int]] = {}
    out: list[Exemplar] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        label, tab, text = line.partition("\t")
        label, text = label.strip(), " ".join(text.split()).lower()
        if not tab or not text:
            raise ChemgroundError(f"{path}:{number}: expected 'label<TAB>phrasing', got {line!r}")
        if label not in LABELS:
            raise ChemgroundError(
                f"{path}:{number}: unknown label {label!r}; use an aspect "
                f"({', '.join(a.value for a in Aspect)}), {OUT_OF_SCOPE} or {EXPLANATION}"
            )
        if text in seen:
            other, where = seen[text]
            if other != label:
                raise ChemgroundError(
                    f"{path}:{number}: {text!r} is labelled {label!r} here and {other!r} on "
                    f"line {where}"
                )
            continue
        seen[text] = (label, number)
        out.append(Exemplar(label, text))
    return tuple(out)


@dataclass(frozen=True)
class AspectDecision:
    """What the classifier made of one question, for the query's trace.

    ``label`` is the winning label (an Aspect value, ``out_of_scope`` or ``explanation``);
    ``accepted`` says whether it cleared the thresholds; ``score`` is its share of the
    similarity-weighted vote and ``similarity`` the cosine of its nearest exemplar;
    ``neighbours`` are the nearest exemplars as (label, phrasing, cosine), best first.
    """

    text: str
    label: str
    accepted: bool
    score: float
    similarity: float
    neighbours: tuple[tuple[str, str, float], ...]
    thresholds: dict[str, float] = field(default_factory=dict)

    @property
    def aspect(self) -> Aspect | None:
        """The aspect decided, or None (abstained, out of scope, or an explanation)."""
        if not self.accepted or self.label in (OUT_OF_SCOPE, EXPLANATION):
            return None
        return Aspect(self.label)

    @property
    def out_of_scope(self) -> bool:
        """Whether the question was confidently read as out of scope (it must get no answer)."""
        return self.accepted and self.label == OUT_OF_SCOPE

    def to_json(self) -> dict[str, Any]:
        """The decision as the trace shows it."""
        return {
            "method": "exemplar_knn",
            "text": self.text,
            "label": self.label,
            "accepted": self.accepted,
            "aspect": self.aspect.value if self.aspect else None,
            "score": round(self.score, 3),
            "similarity": round(self.similarity, 3),
            "thresholds": self.thresholds,
            "neighbours": [
                {"label": label, "text": text, "cosine": round(cosine, 3)}
                for label, text, cosine in self.neighbours
            ],
        }


class AspectClassifier:
    """k nearest exemplar phrasings, by cosine of MiniLM vectors, vote on a question's aspect.

    Args:
        exemplars: the labelled phrasings (default: :func:`load_exemplars`).
        embedder: encodes the exemplars (and, unless ``query_embedder`` is given, questions);
            default: an :class:`~chemground.retrieval.embeddings.Embedder` without a cache.
        query_embedder: encodes questions (default: ``embedder``); pass an uncached one so
            that questions are not written to the exemplars' cache.
        k: how many neighbours vote.
        min_similarity: the cosine the winner's nearest exemplar must reach.
        min_share: the share of the similarity-weighted vote the winner must hold.
        temperature: neighbours weigh ``exp((cosine - best cosine) / temperature)``, so the
            nearest dominate; None: each weighs its cosine.
        vectors: the exemplars' vectors, when already computed (then nothing is embedded until
            a question comes).

    Raises:
        ChemgroundError: no exemplars, or ``vectors`` of the wrong shape.
    """

    def __init__(
        self,
        exemplars: Sequence[Exemplar] | None = None,
        embedder=None,
        *,
        query_embedder=None,
        k: int = DEFAULT_K,
        min_similarity: float = DEFAULT_MIN_SIMILARITY,
        min_share: float = DEFAULT_MIN_SHARE,
        temperature: float | None = DEFAULT_TEMPERATURE,
        vectors: np.ndarray | None = None,
    ) -> None:
        self.exemplars = tuple(exemplars if exemplars is not None else load_exemplars())
        if not self.exemplars:
            raise ChemgroundError("the aspect exemplar bank is empty")
        if embedder is None:
            from chemground.retrieval.embeddings import Embedder

            embedder = Embedder(None)
        self.embedder = embedder
        self.query_embedder = query_embedder or embedder
        self.k = k
        self.min_similarity = min_similarity
        self.min_share = min_share
        self.temperature = temperature
        if vectors is None:
            vectors = self.embedder.encode([e.text for e in self.exemplars])
        if vectors.shape[0] != len(self.exemplars):
            raise ChemgroundError(
                f"{vectors.shape[0]} exemplar vectors for {len(self.exemplars)} exemplars"
            )
        from chemground.retrieval.embeddings import VectorIndex

        self.index = VectorIndex(vectors, [str(i) for i in range(len(self.exemplars))])

    @property
    def thresholds(self) -> dict[str, float]:
        """The settings a decision is judged by (shown in its trace)."""
        return {
            "k": self.k,
            "min_similarity": self.min_similarity,
            "min_share": self.min_share,
            "temperature": self.temperature or 0.0,
        }

    def classify(self, masked: str) -> AspectDecision:
        """The decision for one question.

        Args:
            masked: the question as the rules see it (lower case, compounds written ``x``;
                :func:`chemground.reasoning.aspects.mask_mentions`).

        Returns:
            An :class:`AspectDecision`; its ``aspect`` is None when the classifier abstains.
        """
        text = " ".join(masked.split()).lower()
        vector = self.query_embedder.encode([text])[0]
        return self.vote(text, vector)

    def vote(self, text: str, vector: np.ndarray, exclude: int | None = None) -> AspectDecision:
        """The weighted vote of the ``k`` exemplars nearest to ``vector``.

        Args:
            text: the question (kept in the decision).
            vector: its unit vector.
            exclude: an exemplar position left out of the vote (leave-one-out evaluation).

        Returns:
            The decision, accepted or not.
        """
        hits = self.index.search(vector, self.k + (1 if exclude is not None else 0))
        neighbours = [
            (self.exemplars[int(i)], score)
            for i, score in hits
            if exclude is None or int(i) != exclude
        ][: self.k]
        weights: dict[str, float] = {}
        nearest: dict[str, float] = {}
        best = neighbours[0][1] if neighbours else 0.0
        for exemplar, score in neighbours:
            if self.temperature:  # a softmax over cosines: the nearest few dominate
                weight = math.exp((score - best) / self.temperature)
            else:
                weight = max(score, 0.0)
            weights[exemplar.label] = weights.get(exemplar.label, 0.0) + weight
            nearest.setdefault(exemplar.label, score)
        total = sum(weights.values())
        label = max(weights, key=lambda name: (weights[name], nearest[name]))
        share = weights[label] / total if total > 0 else 0.0
        similarity = nearest[label]
        return AspectDecision(
            text=text,
            label=label,
            accepted=similarity >= self.min_similarity and share >= self.min_share,
            score=share,
            similarity=similarity,
            neighbours=tuple((e.label, e.text, float(s)) for e, s in neighbours[:5]),
            thresholds=self.thresholds,
        )


def explain_decision(decision: dict[str, Any]) -> str:
    """One line saying what the classifier decided and why (for ``chemground ask``).

    Args:
        decision: :meth:`AspectDecision.to_json` (``QueryTuple.aspect_classifier``).

    Returns:
        E.g. ``read as hazards by the nearest exemplar phrasings (score 0.98, cosine 0.77;
        nearest: 'is x poisonous')``.
    """
    neighbours = decision.get("neighbours") or []
    nearest = f"; nearest: {neighbours[0]['text']!r}" if neighbours else ""
    score = f"score {decision.get('score', 0):.2f}, cosine {decision.get('similarity', 0):.2f}"
    label = decision.get("label")
    if not decision.get("accepted"):
        return (
            f"no clear aspect among the nearest exemplar phrasings (best {label}, {score}{nearest})"
        )
    if label == OUT_OF_SCOPE:
        return f"read as out of scope by the nearest exemplar phrasings ({score}{nearest})"
    if label == EXPLANATION:
        return f"read as a why/how question by the nearest exemplar phrasings ({score}{nearest})"
    return f"read as {label} by the nearest exemplar phrasings ({score}{nearest})"


_DEFAULT: AspectClassifier | None = None
_UNAVAILABLE: str | None = None
_LOCK = threading.Lock()


def default_classifier(cache_dir: Path | None = None) -> AspectClassifier | None:
    """The process-wide classifier over the packaged exemplars, built on first use.

    Args:
        cache_dir: where the embedding cache is (default: the setting ``cache_dir``); the
            exemplar vectors are read from (or, the first time, written to)
            ``<cache_dir>/embeddings.sqlite``. Questions are embedded without caching.

    Returns:
        The classifier, or None when the MiniLM model cannot be loaded (the reason is
        :func:`unavailable_reason`, logged once; the process then reads aspects by rules only).
    """
    global _DEFAULT, _UNAVAILABLE
    with _LOCK:
        if _DEFAULT is not None or _UNAVAILABLE is not None:
            return _DEFAULT
        try:
            from chemground.retrieval.embeddings import Embedder, model_path
            from chemground.settings import get_settings

            model_path()  # the packaged model, or a ConfigError saying how to install it
            cache = (cache_dir or get_settings().cache_dir) / "embeddings.sqlite"
            _DEFAULT = AspectClassifier(embedder=Embedder(cache), query_embedder=Embedder(None))
        except (ChemgroundError, ImportError, OSError, RuntimeError) as error:
            _UNAVAILABLE = f"{type(error).__name__}: {error}"
            log.warning("the aspect classifier is unavailable (%s); rules only", _UNAVAILABLE)
        return _DEFAULT


def unavailable_reason() -> str | None:
    """Why :func:`default_classifier` returned None (None when it did not, or was not tried)."""
    return _UNAVAILABLE


def reset_default_classifier() -> None:
    """Forget the process-wide classifier (tests; a changed exemplar file or cache folder)."""
    global _DEFAULT, _UNAVAILABLE
    with _LOCK:
        _DEFAULT, _UNAVAILABLE = None, None


@dataclass(frozen=True)
class AspectReading:
    """How a question's aspect was read: ``source`` is ``rules``, ``exemplars`` or ``none``;
    ``decision`` is the classifier's (when it was consulted); ``note`` says why it could not be
    (the model is unavailable)."""

    aspect: Aspect | None
    source: str
    decision: AspectDecision | None = None
    note: str | None = None


def read_aspect(
    masked: str, use_classifier: bool = True, classifier=None, cache_dir: Path | None = None
) -> AspectReading:
    """The aspect of a masked question: the rules first, the exemplar classifier when none fires.

    Args:
        masked: the question with compounds masked (:func:`aspects.mask_mentions`).
        use_classifier: consult the classifier when no rule fires (False: rules only).
        classifier: the classifier to consult (default: :func:`default_classifier`, built on
            first use).
        cache_dir: the cache folder for :func:`default_classifier` (default: the setting).

    Returns:
        An :class:`AspectReading`. A question a rule reads never loads the model.
    """
    from chemground.reasoning.aspects import classify_aspect

    aspect = classify_aspect(masked)
    if aspect is not None:
        return AspectReading(aspect, "rules")
    if not use_classifier or EXPLAINING.search(masked):
        return AspectReading(None, "none")  # a why / mechanism question is left to the papers
    engine = classifier if classifier is not None else default_classifier(cache_dir)
    if engine is None:
        return AspectReading(
            None,
            "none",
            note="the aspect classifier is unavailable "
            f"({unavailable_reason() or 'no model'}); the question was read by the rules only",
        )
    decision = engine.classify(masked)
    return AspectReading(decision.aspect, "exemplars" if decision.aspect else "none", decision)


__all__ = [
    "EXEMPLARS_FILE",
    "EXPLANATION",
    "OUT_OF_SCOPE",
    "AspectClassifier",
    "AspectDecision",
    "AspectReading",
    "Exemplar",
    "default_classifier",
    "explain_decision",
    "load_exemplars",
    "read_aspect",
    "reset_default_classifier",
    "unavailable_reason",
]
