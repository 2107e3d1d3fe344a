"""The run journal: what the LLMs returned for every finished snippet, committed one by one.

A crash or Ctrl-C loses at most the snippets in flight; a re-run reads the journal and asks
the LLMs only about the rest. Entries are keyed by the snippet (document id and text), the
two models and the prompts, so changing a model or a prompt re-extracts instead of reusing
stale answers. Validation is not journaled: it is cheap and may change when the KB grows.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.jsonsafe import fields_json
from chemground.errors import ChemgroundError
from chemground.extract.snippets import Snippet

JOURNAL_VERSION = "1"


@dataclass
class SnippetOutcome:
    """What the two LLM stages made of one snippet (the journal's unit)."""

    snippet_id: str
    doc_id: str
    status: str  # extracted | no_reaction | extract_failed
    records: list[dict[str, Any]] = field(default_factory=list)  # {"extracted", "check": {...}}
    error: str = ""
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)  # stage -> Usage.to_dict()

    def to_json(self) -> str:
        """The journal line: the fields as JSON (``fields_json``); ``from_json`` reads it back."""
        return json.dumps(fields_json(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> SnippetOutcome:
        return cls(**json.loads(text))


def run_fingerprint(extract_model: str, check_model: str, prompts: str) -> str:
    """What makes two runs' answers interchangeable: the models and the prompt texts."""
    return hashlib.sha256(
        "\x1f".join((extract_model, check_model, prompts)).encode("utf-8")
    ).hexdigest()[:16]


def snippet_key(snippet: Snippet, fingerprint: str) -> str:
    return hashlib.sha256(
        "\x1f".join((fingerprint, snippet.doc_id, snippet.text)).encode("utf-8")
    ).hexdigest()


class RunJournal:
    """SQLite file of finished snippets (WAL; every entry committed before the next begins)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS snippets (key TEXT PRIMARY KEY, snippet_id TEXT NOT "
                "NULL, "
                "doc_id TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL, finished REAL "
                "NOT NULL)"
            )
            version = self._db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if version is None:
                self._db.execute("INSERT INTO meta VALUES ('version', ?)", (JOURNAL_VERSION,))
                self._db.commit()
            elif version[0] != JOURNAL_VERSION:
                raise ChemgroundError(
                    f"{self.path} is a run journal of another version ({version[0]}); "
                    "use a new --run-dir"
                )
        except sqlite3.DatabaseError as error:
            raise ChemgroundError(
                f"{self.path} is not a chemground run journal: {error}"
            ) from error

    def get(self, key: str) -> SnippetOutcome | None:
        with self._lock:
            row = self._db.execute("SELECT outcome FROM snippets WHERE key = ?", (key,)).fetchone()
        return SnippetOutcome.from_json(row[0]) if row else None

    def put(self, key: str, outcome: SnippetOutcome) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO snippets VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    outcome.snippet_id,
                    outcome.doc_id,
                    outcome.status,
                    outcome.to_json(),
                    time.time(),
                ),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM snippets").fetchone()[0])

    def __iter__(self) -> Iterator[SnippetOutcome]:
        with self._lock:
            rows = self._db.execute("SELECT outcome FROM snippets ORDER BY finished").fetchall()
        for row in rows:
            yield SnippetOutcome.from_json(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
