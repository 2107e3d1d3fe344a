"""Building the KB from patent and paper text with LLMs.

Snippets (experimental paragraphs) go through two LLM stages, extraction then a check that
corrects or empties each record, and then a validation stage without any LLM: every compound
name must resolve to a structure and the products' elements must come from the inputs.
Valid reactions are stored through the import engine with their source snippet.
"""

from chemground.extract.journal import RunJournal
from chemground.extract.pipeline import (
    ExtractionRun,
    ExtractOptions,
    RecordResult,
    RunCounts,
    RunResult,
    StoreOptions,
    store_records,
    write_records,
)
from chemground.extract.resolve import ExtractedNameResolver, NameCheck
from chemground.extract.schema import (
    CheckResult,
    ExtractedConditions,
    ExtractedReaction,
    Extraction,
)
from chemground.extract.snippets import Snippet, read_snippets, snippets_from_kb, split_paragraphs
from chemground.extract.validate import Validation, validate_reaction

__all__ = [
    "CheckResult",
    "ExtractOptions",
    "ExtractedConditions",
    "ExtractedNameResolver",
    "ExtractedReaction",
    "Extraction",
    "ExtractionRun",
    "NameCheck",
    "RecordResult",
    "RunCounts",
    "RunJournal",
    "RunResult",
    "Snippet",
    "StoreOptions",
    "Validation",
    "read_snippets",
    "snippets_from_kb",
    "split_paragraphs",
    "store_records",
    "validate_reaction",
    "write_records",
]
