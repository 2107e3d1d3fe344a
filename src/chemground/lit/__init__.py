"""Literature RAG: read papers (PDF, JATS/TEI XML, HTML, text), clean and chunk them into the
KB, search the chunks (BM25, dense, hybrid, compound mentions), answer with citations, and
generate, filter and evaluate question-answer-context datasets (the ChemLit-QA pipeline).

Typical use::

    from chemground.lit import Library
    library = Library(workspace)
    library.add(["paper.pdf"], chunk_size=2000, overlap=200)
    result = library.retriever().search("Which catalyst ...?", k=5)
"""

from __future__ import annotations

import importlib

# Names load on first use (PEP 562): ``chemground lit search`` from a fresh process imports
# chemground.lit.library, and paid for the answer, ingest and LLM modules it never ran.
_WHERE = {
    "NOT_AVAILABLE": "answer",
    "LitAnswer": "answer",
    "answer_extractive": "answer",
    "answer_with_llm": "answer",
    "AddSummary": "ingest",
    "Ingestor": "ingest",
    "Library": "library",
    "Chunk": "records",
    "Document": "records",
    "LitRetriever": "retriever",
    "SearchResult": "retriever",
    "LitStore": "store",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'chemground.lit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"chemground.lit.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "NOT_AVAILABLE",
    "AddSummary",
    "Chunk",
    "Document",
    "Ingestor",
    "Library",
    "LitAnswer",
    "LitRetriever",
    "LitStore",
    "SearchResult",
    "answer_extractive",
    "answer_with_llm",
]
