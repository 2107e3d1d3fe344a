"""Reading JSON Lines files, with the file and line number in every error.

One reader for every JSONL file chemground reads (benchmark items, QAC datasets, batch
questions, ORD/USPTO dumps, resumable result logs), so that a bad line is always reported as
``path:line: ...`` and a ``.gz`` file reads like a plain one.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chemground.errors import ChemgroundError


def read_jsonl(
    path: Path | str,
    *,
    error: type[ChemgroundError] = ChemgroundError,
    torn_tail_ok: bool = False,
) -> Iterator[tuple[int, Any]]:
    """The values of a JSON Lines file with their 1-based line numbers; blank lines are skipped.

    Args:
        path: the file (``.gz`` is decompressed).
        error: the exception class raised for a missing file or a line that is not JSON.
        torn_tail_ok: skip a last line that is not JSON instead of raising (a log appended to
            by a run that was killed mid-write: that item is simply redone).

    Returns:
        An iterator of ``(line_number, value)``.

    Raises:
        error: the file does not exist, is not UTF-8, or a line (other than a torn last line,
            when allowed) is not JSON; the message starts with ``path:line:``.
    """
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: no such file")
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        lines = enumerate(handle, start=1)
        pending: tuple[int, str, json.JSONDecodeError] | None = None
        try:
            for number, line in lines:
                if pending is not None:  # a bad line followed by more lines: not a torn tail
                    raise error(f"{path}:{pending[0]}: not JSON: {pending[2]}") from pending[2]
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as bad:
                    if torn_tail_ok:
                        pending = (number, line, bad)
                        continue
                    raise error(f"{path}:{number}: not JSON: {bad}") from bad
                yield number, value
        except UnicodeDecodeError as bad:
            raise error(f"{path}: not UTF-8 text ({bad.reason} at byte {bad.start})") from bad
