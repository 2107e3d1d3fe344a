"""Objects that materials tools pass to each other (structures, entries, slabs...) as JSON files.

The benchmark's materials tools hand objects over through pickle files; unpickling a file
can run arbitrary code, so chemground never reads or writes pickles. A tool writes the
pymatgen object's own JSON (``as_dict``) wrapped with its kind, and the next tool reads it
back with that class's ``from_dict``. A path ending in ``.pkl`` is accepted as a name, and
the file written is that name plus ``.json``.

Every path lives inside the tool files folder: relative paths are taken from it, absolute
ones are re-rooted inside it, and ``..`` may not climb out. Symbolic links are resolved
(``os.path.realpath``) and a path that a link leads out of the folder is refused, for files
and for everything inside a folder a tool reads or writes; files are written through a fresh
temporary file renamed into place, so a link planted at the target name is replaced, never
followed. User-supplied structure files
(CIF, POSCAR, ...) are read with pymatgen's text parsers; JSON/YAML are parsed as data and
refused if they name classes outside pymatgen.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from chemground.agent.registry import ToolContext
from chemground.errors import ChemgroundError

MAGIC = "chemground_artifact"
TEXT_STRUCTURE_FORMATS = {
    ".cif": "cif",
    ".mcif": "cif",
    ".vasp": "poscar",
    ".poscar": "poscar",
    ".cssr": "cssr",
    ".xsf": "xsf",
    ".res": "res",
}


class ArtifactError(ChemgroundError):
    pass


def resolve(ctx: ToolContext, name: str, *, must_exist: bool = False) -> Path:
    """The real path of ``name`` inside the tool files folder (pickle names get ``.json``)."""
    root = ctx.files().resolve()
    text = (name or "").strip()
    if not text:
        raise ArtifactError("empty file path")
    parts = [p for p in PurePosixPath(text.replace("\\", "/")).parts if p not in ("/", "")]
    if any(p == ".." for p in parts):
        raise ArtifactError(
            f"path {name!r} may not contain '..' (tools only use their files folder {root})"
        )
    path = root.joinpath(*parts) if parts else root
    if path.suffix.lower() in (".pkl", ".pickle"):
        path = path.with_name(path.name + ".json")
    path = _confined(root, path, name)
    if must_exist and not path.exists():
        raise ArtifactError(
            f"no file or folder {name!r} in the tool files folder {root} (was it written by an "
            "earlier "
            "tool call?)"
        )
    return path


def _path_values(value: Any) -> list[str]:
    """The file names in one path argument: a string, or each string of a list."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def refuse_output_over_input(ctx: ToolContext, arguments: dict[str, Any]) -> None:
    """Refuse a call whose output file is one of its own input files.

    The output parameters are those named ``output_*``; the inputs are the other parameters
    whose names say they hold a path (``*path*``, ``*_dir``). Writing the output would replace
    the input (a user's CIF overwritten by a JSON artifact), so the call is refused before the
    tool runs.

    Args:
        ctx: the call's context (its tool files folder).
        arguments: the validated arguments, by parameter name.

    Raises:
        ArtifactError: an output names the same file as an input.
    """
    inputs: dict[Path, str] = {}
    for key, value in arguments.items():
        if not key.startswith("output") and ("path" in key or key.endswith("_dir")):
            for name in _path_values(value):
                inputs.setdefault(resolve(ctx, name), name)
    if not inputs:
        return
    for key, value in arguments.items():
        if key.startswith("output"):
            for name in _path_values(value):
                source = inputs.get(resolve(ctx, name))
                if source is not None:
                    raise ArtifactError(
                        f"the output {name!r} is the input file {source!r}: writing it would "
                        f"replace the input; choose another name for {key}"
                    )


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _confined(root: Path, path: Path, name: str) -> Path:
    """``path`` with every symbolic link resolved; ArtifactError if a link leads outside
    ``root``."""
    real = Path(os.path.realpath(path))
    if not _inside(root, real):
        raise ArtifactError(
            f"path {name!r} leads outside the tool files folder {root} through a symbolic link "
            f"(to {real}); tools only read and write inside that folder"
        )
    return real


def check_folder(ctx: ToolContext, folder: Path, name: str) -> None:
    """Refuse a folder (to read or write) in which a symbolic link leads outside the tool files
    folder."""
    root = ctx.files().resolve()
    if not folder.is_dir():
        return
    for base, dirs, files in os.walk(folder):
        for entry in dirs + files:
            path = Path(base) / entry
            if path.is_symlink():
                real = Path(os.path.realpath(path))
                if not _inside(root, real):
                    raise ArtifactError(
                        f"{name!r} holds a symbolic link {display(ctx, path)!r} that leads outside "
                        "the "
                        f"tool files folder {root} (to {real}); tools only read and write inside it"
                    )


def write_bytes(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (from ``resolve``) atomically, never through a symbolic link.

    The bytes go to a new temporary file (created exclusively, so no link can be followed) that
    is then renamed over ``path``: a link planted at ``path`` is replaced, not written through.
    """
    root = ctx.files().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    parent = _confined(root, path.parent, str(path.parent))
    handle, tmp = tempfile.mkstemp(dir=parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, parent / path.name)  # atomic: a reader never sees half a file
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(ctx: ToolContext, path: Path, text: str) -> None:
    write_bytes(ctx, path, text.encode("utf-8"))


def write_folder(ctx: ToolContext, folder: Path, name: str, fill) -> None:
    """Let ``fill(staging_folder)`` write files, then move them into ``folder`` without following
    links.

    For library calls that write a set of files into a folder (VASP inputs): they write into a
    fresh folder, and each file is renamed into place, replacing (never following) a link there.
    """
    root = ctx.files().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    folder = _confined(root, folder, name)
    check_folder(ctx, folder, name)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".staging-") as staging:
        fill(Path(staging))
        for base, dirs, files in os.walk(staging):
            target = folder / Path(base).relative_to(staging)
            for entry in dirs:
                (target / entry).mkdir(exist_ok=True)
                _confined(root, target / entry, name)
            for entry in files:
                os.replace(Path(base) / entry, target / entry)


def display(ctx: ToolContext, path: Path) -> str:
    try:
        return str(path.relative_to(ctx.files().resolve()))
    except ValueError:
        return str(path)


def check_classes(value: Any, where: str = "file") -> None:
    """Refuse JSON that asks for classes outside pymatgen (monty would import and build them)."""
    if isinstance(value, dict):
        module = value.get("@module")
        if isinstance(module, str) and not module.startswith(("pymatgen.", "numpy")):
            raise ArtifactError(
                f"{where} names the class {module}.{value.get('@class')}; only pymatgen objects "
                "are read"
            )
        for item in value.values():
            check_classes(item, where)
    elif isinstance(value, list):
        for item in value:
            check_classes(item, where)


def save(ctx: ToolContext, name: str, kind: str, data: Any) -> str:
    """Write ``data`` (JSON-able) as an artifact of ``kind``; returns the path written
    (relative)."""
    from chemground.agent.jsonsafe import to_jsonable

    path = resolve(ctx, name)
    write_text(ctx, path, json.dumps({MAGIC: kind, "version": 1, "data": to_jsonable(data)}))
    return display(ctx, path)


def load(ctx: ToolContext, name: str, kinds: tuple[str, ...]) -> tuple[str, Any]:
    """Read an artifact and check it is one of ``kinds``."""
    path = resolve(ctx, name, must_exist=True)
    raw = path.read_bytes()
    if raw[:1] == b"\x80":
        raise ArtifactError(
            f"{name!r} is a pickle file; chemground never loads pickles (they can run code). "
            "Re-create the object with a chemground tool, which writes JSON"
        )
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArtifactError(f"{name!r} is not a chemground JSON artifact: {error}") from None
    if not isinstance(document, dict) or MAGIC not in document:
        if (
            "structure" in kinds
            and isinstance(document, dict)
            and document.get("@class") in ("Structure", "IStructure")
        ):
            check_classes(document, name)
            return "structure", document
        raise ArtifactError(
            f"{name!r} is not a chemground artifact (expected a {' or '.join(kinds)})"
        )
    kind = document[MAGIC]
    if kind not in kinds:
        raise ArtifactError(f"{name!r} holds a {kind}, but a {' or '.join(kinds)} is needed here")
    check_classes(document["data"], name)
    return kind, document["data"]


# --- typed helpers -------------------------------------------------------------------------


def load_structure(ctx: ToolContext, name: str):
    """A pymatgen Structure from an artifact or a structure file (CIF, POSCAR, JSON, YAML...)."""
    from pymatgen.core import Structure

    path = resolve(ctx, name, must_exist=True)
    lowered = path.name.lower()
    if lowered.endswith(".json") or lowered.endswith(".mson"):
        _kind, data = load(ctx, name, ("structure", "slab"))
        return Structure.from_dict(data)
    if lowered.endswith((".yaml", ".yml")):
        from ruamel.yaml import YAML

        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        check_classes(data, name)
        return Structure.from_dict(data)
    fmt = TEXT_STRUCTURE_FORMATS.get(path.suffix.lower())
    if fmt is None and ("POSCAR" in path.name or "CONTCAR" in path.name):
        fmt = "poscar"
    if fmt is None:
        raise ArtifactError(
            f"cannot read a structure from {name!r}: supported files are CIF, "
            "POSCAR/CONTCAR/.vasp, "
            "CSSR, XSF, RES, pymatgen JSON/YAML and chemground artifacts"
        )
    try:
        return Structure.from_str(path.read_text(encoding="utf-8", errors="replace"), fmt=fmt)
    except Exception as error:
        raise ArtifactError(f"could not parse {name!r} as {fmt}: {error}") from None


def save_structure(ctx: ToolContext, name: str, structure, kind: str = "structure") -> str:
    return save(ctx, name, kind, structure.as_dict())


def structure_summary(structure) -> dict[str, Any]:
    """What a model needs to know about a structure it cannot see."""
    data: dict[str, Any] = {
        "formula": structure.composition.formula,
        "reduced_formula": structure.composition.reduced_formula,
        "num_sites": len(structure),
        "lattice_abc": [round(x, 4) for x in structure.lattice.abc],
        "lattice_angles": [round(x, 3) for x in structure.lattice.angles],
        "volume": round(structure.volume, 4),
    }
    try:
        data["density_g_cm3"] = round(float(structure.density), 4)
    except (ValueError, ZeroDivisionError, TypeError):
        pass
    if not structure.is_ordered:
        data["ordered"] = False
    return data
