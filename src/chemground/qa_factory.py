"""Assembling a QA object from settings: the retrieval methods and reasoners available.

Kept apart from ``qa`` so the core path does not import LLM or embedding code it may not need.
"""

from __future__ import annotations

from chemground.qa import QA
from chemground.workspace import Workspace


def build_qa(workspace: Workspace) -> QA:
    """QA with every method and reasoner this installation supports."""
    qa = QA(workspace)
    return qa
