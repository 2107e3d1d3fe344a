"""Assembling a QA object from settings: the retrieval methods, parsers and reasoners.

Kept apart from ``qa`` so the core path imports no LLM or embedding code it does not need;
LLM reasoners are registered always and fail with a clear message when no endpoint is set.
"""

from __future__ import annotations

from chemground.llm.config import llm_configured, llm_from_settings
from chemground.qa import QA
from chemground.reasoning.llm_reasoners import LLM_REASONERS
from chemground.retrieval.graph import GraphRetriever, LiteratureRetriever
from chemground.workspace import Workspace

METHODS = ("auto", "table", "tools", "routes", "bm25", "dense", "graph", "lit", "none")  # auto: chemground.routing
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
