"""Tools that misbehave on purpose, for the runner tests (loaded by the worker process too)."""

from __future__ import annotations

import os
import time

from chemground.agent.registry import P, tool


@tool("testing/sleep", "Sleep for a while, then return the number of seconds slept (test tool).",
      [P("seconds", "number", "How long to sleep.", unit="s", minimum=0, examples=[0.1])], ("number", "seconds slept"),
      timeout_s=30)
def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@tool("testing/chatty", "Print to stdout and to the C-level file descriptor, then return a value (test tool).",
      [P("text", "string", "What to return.", examples=["hi"])], ("string", "the text"))
def chatty(text: str) -> str:
    print("noise from a library")
    os.write(1, b"more noise\n")
    return text


@tool("testing/crash", "Exit the process abruptly, as a crashing C extension would (test tool).",
      [P("code", "integer", "Exit code.", examples=[3])], ("null", "never returns"))
def crash(code: int) -> None:
    os._exit(code)
