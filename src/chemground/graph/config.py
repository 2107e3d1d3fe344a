"""Where the reaction graph lives and which engine holds it.

The embedded graph sits next to the knowledge base (``<kb>.graph/graph.lbug``) so one
``--kb`` flag picks both. Neo4j is used when asked for (``--backend neo4j`` or
CHEMGROUND_GRAPH_BACKEND=neo4j) and configured with CHEMGROUND_NEO4J_URL (+ _USER,
_PASSWORD, _DATABASE): the ``graph`` section of :class:`chemground.settings.Settings`.
Cypher from a user or an LLM runs in a separate process capped at
CHEMGROUND_GRAPH_QUERY_MEMORY_MB (default 2048; 0 runs it in-process without a cap).
"""

from __future__ import annotations

from pathlib import Path

from chemground.errors import ConfigError
from chemground.graph.backend import GraphBackend, GraphError
from chemground.settings import GraphSettings, get_settings

GRAPH_FILE = "graph.lbug"
MANIFEST_FILE = "manifest.json"


def graph_dir_for(kb_path: Path, settings: GraphSettings | None = None) -> Path:
    """The folder of the embedded graph of a KB.

    Args:
        kb_path: the KB file, or a ``postgresql://`` URL.
        settings: the graph settings (default: the process-wide ``Settings().graph``).

    Returns:
        ``settings.dir`` when set; for a database, a folder in the cache; else ``<kb>.graph``
        beside the KB file.
    """
    settings = settings or get_settings().graph
    if settings.dir is not None:
        return Path(settings.dir).expanduser()
    from chemground.kb.backends import is_postgres_url, server_kb_folder

    if is_postgres_url(kb_path):  # a database has no folder: the graph goes to the cache
        return server_kb_folder(kb_path, get_settings().cache_dir) / "graph"
    kb_path = Path(kb_path)
    return kb_path.with_name(kb_path.name + ".graph")


def cache_graph_dir(kb_path: Path, cache_dir: Path) -> Path:
    """Where a read-only workspace keeps its own copy of the graph: under the user cache dir,
    one folder per KB file (its real path and inode, so a KB replaced by a new file gets a new
    graph), so nothing is ever written beside a read-only KB. The build's manifest then keeps
    that graph up to date with changes made to the KB in place."""
    import hashlib
    import os

    from chemground.kb.backends import is_postgres_url, server_kb_folder

    if is_postgres_url(kb_path):  # never beside a database: its graph is in a cache already
        return server_kb_folder(kb_path, cache_dir) / "graph"
    real = os.path.realpath(Path(kb_path).expanduser())
    try:
        info = os.stat(real)
        identity = f"{info.st_dev}:{info.st_ino}"
    except OSError:
        identity = "missing"
    place = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    file = hashlib.sha256(identity.encode()).hexdigest()[:8]
    return Path(cache_dir) / "graphs" / f"{Path(real).name}-{place}-{file}"


def open_neo4j(settings: GraphSettings) -> GraphBackend:
    if not settings.neo4j_url:
        raise ConfigError(
            "the Neo4j backend needs a server: set CHEMGROUND_NEO4J_URL (e.g. "
            "bolt://localhost:7687) "
            "and CHEMGROUND_NEO4J_USER / CHEMGROUND_NEO4J_PASSWORD"
        )
    from chemground.graph.neo4j_backend import Neo4jBackend

    return Neo4jBackend(
        settings.neo4j_url, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database
    )


def open_graph(
    kb_path: Path,
    backend: str | None = None,
    settings: GraphSettings | None = None,
    readonly: bool = True,
) -> GraphBackend:
    """The reaction graph built from the KB at ``kb_path`` (read-only unless asked otherwise)."""
    settings = settings or get_settings().graph
    backend = backend or settings.backend
    if backend == "neo4j":
        return open_neo4j(settings)
    if backend != "ladybug":
        raise ConfigError(f"unknown graph backend {backend!r}; choose ladybug or neo4j")
    from chemground.graph.ladybug_backend import LadybugBackend

    path = graph_dir_for(kb_path, settings) / GRAPH_FILE
    if not path.exists():
        raise GraphError(
            f"no reaction graph for {kb_path} (looked for {path}); build it with `chemground graph "
            "build`"
        )
    return LadybugBackend(path, readonly=readonly, query_memory_mb=settings.query_memory_mb)
