"""Reciprocal-rank fusion: one ranking from several, robust to incomparable score scales.

Every hybrid search here (papers, KB records, tool manifests) fuses its channels' rankings
with :class:`Fusion`: BM25 scores, cosines and mention weights are on scales that cannot be
added, ranks can. A channel's weight says how many votes its ranking gets; ties are broken
by id, so a search repeats exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(id) = sum_i w_i / (k + rank_i(id)), ranks from 1.

    Args:
        rankings: id lists, best first.
        k: the rank offset (larger: the top ranks count less against the rest).
        weights: one per ranking (default 1 each).

    Returns:
        (id, fused score) pairs, best first; ties by id.

    Raises:
        ValueError: when there is not one weight per ranking.
    """
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


@dataclass(frozen=True)
class Fusion:
    """Weighted reciprocal-rank fusion of named channels: score = sum of weight / (k + rank).

    Args:
        weights: (channel, weight) pairs; a channel not listed weighs 1, one weighing 0 is
            left out.
        k: the rank offset.
    """

    weights: tuple[tuple[str, float], ...] = ()
    k: int = RRF_K

    def weight(self, channel: str) -> float:
        """The weight of ``channel`` (1 when not listed)."""
        return dict(self.weights).get(channel, 1.0)

    def describe(self) -> str:
        """``k=60, bm25 2, dense 0.5``: the setting, as a report prints it."""
        if not self.weights:
            return f"k={self.k}, equal weights"
        return f"k={self.k}, " + ", ".join(f"{c} {w:g}" for c, w in self.weights)

    def fuse(self, rankings: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[str, float]]:
        """One ranking from the channels' rankings.

        Args:
            rankings: (channel, ids best first) pairs; empty ones and zero-weight channels are
                left out.

        Returns:
            (id, fused score) pairs, best first; ties by id.
        """
        used = [(name, ids) for name, ids in rankings if len(ids) and self.weight(name) > 0]
        return reciprocal_rank_fusion(
            [list(ids) for _, ids in used], k=self.k, weights=[self.weight(n) for n, _ in used]
        )
