"""One settings object for the whole system, in sections, with named presets.

``Settings`` has a few top-level fields (cache folder, network, question limit, embedding
backend) and one section per part of the system: ``kb``, ``llm``, ``graph``, ``lit``,
``tools`` and ``api``. Every field carries a description (``chemground settings`` prints them).

Values come, strongest first, from:

1. explicit values: keyword arguments, CLI flags (``--kb``, ``--llm-base-url``, ...) applied
   with :meth:`Settings.with_overrides`;
2. the environment: ``CHEMGROUND_<SECTION>__<FIELD>`` (e.g. ``CHEMGROUND_LLM__BASE_URL``) or
   the single-underscore form ``CHEMGROUND_<SECTION>_<FIELD>`` (``CHEMGROUND_LLM_BASE_URL``),
   top-level fields as ``CHEMGROUND_<FIELD>``, and the names documented before the sections
   existed (``CHEMGROUND_KB``, ``CHEMGROUND_WORKERS``, ``CHEMGROUND_TOOL_MEMORY_MB``,
   ``CHEMGROUND_NEO4J_URL``, ...; ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` as fallbacks for the
   LLM endpoint, ``MP_API_KEY`` for the Materials Project);
3. a TOML config file (``CHEMGROUND_CONFIG``, default ``~/.config/chemground/config.toml``),
   with one table per section (``[llm]`` ``base_url = ...``);
4. a named preset (``preset = "local-llm"`` in the file, ``CHEMGROUND_PRESET``, ``--preset``
   or :meth:`Settings.from_preset`), shipped as TOML files in ``chemground/presets/``;
5. the defaults below.

Nothing here needs the network or an LLM.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from chemground.errors import ConfigError

APP_NAME = "chemground"
ENV_PREFIX = "CHEMGROUND_"
PRESET_DIR = Path(__file__).with_name("presets")
SECRET = {"secret": True}  # json_schema_extra of fields that `chemground settings` masks


def default_data_dir() -> Path:
    """The per-user data folder (the default KB lives here).

    Returns:
        ``platformdirs.user_data_dir("chemground")``.
    """
    return Path(platformdirs.user_data_dir(APP_NAME))


def default_cache_dir() -> Path:
    """The per-user cache folder (LLM replies, embeddings, OPSIN and PubChem answers).

    Returns:
        ``platformdirs.user_cache_dir("chemground")``.
    """
    return Path(platformdirs.user_cache_dir(APP_NAME))


def config_file_path() -> Path:
    """The TOML config file read by :class:`Settings` (it need not exist).

    Returns:
        ``CHEMGROUND_CONFIG`` when set, else ``config.toml`` in the per-user config folder.
    """
    explicit = os.environ.get("CHEMGROUND_CONFIG")
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class KBSettings(_Section):
    """The knowledge base: where it lives and how it is read and filled."""

    path: Path = Field(
        default_factory=lambda: default_data_dir() / "kb.sqlite",
        description="SQLite file of the knowledge base (built on first use if missing), or a "
        "postgresql:// URL. Env CHEMGROUND_KB; CLI --kb.",
    )
    top_k: int = Field(
        default=5,
        ge=1,
        description="Evidence records `ask` and `retrieve` fetch per question (CLI -k).",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description="Processes that parse structures during an import (default: one per CPU "
        "core, at most 8). Env CHEMGROUND_WORKERS.",
    )


class LLMSettings(_Section):
    """The LLM endpoint (any OpenAI-compatible server). Nothing requires one."""

    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1, or local:PATH.gguf "
        "to run a GGUF model in this process (the local-llm extra; no server) (unset: no LLM). "
        "Env CHEMGROUND_LLM_BASE_URL, else OPENAI_BASE_URL; CLI --llm-base-url.",
    )
    model: str | None = Field(
        default=None,
        description="Model name at that endpoint. Env CHEMGROUND_LLM_MODEL; CLI --llm-model.",
    )
    api_key: str | None = Field(
        default=None,
        repr=False,
        json_schema_extra=SECRET,
        description="API key sent as a bearer token. Env CHEMGROUND_LLM_API_KEY, else "
        "OPENAI_API_KEY.",
    )
    temperature: float = Field(default=0.0, ge=0.0, description="Sampling temperature.")
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, description="Nucleus sampling mass.")
    max_tokens: int | None = Field(
        default=1024,
        ge=1,
        description="Completion limit of every LLM call that sets none of its own (a looping "
        "small model stops here, not at the end of its context); the agents, the literature "
        "answer and extraction set tighter ones.",
    )
    timeout_s: float = Field(
        default=120.0, gt=0, description="Read timeout of one HTTP request, in seconds."
    )
    max_retries: int = Field(
        default=4, ge=0, description="Retries of a failed call (with backoff) before giving up."
    )
    concurrency: int = Field(
        default=4, ge=1, description="LLM calls in flight at once (batches, extraction)."
    )
    cache: bool = Field(
        default=True,
        description="Keep replies on disk (keyed by model, messages and parameters) and reuse "
        "them.",
    )
    cache_max_entries: int = Field(
        default=50_000,
        ge=1,
        description="Most responses kept in the LLM response cache (oldest dropped first).",
    )
    cost_per_1k_input: float = Field(
        default=0.0, ge=0.0, description="Price of 1,000 prompt tokens, for the cost reported."
    )
    cost_per_1k_output: float = Field(
        default=0.0, ge=0.0, description="Price of 1,000 completion tokens."
    )
    call_deadline_s: float = Field(
        default=60.0,
        description="Wall-clock limit of one LLM call: connecting, every retry and backoff, the "
        "whole reply (0 or less: none).",
    )
    answer_deadline_s: float = Field(
        default=180.0,
        description="Wall-clock budget shared by all the LLM calls of one answer (one reasoner "
        "run; 0 or less: none).",
    )
    max_response_bytes: int = Field(
        default=2_000_000,
        ge=1,
        description="Largest LLM reply read, in bytes; a larger one is refused, not buffered.",
    )
    context_tokens: int | None = Field(
        default=None,
        ge=256,
        description="Context window (tokens) of the endpoint's model, when known: the reasoners "
        "leave out the lowest-ranked evidence that would not fit, and say so (unset: no limit; a "
        "local:PATH.gguf model uses n_ctx).",
    )
    n_ctx: int = Field(
        default=8192,
        ge=256,
        description="Context window (tokens) of a local:PATH.gguf model run in-process.",
    )
    n_threads: int | None = Field(
        default=None,
        ge=1,
        description="CPU threads of a local:PATH.gguf model run in-process (default: half the "
        "cores; llama.cpp slows down sharply when its threads compete for busy cores).",
    )
    local_model: Path | None = Field(
        default=None,
        description="GGUF model file `chemground llm serve` serves when no --model is given. Env "
        "CHEMGROUND_LOCAL_MODEL.",
    )


class GraphSettings(_Section):
    """The reaction graph: which engine holds it and how queries are bounded."""

    backend: Literal["ladybug", "neo4j"] = Field(
        default="ladybug",
        description="ladybug (embedded, next to the KB) or neo4j (a server). Env "
        "CHEMGROUND_GRAPH_BACKEND.",
    )
    dir: Path | None = Field(
        default=None,
        description="Folder of the embedded graph (default: <kb>.graph beside the KB). Env "
        "CHEMGROUND_GRAPH_DIR.",
    )
    neo4j_url: str | None = Field(
        default=None, description="Bolt URL of the Neo4j server. Env CHEMGROUND_NEO4J_URL."
    )
    neo4j_user: str | None = Field(
        default=None, description="Neo4j user. Env CHEMGROUND_NEO4J_USER."
    )
    neo4j_password: str | None = Field(
        default=None,
        repr=False,
        json_schema_extra=SECRET,
        description="Neo4j password. Env CHEMGROUND_NEO4J_PASSWORD.",
    )
    neo4j_database: str | None = Field(
        default=None,
        description="Neo4j database (default: the server's). Env CHEMGROUND_NEO4J_DATABASE.",
    )
    query_memory_mb: int = Field(
        default=2048,
        ge=0,
        description="Memory limit of a user's or an LLM's query of the embedded graph, in MB; 0 "
        "runs queries in-process without a limit. Env CHEMGROUND_GRAPH_QUERY_MEMORY_MB.",
    )


class LitSettings(_Section):
    """Papers: how `lit add` reads, splits and indexes them."""

    chunk_size: int = Field(default=2000, ge=1, description="Largest chunk, in characters.")
    overlap: int = Field(
        default=200, ge=0, description="Characters repeated between neighbouring chunks."
    )
    max_file_mb: float = Field(
        default=50.0, gt=0, description="Largest paper file read, in MB (larger ones refused)."
    )
    dense: bool = Field(
        default=True,
        description="Embed sentence windows for dense search (off: BM25 only).",
    )


class ToolsSettings(_Section):
    """The chemistry tool pool and the agent's tool worker."""

    memory_mb: int = Field(
        default=3072,
        ge=0,
        description="Address-space limit of the tool worker process, in MiB (0: none). Env "
        "CHEMGROUND_TOOL_MEMORY_MB; CLI tools call --memory-mb.",
    )
    materials_project_api_key: str | None = Field(
        default=None,
        repr=False,
        json_schema_extra=SECRET,
        description="Materials Project API key for the online battery tools (they also need "
        "allow_network). Env MP_API_KEY.",
    )


class APISettings(_Section):
    """The HTTP API (`chemground serve`) and what one request may ask of it."""

    token: str | None = Field(
        default=None,
        repr=False,
        json_schema_extra=SECRET,
        description="When set, every endpoint but /, /health and /docs needs 'Authorization: "
        "Bearer <token>'. Env CHEMGROUND_API_TOKEN; CLI serve --token.",
    )
    allowed_hosts: str = Field(
        default="",
        description="Comma-separated Host names the API answers to besides localhost, "
        "127.0.0.1, [::1] and the address it is bound to ('*.example.org' for a domain, '*' "
        "for any).",
    )
    workers: int = Field(
        default=0, ge=0, description="Server worker processes (0: one per CPU core, at most 4)."
    )
    threads: int = Field(
        default=8, ge=1, description="Threads answering requests in each worker process."
    )
    max_body_bytes: int = Field(
        default=64 * 1024, ge=1, description="Largest request body, in bytes (413 above)."
    )
    max_query_chars: int = Field(
        default=2000,
        ge=1,
        description="Longest name or SMILES /compound takes, in characters (422 above).",
    )
    health_refresh_s: float = Field(
        default=30.0,
        description="How often /health's KB counts are re-read if the KB file changed (0: never).",
    )


SECTIONS: dict[str, type[_Section]] = {
    "kb": KBSettings,
    "llm": LLMSettings,
    "graph": GraphSettings,
    "lit": LitSettings,
    "tools": ToolsSettings,
    "api": APISettings,
}

# Names that set a field besides CHEMGROUND_<SECTION>__<FIELD> and CHEMGROUND_<SECTION>_<FIELD>,
# weakest first: the documented variables of the flat settings, and other programs' variables.
# The same names, lower-case and without the prefix, are read as flat keys of the config file.
LEGACY_ENV: tuple[tuple[str, str], ...] = (
    ("OPENAI_BASE_URL", "llm.base_url"),
    ("OPENAI_API_KEY", "llm.api_key"),
    ("MP_API_KEY", "tools.materials_project_api_key"),
    ("CHEMGROUND_KB", "kb.path"),
    ("CHEMGROUND_TOP_K", "kb.top_k"),
    ("CHEMGROUND_WORKERS", "kb.workers"),
    ("CHEMGROUND_TOOL_MEMORY_MB", "tools.memory_mb"),
    ("CHEMGROUND_LOCAL_MODEL", "llm.local_model"),
    ("CHEMGROUND_NEO4J_URL", "graph.neo4j_url"),
    ("CHEMGROUND_NEO4J_USER", "graph.neo4j_user"),
    ("CHEMGROUND_NEO4J_PASSWORD", "graph.neo4j_password"),
    ("CHEMGROUND_NEO4J_DATABASE", "graph.neo4j_database"),
)


def _flat_names() -> Iterator[tuple[str, str]]:
    """(environment name, dotted field) for every non-nested way to set a section field,
    weakest first."""
    yield from LEGACY_ENV
    for section, model in SECTIONS.items():
        for name in model.model_fields:
            yield f"{ENV_PREFIX}{section.upper()}_{name.upper()}", f"{section}.{name}"


def _put(target: dict[str, Any], dotted: str, value: Any) -> None:
    *heads, last = dotted.split(".")
    for head in heads:
        target = target.setdefault(head, {})
    target[last] = value


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated with ``top``, sections merged field by field (``top`` wins)."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def flatten(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested settings values as ``{"llm.base_url": ...}``.

    Args:
        values: a nested mapping (a section is a dict).
        prefix: prepended to every key (used for the recursion).

    Returns:
        One entry per leaf, keyed by its dotted name.
    """
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict) and key in SECTIONS and not prefix:
            flat.update(flatten(value, f"{key}."))
        else:
            flat[prefix + key] = value
    return flat


def legacy_env_values(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Section fields set by single-underscore and documented flat environment names.

    Args:
        environ: the environment (default ``os.environ``). Empty values count as unset.

    Returns:
        Nested values, e.g. ``{"llm": {"base_url": ...}}``; stronger names win.
    """
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for name, dotted in _flat_names():
        value = environ.get(name)
        if value:
            _put(values, dotted, value)
    return values


def _flat_keys() -> dict[str, str]:
    """Flat keys of the config file's earlier format (``kb_path``, ``llm_base_url``) and the
    dotted field each sets, weakest first."""
    keys = {name.lower().removeprefix(ENV_PREFIX.lower()): dotted for name, dotted in _flat_names()}
    keys["kb_path"] = "kb.path"
    return keys


def _from_flat_keys(data: dict[str, Any]) -> dict[str, Any]:
    """A config file's values with flat keys of the earlier format moved into their sections;
    keys written inside a section win."""
    flat = _flat_keys()
    nested = {
        key: value
        for key, value in data.items()
        if key not in flat or (key in SECTIONS and isinstance(value, dict))
    }
    moved: dict[str, Any] = {}
    for key, dotted in flat.items():
        value = data.get(key)
        if value is not None and not (key in SECTIONS and isinstance(value, dict)):
            _put(moved, dotted, value)
    return _merge(moved, nested)


def read_toml(path: Path) -> dict[str, Any]:
    """The values of one TOML settings file, sections nested.

    Args:
        path: the file; a missing file has no values.

    Returns:
        The file's values (flat keys of the earlier format moved into their sections).

    Raises:
        ConfigError: the file is not valid TOML, not UTF-8, a folder or unreadable.
    """
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"settings file {path} is not valid TOML: {error}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"settings file {path} is not UTF-8 text (byte {error.start}); TOML files are UTF-8"
        ) from error
    except IsADirectoryError as error:
        raise ConfigError(f"settings file {path} is a folder, not a TOML file") from error
    except OSError as error:
        raise ConfigError(f"settings file {path} cannot be read: {error.strerror}") from error
    return _from_flat_keys(data)


def preset_names() -> list[str]:
    """The named presets shipped with chemground.

    Returns:
        Their names, sorted (``offline``, ``local-llm``, ``server``, ...).
    """
    return sorted(path.stem for path in PRESET_DIR.glob("*.toml"))


def preset_description(name: str) -> str:
    """What a preset is for: the comment lines at the top of its file.

    Args:
        name: a preset name.

    Returns:
        The leading ``#`` lines joined into one sentence ("" if none).

    Raises:
        ConfigError: there is no preset of that name.
    """
    lines = []
    for line in _preset_path(name).read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def _preset_path(name: str) -> Path:
    path = PRESET_DIR / f"{name}.toml"
    if name not in preset_names():
        raise ConfigError(
            f"unknown settings preset {name!r}; choose one of: {', '.join(preset_names())}"
        )
    return path


def preset_values(name: str | None) -> dict[str, Any]:
    """The values a preset sets.

    Args:
        name: a preset name, or None (no preset: no values).

    Returns:
        Nested values, as in a config file.

    Raises:
        ConfigError: there is no preset of that name.
    """
    if not name:
        return {}
    return read_toml(_preset_path(name))


class _EnvSource(EnvSettingsSource):
    """The environment, nested by ``__``; a section's own name holds JSON only.

    ``CHEMGROUND_KB=/path/kb.sqlite`` (a documented name, read by :func:`legacy_env_values`)
    would otherwise be parsed as the JSON of the whole ``kb`` section.
    """

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        value, key, complex_ = super().get_field_value(field, field_name)
        if field_name in SECTIONS and isinstance(value, str) and not value.lstrip().startswith("{"):
            value = None
        return value, key, complex_


class _ValuesSource(PydanticBaseSettingsSource):
    """A settings source that returns the nested values of one function."""

    def __init__(self, settings_cls: type[BaseSettings], read: Callable[[], dict]) -> None:
        super().__init__(settings_cls)
        self.read = read

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return self.read()


class Settings(BaseSettings):
    """Settings of the whole system: top-level fields and the sections ``kb``, ``llm``,
    ``graph``, ``lit``, ``tools`` and ``api`` (see the module docstring for where values come
    from).

    Example::

        Settings(kb={"path": "kb.sqlite"}, llm={"base_url": "http://localhost:8000/v1"})
        Settings.from_preset("local-llm")
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="ignore"
    )

    preset: str | None = Field(
        default=None,
        description="Named preset the other values start from (see `chemground settings`). "
        "Env CHEMGROUND_PRESET; CLI --preset.",
    )
    cache_dir: Path = Field(
        default_factory=default_cache_dir,
        description="Folder of the caches (LLM replies, embeddings, OPSIN, PubChem, indexes).",
    )
    allow_network: bool = Field(
        default=False, description="Allow optional online look-ups (PubChem). Off by default."
    )
    pubchem_url: str = Field(
        default="https://pubchem.ncbi.nlm.nih.gov/rest/pug",
        description="PubChem PUG-REST base URL (PUG-View is the sibling '/pug_view'); change it "
        "for a mirror or a test server.",
    )
    max_question_chars: int = Field(
        default=2000,
        ge=1,
        description="Longest question parsed, in characters; a longer one is refused with a "
        "clear error.",
    )
    embed_backend: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="Sentence-embedding runtime: auto (ONNX when available, else PyTorch), "
        "onnx or torch.",
    )
    aspect_classifier: bool = Field(
        default=True,
        description="Read a question no aspect rule understands with the exemplar classifier "
        "(nearest MiniLM neighbours among hand-written phrasings; rules-only when the model is "
        "missing). Env CHEMGROUND_ASPECT_CLASSIFIER.",
    )

    kb: KBSettings = Field(default_factory=KBSettings, description=KBSettings.__doc__)
    llm: LLMSettings = Field(default_factory=LLMSettings, description=LLMSettings.__doc__)
    graph: GraphSettings = Field(default_factory=GraphSettings, description=GraphSettings.__doc__)
    lit: LitSettings = Field(default_factory=LitSettings, description=LitSettings.__doc__)
    tools: ToolsSettings = Field(default_factory=ToolsSettings, description=ToolsSettings.__doc__)
    api: APISettings = Field(default_factory=APISettings, description=APISettings.__doc__)

    _flags: frozenset[str] = PrivateAttr(default=frozenset())

    def __init__(self, **values: Any) -> None:
        """Read the settings from ``values``, the environment, the config file and the preset.

        Raises:
            ConfigError: a value is not valid for its field (named with where it was set), an
                unknown preset is named, or the config file is not valid TOML.
        """
        try:
            super().__init__(**values)
        except ValidationError as error:  # a bad environment variable was a pydantic traceback
            raise ConfigError(invalid_settings_message(error)) from None

    @field_validator("embed_backend", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        file_values = read_toml(config_file_path())
        chosen = (
            getattr(init_settings, "init_kwargs", {}).get("preset")
            or os.environ.get(f"{ENV_PREFIX}PRESET")
            or file_values.get("preset")
        )
        return (
            init_settings,
            _EnvSource(settings_cls),
            _ValuesSource(settings_cls, legacy_env_values),
            _ValuesSource(settings_cls, lambda: file_values),
            _ValuesSource(settings_cls, lambda: preset_values(chosen)),
        )

    @classmethod
    def from_preset(cls, name: str, **values: Any) -> Settings:
        """Settings that start from a named preset (the environment and the config file still
        override it; ``values`` override everything).

        Args:
            name: a preset name (see :func:`preset_names`).
            **values: explicit values, sections as dicts (``llm={"model": "m"}``).

        Returns:
            The settings.

        Raises:
            ConfigError: there is no preset of that name.
        """
        _preset_path(name)
        made = cls(preset=name, **values)
        made._flags = frozenset({"preset", *flatten(values)})
        return made

    def with_overrides(self, **values: Any) -> Settings:
        """A copy with explicit values applied (CLI flags); None means "not given".

        Args:
            **values: top-level fields, and sections as dicts of their fields, e.g.
                ``with_overrides(kb={"path": path}, llm={"base_url": url, "model": None})``.

        Returns:
            A validated copy; the fields given are reported as flags by :meth:`explain`.

        Raises:
            ConfigError: a value is not valid for its field.
        """
        given = {
            key: {k: v for k, v in value.items() if v is not None}
            if key in SECTIONS and isinstance(value, dict)
            else value
            for key, value in values.items()
            if value is not None
        }
        try:
            copy = type(self).model_validate(_merge(self.model_dump(), given))
        except ValidationError as error:
            raise ConfigError(invalid_settings_message(error)) from None
        copy._flags = self._flags | frozenset(flatten(given))
        return copy

    def explain(self) -> list[dict[str, Any]]:
        """Every field with its value, where the value came from, and its description.

        Returns:
            One dict per field (``name`` dotted, ``value`` with secrets masked as ``"****"``,
            ``source``: ``flag``, ``env``, ``config (<file>)``, ``preset (<name>)`` or
            ``default``, ``description``), top-level fields first, then section by section.

        Raises:
            ConfigError: the config file is not valid TOML.
        """
        config = config_file_path()
        env = flatten(_merge(legacy_env_values(), _EnvSource(type(self))()))
        layers = (
            ("env", env),
            (f"config ({config})", flatten(read_toml(config))),
            (f"preset ({self.preset})", flatten(preset_values(self.preset))),
        )
        rows = []
        for name, value, field in self._leaves():
            source = "flag" if name in self._flags else "default"
            if source == "default":
                source = next((label for label, data in layers if name in data), "default")
            secret = (field.json_schema_extra or {}).get("secret")  # type: ignore[union-attr]
            rows.append(
                {
                    "name": name,
                    "value": "****" if secret and value else value,
                    "source": source,
                    "description": field.description or "",
                }
            )
        return rows

    def _leaves(self) -> Iterator[tuple[str, Any, FieldInfo]]:
        for name, field in type(self).model_fields.items():
            if name not in SECTIONS:
                yield name, getattr(self, name), field
        for section in SECTIONS:
            part = getattr(self, section)
            for name, field in type(part).model_fields.items():
                yield f"{section}.{name}", getattr(part, name), field


def invalid_settings_message(error: ValidationError) -> str:
    """One line per invalid field, each prefixed with its dotted name and saying where the
    value was set (an environment variable, the config file, or a flag or preset).

    Args:
        error: pydantic's error for the Settings model.

    Returns:
        The message for a ConfigError.
    """
    try:
        in_file = flatten(read_toml(config_file_path()))
    except ConfigError:
        in_file = {}
    lines = []
    for item in error.errors():
        name = ".".join(str(part) for part in item["loc"])
        env = ENV_PREFIX + "__".join(str(part) for part in item["loc"]).upper()
        names = [env, *(flat for flat, dotted in _flat_names() if dotted == name)]
        env = next((n for n in names if os.environ.get(n)), None)
        if env is not None:
            where = f"environment variable {env}"
        elif name in in_file:
            where = f"config file {config_file_path()}"
        else:
            where = "a flag or the preset"
        lines.append(f"{name}: {item['msg']} (got {item.get('input')!r}, from {where})")
    return "invalid settings: " + "; ".join(lines)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once.

    Returns:
        ``Settings()`` (tests clear the cache with ``get_settings.cache_clear()``).

    Raises:
        ConfigError: a value is not valid, an unknown preset is named or the config file is not
            valid TOML.
    """
    return Settings()
