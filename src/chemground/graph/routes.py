"""Deterministic route search over the reaction graph (no LLM).

A route step is Molecule -[:REACTANT_OF]-> Reaction -[:PRODUCES]-> Molecule. By default a
step follows only the reaction's *main* product (``Reaction.main_product``: the heaviest that
is not a by-product), so water, HCl or Ph3PO formed as by-products never become
"intermediates" that join unrelated reactions.

- ``find_routes``: up to k shortest routes from starting materials to a target, at most
  ``max_depth`` steps. It searches backward from the target layer by layer (one query per
  layer), then enumerates simple paths from the starts inside that explored region, shortest
  first.
- ``forward_products``: what a starting material leads to within n steps, with the shortest
  route to each product.

Both work on any backend (plain read-only Cypher) and return :class:`Route` objects that
turn into ``graph_path`` evidence.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from chemground.errors import ChemgroundError, NotFoundError
from chemground.evidence import Evidence
from chemground.graph.backend import GraphBackend

_BACKWARD = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[e:PRODUCES]->(p:Molecule) "
    "WHERE p.key IN $keys{main} RETURN m.key AS m, r.id AS r, p.key AS p"
)
_FORWARD = (
    "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[e:PRODUCES]->(p:Molecule) "
    "WHERE m.key IN $keys{main} RETURN m.key AS m, r.id AS r, p.key AS p"
)
MAX_FRONTIER = 20000
MAX_PATHS_EXPLORED = 100000


@dataclass
class Route:
    """molecules[0] -reactions[0]-> molecules[1] -> ... -> molecules[-1]."""

    molecules: list[dict[str, Any]]
    reactions: list[dict[str, Any]]

    @property
    def length(self) -> int:
        return len(self.reactions)

    @property
    def reaction_ids(self) -> list[str]:
        return [r["id"] for r in self.reactions]

    def describe(self) -> str:
        parts = [
            self.molecules[0].get("name")
            or self.molecules[0].get("smiles")
            or self.molecules[0]["key"]
        ]
        for reaction, molecule in zip(self.reactions, self.molecules[1:]):
            parts.append(
                f"--[{reaction['id']}]--> "
                f"{molecule.get('name') or molecule.get('smiles') or molecule['key']}"
            )
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "reaction_ids": self.reaction_ids,
            "molecules": self.molecules,
            "reactions": self.reactions,
        }

    def to_evidence(self, why: str = "", score: float | None = None) -> Evidence:
        return Evidence(
            kind="graph_path",
            id="route:" + ">".join(self.reaction_ids),
            score=score if score is not None else 1.0 / self.length,
            match="exact",
            record=self.to_json(),
            why=why or f"{self.length}-step route: {self.describe()}",
            retriever="graph",
            provenance={"reactions": self.reaction_ids},
        )


@dataclass
class RouteSearch:
    """What a search found and how much of the graph it looked at."""

    routes: list[Route] = field(default_factory=list)
    explored_molecules: int = 0
    queries: int = 0
    found: int = 0  # routes found before keeping the best k / limit
    truncated: bool = False  # the search itself hit a size limit


def _expand(
    graph: GraphBackend, template: str, keys: list[str], main_only: bool
) -> list[tuple[str, str, str]]:
    query = template.format(main=" AND r.main_product = p.key" if main_only else "")
    result = graph.query(query, {"keys": keys}, limit=10_000_000, trusted=True)
    return [(row["m"], row["r"], row["p"]) for row in result.rows]


def _details(graph: GraphBackend, molecule_keys: set[str], reaction_ids: set[str]):
    molecules = {}
    if molecule_keys:
        for row in graph.query(
            "MATCH (m:Molecule) WHERE m.key IN $keys RETURN m.key AS key, m.name AS name, "
            "m.smiles AS smiles",
            {"keys": sorted(molecule_keys)},
            limit=10**6,
            trusted=True,
        ).rows:
            molecules[row["key"]] = {k: v for k, v in row.items() if v is not None}
    reactions = {}
    if reaction_ids:
        for row in graph.query(
            "MATCH (r:Reaction) WHERE r.id IN $ids RETURN r.id AS id, r.source AS source, "
            "r.reaction_class AS reaction_class, r.yield_percent AS yield_percent, "
            "r.conditions AS conditions",
            {"ids": sorted(reaction_ids)},
            limit=10**6,
            trusted=True,
        ).rows:
            reactions[row["id"]] = {k: v for k, v in row.items() if v not in (None, "")}
    return molecules, reactions


def _materialise(graph: GraphBackend, raw: list[tuple[list[str], list[str]]]) -> list[Route]:
    molecule_keys = {k for mols, _ in raw for k in mols}
    reaction_ids = {r for _, rxns in raw for r in rxns}
    molecules, reactions = _details(graph, molecule_keys, reaction_ids)
    return [
        Route(
            [molecules.get(k, {"key": k}) for k in mols],
            [reactions.get(r, {"id": r}) for r in rxns],
        )
        for mols, rxns in raw
    ]


def molecules_held(graph: GraphBackend, keys: list[str]) -> set[str]:
    """The molecule keys of ``keys`` that the graph holds (all are checked: the default row limit
    of 1,000 once made 1,000+ starting materials look missing).

    Args:
        graph: the reaction graph.
        keys: molecule keys.

    Returns:
        Those the graph has a Molecule node for.
    """
    keys = list(dict.fromkeys(keys))
    return {
        row["key"]
        for row in graph.query(
            "MATCH (m:Molecule) WHERE m.key IN $keys RETURN m.key AS key",
            {"keys": keys},
            limit=len(keys) + 1,
            trusted=True,
        ).rows
    }


def _check(graph: GraphBackend, keys: list[str]) -> None:
    """Raise NotFoundError naming the keys the graph lacks."""
    found = molecules_held(graph, keys)
    missing = [k for k in dict.fromkeys(keys) if k not in found]
    if missing:
        raise NotFoundError(f"not in the reaction graph: {', '.join(missing)}")


def find_routes(
    graph: GraphBackend,
    starts: list[str],
    target: str,
    *,
    k: int = 5,
    max_depth: int = 3,
    main_only: bool = True,
) -> RouteSearch:
    """Up to ``k`` routes (shortest first) from any of ``starts`` (molecule keys) to ``target``."""
    if max_depth < 1 or k < 1:
        raise ChemgroundError("max_depth and k must be at least 1")
    if not starts:
        raise ChemgroundError("give at least one starting material")
    _check(graph, [*starts, target])
    search = RouteSearch()
    # backward layers: producers[p] = [(m, r)], dist[x] = fewest steps from x to the target
    producers: dict[str, list[tuple[str, str]]] = defaultdict(list)
    dist = {target: 0}
    frontier = [target]
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        if len(frontier) > MAX_FRONTIER:
            frontier, search.truncated = frontier[:MAX_FRONTIER], True
        edges = _expand(graph, _BACKWARD, frontier, main_only)
        search.queries += 1
        nxt = []
        for m, r, p in edges:
            if m == p:
                continue
            producers[p].append((m, r))
            if m not in dist:
                dist[m] = depth
                nxt.append(m)
        frontier = nxt
    search.explored_molecules = len(dist)
    start_set = [s for s in dict.fromkeys(starts) if s in dist and s != target]
    found: list[tuple[list[str], list[str]]] = []
    # successors inside the explored region: m -> [(r, p)]
    successors: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for p, items in producers.items():
        for m, r in items:
            successors[m].append((r, p))
    explored = 0

    def walk(node: str, molecules: list[str], reactions: list[str]) -> None:
        nonlocal explored
        explored += 1
        if explored > MAX_PATHS_EXPLORED:
            search.truncated = True
            return
        if node == target:
            found.append((list(molecules), list(reactions)))
            return
        budget = max_depth - len(reactions)
        for r, p in sorted(successors.get(node, ())):
            if p in molecules or dist.get(p, max_depth + 1) > budget - 1:
                continue
            molecules.append(p)
            reactions.append(r)
            walk(p, molecules, reactions)
            molecules.pop()
            reactions.pop()

    for start in start_set:
        walk(start, [start], [])
    unique = {tuple(r): (m, r) for m, r in found}
    search.found = len(unique)
    ranked = sorted(unique.values(), key=lambda mr: (len(mr[1]), mr[1]))[:k]
    search.routes = _materialise(graph, ranked)
    return search


def _layers(
    graph: GraphBackend, origin: str, backward: bool, max_depth: int, main_only: bool
) -> tuple[RouteSearch, dict[str, tuple[list[str], list[str]]], list[str]]:
    """Breadth-first layers from ``origin``, forward along reactions or backward against them:
    the search's counters, the shortest route found to (or from) each molecule met, and those
    molecules in the order met. Shared by ``forward_products`` and ``backward_routes``."""
    if max_depth < 1:
        raise ChemgroundError("max_depth must be at least 1")
    _check(graph, [origin])
    search = RouteSearch()
    route_of: dict[str, tuple[list[str], list[str]]] = {origin: ([origin], [])}
    frontier = [origin]
    order: list[str] = []
    for _ in range(max_depth):
        if not frontier:
            break
        if len(frontier) > MAX_FRONTIER:
            frontier, search.truncated = frontier[:MAX_FRONTIER], True
        edges = _expand(graph, _BACKWARD if backward else _FORWARD, frontier, main_only)
        search.queries += 1
        nxt = []
        for m, r, p in sorted(edges):
            known, new = (p, m) if backward else (m, p)
            if new in route_of or m == p:
                continue
            mols, rxns = route_of[known]
            route_of[new] = ([new, *mols], [r, *rxns]) if backward else ([*mols, new], [*rxns, r])
            nxt.append(new)
            order.append(new)
        frontier = nxt
    search.explored_molecules = len(route_of)
    return search, route_of, order


def forward_products(
    graph: GraphBackend, start: str, *, max_depth: int = 2, limit: int = 50, main_only: bool = True
) -> RouteSearch:
    """Molecules reachable from ``start`` in at most ``max_depth`` steps, each with its shortest
    route."""
    search, route_to, order = _layers(graph, start, False, max_depth, main_only)
    search.found = len(order)
    search.routes = _materialise(graph, [route_to[p] for p in order[:limit]])
    return search


def backward_routes(
    graph: GraphBackend, target: str, *, max_depth: int = 2, limit: int = 50, main_only: bool = True
) -> RouteSearch:
    """Routes that end in ``target``, at most ``max_depth`` steps long, shortest first: what
    "a route to X" asks when it names no starting material. Each molecule met on the way back
    starts the shortest route from it to the target (its co-reactants are the step's recipe).

    Args:
        graph: the reaction graph.
        target: the molecule key to make.
        max_depth: the longest route, in steps.
        limit: the most routes returned.
        main_only: follow only a reaction's main product (see the module docstring).

    Returns:
        The routes, one per starting molecule, shortest first.

    Raises:
        ChemgroundError: ``max_depth`` below 1.
        NotFoundError: the target is not in the graph.
    """
    search, route_from, order = _layers(graph, target, True, max_depth, main_only)
    # one route per sequence of reactions: each co-reactant of a step would start its own copy;
    # the largest molecule (in heavy atoms) starts it, the others are the step's recipe
    candidates = _materialise(graph, [route_from[m] for m in order])
    best: dict[tuple[str, ...], tuple[int, Route]] = {}
    for route in candidates:
        path = tuple(route.reaction_ids)
        size = _heavy_atoms(route.molecules[0].get("smiles"))
        if path not in best or size > best[path][0]:
            best[path] = (size, route)
    search.found = len(best)
    routes = [route for _, route in best.values()]
    search.routes = sorted(routes, key=lambda route: route.length)[:limit]
    return search


def _heavy_atoms(smiles: str | None) -> int:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles) if smiles else None
    return mol.GetNumHeavyAtoms() if mol is not None else 0
