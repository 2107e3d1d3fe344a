"""chemground's retrieval channels as tools: table RAG, route search, literature search and
read-only graph queries, so an agent can ground its steps in the same evidence ``ask`` uses."""

from __future__ import annotations

from chemground.agent.registry import P, ToolContext, tool
from chemground.graph.schema import schema_line


@tool(
    "chemground/ask_knowledge_base",
    "Answer a question about compounds or reactions from chemground's knowledge base with the "
    "table retriever "
    "and the extractive reasoner (no LLM): products or reactants of a reaction, its solvent, "
    "catalyst, temperature, "
    "time or yield, a compound's molecular weight, formula, SMILES, IUPAC name, synonyms or "
    "description. Returns "
    "the answer with the evidence records it stands on.",
    [
        P(
            "question",
            "string",
            "The question, naming compounds by name or SMILES.",
            examples=[
                "What forms when benzaldehyde reacts with benzohydrazide?",
                "Which solvent is used to make aspirin?",
            ],
        ),
        P(
            "k",
            "integer",
            "How many evidence records to retrieve.",
            required=False,
            default=5,
            minimum=1,
            maximum=20,
            examples=[5],
        ),
    ],
    (
        "object",
        "{'answer', 'value', 'status', 'aspect', 'evidence': [the KB records, as Evidence JSON: "
        "{'kind', 'id', 'match', 'why', 'record', ...}]}",
    ),
    needs_kb=True,
    timeout_s=60,
    tags=["knowledge base", "reaction", "compound", "retrieval"],
)
def ask_knowledge_base(ctx: ToolContext, question: str, k: int = 5) -> dict:
    answer = ctx.qa.ask(question, k=k)
    return {
        "answer": answer.answer,
        "value": answer.value,
        "status": answer.status,
        "aspect": answer.aspect,
        # the records themselves, so an agent's answer cites the KB rows it rests on
        "evidence": [e.to_json() for e in answer.evidence],
    }


@tool(
    "chemground/find_routes",
    "Find shortest multi-step reaction routes in chemground's reaction graph from a starting "
    "material to a target "
    "(or, without a target, what the starting material leads to). Deterministic graph search, no "
    "LLM.",
    [
        P("start", "string", "Starting material (name or SMILES).", examples=["4-nitrophenol"]),
        P(
            "target",
            "string",
            "Target compound (name or SMILES); empty to search forward.",
            required=False,
            default="",
            examples=["paracetamol"],
        ),
        P(
            "max_depth",
            "integer",
            "Most reaction steps in a route.",
            required=False,
            default=3,
            minimum=1,
            maximum=5,
            examples=[3],
        ),
        P(
            "k",
            "integer",
            "How many routes.",
            required=False,
            default=5,
            minimum=1,
            maximum=20,
            examples=[5],
        ),
    ],
    ("array", "routes, each {'length', 'reaction_ids', 'molecules', 'reactions'}"),
    needs_kb=True,
    timeout_s=120,
    tags=["route", "synthesis", "graph", "multi-step"],
)
def find_routes(
    ctx: ToolContext, start: str, target: str = "", max_depth: int = 3, k: int = 5
) -> list:
    from chemground.graph.resolve import molecule_key_for
    from chemground.graph.routes import find_routes as search_routes
    from chemground.graph.routes import forward_products
    from chemground.retrieval.graph import GraphAccess

    workspace = ctx.workspace
    graph = GraphAccess(workspace).graph()
    start_key = molecule_key_for(start, workspace.resolver, workspace.kb)
    if target:
        result = search_routes(
            graph,
            [start_key],
            molecule_key_for(target, workspace.resolver, workspace.kb),
            k=k,
            max_depth=max_depth,
        )
    else:
        result = forward_products(graph, start_key, max_depth=max_depth, limit=k)
    return [route.to_json() for route in result.routes]


@tool(
    "chemground/search_literature",
    "Search the papers added to chemground (chemground lit add) for passages answering a question; "
    "hybrid BM25, "
    "dense and compound-mention search. Returns cited passages.",
    [
        P(
            "question",
            "string",
            "What to look for.",
            examples=["Why is MgCCMg less nucleophilic than a Grignard reagent?"],
        ),
        P(
            "k",
            "integer",
            "How many passages.",
            required=False,
            default=5,
            minimum=1,
            maximum=20,
            examples=[5],
        ),
    ],
    ("array", "passages, each {'chunk_id', 'document', 'location', 'snippet', 'score'}"),
    needs_kb=True,
    timeout_s=120,
    tags=["literature", "papers", "retrieval"],
)
def search_literature(ctx: ToolContext, question: str, k: int = 5) -> list:
    from chemground.reasoning.query import QueryTuple
    from chemground.retrieval.graph import LiteratureRetriever

    evidence = LiteratureRetriever(ctx.workspace).retrieve(
        QueryTuple(question=question, level="compound", aspect=None), k
    )
    return [
        {
            "chunk_id": e.id,
            "document": e.record.get("title") or e.record.get("path"),
            "location": e.record.get("location"),
            "snippet": e.record.get("snippet"),
            "score": e.score,
        }
        for e in evidence
    ]


@tool(
    "chemground/query_reaction_graph",
    f"Run a read-only Cypher query on chemground's reaction graph: {schema_line()}. Edges point "
    "along the synthesis (into a reaction from its inputs, out of it to its products). Write "
    "and admin clauses are refused.",
    [
        P(
            "cypher",
            "string",
            "A read-only Cypher query.",
            examples=[
                "MATCH (m:Molecule {name: 'aspirin'})<-[:PRODUCES]-(r:Reaction) RETURN r.id LIMIT 5"
            ],
        ),
        P(
            "limit",
            "integer",
            "Most rows returned.",
            required=False,
            default=50,
            minimum=1,
            maximum=500,
            examples=[50],
        ),
    ],
    ("array", "result rows as objects"),
    needs_kb=True,
    timeout_s=120,
    tags=["graph", "cypher", "reaction"],
)
def query_reaction_graph(ctx: ToolContext, cypher: str, limit: int = 50) -> list:
    from chemground.graph.readonly import ensure_read_only
    from chemground.retrieval.graph import GraphAccess

    ensure_read_only(cypher)
    return GraphAccess(ctx.workspace).graph().query(cypher, limit=limit).rows
