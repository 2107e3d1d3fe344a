"""The tool registry: every tool's manifest, found by name, checked before it runs.

A tool is a plain function decorated with :func:`tool`, which attaches its manifest; the
registry collects the decorated functions of the modules in ``TOOL_MODULES`` (and of any
installed plug-in that declares a ``chemground.tools`` entry point). Adding a tool module
of another area is therefore one line: its module path in ``TOOL_MODULES``. Tool modules
import their heavy libraries (pymatgen, chemlib...) inside the functions, so building the
registry and listing tools stays fast.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from chemground.agent.manifest import Param, Returns, ToolManifest
from chemground.agent.validation import ToolArgumentError, ToolError, validate_arguments
from chemground.errors import ChemgroundError

# Built-in tool modules. Another area's tools join with one line here (or an entry point
# in the group "chemground.tools" naming a module).
TOOL_MODULES: list[str] = [
    "chemground.agent.tools.cactus",
    "chemground.agent.tools.chem_lib",
    "chemground.agent.tools.chemcrow",
    "chemground.agent.tools.chemistrytools",
    "chemground.agent.tools.materials_basic",
    "chemground.agent.tools.materials_structure",
    "chemground.agent.tools.materials_analysis",
    "chemground.agent.tools.chemground_tools",
    "chemground.agent.tools.chemground_retrieval",
    "chemground.agent.tools.properties",
]
ENTRY_POINT_GROUP = "chemground.tools"

MANIFEST_ATTR = "__chemground_tool__"


@dataclass
class ToolContext:
    """What a tool may use besides its arguments: settings, its files folder, the KB."""

    settings: Any = None
    files_dir: Path | None = None
    _workspace: Any = field(default=None, repr=False)

    @cached_property
    def workspace(self):
        from chemground.workspace import Workspace

        if self._workspace is not None:
            return self._workspace
        return Workspace(self.settings, readonly=True)

    @cached_property
    def qa(self):
        """The workspace's ``QA`` (built once per context: the knowledge-base tool reuses it)."""
        from chemground.qa_factory import build_qa

        return build_qa(self.workspace)

    def files(self) -> Path:
        if self.files_dir is None:
            raise ToolError(
                "tools", "this tool reads or writes files but no tool files folder is set"
            )
        self.files_dir.mkdir(parents=True, exist_ok=True)
        return self.files_dir


def P(
    name: str,
    type: str,
    description: str,
    *,
    unit: str | None = None,
    examples: Iterable[Any] = (),
    **extra: Any,
) -> Param:
    """Shorthand for a :class:`Param`."""
    return Param(
        name=name, type=type, description=description, unit=unit, examples=list(examples), **extra
    )


def tool(
    name: str,
    description: str,
    params: list[Param],
    returns: tuple[str, str] | tuple[str, str, str],
    *,
    needs_network: bool = False,
    offline_note: str = "",
    uses_files: bool = False,
    needs_kb: bool = False,
    timeout_s: float = 60.0,
    tags: Iterable[str] = (),
) -> Callable[[Callable], Callable]:
    """Attach a manifest to a tool function. ``name`` is ``<namespace>/<tool>``.

    The parameters must be the function's own, in the same order (a first parameter called
    ``ctx`` receives the :class:`ToolContext` and is not part of the manifest).
    """

    def wrap(fn: Callable) -> Callable:
        signature = [p for p in inspect.signature(fn).parameters if p != "ctx"]
        declared = [p.name for p in params]
        if signature != declared:
            raise TypeError(
                f"tool {name}: manifest parameters {declared} do not match the function's "
                f"{signature}"
            )
        namespace = name.split("/", 1)[0]
        manifest = ToolManifest(
            name=name,
            namespace=namespace,
            description=description,
            parameters=params,
            returns=Returns(
                type=returns[0],
                description=returns[1],
                unit=returns[2] if len(returns) > 2 else None,
            ),
            implementation=f"{fn.__module__}:{fn.__name__}",
            needs_network=needs_network,
            offline_note=offline_note,
            uses_files=uses_files,
            needs_kb=needs_kb,
            timeout_s=timeout_s,
            tags=list(tags),
        )
        setattr(fn, MANIFEST_ATTR, manifest)
        return fn

    return wrap


class ToolNotFound(ToolError, LookupError):
    pass


class ToolRegistry:
    """Manifests by name, and the functions behind them."""

    def __init__(self) -> None:
        self._manifests: dict[str, ToolManifest] = {}
        self._functions: dict[str, Callable] = {}

    def __len__(self) -> int:
        return len(self._manifests)

    def __contains__(self, name: str) -> bool:
        return name in self._manifests

    def register(self, fn: Callable) -> ToolManifest:
        """Register a function decorated with :func:`tool`."""
        manifest = getattr(fn, MANIFEST_ATTR, None)
        if manifest is None:
            raise TypeError(
                f"{fn!r} has no tool manifest (decorate it with chemground.agent.registry.tool)"
            )
        if manifest.name in self._manifests and self._functions.get(manifest.name) is not fn:
            raise ValueError(f"two tools are named {manifest.name}")
        self._manifests[manifest.name] = manifest
        self._functions[manifest.name] = fn
        return manifest

    def register_module(self, module_path: str) -> int:
        """Register every tool function of a module; returns how many."""
        module = importlib.import_module(module_path)
        count = 0
        for value in vars(module).values():
            if (
                callable(value)
                and getattr(value, MANIFEST_ATTR, None) is not None
                and value.__module__ == module.__name__
            ):
                self.register(value)
                count += 1
        return count

    @classmethod
    def default(cls) -> ToolRegistry:
        return default_registry()

    def get(self, name: str) -> ToolManifest:
        manifest = self._manifests.get(name)
        if manifest is not None:
            return manifest
        matches = [n for n in self._manifests if n.split("/", 1)[-1] == name]
        if len(matches) == 1:
            return self._manifests[matches[0]]
        hint = ""
        if len(matches) > 1:
            hint = f"; several namespaces have it: {', '.join(sorted(matches))}"
        else:
            close = difflib.get_close_matches(name, list(self._manifests), n=3, cutoff=0.6)
            if close:
                hint = f"; did you mean {', '.join(close)}?"
        raise ToolNotFound(name, f"no such tool{hint} (see 'chemground tools list')")

    def function(self, name: str) -> Callable:
        return self._functions[self.get(name).name]

    def manifests(self, namespace: str | None = None) -> list[ToolManifest]:
        items = sorted(self._manifests.values(), key=lambda m: m.name)
        return [m for m in items if namespace is None or m.namespace == namespace]

    def names(self) -> list[str]:
        return sorted(self._manifests)

    def namespaces(self) -> list[str]:
        return sorted({m.namespace for m in self._manifests.values()})

    def validate(self, name: str, args: Any) -> tuple[ToolManifest, dict[str, Any]]:
        manifest = self.get(name)
        return manifest, validate_arguments(manifest, args)

    def call_in_process(self, name: str, args: Any, context: ToolContext | None = None) -> Any:
        """Validate and run a tool here (no time limit, no isolation); tool errors become
        ToolError."""
        manifest, kwargs = self.validate(name, args)
        return run_function(
            self._functions[manifest.name], manifest, kwargs, context or ToolContext()
        )


def run_function(
    fn: Callable, manifest: ToolManifest, kwargs: dict[str, Any], context: ToolContext
) -> Any:
    """Call ``fn`` and make its result JSON-safe; failures become ToolError with the reason."""
    import contextlib
    import io

    from chemground.agent.jsonsafe import to_jsonable

    try:
        if manifest.uses_files:  # an output may not replace one of the call's input files
            from chemground.agent.artifacts import refuse_output_over_input

            refuse_output_over_input(context, kwargs)
        with contextlib.redirect_stdout(
            io.StringIO()
        ):  # libraries' progress prints must not reach our stdout
            if "ctx" in inspect.signature(fn).parameters:
                value = fn(context, **kwargs)
            else:
                value = fn(**kwargs)
        return to_jsonable(value)
    except ToolError:
        raise
    except ChemgroundError as error:
        raise ToolError(manifest.name, str(error)) from None
    except Exception as error:  # the library's own failure, reported as this tool's error
        message = str(error).strip() or type(error).__name__
        if isinstance(error, KeyError):
            message = f"unknown key {error}"
        raise ToolError(manifest.name, f"{type(error).__name__}: {message}") from None


@lru_cache(maxsize=1)
def default_registry() -> ToolRegistry:
    """All built-in tools plus plug-ins declared under the ``chemground.tools`` entry point."""
    registry = ToolRegistry()
    for module in TOOL_MODULES:
        registry.register_module(module)
    try:
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            registry.register_module(entry.value.split(":")[0])
    except Exception as error:  # a broken plug-in must not hide the built-in tools
        import warnings

        warnings.warn(f"a chemground.tools plug-in failed to load: {error}", stacklevel=2)
    return registry


__all__ = [
    "P",
    "ToolArgumentError",
    "ToolContext",
    "ToolError",
    "ToolNotFound",
    "ToolRegistry",
    "default_registry",
    "tool",
]
