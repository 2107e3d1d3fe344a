"""Assembling a QA object from settings: the retrieval methods, parsers and reasoners.

Kept apart from ``qa`` so the core path imports no LLM or embedding code it does not need;
LLM reasoners are registered always and fail with a clear message when no endpoint is set.
"""

from __future__ import annotations

import threading

from chemground.llm.config import llm_configured, llm_from_settings
from chemground.qa import QA
from chemground.reasoning.answer import Answer
from chemground.reasoning.llm_reasoners import LLM_REASONERS
from chemground.retrieval.graph import GraphRetriever, LiteratureRetriever
from chemground.settings import Settings
from chemground.workspace import Workspace

METHODS = (
    "auto",
    "table",
    "tools",
    "routes",
    "bm25",
    "dense",
    "graph",
    "lit",
    "none",
)  # auto: chemground.routing
REASONERS = ("extractive", *LLM_REASONERS)


def build_qa(workspace: Workspace, parser: str = "rules", progress=None) -> QA:
    """QA with every method and reasoner; the LLM is created on first use by an LLM reasoner."""
    settings = workspace.settings
    llm = llm_from_settings(settings) if llm_configured(settings) else None
    qa = QA(workspace, llm=llm)

    def bm25():
        from chemground.retrieval.text_records import BM25RecordRetriever  # bm25s + scipy: ~90 ms

        return BM25RecordRetriever(workspace.kb, settings.cache_dir)

    def dense():
        from chemground.retrieval.text_records import DenseRecordRetriever

        return DenseRecordRetriever(workspace.kb, settings.cache_dir, progress)

    qa.register_retriever("bm25", bm25)
    qa.register_retriever("dense", dense)
    qa.register_retriever("graph", lambda: GraphRetriever(workspace, qa.graph, qa.require_llm))
    qa.register_retriever("lit", lambda: LiteratureRetriever(workspace))
    for name, cls in LLM_REASONERS.items():
        qa.register_reasoner(name, lambda cls=cls: cls(qa.require_llm(), qa.parser.finder))
    if parser == "llm":
        qa.use_llm_parser()
    return qa


_DEFAULT_QA: QA | None = None
_DEFAULT_LOCK = threading.Lock()


def ask(
    question: str,
    *,
    method: str = "auto",
    reasoner: str = "extractive",
    k: int = 5,
    settings: Settings | None = None,
) -> Answer:
    """Answer one chemistry question with its evidence: the Python form of ``chemground ask``.

    With no ``settings`` the default KB (built on first use) and the environment's settings are
    used, and the ``QA`` behind them is kept for later calls in this process; with ``settings``
    a new read-only workspace is opened for this call. For many questions, or to choose the
    parser or an LLM, build a ``QA`` with ``build_qa(Workspace(settings))`` and call its ``ask``.

    Args:
        question: the question, in plain words, a name or a SMILES.
        method: ``auto`` (the routing table picks a channel) or one of ``METHODS``.
        reasoner: ``extractive`` (no LLM) or one of the LLM reasoners in ``REASONERS``.
        k: how many evidence records to retrieve.
        settings: settings to use instead of the defaults.

    Returns:
        The ``Answer``: its text, status, match labels and evidence.

    Raises:
        ChemgroundError: the question is empty or too long, or the method or reasoner is unknown;
            LLMUnavailable (a ChemgroundError) when an LLM reasoner is asked for with none set.
    """
    global _DEFAULT_QA
    if settings is not None:
        with Workspace(settings, readonly=True) as workspace:
            return build_qa(workspace).ask(question, method=method, reasoner=reasoner, k=k)
    with _DEFAULT_LOCK:
        if _DEFAULT_QA is None:
            _DEFAULT_QA = build_qa(Workspace())
    return _DEFAULT_QA.ask(question, method=method, reasoner=reasoner, k=k)
