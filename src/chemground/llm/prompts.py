"""Prompts live as text files under ``chemground/llm/prompts/<area>/<name>.txt``.

Keeping them out of the code lets a user read and change them; ``render`` fills
``{placeholders}`` and fails loudly on a missing one.
"""

from __future__ import annotations

import string
from functools import lru_cache
from importlib import resources

from chemground.errors import ConfigError


@lru_cache(maxsize=256)
def load_prompt(name: str) -> str:
    """Text of prompt ``name`` ("area/name", without .txt)."""
    path = resources.files("chemground.llm") / "prompts" / f"{name}.txt"
    if not path.is_file():
        raise ConfigError(f"no prompt named {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8")


def render(name: str, **values: object) -> str:
    """The prompt with its ``{placeholders}`` filled; literal braces are written ``{{ }}``."""
    template = load_prompt(name)
    needed = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    missing = needed - set(values)
    if missing:
        raise ConfigError(f"prompt {name!r} needs values for {sorted(missing)}")
    return template.format(**values)
