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
        description="PubChem PUG-REST base URL (PUG-View is the sibling '/pug_view'); change it for a mirror or a test server.",
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
    llm_max_tokens: int | None = None
    llm_timeout_s: float = 120.0
    llm_max_retries: int = 4
    llm_concurrency: int = 4
    llm_cache: bool = True
    llm_cost_per_1k_input: float = 0.0
    llm_cost_per_1k_output: float = 0.0

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

    def with_overrides(self, **overrides: Any) -> "Settings":
        """A copy with the non-None overrides applied (used for CLI flags)."""
        values = {k: v for k, v in overrides.items() if v is not None}
        return self.model_copy(update=values)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once; tests clear the cache with ``get_settings.cache_clear()``)."""
    return Settings()
