"""Route-search latency on the ORD graph (target: p50 <= 50 ms for depth 3).

Run: python benchmarks/graph_routes.py

Pairs (start, target) are sampled from real 3-step chains of the graph, so every search has
an answer at depth 3; forward search from the same starts is timed too. The graph is opened
read-only once, as a long-lived tool would.
"""

from __future__ import annotations

import random
import statistics
import time

from graph_common import DEFAULT_KB, machine_note, ord_kb, write_section

from chemground.graph.build import build_graph
from chemground.graph.config import open_graph
from chemground.graph.routes import find_routes, forward_products
from chemground.settings import GraphSettings

SAMPLES = 100


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def main() -> None:
    kb = ord_kb(DEFAULT_KB)
    build_graph(kb, settings=GraphSettings())
    graph = open_graph(kb)
    chains = graph.query(
        "MATCH (s:Molecule)-[:REACTANT_OF]->(r1:Reaction)-[:PRODUCES]->(i1:Molecule)-[:REACTANT_OF]->"
        "(r2:Reaction)-[:PRODUCES]->(i2:Molecule)-[:REACTANT_OF]->(r3:Reaction)-[:PRODUCES]->"
        "(t:Molecule) WHERE r1.main_product = i1.key AND r2.main_product = i2.key AND "
        "r3.main_product = t.key AND s.key <> i1.key AND s.key <> i2.key AND s.key <> t.key AND "
        "i1.key <> i2.key "
        "AND i1.key <> t.key AND i2.key <> t.key RETURN DISTINCT s.key AS s, t.key AS t",
        limit=100000,
    ).rows
    pairs = sorted((r["s"], r["t"]) for r in chains)
    random.Random(0).shuffle(pairs)
    pairs = pairs[:SAMPLES]
    find_routes(graph, [pairs[0][0]], pairs[0][1], k=5, max_depth=3)  # warm-up
    route_ms, forward_ms, found = [], [], 0
    for start, target in pairs:
        t0 = time.perf_counter()
        search = find_routes(graph, [start], target, k=5, max_depth=3)
        route_ms.append((time.perf_counter() - t0) * 1000)
        found += bool(search.routes)
        t0 = time.perf_counter()
        forward_products(graph, start, max_depth=3, limit=50)
        forward_ms.append((time.perf_counter() - t0) * 1000)
    graph.close()
    lines = [
        "| search | queries | p50 (ms) | p95 (ms) | max (ms) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, values in (
        ("routes start -> target, k=5, depth 3", route_ms),
        ("forward products, depth 3", forward_ms),
    ):
        lines.append(
            f"| {name} | {len(values)} | {statistics.median(values):.1f} | "
            f"{percentile(values, 0.95):.1f} | "
            f"{max(values):.1f} |"
        )
    table = "\n".join(lines)
    print(table)
    print(f"routes found for {found}/{len(pairs)} pairs")
    write_section(
        "routes",
        f"""## Route search latency (ORD graph, LadybugDB)

{machine_note()}
{len(pairs)} (start, target) pairs sampled (seed 0) from the graph's 3-step main-product chains; routes found for
{found}/{len(pairs)}. Target: p50 <= 50 ms at depth 3.

{table}

Script: `python benchmarks/graph_routes.py`.""",
    )


if __name__ == "__main__":
    main()
