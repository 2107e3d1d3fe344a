"""The server backend: Neo4j over Bolt (driver ``neo4j``), with the same schema as the embedded
graph.

Loading sends nodes and edges in batches with ``UNWIND $rows`` (one round trip per 5,000
rows, not one CREATE per row). Reads run in READ transactions (``execute_read``), so Neo4j
itself refuses any write that got past the guard. Configure with CHEMGROUND_NEO4J_URL,
CHEMGROUND_NEO4J_USER, CHEMGROUND_NEO4J_PASSWORD and CHEMGROUND_NEO4J_DATABASE.
"""

from __future__ import annotations

import json
from typing import Any

from chemground.graph.backend import (
    GraphBackend,
    GraphCounts,
    GraphError,
    GraphQueryError,
    QueryResult,
)
from chemground.graph.export import GraphTables
from chemground.graph.schema import MOLECULE, NODES, REACTION, RELATIONSHIPS

BATCH = 5000
META_LABEL = "ChemgroundGraphMeta"


def _convert(value: Any) -> Any:
    """Neo4j driver values -> the same plain values the embedded backend returns."""
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Path):
        nodes = list(value.nodes)
        index = {node.element_id: i for i, node in enumerate(nodes)}
        return {
            "nodes": [_convert(n) for n in nodes],
            "relationships": [
                {
                    "type": r.type,
                    "start": index.get(r.start_node.element_id),
                    "end": index.get(r.end_node.element_id),
                    **{k: _convert(v) for k, v in dict(r).items()},
                }
                for r in value.relationships
            ],
        }
    if isinstance(value, Node):
        labels = sorted(value.labels)
        return {
            "label": labels[0] if labels else None,
            **{k: _convert(v) for k, v in dict(value).items()},
        }
    if isinstance(value, Relationship):
        return {"type": value.type, **{k: _convert(v) for k, v in dict(value).items()}}
    if isinstance(value, list):
        return [_convert(v) for v in value]
    if isinstance(value, dict):
        return {k: _convert(v) for k, v in value.items()}
    return value


class Neo4jBackend(GraphBackend):
    name = "neo4j"
    dialect = "neo4j"

    def __init__(
        self,
        url: str,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
    ) -> None:
        try:
            import neo4j
        except ImportError as error:
            raise GraphError("the Neo4j backend needs the driver: pip install neo4j") from error
        self._neo4j = neo4j
        self.url = url
        self.database = database
        auth = (user or "neo4j", password or "") if (user or password) else None
        try:
            self._driver = neo4j.GraphDatabase.driver(url, auth=auth)
            self._driver.verify_connectivity()
        except Exception as error:  # the driver raises many types for one cause: cannot connect
            raise GraphError(f"cannot connect to Neo4j at {url}: {error}") from error

    def _session(self, write: bool = False):
        mode = self._neo4j.WRITE_ACCESS if write else self._neo4j.READ_ACCESS
        return self._driver.session(database=self.database, default_access_mode=mode)

    # -- reading -------------------------------------------------------------------------
    def _read(
        self, cypher: str, params: dict[str, Any], limit: int, timeout_s: float
    ) -> QueryResult:
        query = self._neo4j.Query(cypher, timeout=timeout_s)

        def work(tx):
            result = tx.run(query, params)
            columns = list(result.keys())
            rows, truncated = [], False
            for record in result:
                if len(rows) >= limit:
                    truncated = True
                    break
                rows.append({c: _convert(record[c]) for c in columns})
            return columns, rows, truncated

        try:
            with self._session() as session:
                columns, rows, truncated = session.execute_read(work)
        except self._neo4j.exceptions.Neo4jError as error:
            raise GraphQueryError(
                f"Neo4j rejected the query: {error.message}", cypher, error.message or str(error)
            ) from error
        return QueryResult(columns, rows, truncated)

    def _explain(self, cypher: str) -> None:
        try:
            with self._session() as session:
                session.execute_read(lambda tx: tx.run("EXPLAIN " + cypher).consume())
        except self._neo4j.exceptions.Neo4jError as error:
            raise GraphQueryError(
                f"Neo4j rejected the query: {error.message}", cypher, error.message or str(error)
            ) from error

    # -- building ------------------------------------------------------------------------
    def _write(self, statement: str, params: dict[str, Any] | None = None) -> Any:
        with self._session(write=True) as session:
            return session.execute_write(lambda tx: tx.run(statement, params or {}).consume())

    def create_schema(self) -> None:
        for node in NODES:
            self._write(
                f"CREATE CONSTRAINT {node.label.lower()}_{node.key} IF NOT EXISTS "
                f"FOR (n:{node.label}) REQUIRE n.{node.key} IS UNIQUE"
            )

    def clear(self) -> None:
        while True:
            with self._session(write=True) as session:
                deleted = session.execute_write(
                    lambda tx: tx.run(
                        "MATCH (n) WHERE n:Molecule OR n:Reaction WITH n LIMIT 10000 DETACH DELETE "
                        "n RETURN count(*) AS n"
                    ).single()["n"]
                )
            if not deleted:
                break

    def load(self, tables: GraphTables, progress=None) -> None:
        def batches(table):
            rows = table.to_pylist()
            for start in range(0, len(rows), BATCH):
                yield rows[start : start + BATCH]

        for node, table in ((MOLECULE, tables.molecules), (REACTION, tables.reactions)):
            for rows in batches(table):
                self._write(
                    f"UNWIND $rows AS row CREATE (n:{node.label}) SET n = row", {"rows": rows}
                )
                if progress:
                    progress("load", len(rows), None)
        for rel in RELATIONSHIPS:
            source_key = MOLECULE.key if rel.source == "Molecule" else REACTION.key
            target_key = MOLECULE.key if rel.target == "Molecule" else REACTION.key
            for rows in batches(tables.edges[rel.type]):
                self._write(
                    f"UNWIND $rows AS row MATCH (a:{rel.source} {{{source_key}: row.`from`}}) "
                    f"MATCH (b:{rel.target} {{{target_key}: row.`to`}}) "
                    f"CREATE (a)-[e:{rel.type}]->(b) SET e = row {{.*, `from`: null, `to`: null}}",
                    {"rows": rows},
                )
                if progress:
                    progress("load", len(rows), None)

    def read_manifest(self) -> dict[str, Any] | None:
        with self._session() as session:
            record = session.execute_read(
                lambda tx: tx.run(f"MATCH (m:{META_LABEL}) RETURN m.manifest AS manifest").single()
            )
        return json.loads(record["manifest"]) if record and record["manifest"] else None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self._write(
            f"MERGE (m:{META_LABEL} {{id: 'chemground'}}) SET m.manifest = $manifest",
            {"manifest": json.dumps(manifest)},
        )

    def molecule_keys(self) -> set[str]:
        with self._session() as session:
            return session.execute_read(
                lambda tx: {r["k"] for r in tx.run("MATCH (m:Molecule) RETURN m.key AS k")}
            )

    def counts(self) -> GraphCounts:
        def scalar(q: str) -> int:
            with self._session() as session:
                return session.execute_read(lambda tx: tx.run(q).single()[0])

        return GraphCounts(
            molecules=scalar("MATCH (m:Molecule) RETURN count(m)"),
            reactions=scalar("MATCH (r:Reaction) RETURN count(r)"),
            edges={
                rel.type: scalar(f"MATCH ()-[e:{rel.type}]->() RETURN count(e)")
                for rel in RELATIONSHIPS
            },
        )

    def close(self) -> None:
        self._driver.close()
