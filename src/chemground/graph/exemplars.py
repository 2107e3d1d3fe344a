"""The Text2Cypher example bank and the four ways of choosing an example for a question.

The bank (``exemplars.json``) was written for chemground with its own phrasing, disjoint
from the benchmark's templates, so one-shot results are not the benchmark quoting itself.
Semantic selection compares questions with their SMILES masked: two questions about
different molecules but the same intent ("what are the precursors of X") should meet, and
a long SMILES should not dominate the embedding.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

import numpy as np

from chemground.chem.structure import looks_like_smiles
from chemground.errors import ChemgroundError

Mode = Literal["zero-shot", "one-shot-static", "one-shot-random", "one-shot-semantic"]
MODES: tuple[str, ...] = ("zero-shot", "one-shot-static", "one-shot-random", "one-shot-semantic")
STATIC_EXEMPLAR = "ex-precursors"
MASK = "[MOL]"
SHAPE_BONUS = 0.1


@dataclass(frozen=True)
class Exemplar:
    id: str
    intent: str
    question: str
    cypher: str
    paraphrases: tuple[str, ...] = ()

    @property
    def all_questions(self) -> tuple[str, ...]:
        return (self.question, *self.paraphrases)


@lru_cache(maxsize=1)
def load_exemplars() -> tuple[Exemplar, ...]:
    text = (resources.files("chemground.graph") / "exemplars.json").read_text(encoding="utf-8")
    return _parse(json.loads(text))


def _parse(items: list[dict]) -> tuple[Exemplar, ...]:
    return tuple(
        Exemplar(**{**item, "paraphrases": tuple(item.get("paraphrases", ()))}) for item in items
    )


_SMILES_SYNTAX = set("()=#[]@+-/\\0123456789%.")


def _is_smiles_token(word: str) -> bool:
    from chemground.chem.structure import try_structure_from_smiles

    for candidate in (word, word.rstrip("?,;:!.'\"`"), word.strip("?,;:!.'\"`")):
        if len(candidate) < 2 or not looks_like_smiles(candidate):
            continue
        if len(candidate) < 3 and not (_SMILES_SYNTAX & set(candidate)):
            continue  # "CO", "Cl", "N": too ambiguous with words and symbols
        if try_structure_from_smiles(candidate) is not None:
            return True
    return False


def mask_smiles(question: str) -> str:
    """The question with every SMILES token replaced by [MOL] (so intent, not the molecule,
    decides)."""
    return " ".join(MASK if _is_smiles_token(word) else word for word in question.split())


class ExemplarSelector:
    """Chooses the one-shot example (or none) for a question, by mode."""

    def __init__(
        self, exemplars: tuple[Exemplar, ...] | None = None, embedder=None, seed: int = 0
    ) -> None:
        self.exemplars = exemplars if exemplars is not None else load_exemplars()
        if not self.exemplars:
            raise ChemgroundError("the example bank is empty")
        self.embedder = embedder
        self.seed = seed
        self._vectors = None
        self._shapes: list[tuple[int, frozenset[int]]] | None = None

    def _embedder(self):
        if self.embedder is None:
            from chemground.retrieval.embeddings import Embedder

            self.embedder = Embedder()
        return self.embedder

    def select(self, question: str, mode: str, n_compounds: int | None = None) -> Exemplar | None:
        """The example for ``question`` (None in zero-shot mode).

        Semantic selection adds ``SHAPE_BONUS`` to the similarity of the example questions
        that name as many compounds as the question does (``n_compounds``, else the question's
        SMILES count), and again to those that say the same numbers ("two", "3"...): both are
        the shape of the query (one anchor or two, two steps or three), which a sentence
        embedding barely sees ("two-step routes to X", "three-step routes to X" and "routes
        from X to Y of at most two steps" embed alike and need different queries).
        """
        if mode == "zero-shot":
            return None
        if mode == "one-shot-static":
            return next((e for e in self.exemplars if e.id == STATIC_EXEMPLAR), self.exemplars[0])
        if mode == "one-shot-random":
            digest = hashlib.sha1(f"{self.seed}:{question}".encode()).hexdigest()
            return random.Random(digest).choice(self.exemplars)
        if mode == "one-shot-semantic":
            embedder = self._embedder()
            if self._vectors is None:
                owners = [i for i, e in enumerate(self.exemplars) for _ in e.all_questions]
                texts = [mask_smiles(q) for e in self.exemplars for q in e.all_questions]
                self._vectors = (embedder.encode(texts), owners)
            vectors, owners = self._vectors
            masked = mask_smiles(question)
            wanted = n_compounds if n_compounds is not None else masked.split().count(MASK)
            scores = vectors @ embedder.encode([masked])[0]
            if self._shapes is None:
                self._shapes = [
                    (len(_smiles_mentions(q)), _numbers(q))
                    for e in self.exemplars
                    for q in e.all_questions
                ]
            numbers = _numbers(question)
            scores = scores + SHAPE_BONUS * (
                np.asarray([count == wanted for count, _ in self._shapes], dtype=float)
                + np.asarray([found == numbers for _, found in self._shapes], dtype=float)
            )
            return self.exemplars[owners[int(scores.argmax())]]
        raise ChemgroundError(
            f"unknown Text2Cypher mode {mode!r}; choose one of {', '.join(MODES)}"
        )


_NUMBER_WORDS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_NUMBER = re.compile(r"\b(one|single|two|three|four|five|[1-9])\b", re.IGNORECASE)


def _numbers(question: str) -> frozenset[int]:
    """The small numbers a question says, as words or digits (SMILES ring digits left out)."""
    words = mask_smiles(question)
    return frozenset(
        _NUMBER_WORDS.get(m.group(1).lower()) or int(m.group(1)) for m in _NUMBER.finditer(words)
    )


def _smiles_mentions(question: str) -> list[str]:
    """The SMILES the question names, in order, once each (trailing punctuation dropped)."""
    found: list[str] = []
    from chemground.chem.structure import try_structure_from_smiles

    for word in question.split():
        for candidate in (word, word.rstrip("?,;:!.'\"`"), word.strip("?,;:!.'\"`")):
            if (
                len(candidate) >= 2
                and looks_like_smiles(candidate)
                and (len(candidate) >= 3 or _SMILES_SYNTAX & set(candidate))
                and try_structure_from_smiles(candidate) is not None
            ):
                if candidate not in found:
                    found.append(candidate)
                break
    return found


def parameterized(exemplar: Exemplar) -> tuple[str, str]:
    """The example as a linked question is shown: its SMILES become parameters ``$c1``, ``$c2``
    in the order the question names them, and the query anchors on them with
    ``{key: $c1}`` (``linking`` binds the parameters to the compounds' keys)."""
    from chemground.graph.lexer import code_tokens
    from chemground.graph.linking import PARAM_PREFIX, _anchor_sites, _mention

    mentions = _smiles_mentions(exemplar.question)
    names = {smiles: f"${PARAM_PREFIX}{i}" for i, smiles in enumerate(mentions, start=1)}
    question = exemplar.question
    for smiles in sorted(mentions, key=len, reverse=True):
        question = _mention(smiles).sub(names[smiles], question)
    cypher = exemplar.cypher
    tokens = code_tokens(cypher)
    edits = []
    for prop, literal in _anchor_sites(tokens):
        if tokens[prop].value == "smiles" and tokens[literal].value in names:
            edits.append((tokens[prop].start, tokens[prop].end, "key"))
            edits.append((tokens[literal].start, tokens[literal].end, names[tokens[literal].value]))
    for start, end, text in sorted(edits, reverse=True):
        cypher = cypher[:start] + text + cypher[end:]
    return question, cypher
