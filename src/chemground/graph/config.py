"""Where the reaction graph lives and which engine holds it.

The embedded graph sits next to the knowledge base (``<kb>.graph/graph.lbug``) so one
``--kb`` flag picks both. Neo4j is used when asked for (``--backend neo4j`` or
CHEMGROUND_GRAPH_BACKEND=neo4j) and configured with CHEMGROUND_NEO4J_URL (+ _USER,
_PASSWORD, _DATABASE). These settings are read from the environment like the main Settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from chemground.errors import ConfigError
from chemground.graph.backend import GraphBackend, GraphError

GRAPH_FILE = "graph.lbug"
MANIFEST_FILE = "manifest.json"


class GraphSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CHEMGROUND_", extra="ignore")

    graph_backend: Literal["ladybug", "neo4j"] = "ladybug"
    graph_dir: Path | None = Field(default=None, description="folder of the embedded graph (default <kb>.graph)")
    neo4j_url: str | None = None
    neo4j_user: str | None = None
    neo4j_password: str | None = Field(default=None, repr=False)
    neo4j_database: str | None = None


def graph_dir_for(kb_path: Path, settings: GraphSettings | None = None) -> Path:
    settings = settings or GraphSettings()
    if settings.graph_dir is not None:
        return Path(settings.graph_dir).expanduser()
    kb_path = Path(kb_path)
    return kb_path.with_name(kb_path.name + ".graph")


def open_neo4j(settings: GraphSettings) -> GraphBackend:
    if not settings.neo4j_url:
        raise ConfigError("the Neo4j backend needs a server: set CHEMGROUND_NEO4J_URL (e.g. bolt://localhost:7687) "
                          "and CHEMGROUND_NEO4J_USER / CHEMGROUND_NEO4J_PASSWORD")
    from chemground.graph.neo4j_backend import Neo4jBackend

    return Neo4jBackend(settings.neo4j_url, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)


def open_graph(kb_path: Path, backend: str | None = None, settings: GraphSettings | None = None,
               readonly: bool = True) -> GraphBackend:
    """The reaction graph built from the KB at ``kb_path`` (read-only unless asked otherwise)."""
    settings = settings or GraphSettings()
    backend = backend or settings.graph_backend
    if backend == "neo4j":
        return open_neo4j(settings)
    if backend != "ladybug":
        raise ConfigError(f"unknown graph backend {backend!r}; choose ladybug or neo4j")
    from chemground.graph.ladybug_backend import LadybugBackend

    path = graph_dir_for(kb_path, settings) / GRAPH_FILE
    if not path.exists():
        raise GraphError(f"no reaction graph for {kb_path} (looked for {path}); build it with `chemground graph build`")
    return LadybugBackend(path, readonly=readonly)
