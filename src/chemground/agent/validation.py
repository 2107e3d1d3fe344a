"""Checking a call's arguments against the tool's manifest before anything runs.

Arguments arrive as a JSON list (the benchmark's positional calling chains) or a JSON object
(named, as models and the CLI send them). Both become one ``{name: value}`` dict, with the
few coercions a careful human would accept (an integer where a number is asked, a numeric
string where a number is asked, 3.0 where an integer is asked); everything else is an error
that names the tool, the parameter and what was expected.
"""

from __future__ import annotations

import math
from typing import Any

from chemground.agent.manifest import Param, ToolManifest
from chemground.errors import ChemgroundError


class ToolError(ChemgroundError):
    """A tool could not be run or failed; ``tool`` says which."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.reason = message


class ToolArgumentError(ToolError, ValueError):
    """The arguments do not fit the manifest; ``parameter`` names the offending one (if any)."""

    def __init__(self, tool: str, message: str, parameter: str | None = None) -> None:
        super().__init__(tool, message)
        self.parameter = parameter


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_value(value: Any, schema: dict[str, Any], where: str) -> Any:
    """``value`` checked (and lightly coerced) against a JSON-schema subset; raises ValueError."""
    kind = schema.get("type")
    if kind == "number":
        if isinstance(value, bool):
            raise ValueError(f"{where} must be a number, got a boolean")
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ValueError(f"{where} must be a number, got {_show(value)}") from None
        if not isinstance(value, (int, float)):
            raise ValueError(f"{where} must be a number, got {_type_name(value)} {_show(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{where} must be a finite number, got {value}")
    elif kind == "integer":
        if isinstance(value, bool):
            raise ValueError(f"{where} must be an integer, got a boolean")
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise ValueError(f"{where} must be an integer, got {_show(value)}") from None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise ValueError(f"{where} must be an integer, got {_type_name(value)} {_show(value)}")
    elif kind == "string":
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string, got {_type_name(value)} {_show(value)}")
        if not value.strip():
            raise ValueError(f"{where} must not be empty")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be true or false, got {_show(value)}")
    elif kind == "array":
        if isinstance(value, tuple):
            value = list(value)
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list, got {_type_name(value)} {_show(value)}")
        if "minItems" in schema and len(value) < schema["minItems"]:
            raise ValueError(f"{where} needs at least {schema['minItems']} items, got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise ValueError(f"{where} takes at most {schema['maxItems']} items, got {len(value)}")
        if "items" in schema:
            value = [
                check_value(item, schema["items"], f"{where}[{i}]") for i, item in enumerate(value)
            ]
    elif kind == "object":
        if not isinstance(value, dict):
            raise ValueError(
                f"{where} must be an object (a JSON mapping), got {_type_name(value)} "
                f"{_show(value)}"
            )
        if "minItems" in schema and len(value) < schema["minItems"]:
            raise ValueError(
                f"{where} needs at least {schema['minItems']} entries, got {len(value)}"
            )
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            value = {str(k): check_value(v, values, f"{where}[{k!r}]") for k, v in value.items()}
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError(f"{where} must be one of {schema['enum']}, got {_show(value)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise ValueError(f"{where} must be >= {schema['minimum']}, got {value}")
        if "maximum" in schema and value > schema["maximum"]:
            raise ValueError(f"{where} must be <= {schema['maximum']}, got {value}")
    return value


def _param_hint(p: Param) -> str:
    hint = f"{p.name} ({p.type}"
    if p.unit:
        hint += f", {p.unit}"
    hint += ")"
    if p.examples:
        hint += f", e.g. {_show(p.examples[0])}"
    return hint


def validate_arguments(manifest: ToolManifest, args: Any) -> dict[str, Any]:
    """Named, checked arguments for ``manifest`` from a list (positional) or dict (named)."""
    params = manifest.parameters
    by_name = {p.name: p for p in params}
    if args is None:
        args = {}
    if isinstance(args, tuple):
        args = list(args)
    if isinstance(args, list):
        if len(args) > len(params):
            raise ToolArgumentError(
                manifest.name,
                f"takes at most {len(params)} arguments "
                f"({', '.join(p.name for p in params)}), got {len(args)}",
            )
        named = {p.name: value for p, value in zip(params, args)}
    elif isinstance(args, dict):
        unknown = [k for k in args if k not in by_name]
        if unknown:
            raise ToolArgumentError(
                manifest.name,
                f"unknown parameter {unknown[0]!r}; it takes "
                f"{', '.join(p.name for p in params) or 'no parameters'}",
                unknown[0],
            )
        named = dict(args)
    else:
        raise ToolArgumentError(
            manifest.name, f"arguments must be a JSON object or list, got {_type_name(args)}"
        )
    out: dict[str, Any] = {}
    for p in params:
        if p.name not in named or named[p.name] is None:
            if p.required:
                raise ToolArgumentError(
                    manifest.name,
                    f"missing required parameter {_param_hint(p)}: {p.description}",
                    p.name,
                )
            out[p.name] = p.default
            continue
        try:
            out[p.name] = check_value(named[p.name], p.schema(), f"parameter {p.name!r}")
        except ValueError as error:
            raise ToolArgumentError(manifest.name, str(error), p.name) from None
    return out
