"""Objects that materials tools pass to each other (structures, entries, slabs...) as JSON files.

The benchmark's materials tools hand objects over through pickle files; unpickling a file
can run arbitrary code, so chemground never reads or writes pickles. A tool writes the
pymatgen object's own JSON (``as_dict``) wrapped with its kind, and the next tool reads it
back with that class's ``from_dict``. A path ending in ``.pkl`` is accepted as a name, and
the file written is that name plus ``.json``.

Every path lives inside the tool files folder: relative paths are taken from it, absolute
ones are re-rooted inside it, and ``..`` may not climb out. User-supplied structure files
(CIF, POSCAR, ...) are read with pymatgen's text parsers; JSON/YAML are parsed as data and
refused if they name classes outside pymatgen.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from chemground.agent.registry import ToolContext
from chemground.errors import ChemgroundError

MAGIC = "chemground_artifact"
TEXT_STRUCTURE_FORMATS = {
    ".cif": "cif", ".mcif": "cif", ".vasp": "poscar", ".poscar": "poscar", ".cssr": "cssr", ".xsf": "xsf",
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
        raise ArtifactError(f"path {name!r} may not contain '..' (tools only use their files folder {root})")
    path = root.joinpath(*parts) if parts else root
    if path.suffix.lower() in (".pkl", ".pickle"):
        path = path.with_name(path.name + ".json")
    if must_exist and not path.exists():
        raise ArtifactError(f"no file or folder {name!r} in the tool files folder {root} (was it written by an earlier "
                            "tool call?)")
    return path


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
            raise ArtifactError(f"{where} names the class {module}.{value.get('@class')}; only pymatgen objects are read")
        for item in value.values():
            check_classes(item, where)
    elif isinstance(value, list):
        for item in value:
            check_classes(item, where)


def save(ctx: ToolContext, name: str, kind: str, data: Any) -> str:
    """Write ``data`` (JSON-able) as an artifact of ``kind``; returns the path written (relative)."""
    from chemground.agent.jsonsafe import to_jsonable

    path = resolve(ctx, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({MAGIC: kind, "version": 1, "data": to_jsonable(data)}), encoding="utf-8")
    tmp.replace(path)  # atomic: a reader never sees half a file
    return display(ctx, path)


def load(ctx: ToolContext, name: str, kinds: tuple[str, ...]) -> tuple[str, Any]:
    """Read an artifact and check it is one of ``kinds``."""
    path = resolve(ctx, name, must_exist=True)
    raw = path.read_bytes()
    if raw[:1] == b"\x80":
        raise ArtifactError(f"{name!r} is a pickle file; chemground never loads pickles (they can run code). "
                            "Re-create the object with a chemground tool, which writes JSON")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArtifactError(f"{name!r} is not a chemground JSON artifact: {error}") from None
    if not isinstance(document, dict) or MAGIC not in document:
        if "structure" in kinds and isinstance(document, dict) and document.get("@class") in ("Structure", "IStructure"):
            check_classes(document, name)
            return "structure", document
        raise ArtifactError(f"{name!r} is not a chemground artifact (expected a {' or '.join(kinds)})")
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
        kind, data = load(ctx, name if not lowered.endswith(".mson") else name, ("structure", "slab"))
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
        raise ArtifactError(f"cannot read a structure from {name!r}: supported files are CIF, POSCAR/CONTCAR/.vasp, "
                            "CSSR, XSF, RES, pymatgen JSON/YAML and chemground artifacts")
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
