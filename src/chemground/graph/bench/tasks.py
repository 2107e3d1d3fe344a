"""Benchmark task types: natural-language templates, a reference Cypher and how anchors are sampled.

Thirteen task types, eight single-step and five multi-step. Besides lookups and fixed-length
routes they include the three task kinds of the KG-LLM paper that need more than pattern
matching: the best-yielding reaction (aggregation and comparison), counting, and paths of at
most L steps (a union of chain lengths). Each has several question templates
(written for this benchmark; the Text2Cypher example bank is phrased differently on purpose),
a reference query built from the sampled anchors, and the anchors' expected place in the
pattern (used by the error taxonomy). The gold answer of a task is whatever the reference
returns when executed, so gold answers always agree with the graph they were made from.
Molecules are given by SMILES in the questions: identity is by structure, not by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chemground.graph.lexer import quote_string as q
from chemground.kb.records import Role

SOLVENT, REAGENT, CATALYST = "SOLVENT_OF", "REAGENT_OF", "CATALYST_OF"
# The agent relationships and the role word of each, from the one role vocabulary.
ROLE_WORD = {f"{role.name}_OF": role.value for role in (Role.SOLVENT, Role.REAGENT, Role.CATALYST)}


@dataclass(frozen=True)
class Anchor:
    """A molecule the question names, and where a correct query must attach it."""

    slot: str  # template placeholder, e.g. "product"
    rel_type: str  # relationship it must take part in
    end: str  # "source" or "target" of that relationship


@dataclass(frozen=True)
class TaskType:
    name: str
    level: str  # single | multi
    description: str
    templates: tuple[str, ...]
    anchors: tuple[Anchor, ...]
    # Cypher listing candidate anchor tuples (columns = slots); "{rel}" = each agent role in turn
    sampler: str
    reference: Callable[[dict[str, Any]], str]
    path_key: str | None = None  # column holding the ordered reaction-id path (multi-step tasks)


def _distinct(*names: str) -> str:
    """Main-product steps along the chain of molecule variables ``names`` and all of them
    distinct."""
    main = [f"r{i}.main_product = {name}.key" for i, name in enumerate(names[1:], start=1)]
    pairs = [f"{a}.key <> {b}.key" for i, a in enumerate(names) for b in names[i + 1 :]]
    return " AND ".join(main + pairs)


def _products_of_reactants(v: dict[str, Any]) -> str:
    return (
        f"MATCH (a:Molecule {{smiles: {q(v['reactant1'])}}})-[:REACTANT_OF]->(r:Reaction)"
        f"<-[:REACTANT_OF]-(b:Molecule {{smiles: {q(v['reactant2'])}}})\n"
        "MATCH (r)-[:PRODUCES]->(p:Molecule)\n"
        "RETURN DISTINCT p.smiles AS product_smiles, p.name AS product_name"
    )


def _reactants_of_product(v: dict[str, Any]) -> str:
    return (
        "MATCH (m:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule "
        f"{{smiles: {q(v['product'])}}})\n"
        "RETURN DISTINCT r.id AS reaction_id, m.smiles AS reactant_smiles, m.name AS reactant_name"
    )


def _reaction_context(v: dict[str, Any]) -> str:
    return (
        f"MATCH (:Molecule {{smiles: {q(v['reactant'])}}})-[:REACTANT_OF]->(r:Reaction)"
        f"-[:PRODUCES]->(:Molecule {{smiles: {q(v['product'])}}})\n"
        "OPTIONAL MATCH (a:Molecule)-[:REACTANT_OF]->(r)\n"
        "WITH r, collect(DISTINCT a.smiles) AS reactants\n"
        "OPTIONAL MATCH (g:Molecule)-[:REAGENT_OF]->(r)\n"
        "WITH r, reactants, collect(DISTINCT g.smiles) AS reagents\n"
        "OPTIONAL MATCH (s:Molecule)-[:SOLVENT_OF]->(r)\n"
        "WITH r, reactants, reagents, collect(DISTINCT s.smiles) AS solvents\n"
        "OPTIONAL MATCH (c:Molecule)-[:CATALYST_OF]->(r)\n"
        "WITH r, reactants, reagents, solvents, collect(DISTINCT c.smiles) AS catalysts\n"
        "OPTIONAL MATCH (r)-[:PRODUCES]->(p:Molecule)\n"
        "RETURN r.id AS reaction_id, reactants, reagents, solvents, catalysts, "
        "collect(DISTINCT p.smiles) AS products, r.yield_percent AS yield_percent, r.conditions AS "
        "conditions"
    )


def _agents_of_reaction(v: dict[str, Any]) -> str:
    role = ROLE_WORD[v["rel"]]
    return (
        f"MATCH (:Molecule {{smiles: {q(v['reactant'])}}})-[:REACTANT_OF]->(r:Reaction)"
        f"-[:PRODUCES]->(:Molecule {{smiles: {q(v['product'])}}})\n"
        f"MATCH (x:Molecule)-[:{v['rel']}]->(r)\n"
        f"RETURN DISTINCT x.smiles AS {role}_smiles, x.name AS {role}_name"
    )


def _reactions_sharing_agent(v: dict[str, Any]) -> str:
    return (
        f"MATCH (x:Molecule {{smiles: {q(v['agent'])}}})-[:{v['rel']}]->(r:Reaction)"
        "-[:PRODUCES]->(p:Molecule)\nWHERE r.main_product = p.key\n"
        "RETURN DISTINCT r.id AS reaction_id, p.smiles AS product_smiles"
    )


def _conditions_for_product(v: dict[str, Any]) -> str:
    return (
        f"MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule {{smiles: {q(v['product'])}}})\n"
        "RETURN DISTINCT r.id AS reaction_id, r.temperature_c AS temperature_c, r.time_h AS "
        "time_h, "
        "r.yield_percent AS yield_percent"
    )


_STEP = "-[:REACTANT_OF]->({r}:Reaction)-[:PRODUCES]->"


def _chain(names: list[str], first: str, last: str) -> str:
    """(s)-[:REACTANT_OF]->(r1)-[:PRODUCES]->(i1)... with given end patterns."""
    text = first
    for i, name in enumerate(names[1:], start=1):
        node = last if i == len(names) - 1 else f"({name}:Molecule)"
        text += _STEP.format(r=f"r{i}") + node
    return text


def _route(steps: int) -> Callable[[dict[str, Any]], str]:
    def build(v: dict[str, Any]) -> str:
        names = ["s", *[f"i{i}" for i in range(1, steps)], "t"]
        chain = _chain(names, "(s:Molecule)", f"(t:Molecule {{smiles: {q(v['target'])}}})")
        path = ", ".join(f"r{i}.id" for i in range(1, steps + 1))
        inter = ", ".join(f"i{i}.smiles" for i in range(1, steps))
        inter_col = (
            "i1.smiles AS intermediate_smiles" if steps == 2 else f"[{inter}] AS intermediates"
        )
        return (
            f"MATCH {chain}\nWHERE {_distinct(*names)}\n"
            f"RETURN DISTINCT s.smiles AS start_smiles, {inter_col}, [{path}] AS path"
        )

    return build


def _forward(v: dict[str, Any]) -> str:
    names = ["s", "i1", "p"]
    chain = _chain(names, f"(s:Molecule {{smiles: {q(v['start'])}}})", "(p:Molecule)")
    return (
        f"MATCH {chain}\nWHERE {_distinct(*names)}\n"
        "RETURN DISTINCT p.smiles AS product_smiles, [r1.id, r2.id] AS path"
    )


def _intermediates(v: dict[str, Any]) -> str:
    names = ["a", "i1", "b"]
    chain = _chain(
        names,
        f"(a:Molecule {{smiles: {q(v['start'])}}})",
        f"(b:Molecule {{smiles: {q(v['target'])}}})",
    )
    return (
        f"MATCH {chain}\nWHERE {_distinct(*names)}\n"
        "RETURN DISTINCT i1.smiles AS intermediate_smiles, i1.name AS intermediate_name, [r1.id, "
        "r2.id] AS path"
    )


def _best_yield(v: dict[str, Any]) -> str:
    """All reactions making the product whose yield equals the best recorded one (ties kept)."""
    making = f"MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule {{smiles: {q(v['product'])}}})\n"
    return (
        f"{making}WHERE r.yield_percent IS NOT NULL\n"
        "WITH max(r.yield_percent) AS best\n"
        f"{making}WHERE r.yield_percent = best\n"
        "RETURN DISTINCT r.id AS reaction_id, r.yield_percent AS yield_percent"
    )


def _count_with_agent(v: dict[str, Any]) -> str:
    return (
        f"MATCH (x:Molecule {{smiles: {q(v['agent'])}}})-[:{v['rel']}]->(r:Reaction)\n"
        "RETURN count(DISTINCT r.id) AS reaction_count"
    )


def _routes_up_to(v: dict[str, Any]) -> str:
    """Main-product chains of 1 to ``max_steps`` steps from start to target, one UNION branch
    per length (each branch returns the ordered reaction ids as ``path``)."""
    branches = []
    for steps in range(1, int(v["max_steps"]) + 1):
        names = ["s", *[f"i{i}" for i in range(1, steps)], "t"]
        chain = _chain(
            names,
            f"(s:Molecule {{smiles: {q(v['start'])}}})",
            f"(t:Molecule {{smiles: {q(v['target'])}}})",
        )
        path = ", ".join(f"r{i}.id" for i in range(1, steps + 1))
        branches.append(
            f"MATCH {chain}\nWHERE {_distinct(*names)}\nRETURN DISTINCT [{path}] AS path"
        )
    return "\nUNION\n".join(branches)


_TWO_STEP = (
    "MATCH (s:Molecule)-[:REACTANT_OF]->(r1:Reaction)-[:PRODUCES]->(i1:Molecule)"
    "-[:REACTANT_OF]->(r2:Reaction)-[:PRODUCES]->(t:Molecule) WHERE "
    + _distinct("s", "i1", "t")
    + " "
)

TASK_TYPES: tuple[TaskType, ...] = (
    TaskType(
        "products_of_reactants",
        "single",
        "products formed from two given reactants",
        (
            "What products are formed when {reactant1} reacts with {reactant2}? Give each "
            "product's SMILES and name.",
            "Which compounds are obtained from a reaction of {reactant1} and {reactant2}? List "
            "product SMILES and names.",
            "{reactant1} and {reactant2} are combined as reactants. Which products (SMILES, name) "
            "result?",
        ),
        (
            Anchor("reactant1", "REACTANT_OF", "source"),
            Anchor("reactant2", "REACTANT_OF", "source"),
        ),
        "MATCH (a:Molecule)-[:REACTANT_OF]->(r:Reaction)<-[:REACTANT_OF]-(b:Molecule) WHERE a.key "
        "< b.key "
        "AND a.smiles IS NOT NULL AND b.smiles IS NOT NULL "
        "RETURN DISTINCT a.smiles AS reactant1, b.smiles AS reactant2",
        _products_of_reactants,
    ),
    TaskType(
        "reactants_of_product",
        "single",
        "reactants of the reactions that make a product",
        (
            "Which reactants are used to make {product}? Give the reaction id and each reactant's "
            "SMILES and name.",
            "List the starting materials (SMILES and name) of every reaction that yields "
            "{product}, with the reaction id.",
            "From what reactants can {product} be prepared? Report reaction ids and reactant "
            "SMILES and names.",
        ),
        (Anchor("product", "PRODUCES", "target"),),
        "MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule) WHERE p.smiles IS NOT NULL "
        "RETURN DISTINCT p.smiles AS product",
        _reactants_of_product,
    ),
    TaskType(
        "reaction_context",
        "single",
        "the full context of the reaction turning a reactant into a product",
        (
            "Give the full context of the reaction converting {reactant} into {product}: reaction "
            "id, all reactants, "
            "reagents, solvents, catalysts, products, the yield and the conditions.",
            "For the transformation of {reactant} to {product}, list the reaction id, reactants, "
            "reagents, solvents, "
            "catalysts and products, plus yield and conditions.",
            "Describe every component of the reaction that makes {product} from {reactant} "
            "(reactants, reagents, "
            "solvents, catalysts, products) together with its id, yield and conditions.",
        ),
        (Anchor("reactant", "REACTANT_OF", "source"), Anchor("product", "PRODUCES", "target")),
        "MATCH (a:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule) "
        "WHERE r.main_product = p.key AND a.smiles IS NOT NULL AND p.smiles IS NOT NULL AND a.key "
        "<> p.key "
        "RETURN DISTINCT a.smiles AS reactant, p.smiles AS product",
        _reaction_context,
    ),
    TaskType(
        "agents_of_reaction",
        "single",
        "the solvents, reagents or catalysts of a reaction",
        (
            "Which {role}s are used in the reaction that converts {reactant} into {product}? Give "
            "SMILES and names.",
            "Name the {role}s (SMILES and name) of the reaction turning {reactant} into {product}.",
            "In the preparation of {product} from {reactant}, what {role}s are employed? List "
            "SMILES and names.",
        ),
        (Anchor("reactant", "REACTANT_OF", "source"), Anchor("product", "PRODUCES", "target")),
        "MATCH (a:Molecule)-[:REACTANT_OF]->(r:Reaction)-[:PRODUCES]->(p:Molecule) "
        "WHERE r.main_product = p.key AND a.smiles IS NOT NULL AND p.smiles IS NOT NULL AND a.key "
        "<> p.key "
        "MATCH (x:Molecule)-[:{rel}]->(r) RETURN DISTINCT a.smiles AS reactant, p.smiles AS "
        "product",
        _agents_of_reaction,
    ),
    TaskType(
        "reactions_sharing_agent",
        "single",
        "reactions that share a solvent, reagent or catalyst",
        (
            "Which reactions use {agent} as a {role}? Give each reaction id and the SMILES of its "
            "main product.",
            "List the reaction ids, with main-product SMILES, of all reactions where {agent} "
            "serves as {role}.",
            "Find every reaction employing {agent} as its {role}; report reaction id and main "
            "product SMILES.",
        ),
        (Anchor("agent", "{rel}", "source"),),
        "MATCH (x:Molecule)-[:{rel}]->(r:Reaction) WHERE x.smiles IS NOT NULL RETURN DISTINCT "
        "x.smiles AS agent",
        _reactions_sharing_agent,
    ),
    TaskType(
        "conditions_for_product",
        "single",
        "conditions and yields of the reactions making a product",
        (
            "Under which conditions is {product} made? Give reaction id, temperature (°C), time "
            "(h) and yield (%).",
            "Report the temperature in °C, the reaction time in hours and the yield of each "
            "reaction producing "
            "{product}, with its reaction id.",
            "What temperatures, times and yields are recorded for reactions that give {product}? "
            "Include reaction ids.",
        ),
        (Anchor("product", "PRODUCES", "target"),),
        "MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule) WHERE p.smiles IS NOT NULL AND "
        "(r.yield_percent IS NOT NULL OR r.temperature_c IS NOT NULL OR r.time_h IS NOT NULL) "
        "RETURN DISTINCT p.smiles AS product",
        _conditions_for_product,
    ),
    TaskType(
        "route_2_step",
        "multi",
        "two-step routes to a target",
        (
            "Find two-step synthesis routes to {target}: give the starting material SMILES, the "
            "intermediate SMILES "
            "and the ordered pair of reaction ids.",
            "How can {target} be made in exactly two steps? Report start SMILES, intermediate "
            "SMILES and the reaction "
            "id path.",
            "List every 2-step route ending in {target} with its starting material, intermediate "
            "(SMILES) and reaction "
            "ids in order.",
        ),
        (Anchor("target", "PRODUCES", "target"),),
        _TWO_STEP
        + "AND s.smiles IS NOT NULL AND t.smiles IS NOT NULL RETURN DISTINCT t.smiles AS target",
        _route(2),
        path_key="path",
    ),
    TaskType(
        "route_3_step",
        "multi",
        "three-step routes to a target",
        (
            "Find three-step synthesis routes to {target}: starting material SMILES, intermediates "
            "and the ordered "
            "reaction ids.",
            "How can {target} be reached in exactly three reaction steps? Give start SMILES, "
            "intermediate SMILES and "
            "the reaction id path.",
            "List all 3-step routes that end in {target}, with starting material, intermediates "
            "and reaction ids in "
            "order.",
        ),
        (Anchor("target", "PRODUCES", "target"),),
        "MATCH (s:Molecule)-[:REACTANT_OF]->(r1:Reaction)-[:PRODUCES]->(i1:Molecule)"
        "-[:REACTANT_OF]->(r2:Reaction)-[:PRODUCES]->(i2:Molecule)-[:REACTANT_OF]->(r3:Reaction)"
        "-[:PRODUCES]->(t:Molecule) WHERE "
        + _distinct("s", "i1", "i2", "t")
        + " AND t.smiles IS NOT NULL RETURN DISTINCT t.smiles AS target",
        _route(3),
        path_key="path",
    ),
    TaskType(
        "forward_2_steps",
        "multi",
        "what a starting material leads to in two steps",
        (
            "What can be made from {start} in two reaction steps? Give the final product SMILES "
            "and the ordered "
            "reaction ids.",
            "Starting from {start}, which products are reached after exactly two steps? Report "
            "product SMILES and the "
            "reaction id path.",
            "List the two-step downstream products of {start} with the two reaction ids in order.",
        ),
        (Anchor("start", "REACTANT_OF", "source"),),
        _TWO_STEP + "AND s.smiles IS NOT NULL RETURN DISTINCT s.smiles AS start",
        _forward,
        path_key="path",
    ),
    TaskType(
        "intermediates_between",
        "multi",
        "intermediates between two molecules",
        (
            "Which intermediates connect {start} to {target} in two steps? Give intermediate "
            "SMILES and names and the "
            "reaction ids in order.",
            "{start} is converted into {target} via one intermediate. Which intermediate (SMILES, "
            "name), through which "
            "reactions (ids in order)?",
            "Find the molecules lying between {start} and {target} on two-step routes, with their "
            "names and the "
            "ordered reaction ids.",
        ),
        (Anchor("start", "REACTANT_OF", "source"), Anchor("target", "PRODUCES", "target")),
        _TWO_STEP + "AND s.smiles IS NOT NULL AND t.smiles IS NOT NULL "
        "RETURN DISTINCT s.smiles AS start, t.smiles AS target",
        _intermediates,
        path_key="path",
    ),
    TaskType(
        "best_yielding_reaction",
        "single",
        "the reaction that makes a product in the highest recorded yield",
        (
            "Which reaction gives {product} in the highest yield? Report its reaction id and the "
            "yield (%).",
            "Of the recorded preparations of {product}, which has the best yield? Give reaction id "
            "and yield.",
            "Best-yielding one-step preparation of {product}: reaction id and yield percent?",
        ),
        (Anchor("product", "PRODUCES", "target"),),
        "MATCH (r:Reaction)-[:PRODUCES]->(p:Molecule) WHERE p.smiles IS NOT NULL AND "
        "r.yield_percent IS NOT NULL WITH p.smiles AS product, count(DISTINCT r.id) AS n "
        "WHERE n >= 2 RETURN product",
        _best_yield,
    ),
    TaskType(
        "count_reactions_with_agent",
        "single",
        "how many reactions use a given solvent, reagent or catalyst",
        (
            "How many reactions use {agent} as a {role}?",
            "Count the reactions in which {agent} serves as {role}.",
            "In how many recorded reactions is {agent} employed as the {role}? Give the number.",
        ),
        (Anchor("agent", "{rel}", "source"),),
        "MATCH (x:Molecule)-[:{rel}]->(r:Reaction) WHERE x.smiles IS NOT NULL RETURN DISTINCT "
        "x.smiles AS agent",
        _count_with_agent,
    ),
    TaskType(
        "routes_up_to_L_steps",
        "multi",
        "all routes of at most L steps between two molecules",
        (
            "List every route of at most {max_steps} steps from {start} to {target}, each as the "
            "ordered list of reaction ids.",
            "How can {start} be turned into {target} in {max_steps} steps or fewer? Give the "
            "reaction id path of each route.",
            "Find all synthesis paths from {start} to {target} with no more than {max_steps} "
            "reactions; report the reaction ids in order.",
        ),
        (Anchor("start", "REACTANT_OF", "source"), Anchor("target", "PRODUCES", "target")),
        _TWO_STEP + "AND s.smiles IS NOT NULL AND t.smiles IS NOT NULL "
        "RETURN DISTINCT s.smiles AS start, t.smiles AS target, 3 AS max_steps",
        _routes_up_to,
        path_key="path",
    ),
)

TASK_BY_NAME = {t.name: t for t in TASK_TYPES}
