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
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from chemground.chem.structure import looks_like_smiles
from chemground.errors import ChemgroundError

Mode = Literal["zero-shot", "one-shot-static", "one-shot-random", "one-shot-semantic"]
MODES: tuple[str, ...] = ("zero-shot", "one-shot-static", "one-shot-random", "one-shot-semantic")
STATIC_EXEMPLAR = "ex-precursors"
MASK = "[MOL]"


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

    def _embedder(self):
        if self.embedder is None:
            from chemground.retrieval.embeddings import Embedder

            self.embedder = Embedder()
        return self.embedder

    def select(self, question: str, mode: str) -> Exemplar | None:
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
            scores = vectors @ embedder.encode([mask_smiles(question)])[0]
            return self.exemplars[owners[int(scores.argmax())]]
        raise ChemgroundError(
            f"unknown Text2Cypher mode {mode!r}; choose one of {', '.join(MODES)}"
        )
