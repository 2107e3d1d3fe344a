"""Settings: sections, documented environment names, the config file, presets, precedence."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chemground.cli import app
from chemground.errors import ConfigError
from chemground.settings import SECTIONS, Settings, get_settings, preset_names


@pytest.fixture
def config(tmp_path, monkeypatch):
    """An empty config file; tests write into it."""
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("CHEMGROUND_CONFIG", str(path))
    for name in ("CHEMGROUND_PRESET", "CHEMGROUND_KB", "CHEMGROUND_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def test_every_field_is_described():
    settings = Settings()
    missing = [row["name"] for row in settings.explain() if not row["description"]]
    assert not missing
    assert set(SECTIONS) == {"kb", "llm", "graph", "lit", "tools", "api"}


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("CHEMGROUND_KB", "/data/kb.sqlite", "kb.path", Path("/data/kb.sqlite")),
        ("CHEMGROUND_LLM_BASE_URL", "http://h:1/v1", "llm.base_url", "http://h:1/v1"),
        ("OPENAI_BASE_URL", "http://o:1/v1", "llm.base_url", "http://o:1/v1"),
        ("OPENAI_API_KEY", "sk-x", "llm.api_key", "sk-x"),
        ("CHEMGROUND_LLM_MODEL", "qwen", "llm.model", "qwen"),
        ("CHEMGROUND_LLM_API_KEY", "sk-y", "llm.api_key", "sk-y"),
        ("CHEMGROUND_LLM_COST_PER_1K_INPUT", "0.5", "llm.cost_per_1k_input", 0.5),
        ("CHEMGROUND_LLM_CALL_DEADLINE_S", "5", "llm.call_deadline_s", 5.0),
        ("CHEMGROUND_LLM_ANSWER_DEADLINE_S", "9", "llm.answer_deadline_s", 9.0),
        ("CHEMGROUND_LLM_MAX_RESPONSE_BYTES", "100", "llm.max_response_bytes", 100),
        ("CHEMGROUND_MAX_QUESTION_CHARS", "50", "max_question_chars", 50),
        ("CHEMGROUND_TOOL_MEMORY_MB", "1500", "tools.memory_mb", 1500),
        ("CHEMGROUND_GRAPH_QUERY_MEMORY_MB", "0", "graph.query_memory_mb", 0),
        ("CHEMGROUND_GRAPH_BACKEND", "neo4j", "graph.backend", "neo4j"),
        ("CHEMGROUND_NEO4J_URL", "bolt://n:7687", "graph.neo4j_url", "bolt://n:7687"),
        ("CHEMGROUND_NEO4J_PASSWORD", "pw", "graph.neo4j_password", "pw"),
        ("CHEMGROUND_WORKERS", "2", "kb.workers", 2),
        ("CHEMGROUND_EMBED_BACKEND", "Torch", "embed_backend", "torch"),
        ("CHEMGROUND_ALLOW_NETWORK", "1", "allow_network", True),
        ("CHEMGROUND_PUBCHEM_URL", "http://p/rest/pug", "pubchem_url", "http://p/rest/pug"),
        ("CHEMGROUND_API_TOKEN", "t", "api.token", "t"),
        ("CHEMGROUND_API_MAX_BODY_BYTES", "10", "api.max_body_bytes", 10),
        ("MP_API_KEY", "mp", "tools.materials_project_api_key", "mp"),
        ("CHEMGROUND_LLM__MODEL", "nested", "llm.model", "nested"),
        ("CHEMGROUND_KB__PATH", "/n/kb.sqlite", "kb.path", Path("/n/kb.sqlite")),
    ],
)
def test_documented_environment_names_still_work(config, monkeypatch, name, value, field, expected):
    monkeypatch.setenv(name, value)
    settings = Settings()
    section, _, leaf = field.rpartition(".")
    assert getattr(getattr(settings, section) if section else settings, leaf) == expected


def test_stronger_environment_names_win(config, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai/v1")
    monkeypatch.setenv("CHEMGROUND_LLM_BASE_URL", "http://flat/v1")
    assert Settings().llm.base_url == "http://flat/v1"
    monkeypatch.setenv("CHEMGROUND_LLM__BASE_URL", "http://nested/v1")
    assert Settings().llm.base_url == "http://nested/v1"


def test_config_file_is_nested_and_reads_the_earlier_flat_keys(config, monkeypatch):
    config.write_text(
        'kb_path = "/flat/kb.sqlite"\nllm_model = "flat-model"\n'
        '[llm]\nbase_url = "http://file/v1"\nmodel = "nested-model"\n[api]\nthreads = 3\n'
    )
    settings = Settings()
    assert settings.kb.path == Path("/flat/kb.sqlite")
    assert settings.llm.base_url == "http://file/v1"
    assert settings.llm.model == "nested-model"  # a key inside its section wins
    assert settings.api.threads == 3


def test_bad_config_file_is_a_clear_error(config):
    config.write_text("[llm\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Settings()


@pytest.mark.parametrize(
    "content, message",
    [
        (b'x = "\xff"\n', "is not UTF-8 text"),
        (b'[kb]\ntop_k = "abc"\n', "kb.top_k: Input should be a valid integer"),
    ],
)
def test_an_unreadable_config_file_or_value_is_a_clear_error(config, content, message):
    """Each was a traceback (UnicodeDecodeError, pydantic's ValidationError)."""
    config.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as raised:
        Settings()
    assert "top_k" not in message or f"config file {config}" in str(raised.value)


def test_a_config_path_that_is_a_folder_is_a_clear_error(config, monkeypatch, tmp_path):
    monkeypatch.setenv("CHEMGROUND_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match="is a folder"):
        Settings()


@pytest.mark.parametrize(
    "name, value, field",
    [
        ("CHEMGROUND_MAX_QUESTION_CHARS", "abc", "max_question_chars"),
        ("CHEMGROUND_MAX_QUESTION_CHARS", "-5", "max_question_chars"),
        ("CHEMGROUND_TOOL_MEMORY_MB", "xyz", "tools.memory_mb"),  # a documented flat name
    ],
)
def test_a_bad_environment_value_names_the_variable_not_a_traceback(
    config, monkeypatch, capsys, name, value, field
):
    from chemground.cli import main

    monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    assert main(["settings"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"invalid settings: {field}:" in err and f"environment variable {name}" in err
    assert "Traceback" not in err


def test_presets_ship_and_load():
    assert {"offline", "local-llm", "server"} <= set(preset_names())
    local = Settings.from_preset("local-llm")
    assert local.preset == "local-llm"
    assert local.llm.base_url == "http://127.0.0.1:8080/v1" and local.llm.concurrency == 1
    assert Settings.from_preset("offline").allow_network is False
    assert Settings.from_preset("server").api.threads == 16
    with pytest.raises(ConfigError, match="unknown settings preset 'nope'"):
        Settings.from_preset("nope")


def test_precedence_flags_env_config_preset_defaults(config, monkeypatch):
    """Explicit flags > environment > config file > preset > defaults, field by field."""
    monkeypatch.setenv("CHEMGROUND_PRESET", "local-llm")
    settings = Settings()
    assert settings.llm.model == "local"  # preset over default
    assert settings.llm.temperature == 0.0  # default (the preset does not set it)
    config.write_text('[llm]\nmodel = "from-file"\ntimeout_s = 7.0\n')
    settings = Settings()
    assert (settings.llm.model, settings.llm.timeout_s) == ("from-file", 7.0)  # file over preset
    assert settings.llm.concurrency == 1  # still from the preset
    monkeypatch.setenv("CHEMGROUND_LLM_MODEL", "from-env")
    settings = Settings()
    assert settings.llm.model == "from-env" and settings.llm.timeout_s == 7.0  # env over file
    flagged = settings.with_overrides(llm={"model": "from-flag", "base_url": None})
    assert flagged.llm.model == "from-flag"  # flag over env
    assert flagged.llm.base_url == "http://127.0.0.1:8080/v1"  # None: flag not given
    sources = {row["name"]: row["source"] for row in flagged.explain()}
    assert sources["llm.model"] == "flag"
    assert sources["llm.timeout_s"] == f"config ({config})"
    assert sources["llm.concurrency"] == "preset (local-llm)"
    assert sources["llm.temperature"] == "default"
    monkeypatch.delenv("CHEMGROUND_LLM_MODEL")
    assert {r["name"]: r["source"] for r in Settings().explain()}["llm.model"].startswith("config")


def test_preset_named_in_the_config_file(config):
    config.write_text('preset = "server"\n[api]\nthreads = 2\n')
    settings = Settings()
    assert settings.preset == "server"
    assert settings.api.threads == 2 and settings.tools.memory_mb == 2048


def test_with_overrides_validates_and_keeps_the_rest():
    base = Settings(kb={"path": "/a.sqlite"}, llm={"model": "m"})
    changed = base.with_overrides(llm={"base_url": "http://x/v1"})
    assert changed.llm.model == "m" and changed.kb.path == Path("/a.sqlite")
    with pytest.raises(ConfigError, match=r"api\.threads: Input should be greater than or equal"):
        base.with_overrides(api={"threads": 0})


def test_settings_survive_a_json_round_trip_to_worker_processes():
    settings = Settings(kb={"path": "/a.sqlite"}, llm={"api_key": "sk"}, api={"token": "t"})
    again = Settings.model_validate_json(settings.model_dump_json())
    assert again == settings and again.llm.api_key == "sk"


def test_settings_command_shows_sources_and_masks_secrets(config, monkeypatch, tmp_path):
    monkeypatch.setenv("CHEMGROUND_LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("CHEMGROUND_KB", str(tmp_path / "env.sqlite"))
    result = CliRunner().invoke(
        app, ["--preset", "local-llm", "--kb", str(tmp_path / "flag.sqlite"), "settings", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "sk-very-secret" not in result.output
    data = json.loads(result.output)
    rows = {row["name"]: row for row in data["settings"]}
    assert rows["kb.path"] == {**rows["kb.path"], "value": str(tmp_path / "flag.sqlite")}
    assert rows["kb.path"]["source"] == "flag"
    assert rows["llm.api_key"]["value"] == "****" and rows["llm.api_key"]["source"] == "env"
    assert rows["llm.base_url"]["source"] == "preset (local-llm)"
    assert data["preset"] == "local-llm" and set(data["presets"]) >= {"offline", "server"}
    text = CliRunner().invoke(app, ["settings"])
    assert text.exit_code == 0 and "offline" in text.output and "sk-very-secret" not in text.output


def test_unknown_preset_on_the_command_line(config):
    result = CliRunner().invoke(app, ["--preset", "nope", "settings"])
    assert result.exit_code != 0
