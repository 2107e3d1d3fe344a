"""Fixtures for the extraction tests: a writable small KB, a name lookup with OPSIN, scripted
LLMs."""

from __future__ import annotations

import json
import threading
import time

import pytest

from chemground.chem.names import NameResolver
from chemground.chem.opsin import Opsin
from chemground.extract.resolve import ExtractedNameResolver
from chemground.llm import ScriptedLLM


@pytest.fixture
def opsin(tmp_path):
    translator = Opsin(tmp_path / "opsin.sqlite")
    yield translator
    translator.close()


@pytest.fixture
def lookup(kb_copy, opsin) -> ExtractedNameResolver:
    return ExtractedNameResolver(kb_copy, opsin)


@pytest.fixture
def resolver(kb_copy, opsin) -> NameResolver:
    return NameResolver(kb_copy, opsin)


def reaction(reactants=(), products=(), solvents=(), catalysts=(), **extra) -> dict:
    return {
        "reactants": list(reactants),
        "products": list(products),
        "solvents": list(solvents),
        "catalysts": list(catalysts),
        "operations": extra.pop("operations", ["stir"]),
        "conditions": extra.pop("conditions", {"temperature_c": None, "time_h": None, "ph": None}),
        "yield_percent": extra.pop("yield_percent", None),
        "remark": extra.pop("remark", ""),
    }


class ChemistScript:
    """Scripted replies keyed by a marker word in the snippet; records concurrency and calls.

    ``extractions[marker]`` is the stage-1 reply (a list of reaction dicts, or a raw string);
    ``checks[marker]`` is "ok" (the default), "rejected", or a corrected reaction dict.
    """

    def __init__(self, extractions: dict, checks: dict | None = None, delay_s: float = 0.0) -> None:
        self.extractions = extractions
        self.checks = checks or {}
        self.delay_s = delay_s
        self.in_flight = 0
        self.max_in_flight = 0
        self.asked: list[str] = []
        self._lock = threading.Lock()

    def marker(self, text: str) -> str:
        found = [m for m in self.extractions if m in text]
        if not found:
            raise AssertionError(f"no scripted reply for {text[:80]!r}")
        return found[0]

    def __call__(self, messages) -> str:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay_s:
                time.sleep(self.delay_s)
            user = messages[1]["content"]
            snippet = user.split('Snippet:\n"""\n', 1)[1].split('\n"""', 1)[0]
            marker = self.marker(snippet)
            if "Record to check:" in user:
                self.asked.append(f"check:{marker}")
                record = json.loads(user.split("Record to check:\n", 1)[1])
                verdict = self.checks.get(marker, "ok")
                if verdict == "ok":
                    return json.dumps({"verdict": "ok", "reaction": record, "issues": []})
                if verdict == "rejected":
                    return json.dumps(
                        {
                            "verdict": "rejected",
                            "reaction": None,
                            "issues": ["the text names no product"],
                        }
                    )
                return json.dumps(
                    {"verdict": "corrected", "reaction": verdict, "issues": ["fixed roles"]}
                )
            self.asked.append(f"extract:{marker}")
            reply = self.extractions[marker]
            if isinstance(reply, Exception):
                raise reply
            return reply if isinstance(reply, str) else json.dumps({"reactions": reply})
        finally:
            with self._lock:
                self.in_flight -= 1


@pytest.fixture
def script_llms():
    def make(extractions, checks=None, delay_s=0.0):
        script = ChemistScript(extractions, checks, delay_s)
        return script, ScriptedLLM(script), ScriptedLLM(script)

    return make
