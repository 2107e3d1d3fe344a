"""The reaction graph's schema: one definition used by every backend, the exporter and the prompts.

The graph is bipartite: ``Molecule`` and ``Reaction`` nodes. Edge direction is the
synthesis flow: every input of a reaction points INTO it (``REACTANT_OF``, ``REAGENT_OF``,
``SOLVENT_OF``, ``CATALYST_OF``) and the reaction points OUT to what it makes
(``PRODUCES``), so a synthesis route is a directed path Molecule -> Reaction -> Molecule -> ...
Keeping the schema in one place means the Cypher the LLM sees, the DDL of LadybugDB, the
constraints of Neo4j and the directionality corrector can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from chemground.kb.records import Role

# 3: main_product skips stoichiometric by-products; 4: bromoform and chloroform among them.
# A new version makes every cached graph rebuild.
SCHEMA_VERSION = "4"


@dataclass(frozen=True)
class Property:
    name: str
    type: str  # STRING | DOUBLE | INT64 | BOOLEAN (LadybugDB type names)
    description: str


@dataclass(frozen=True)
class NodeType:
    label: str
    key: str
    properties: tuple[Property, ...]
    description: str


@dataclass(frozen=True)
class RelType:
    type: str
    source: str  # label of the node the edge starts at
    target: str  # label of the node the edge ends at
    role: Role
    properties: tuple[Property, ...]
    description: str


MOLECULE = NodeType(
    label="Molecule",
    key="key",
    description="a compound (one node per structure, identified by InChIKey)",
    properties=(
        Property(
            "key",
            "STRING",
            "unique id: the InChIKey, or 'compound:<kb id>' for a compound without a structure",
        ),
        Property("inchikey", "STRING", "standard InChIKey (null when no structure is known)"),
        Property("smiles", "STRING", "RDKit canonical SMILES"),
        Property("name", "STRING", "preferred name (common name, else IUPAC name)"),
        Property("iupac_name", "STRING", "IUPAC name"),
        Property("formula", "STRING", "molecular formula"),
        Property("molecular_weight", "DOUBLE", "molecular weight in g/mol"),
        Property("compound_id", "INT64", "id of the compound in the knowledge base"),
    ),
)

REACTION = NodeType(
    label="Reaction",
    key="id",
    description="one reaction as reported by its source",
    properties=(
        Property("id", "STRING", "reaction id in the knowledge base"),
        Property(
            "source",
            "STRING",
            "where it was reported (patent number, dataset, 'chemground starter set')",
        ),
        Property("dataset", "STRING", "dataset label"),
        Property("title", "STRING", "short title"),
        Property("reaction_class", "STRING", "named reaction class, when known"),
        Property("reaction_smiles", "STRING", "reaction SMILES reactants>agents>products"),
        Property("yield_percent", "DOUBLE", "reported yield in %"),
        Property("temperature_c", "DOUBLE", "temperature in degrees Celsius"),
        Property("temperature_text", "STRING", "temperature as words (e.g. 'reflux', 'ambient')"),
        Property("time_h", "DOUBLE", "reaction time in hours"),
        Property("pressure_bar", "DOUBLE", "pressure in bar"),
        Property("ph", "DOUBLE", "pH"),
        Property("atmosphere", "STRING", "atmosphere (e.g. 'N2', 'H2')"),
        Property("conditions", "STRING", "all conditions as one readable line"),
        Property(
            "main_product",
            "STRING",
            "key of the main product (the heaviest that is not a by-product such as Ph3PO); a "
            "synthesis step follows it",
        ),
    ),
)

_AMOUNT = Property("amount", "STRING", "amount as written by the source")

RELATIONSHIPS: tuple[RelType, ...] = (
    RelType(
        "REACTANT_OF",
        "Molecule",
        "Reaction",
        Role.REACTANT,
        (_AMOUNT,),
        "the molecule is a reactant (starting material) of the reaction",
    ),
    RelType(
        "REAGENT_OF",
        "Molecule",
        "Reaction",
        Role.REAGENT,
        (_AMOUNT,),
        "the molecule is a reagent/agent (base, acid, oxidant, coupling agent...) of the reaction",
    ),
    RelType(
        "SOLVENT_OF",
        "Molecule",
        "Reaction",
        Role.SOLVENT,
        (_AMOUNT,),
        "the molecule is a solvent of the reaction",
    ),
    RelType(
        "CATALYST_OF",
        "Molecule",
        "Reaction",
        Role.CATALYST,
        (_AMOUNT,),
        "the molecule is a catalyst of the reaction",
    ),
    RelType(
        "PRODUCES",
        "Reaction",
        "Molecule",
        Role.PRODUCT,
        (_AMOUNT,),
        "the reaction produces the molecule",
    ),
)

NODES: tuple[NodeType, ...] = (MOLECULE, REACTION)
REL_BY_TYPE = {rel.type: rel for rel in RELATIONSHIPS}
REL_BY_ROLE = {rel.role: rel for rel in RELATIONSHIPS}


def schema_line() -> str:
    """The graph in one line, from the definitions above (tool descriptions and docs use it, so
    they cannot drift from the real labels and properties, as ``AGENT_OF`` once did)."""
    inputs = "|".join(rel.type for rel in RELATIONSHIPS if rel.target == REACTION.label)
    molecule = ", ".join(p.name for p in MOLECULE.properties[:4])
    reaction = ", ".join(
        p.name
        for p in REACTION.properties
        if p.name
        in (
            "id",
            "source",
            "yield_percent",
            "temperature_c",
            "time_h",
            "conditions",
            "main_product",
        )
    )
    return (
        f"(:Molecule {{{molecule}, ...}}) -[:{inputs}]-> (:Reaction {{{reaction}, ...}}) "
        "-[:PRODUCES]-> (:Molecule)"
    )


NODE_BY_LABEL = {node.label: node for node in NODES}
INPUT_RELS = tuple(rel.type for rel in RELATIONSHIPS if rel.source == "Molecule")


def ladybug_ddl() -> list[str]:
    """CREATE statements for LadybugDB (node and relationship tables must be declared)."""
    statements = []
    for node in NODES:
        columns = ", ".join(f"{p.name} {p.type}" for p in node.properties)
        statements.append(f"CREATE NODE TABLE {node.label}({columns}, PRIMARY KEY({node.key}))")
    for rel in RELATIONSHIPS:
        columns = "".join(f", {p.name} {p.type}" for p in rel.properties)
        statements.append(
            f"CREATE REL TABLE {rel.type}(FROM {rel.source} TO {rel.target}{columns})"
        )
    return statements


def describe_schema() -> str:
    """The schema as the LLM sees it: node labels, properties and the direction of every edge."""
    lines = ["Node labels:"]
    for node in NODES:
        lines.append(f"- (:{node.label}) {node.description}; properties:")
        lines.extend(f"    {p.name} ({p.type}): {p.description}" for p in node.properties)
    lines.append("Relationships (the arrow is the synthesis flow; no other directions exist):")
    for rel in RELATIONSHIPS:
        props = ", ".join(f"{p.name} ({p.type})" for p in rel.properties)
        lines.append(
            f"- (:{rel.source})-[:{rel.type}]->(:{rel.target})  {rel.description}; properties: "
            f"{props}"
        )
    return "\n".join(lines)


# Properties the generation prompt lists (the rest are rarely asked for and cost tokens).
_COMPACT = {
    "Molecule": ("key", "smiles", "name", "formula", "molecular_weight"),
    "Reaction": (
        "id",
        "title",
        "reaction_class",
        "yield_percent",
        "temperature_c",
        "time_h",
        "atmosphere",
        "conditions",
        "main_product",
    ),
}


def describe_schema_compact() -> str:
    """The schema in five lines for the generation and review prompts: labels with their
    commonly asked properties and the one direction of every edge.

    The full description (``describe_schema``) is about 700 tokens; a small local model reads a
    prompt at 30-100 tokens/s on one CPU thread, so every line the model does not need costs
    seconds per question. Built from the same definitions, so it cannot drift from them.
    """
    lines = []
    for node in NODES:
        props = ", ".join(
            f"{p.name}" + (" (InChIKey)" if (node.label, p.name) == ("Molecule", "key") else "")
            for p in node.properties
            if p.name in _COMPACT[node.label]
        )
        lines.append(f"(:{node.label} {{{props}}})")
    inputs = "|".join(rel.type for rel in RELATIONSHIPS if rel.target == REACTION.label)
    lines.append(f"(:Molecule)-[:{inputs}]->(:Reaction)  inputs point INTO a reaction")
    lines.append("(:Reaction)-[:PRODUCES]->(:Molecule)  a reaction points OUT to its products")
    lines.append("Reaction.main_product = key of its main product; a synthesis step follows it.")
    return "\n".join(lines)
