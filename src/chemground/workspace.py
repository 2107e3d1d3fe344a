"""What every command works in: the settings, the knowledge base and the name resolver.

Opening things lazily keeps start-up fast (a question that needs no OPSIN never starts Java)
and gives the CLI, the HTTP API and the benchmarks one way to get at the same objects.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from chemground.chem.names import NameResolver
from chemground.chem.opsin import Opsin
from chemground.kb.store import KnowledgeBase
from chemground.progress import Progress
from chemground.settings import Settings, get_settings

BuildProgress = Progress  # (stage, advance, total) while the default KB is built

_OPSIN_SINGLETON: Opsin | None = None


def shared_opsin(cache_dir: Path) -> Opsin:
    """One OPSIN process per Python process (it is thread-safe and costs a JVM)."""
    global _OPSIN_SINGLETON
    if _OPSIN_SINGLETON is None:
        _OPSIN_SINGLETON = Opsin(cache_dir / "opsin-cache.sqlite")
    return _OPSIN_SINGLETON


def ensure_kb(path: Path | str, progress: BuildProgress | None = None) -> None:
    """Build the default KB (dictionary + starter reactions) if there is none at ``path``
    (a SQLite file, or a PostgreSQL database without chemground's tables)."""
    from chemground.kb.backends import build_kb_at, kb_exists

    if not kb_exists(path):
        build_kb_at(path, progress=progress).close()


class Workspace:
    """Settings plus lazily opened KB and resolver.

    Each component can be passed in instead of being opened from the settings: a test shares
    one OPSIN process across workspaces, a server hands every worker the same KB. A component
    passed in is not closed by ``close()``: whoever made it owns it.

    Args:
        settings: where the KB and caches live (default: ``get_settings()``).
        readonly: open the KB read-only (the HTTP API, benchmarks).
        build_progress: progress callback for building the default KB on first use.
        kb: an open knowledge base to use instead of opening ``settings.kb.path``.
        opsin: an OPSIN name parser to use instead of the shared per-process one.
        resolver: a name resolver to use instead of one over ``kb`` and ``opsin``.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        readonly: bool = False,
        build_progress: BuildProgress | None = None,
        *,
        kb: KnowledgeBase | None = None,
        opsin: Opsin | None = None,
        resolver: NameResolver | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.readonly = readonly
        self._build_progress = build_progress
        self._owns_kb = kb is None
        for name, component in (("kb", kb), ("opsin", opsin), ("resolver", resolver)):
            if component is not None:
                self.__dict__[name] = component  # what the cached_property below would hold

    @cached_property
    def kb(self) -> KnowledgeBase:
        from chemground.kb.backends import open_kb

        ensure_kb(self.settings.kb.path, self._build_progress)
        return open_kb(self.settings.kb.path, readonly=self.readonly)

    @cached_property
    def opsin(self) -> Opsin:
        return shared_opsin(self.settings.cache_dir)

    @cached_property
    def resolver(self) -> NameResolver:
        return NameResolver(self.kb, self.opsin)

    def close(self) -> None:
        if self._owns_kb and "kb" in self.__dict__:
            self.kb.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
