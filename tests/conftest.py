"""Shared fixtures: knowledge bases built once per session, the shared data folder, isolation.

- ``small_kb_path``: dictionary subset (the small PubChem file, ions, inorganics, elements,
  mixtures) plus the starter reactions; built once, ~5 s. Copy it (``kb_copy``) before writing.
- ``full_kb_path``: the whole dictionary plus the starter reactions (~30 s, built once).
- ``shared_data``: ../shared/data, or the test is skipped with the reason.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chemground.kb.build import build_kb
from chemground.kb.sqlite_store import SQLiteKB
from chemground.settings import get_settings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SMALL_DICTIONARY = (
    "chemical identifiers pubchem small.tsv",
    "chemical identifiers example user db.tsv",
    "Cation db.tsv",
    "Anion db.tsv",
    "Inorganic db.tsv",
)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Never touch the user's real KB, config or caches; no LLM unless a test sets one."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CHEMGROUND_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("CHEMGROUND_KB", str(home / "kb.sqlite"))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(home / "cache"))
    for name in (
        "CHEMGROUND_LLM_BASE_URL",
        "CHEMGROUND_LLM_MODEL",
        "CHEMGROUND_LLM_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "CHEMGROUND_PRESET",
    ):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def opsin(tmp_path_factory):
    """One OPSIN process (JVM) for the whole test session, with its own disk cache."""
    from chemground.chem.opsin import Opsin

    engine = Opsin(tmp_path_factory.mktemp("opsin") / "opsin-cache.sqlite")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def rules_qa(small_kb_path, tmp_path_factory):
    """A read-only QA on the small KB as ``chemground ask`` runs it (rules, no LLM), with an
    OPSIN cache of its own for the module."""
    from chemground.chem.opsin import Opsin
    from chemground.qa import QA
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    opsin = Opsin(tmp_path_factory.mktemp("opsin") / "cache.sqlite")
    workspace = Workspace(
        Settings(kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("cache")),
        readonly=True,
        opsin=opsin,
    )
    yield QA(workspace)
    opsin.close()


@pytest.fixture(scope="module")
def ask_json(rules_qa):
    """Ask ``rules_qa`` a question and get its answer as JSON (what `chemground ask --json`
    prints)."""
    return lambda question: rules_qa.ask(question).to_json()


@pytest.fixture(scope="session")
def tool_qa(small_kb_path, opsin, tmp_path_factory):
    """A read-only QA on the small KB with the tools channel run in-process (no worker)."""
    from chemground.qa import QA
    from chemground.retrieval.tools import ToolChannel
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    settings = Settings(
        kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("tool-qa-cache")
    )
    workspace = Workspace(settings, readonly=True, opsin=opsin)
    qa = QA(workspace)
    qa.register_retriever("tools", lambda: ToolChannel(settings, isolate=False))
    return qa


@pytest.fixture(scope="session")
def small_kb_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("small-kb") / "kb.sqlite"
    build_kb(path, dictionary_files=SMALL_DICTIONARY).close()
    return path


@pytest.fixture(scope="session")
def full_kb_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("full-kb") / "kb.sqlite"
    build_kb(path).close()
    return path


@pytest.fixture(scope="session")
def full_parser(full_kb_path, opsin):
    """The rules parser over the full dictionary (the small one lacks many names asked)."""
    from chemground.chem.names import NameResolver
    from chemground.kb.sqlite_store import SQLiteKB
    from chemground.reasoning.parser import RuleParser
    from chemground.retrieval.fuzzy import FuzzyNameIndex

    kb = SQLiteKB(full_kb_path, readonly=True)
    yield RuleParser(NameResolver(kb, opsin), FuzzyNameIndex(kb))
    kb.close()


def copy_kb(source: Path, target_dir: Path) -> Path:
    target = target_dir / "kb.sqlite"
    shutil.copy(source, target)
    return target


@pytest.fixture
def kb_copy(small_kb_path, tmp_path) -> SQLiteKB:
    """A writable copy of the small KB."""
    kb = SQLiteKB(copy_kb(small_kb_path, tmp_path))
    yield kb
    kb.close()


@pytest.fixture
def small_kb(small_kb_path) -> SQLiteKB:
    kb = SQLiteKB(small_kb_path, readonly=True)
    yield kb
    kb.close()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"shared data not found at {SHARED_DATA} (tests that read ../shared/data skip "
            "without it)"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def postgres_server():
    """One throwaway PostgreSQL cluster with the RDKit cartridge per session
    (tests/support/postgres.py);
    skipped, with the reason, where the server packages are not installed."""
    from tests.support.postgres import start_server

    try:
        server = start_server()
    except LookupError as missing:
        pytest.skip(str(missing))
    yield server
    server.stop()
