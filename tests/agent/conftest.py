"""Fixtures for the tool pool and agent tests: a tool context on the small KB, a runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from chemground.agent.registry import ToolContext, default_registry
from chemground.settings import Settings


@pytest.fixture
def agent_settings(small_kb_path, tmp_path) -> Settings:
    return Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")


@pytest.fixture
def tool_context(agent_settings, tmp_path) -> ToolContext:
    files = tmp_path / "files"
    files.mkdir()
    return ToolContext(settings=agent_settings, files_dir=files)


@pytest.fixture
def registry():
    return default_registry()


def call(registry, context, name, args):
    return registry.call_in_process(name, args, context)


@pytest.fixture
def run_tool(registry, tool_context):
    def run(name, args):
        return registry.call_in_process(name, args, tool_context)

    return run


__all__ = ["Path", "call"]
