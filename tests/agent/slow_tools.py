"""Tools that misbehave on purpose, for the runner tests (loaded by the worker process too)."""

from __future__ import annotations

import os
import time

from chemground.agent.registry import P, tool


@tool(
    "testing/sleep",
    "Sleep for a while, then return the number of seconds slept (test tool).",
    [P("seconds", "number", "How long to sleep.", unit="s", minimum=0, examples=[0.1])],
    ("number", "seconds slept"),
    timeout_s=30,
)
def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@tool(
    "testing/chatty",
    "Print to stdout and to the C-level file descriptor, then return a value (test tool).",
    [P("text", "string", "What to return.", examples=["hi"])],
    ("string", "the text"),
)
def chatty(text: str) -> str:
    print("noise from a library")
    os.write(1, b"more noise\n")
    return text


@tool(
    "testing/crash",
    "Exit the process abruptly, as a crashing C extension would (test tool).",
    [P("code", "integer", "Exit code.", examples=[3])],
    ("null", "never returns"),
)
def crash(code: int) -> None:
    os._exit(code)


@tool(
    "testing/hog",
    "Allocate and touch a block of memory, then return its size in MB (test tool).",
    [
        P("megabytes", "integer", "How much to allocate.", unit="MB", minimum=1, examples=[10]),
        P(
            "how",
            "string",
            "'python' (a bytearray), 'numpy' (an array) or 'list' (many small objects).",
            required=False,
            default="python",
            examples=["python"],
        ),
    ],
    ("integer", "megabytes allocated"),
    timeout_s=30,
)
def hog(megabytes: int, how: str = "python") -> int:
    size = megabytes * 2**20
    if how == "numpy":
        import numpy as np

        block = np.ones(size // 8)
        return int(block.nbytes // 2**20)
    if how == "list":
        items = [str(i) * 8 for i in range(size // 64)]
        return len(items) * 64 // 2**20
    block = bytearray(size)
    block[::4096] = b"x" * len(block[::4096])
    return len(block) // 2**20


@tool(
    "testing/oom_abort",
    "Die as a C++ library does when an allocation fails (test tool).",
    [P("code", "integer", "Unused.", examples=[1])],
    ("null", "never returns"),
)
def oom_abort(code: int) -> None:
    os.write(
        2,
        b"terminate called after throwing an instance of 'std::bad_alloc'\n  what():  "
        b"std::bad_alloc\n",
    )
    os.abort()
