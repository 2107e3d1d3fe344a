"""Deterministic route search on the starter graph."""

from __future__ import annotations

import pytest

from chemground.errors import NotFoundError
from chemground.graph.routes import find_routes, forward_products

NITROBENZENE = "LQNUZADURLCDLV-UHFFFAOYSA-N"
ANILINE = "PAYRUJLWNCNPSJ-UHFFFAOYSA-N"
ACETANILIDE = "FZERHIULMFGESH-UHFFFAOYSA-N"


def test_routes_between_start_and_target(graph):
    search = find_routes(graph, [NITROBENZENE], ACETANILIDE, k=3, max_depth=3)
    assert search.routes, "nitrobenzene -> aniline -> acetanilide is in the starter set"
    best = search.routes[0]
    assert best.length == 2 and [m["key"] for m in best.molecules] == [
        NITROBENZENE,
        ANILINE,
        ACETANILIDE,
    ]
    assert all(r.length <= 3 for r in search.routes)
    assert [r.length for r in search.routes] == sorted(r.length for r in search.routes)
    evidence = best.to_evidence()
    assert evidence.kind == "graph_path" and evidence.record["reaction_ids"] == best.reaction_ids
    assert find_routes(graph, [NITROBENZENE], ACETANILIDE, max_depth=1).routes == []


def test_forward_products(graph):
    search = forward_products(graph, NITROBENZENE, max_depth=2, limit=100)
    reached = {r.molecules[-1]["key"]: r for r in search.routes}
    assert ANILINE in reached and reached[ANILINE].length == 1
    assert ACETANILIDE in reached and reached[ACETANILIDE].length == 2
    assert (
        "XLYOFNOQVPJJNP-UHFFFAOYSA-N" not in reached
    )  # water is a by-product, not followed by default


def test_unknown_molecule_is_a_clear_error(graph):
    with pytest.raises(NotFoundError, match="not in the reaction graph"):
        find_routes(graph, ["AAAAAAAAAAAAAA-UHFFFAOYSA-N"], ACETANILIDE)


def test_more_than_a_thousand_starting_materials_are_all_checked():
    """The start check ran with the default 1,000-row limit, so 1,000+ known starts raised a false
    'not in the graph' (issue 20). A graph that honours the row limit, as the engines do."""
    from types import SimpleNamespace

    from chemground.graph.routes import _check

    class Graph:
        def query(self, query, params=None, limit=1000, trusted=False):
            rows = [{"key": key} for key in params["keys"]][:limit]
            return SimpleNamespace(rows=rows)

    keys = [f"KEY-{i}" for i in range(2500)]
    _check(Graph(), keys)  # no NotFoundError: all 2,500 are there
    with pytest.raises(NotFoundError, match="KEY-2500"):

        class Partial(Graph):
            def query(self, query, params=None, limit=1000, trusted=False):
                return super().query(query, {"keys": keys}, limit, trusted)

        _check(Partial(), [*keys, "KEY-2500"])
