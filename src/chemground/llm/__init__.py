"""The LLM layer: one client for OpenAI-compatible endpoints, a scripted LLM for tests,
JSON repair, and prompts kept as text files. Nothing in chemground requires an LLM."""

from chemground.llm.base import (
    LLM,
    LLMBadOutput,
    LLMDeadlineExceeded,
    LLMError,
    LLMResponse,
    LLMUnavailable,
    ToolCall,
    Usage,
)
from chemground.llm.scripted import ScriptedLLM

__all__ = [
    "LLM",
    "LLMBadOutput",
    "LLMDeadlineExceeded",
    "LLMError",
    "LLMResponse",
    "LLMUnavailable",
    "ScriptedLLM",
    "ToolCall",
    "Usage",
]
