"""chemground: grounded chemistry question answering.

Compound and reaction tables, a reaction graph, literature passages and chemistry tools,
behind one path: question -> parse -> retrieve -> reason -> answer with evidence.

The package root is the Python API::

    import chemground

    answer = chemground.ask("molecular weight of aspirin")
    print(answer.answer, answer.status)
    for evidence in answer.evidence:
        print(evidence.match, evidence.id, evidence.why)

Names are imported on first use, so ``import chemground`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> module that defines it (imported lazily by __getattr__).
_EXPORTS = {
    "ask": "chemground.qa_factory",
    "build_qa": "chemground.qa_factory",
    "QA": "chemground.qa",
    "Answer": "chemground.reasoning.answer",
    "Evidence": "chemground.evidence",
    "Settings": "chemground.settings",
    "get_settings": "chemground.settings",
    "Workspace": "chemground.workspace",
    "ChemgroundError": "chemground.errors",
    "search_structures": "chemground.kb.structure_search",
}

__all__ = [
    "QA",
    "Answer",
    "ChemgroundError",
    "Evidence",
    "Settings",
    "Workspace",
    "__version__",
    "ask",
    "build_qa",
    "get_settings",
    "search_structures",
]

if TYPE_CHECKING:
    from chemground.errors import ChemgroundError
    from chemground.evidence import Evidence
    from chemground.kb.structure_search import search_structures
    from chemground.qa import QA
    from chemground.qa_factory import ask, build_qa
    from chemground.reasoning.answer import Answer
    from chemground.settings import Settings, get_settings
    from chemground.workspace import Workspace


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chemground' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
