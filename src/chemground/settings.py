"""One settings object for the whole system.

Values come, strongest first, from: explicit overrides (CLI flags such as ``--kb``), the
environment (``CHEMGROUND_*``, with ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` as fallbacks for
the LLM endpoint), a TOML config file (``CHEMGROUND_CONFIG`` or the per-user config dir), and
the defaults below. Nothing here needs the network or an LLM.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import AliasChoices, Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

APP_NAME = "chemground"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME))


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME))


def config_file_path() -> Path:
    explicit = os.environ.get("CHEMGROUND_CONFIG")
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


class Settings(BaseSettings):
    """Settings for the knowledge base, caches, the LLM endpoint and retrieval defaults."""

    model_config = SettingsConfigDict(env_prefix="CHEMGROUND_", extra="ignore")

    kb_path: Path = Field(
        default_factory=lambda: default_data_dir() / "kb.sqlite",
        validation_alias=AliasChoices("CHEMGROUND_KB", "kb_path", "kb"),
        description="SQLite file of the knowledge base; built on first use if missing.",
    )
    cache_dir: Path = Field(default_factory=default_cache_dir)
    allow_network: bool = Field(
        default=False, description="Allow optional online look-ups (PubChem). Off by default."
    )
    pubchem_url: str = Field(
        default="https://pubchem.ncbi.nlm.nih.gov/rest/pug",
        description="PubChem PUG-REST base URL (PUG-View is the sibling '/pug_view'); change it "
        "for a mirror or a test server.",
    )
    top_k: int = 5

    # LLM endpoint (OpenAI-compatible). Nothing requires one.
    llm_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("CHEMGROUND_LLM_BASE_URL", "OPENAI_BASE_URL", "llm_base_url"),
    )
    llm_model: str | None = Field(
        default=None, validation_alias=AliasChoices("CHEMGROUND_LLM_MODEL", "llm_model")
    )
    llm_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("CHEMGROUND_LLM_API_KEY", "OPENAI_API_KEY", "llm_api_key"),
        repr=False,
    )
    llm_temperature: float = 0.0
    llm_top_p: float = 1.0
    llm_max_tokens: int | None = Field(
        default=1024,
        ge=1,
        description="Completion limit of every LLM call that sets none of its own (a looping small "
        "model stops here, not at the end of its context); the agents, the literature answer and "
        "extraction set tighter ones.",
    )
    llm_timeout_s: float = 120.0
    llm_max_retries: int = 4
    llm_concurrency: int = 4
    llm_cache: bool = True
    llm_cost_per_1k_input: float = 0.0
    llm_cost_per_1k_output: float = 0.0

    # LLM limits (issue 14: no stall, no crash from one bad endpoint). llm_timeout_s is per read;
    # these bound the wall clock (0 or less: no deadline) and what is read of a reply.
    llm_call_deadline_s: float = Field(
        default=60.0,
        description="Wall-clock limit of one LLM call: connecting, every retry and backoff, the "
        "whole reply.",
    )
    llm_answer_deadline_s: float = Field(
        default=180.0,
        description="Wall-clock budget shared by all the LLM calls of one answer (one reasoner "
        "run).",
    )
    llm_max_response_bytes: int = Field(
        default=2_000_000,
        description="Largest LLM reply read, in bytes; a larger one is refused, not buffered.",
    )
    llm_cache_max_entries: int = Field(
        default=50_000,
        description="Most responses kept in the LLM response cache (oldest dropped first).",
    )

    # HTTP API (`chemground serve`; issue 14). The API answers on several threads per worker
    # process; these bound what one request may ask of it.
    api_token: str | None = Field(
        default=None,
        repr=False,
        description="When set, every endpoint but /, /health and /docs needs 'Authorization: "
        "Bearer <token>'.",
    )
    api_allowed_hosts: str = Field(
        default="",
        description="Comma-separated Host names the API answers to besides localhost, 127.0.0.1, "
        "[::1] and "
        "the address it is bound to ('*.example.org' for a domain, '*' for any).",
    )
    api_workers: int = Field(
        default=0, description="Server worker processes (0: one per CPU core, at most 4)."
    )
    api_threads: int = Field(
        default=8, description="Threads answering requests in each worker process."
    )
    api_max_body_bytes: int = Field(
        default=64 * 1024, description="Largest request body, in bytes (413 above)."
    )
    api_max_query_chars: int = Field(
        default=2000,
        description="Longest name or SMILES /compound takes, in characters (422 above).",
    )
    api_health_refresh_s: float = Field(
        default=30.0,
        description="How often /health's KB counts are re-read if the KB file changed.",
    )

    # Input limits of the core (issue 14): checked before any parsing, whichever front end asks.
    # The structure limits (heavy atoms, SMILES/InChI/name characters, charges) are constants
    # in chemground.chem.structure; mention and look-up bounds in chemground.chem.mentions.
    max_question_chars: int = Field(
        default=2000,
        ge=1,
        description="Longest question parsed, in characters; a longer one is refused with a "
        "clear error.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_source = TomlConfigSettingsSource(settings_cls, toml_file=config_file_path())
        return (init_settings, env_settings, toml_source)

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with the non-None overrides applied (used for CLI flags)."""
        values = {k: v for k, v in overrides.items() if v is not None}
        return self.model_copy(update=values)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once; tests clear the cache with
    ``get_settings.cache_clear()``)."""
    return Settings()
