"""``local:PATH.gguf``: a GGUF model run in this process by llama-cpp-python (issue 20).

The checks of the file and the engine run everywhere. The model itself runs only where
llama-cpp-python is installed and ``CHEMGROUND_TEST_GGUF`` names a model file, e.g.::

    CHEMGROUND_TEST_GGUF=/opt/models/qwen2.5-coder-0.5b-instruct.gguf \\
        pytest tests/test_inprocess_llm.py -v
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from chemground.llm.base import LLMDeadlineExceeded, LLMUnavailable
from chemground.llm.inprocess import InProcessLLM, local_model_path
from chemground.llm.local import LocalModelError

GGUF = os.environ.get("CHEMGROUND_TEST_GGUF", "")


def _tiny_gguf(path: Path) -> Path:
    """A GGUF v3 header with no tensors and one metadata string: enough for the file check."""
    key, value = b"general.name", b"tiny"
    path.write_bytes(
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", len(key))
        + key
        + struct.pack("<I", 8)  # string
        + struct.pack("<Q", len(value))
        + value
    )
    return path


def test_local_endpoints_name_a_file():
    assert local_model_path("local:~/models/m.gguf") == Path("~/models/m.gguf").expanduser()
    assert local_model_path("local: /m.gguf") == Path("/m.gguf")
    assert local_model_path("http://127.0.0.1:8080/v1") is None
    assert local_model_path(None) is None


def test_a_missing_or_non_gguf_file_is_named(tmp_path):
    with pytest.raises(LocalModelError, match="no model file"):
        InProcessLLM(tmp_path / "absent.gguf")
    not_gguf = tmp_path / "weights.bin"
    not_gguf.write_bytes(b"PK\x03\x04 a zip, not a model")
    with pytest.raises(LocalModelError, match="not a GGUF file"):
        InProcessLLM(not_gguf)


def test_without_llama_cpp_the_error_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import fails as if not installed
    with pytest.raises(LLMUnavailable, match="local-llm"):
        InProcessLLM(_tiny_gguf(tmp_path / "tiny.gguf"))


class Water(BaseModel):
    formula: str
    mw: float


@pytest.mark.skipif(
    not GGUF or importlib.util.find_spec("llama_cpp") is None,
    reason="set CHEMGROUND_TEST_GGUF to a GGUF model and install llama-cpp-python to run it",
)
@pytest.mark.timeout(600)
def test_a_real_model_runs_in_process_with_schema_and_deadline():
    llm = InProcessLLM(GGUF, n_threads=1, n_ctx=2048, max_tokens=64)
    value, response = llm.chat_json(
        [{"role": "user", "content": "Water as JSON: its molecular formula and weight (mw)."}],
        schema=Water,
    )
    assert isinstance(value, Water) and response.usage.completion_tokens > 0
    # the deadline is checked between generated tokens (prompt evaluation is not interruptible),
    # so the reply stops long before the 800 tokens asked for
    llm.call_deadline_s = 1.0
    with pytest.raises(LLMDeadlineExceeded, match="generation stopped") as stopped:
        llm.chat([{"role": "user", "content": "Write a long essay on benzene."}], max_tokens=800)
    tokens = int(re.search(r"after (\d+) tokens", str(stopped.value)).group(1))
    assert tokens < 800


def test_settings_select_the_in_process_model_and_pass_its_limits(tmp_path, monkeypatch):
    from chemground.llm.config import llm_configured, llm_from_settings
    from chemground.settings import Settings

    absent = Settings(llm={"base_url": f"local:{tmp_path / 'absent.gguf'}"})
    assert llm_configured(absent)  # a local file names its own model
    with pytest.raises(LocalModelError, match="no model file"):
        llm_from_settings(absent)
    assert not llm_configured(Settings(llm={"base_url": "http://127.0.0.1:9/v1"}))
    tiny = _tiny_gguf(tmp_path / "tiny.gguf")
    if importlib.util.find_spec("llama_cpp") is not None:  # the limits reach the model
        limits = {"n_ctx": 2048, "max_tokens": 300, "call_deadline_s": 30, "answer_deadline_s": 90}
        local = llm_from_settings(Settings(llm={"base_url": f"local:{tiny}", **limits}))
        assert (
            local.context_tokens,
            local.max_tokens,
            local.call_deadline_s,
            local.answer_deadline_s,
        ) == (2048, 300, 30, 90)
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(LLMUnavailable, match="local-llm"):
        llm_from_settings(Settings(llm={"base_url": f"local:{tiny}"}))
