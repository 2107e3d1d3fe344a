"""The tool worker process: ``python -m chemground.agent.worker`` (started by ToolRunner).

Protocol, one JSON object per line: first ``{"settings", "files_dir", "modules", "memory_mb"}``,
then requests ``{"tool", "arguments"}`` answered by ``{"ok": true, "value"}`` or
``{"ok": false, "kind", "error"}``. The protocol owns the process's original stdout;
anything a library prints goes to /dev/null so it cannot corrupt the replies.

Before importing any tool the worker caps its own address space (``RLIMIT_AS``) at
``memory_mb``: a tool that allocates past it gets a MemoryError (or dies in a C library),
which the runner reports as "ran out of memory" and answers by starting a fresh worker.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

from chemground.forking import limit_memory

MAX_REPLY_CHARS = (
    64_000_000  # one reply line; a larger result would only burden the caller's memory
)


def is_memory_error(error: BaseException) -> bool:
    """True when ``error`` is, or was raised while handling, a MemoryError (tools wrap library
    errors)."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 20:
        if isinstance(current, MemoryError):
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    reason = getattr(error, "reason", "") or ""
    return isinstance(reason, str) and reason.startswith(("MemoryError", "_ArrayMemoryError"))


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the worker's lifetime
    warnings.simplefilter("ignore")

    setup = json.loads(sys.stdin.readline())
    limit_memory(setup.get("memory_mb"))

    from chemground.agent.registry import ToolContext, default_registry, run_function
    from chemground.agent.runner import ToolOffline
    from chemground.agent.validation import ToolArgumentError, ToolError
    from chemground.settings import Settings

    registry = default_registry()
    known = {m.implementation.split(":")[0] for m in registry.manifests()}
    for module in setup.get("modules", []):
        if module not in known:
            registry.register_module(module)
    settings = Settings.model_validate(setup["settings"])  # the parent's, as they are
    context = ToolContext(
        settings=settings, files_dir=Path(setup["files_dir"]) if setup.get("files_dir") else None
    )
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            manifest = registry.get(request["tool"])
            value = run_function(
                registry.function(manifest.name), manifest, request.get("arguments") or {}, context
            )
            reply = {"ok": True, "value": value}
        except ToolOffline as error:
            reply = {"ok": False, "kind": "offline", "error": error.reason}
        except ToolArgumentError as error:
            reply = {"ok": False, "kind": "arguments", "error": error.reason}
        except ToolError as error:
            reply = {
                "ok": False,
                "kind": "memory" if is_memory_error(error) else "tool",
                "error": error.reason,
            }
        except MemoryError as error:
            reply = {"ok": False, "kind": "memory", "error": f"MemoryError: {error}"}
        except Exception as error:  # reported to the caller as the tool's failure
            reply = {
                "ok": False,
                "kind": "memory" if is_memory_error(error) else "tool",
                "error": f"{type(error).__name__}: {error}",
            }
        try:
            text = json.dumps(reply, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            text = json.dumps(
                {"ok": False, "kind": "tool", "error": f"result is not JSON: {error}"}
            )
        except MemoryError:
            text = json.dumps(
                {"ok": False, "kind": "memory", "error": "the result is too large to send back"}
            )
        if len(text) > MAX_REPLY_CHARS:
            text = json.dumps(
                {
                    "ok": False,
                    "kind": "tool",
                    "error": f"the result is too large to send back "
                    f"({len(text) / 1e6:.0f} MB of JSON; the limit is {MAX_REPLY_CHARS / 1e6:.0f} "
                    "MB)",
                }
            )
        protocol.write(text + "\n")
        protocol.flush()
        reply = value = text = None  # free a large result before waiting for the next request
    return 0


if __name__ == "__main__":
    sys.exit(main())
