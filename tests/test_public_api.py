"""The package root is the Python API: lazy names, ``ask``, and workspaces built from parts."""

from __future__ import annotations

import subprocess
import sys

import pytest

import chemground
from chemground.kb.sqlite_store import SQLiteKB
from chemground.settings import Settings


def test_import_chemground_imports_no_pipeline_code():
    code = (
        "import sys, chemground; "
        "heavy = [m for m in ('chemground.qa', 'rdkit', 'typer', 'numpy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_every_public_name_resolves_and_unknown_names_fail():
    for name in chemground.__all__:
        assert getattr(chemground, name) is not None, name
    from chemground import QA, Answer, Evidence, Settings, ask  # noqa: F401 - the documented import line

    with pytest.raises(AttributeError, match="no_such_thing"):
        chemground.no_such_thing  # noqa: B018


def test_ask_answers_from_the_given_settings(small_kb_path, tmp_path):
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")
    answer = chemground.ask("molecular weight of aspirin", settings=settings)
    assert isinstance(answer, chemground.Answer)
    assert answer.status == "answered"
    assert "180.1" in answer.answer
    assert answer.evidence and answer.evidence[0].match == "exact"


def test_ask_rejects_an_unknown_method(small_kb_path, tmp_path):
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path / "cache")
    with pytest.raises(chemground.ChemgroundError, match="psychic"):
        chemground.ask("molecular weight of aspirin", method="psychic", settings=settings)


def test_workspace_uses_the_components_it_is_given_and_leaves_them_open(
    small_kb_path, opsin, tmp_path
):
    kb = SQLiteKB(small_kb_path, readonly=True)
    try:
        settings = Settings(
            kb={"path": tmp_path / "never-built.sqlite"}, cache_dir=tmp_path / "cache"
        )
        with chemground.Workspace(settings, kb=kb, opsin=opsin) as workspace:
            assert workspace.kb is kb and workspace.opsin is opsin
            answer = chemground.build_qa(workspace).ask("formula of caffeine")
            assert "C8H10N4O2" in answer.answer
        assert not (tmp_path / "never-built.sqlite").exists()
        assert kb.stats().compounds > 0  # still open: the caller owns it
    finally:
        kb.close()
