"""Making an LLM from settings (config file, environment, CLI flags)."""

from __future__ import annotations

from chemground.llm.base import LLM, LLMUnavailable
from chemground.llm.inprocess import LOCAL_PREFIX, local_model_path
from chemground.settings import Settings


def llm_configured(settings: Settings) -> bool:
    """Whether an LLM is configured: an endpoint and a model, or a ``local:PATH.gguf`` file
    (which names its own model)."""
    base_url = settings.llm.base_url
    if base_url and base_url.startswith(LOCAL_PREFIX):
        return True
    return bool(base_url and settings.llm.model)


def llm_from_settings(
    settings: Settings, model: str | None = None, model_option: str = "--llm-model"
) -> LLM:
    """The configured endpoint as an LLM.

    ``local:PATH.gguf`` runs that model in this process (llama-cpp-python, the ``local-llm``
    extra); anything else is an OpenAI-compatible HTTP endpoint.

    Args:
        settings: where the endpoint, model and limits come from.
        model: a model name that overrides ``settings.llm.model``.
        model_option: the command's option that names the model, for the error messages
            (``kb extract`` names its models with ``--extract-model``).

    Returns:
        The LLM client.

    Raises:
        LLMUnavailable: no endpoint or model is configured, or llama-cpp-python is missing.
        LocalModelError: a ``local:`` file is missing or not a GGUF model.
    """
    local = local_model_path(settings.llm.base_url)
    if local is not None:
        from chemground.llm.inprocess import InProcessLLM  # loads llama.cpp on first call only

        return InProcessLLM(
            local,
            n_ctx=settings.llm.n_ctx,
            n_threads=settings.llm.n_threads,
            temperature=settings.llm.temperature,
            top_p=settings.llm.top_p,
            max_tokens=settings.llm.max_tokens,
            call_deadline_s=settings.llm.call_deadline_s,
            answer_deadline_s=settings.llm.answer_deadline_s,
        )
    model = model or settings.llm.model
    if not settings.llm.base_url:
        raise LLMUnavailable(
            "this needs an LLM but none is configured: set CHEMGROUND_LLM_BASE_URL and "
            "CHEMGROUND_LLM_MODEL "
            f"(or OPENAI_BASE_URL / OPENAI_API_KEY), or pass --llm-base-url and {model_option}. "
            "Any OpenAI-compatible server works (vLLM, Ollama, llama.cpp, OpenAI)."
        )
    if not model:
        raise LLMUnavailable(
            f"no LLM model configured: set CHEMGROUND_LLM_MODEL or pass {model_option}"
        )
    from chemground.llm.openai_client import (
        OpenAICompatibleLLM,
    )  # httpx: imported when an LLM is used

    llm = OpenAICompatibleLLM(
        settings.llm.base_url,
        model,
        api_key=settings.llm.api_key,
        temperature=settings.llm.temperature,
        top_p=settings.llm.top_p,
        max_tokens=settings.llm.max_tokens,
        timeout_s=settings.llm.timeout_s,
        max_retries=settings.llm.max_retries,
        concurrency=settings.llm.concurrency,
        cache_path=(settings.cache_dir / "llm-cache.sqlite") if settings.llm.cache else None,
        cost_per_1k_input=settings.llm.cost_per_1k_input,
        cost_per_1k_output=settings.llm.cost_per_1k_output,
        call_deadline_s=settings.llm.call_deadline_s,
        answer_deadline_s=settings.llm.answer_deadline_s,
        max_response_bytes=settings.llm.max_response_bytes,
        cache_max_entries=settings.llm.cache_max_entries,
    )
    llm.context_tokens = settings.llm.context_tokens
    return llm
