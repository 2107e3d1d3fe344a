"""The tool worker process: ``python -m chemground.agent.worker`` (started by ToolRunner).

Protocol, one JSON object per line: first ``{"settings", "files_dir", "modules"}``, then
requests ``{"tool", "arguments"}`` answered by ``{"ok": true, "value"}`` or
``{"ok": false, "kind", "error"}``. The protocol owns the process's original stdout;
anything a library prints goes to /dev/null so it cannot corrupt the replies.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")
    warnings.simplefilter("ignore")

    from chemground.agent.registry import ToolContext, default_registry, run_function
    from chemground.agent.runner import ToolOffline
    from chemground.agent.validation import ToolArgumentError, ToolError
    from chemground.settings import Settings

    setup = json.loads(sys.stdin.readline())
    registry = default_registry()
    known = {m.implementation.split(":")[0] for m in registry.manifests()}
    for module in setup.get("modules", []):
        if module not in known:
            registry.register_module(module)
    settings = Settings(**{k: v for k, v in setup["settings"].items() if v is not None})
    context = ToolContext(settings=settings, files_dir=Path(setup["files_dir"]) if setup.get("files_dir") else None)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            manifest = registry.get(request["tool"])
            value = run_function(registry.function(manifest.name), manifest, request.get("arguments") or {}, context)
            reply = {"ok": True, "value": value}
        except ToolOffline as error:
            reply = {"ok": False, "kind": "offline", "error": error.reason}
        except ToolArgumentError as error:
            reply = {"ok": False, "kind": "arguments", "error": error.reason}
        except ToolError as error:
            reply = {"ok": False, "kind": "tool", "error": error.reason}
        except Exception as error:  # reported to the caller as the tool's failure
            reply = {"ok": False, "kind": "tool", "error": f"{type(error).__name__}: {error}"}
        try:
            text = json.dumps(reply, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            text = json.dumps({"ok": False, "kind": "tool", "error": f"result is not JSON: {error}"})
        protocol.write(text + "\n")
        protocol.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
