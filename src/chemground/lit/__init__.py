"""Literature RAG: read papers (PDF, JATS/TEI XML, HTML, text), clean and chunk them into the
KB, search the chunks (BM25, dense, hybrid, compound mentions), answer with citations, and
generate, filter and evaluate question-answer-context datasets (the ChemLit-QA pipeline).

Typical use::

    from chemground.lit import Library
    library = Library(workspace)
    library.add(["paper.pdf"], chunk_size=2000, overlap=200)
    result = library.retriever().search("Which catalyst ...?", k=5)
"""

from chemground.lit.answer import NOT_AVAILABLE, LitAnswer, answer_extractive, answer_with_llm
from chemground.lit.ingest import AddSummary, Ingestor
from chemground.lit.library import Library
from chemground.lit.records import Chunk, Document
from chemground.lit.retriever import LitRetriever, SearchResult
from chemground.lit.store import LitStore

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
