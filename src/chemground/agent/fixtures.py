"""Stand-in input objects for benchmark steps whose inputs were never written.

The benchmark's materials steps name pickle files (``structure_x.pkl``, ``entries_y.pkl``)
that no earlier step created and that the dataset does not contain, and their gold
returns are all null. To measure whether our tools run on the gold parameters at all, the
fidelity run creates a small object of the kind the file name announces (a Li2O crystal,
Li-O entries, a Pt(111) slab, ...). These are test inputs, labelled as such in every
report; they are never used outside the benchmark.
"""

from __future__ import annotations

import re
from typing import Any

from chemground.agent import artifacts
from chemground.agent.manifest import ToolManifest
from chemground.agent.registry import ToolContext

STRUCTURE_EXTENSIONS = {
    ".cif": "cif",
    ".vasp": "poscar",
    ".cssr": "cssr",
    ".xsf": "xsf",
    ".yaml": "yaml",
    ".json": "json",
    ".mson": "json",
    ".res": "res",
}


def _li2o():
    from pymatgen.core import Lattice, Structure

    return Structure.from_spacegroup(
        "Fm-3m", Lattice.cubic(4.61), ["Li", "O"], [[0.25, 0.25, 0.25], [0, 0, 0]]
    )


def _pt_slab():
    from pymatgen.core import Lattice, Structure
    from pymatgen.core.surface import SlabGenerator

    bulk = Structure.from_spacegroup("Fm-3m", Lattice.cubic(3.92), ["Pt"], [[0, 0, 0]])
    return SlabGenerator(bulk, (1, 1, 1), 6.0, 10.0, center_slab=True).get_slabs()[0]


LI_O_ENTRIES = [
    {"formula": "Li", "energy": -1.9},
    {"formula": "O2", "energy": -9.86},
    {"formula": "Li2O", "energy": -14.3},
    {"formula": "Li2O2", "energy": -19.6},
]


def _entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from chemground.agent.tools.materials_analysis import entry_from_dict

    return [entry_from_dict(item).as_dict() for item in items]


def _dos():
    import numpy as np
    from pymatgen.electronic_structure.core import Spin
    from pymatgen.electronic_structure.dos import Dos

    energies = np.linspace(-10, 10, 401)
    densities = np.exp(-((energies + 3) ** 2)) + np.exp(-((energies - 3) ** 2))
    return Dos(0.0, energies, {Spin.up: densities})


def _band_structure():
    import numpy as np
    from pymatgen.core import Lattice
    from pymatgen.electronic_structure.bandstructure import BandStructure
    from pymatgen.electronic_structure.core import Spin

    lattice = Lattice.cubic(4.0).reciprocal_lattice
    kpoints = [[0, 0, 0], [0.5, 0, 0], [0.5, 0.5, 0]]
    bands = np.array([[-2.0, -1.5, -1.8], [-0.5, -0.8, -0.6], [1.2, 1.0, 1.5], [2.5, 2.2, 2.8]])
    return BandStructure(kpoints, {Spin.up: bands}, lattice, efermi=0.2)


def make_fixture(ctx: ToolContext, name: str, rows: int = 3) -> str | None:
    """Create an object of the kind ``name`` announces; returns its kind, or None when unknown."""
    base = re.sub(r"^.*/", "", name).lower()
    path = artifacts.resolve(ctx, name)
    suffix = path.suffix.lower()
    if base.startswith(("reactant_entries", "product_entries", "entries")):
        if base.startswith("reactant"):
            data = _entries(LI_O_ENTRIES[:2])
        elif base.startswith("product"):
            data = _entries(LI_O_ENTRIES[2:3])
        else:
            data = _entries(LI_O_ENTRIES)
        artifacts.save(ctx, name, "entries", data)
        return "entries"
    if base.startswith("entry"):
        artifacts.save(ctx, name, "entry", _entries(LI_O_ENTRIES[2:3])[0])
        return "entry"
    if base.startswith("phase_diagram"):
        artifacts.save(ctx, name, "phase_diagram", _entries(LI_O_ENTRIES))
        return "phase_diagram"
    if base.startswith("lattice"):
        from pymatgen.core import Lattice

        artifacts.save(ctx, name, "lattice", Lattice.cubic(4.0).as_dict())
        return "lattice"
    if base.startswith("composition"):
        from pymatgen.core import Composition

        artifacts.save(ctx, name, "composition", Composition("Fe2O3").as_dict())
        return "composition"
    if base.startswith("slab"):
        artifacts.save(ctx, name, "slab", _pt_slab().as_dict())
        return "slab"
    if base.startswith("defect_entry"):
        from chemground.agent.tools import materials_structure as ms

        make_fixture(ctx, "_fixture_structure.json")
        ms.create_vacancy(ctx, "_fixture_structure.json", 0, "_fixture_defect.json")
        ms.create_defect_entry(ctx, "_fixture_defect.json", -100.0, name)
        return "defect_entry"
    if base.startswith(("defect", "vacancy")):
        from chemground.agent.tools import materials_structure as ms

        make_fixture(ctx, "_fixture_structure.json")
        ms.create_vacancy(ctx, "_fixture_structure.json", 0, name)
        return "defect"
    if base.startswith("migration_graph"):
        artifacts.save(
            ctx,
            name,
            "migration_graph",
            {
                "structure": _li2o().get_primitive_structure().as_dict(),
                "migrating_ion": "Li",
                "max_distance": 5.0,
            },
        )
        return "migration_graph"
    if base.startswith("neb_analysis"):
        energies = [0.0, 0.12, 0.31, 0.18, 0.02]
        artifacts.save(
            ctx,
            name,
            "neb_analysis",
            {"energies_eV": energies, "distances": [0.0, 0.5, 1.0, 1.5, 2.0], "forces": [0.0] * 5},
        )
        return "neb_analysis"
    if base.startswith("feature"):
        from chemground.agent.tools.materials_analysis import FEATURE_NAMES, structure_features

        row = structure_features(_li2o())
        features = [[x * (1 + 0.1 * i) for x in row] for i in range(rows)]
        artifacts.save(
            ctx,
            name,
            "features",
            {"feature_names": FEATURE_NAMES, "features": features, "sources": []},
        )
        return "features"
    if base.startswith("model"):
        make_fixture(ctx, "feature_fixture_for_model.json", rows)
        from chemground.agent.tools.materials_analysis import train_model

        train_model(
            ctx, "feature_fixture_for_model.json", [float(i) for i in range(rows)], 0.0, 0, name
        )
        return "model"
    if base.startswith("workflow"):
        artifacts.save(
            ctx,
            name,
            "workflow",
            {
                "steps": [
                    {
                        "tool": "Basic_Functionality/get_atomic_mass",
                        "arguments": {"element_str": "Cu"},
                    }
                ]
            },
        )
        return "workflow"
    if base.startswith("vasp"):
        artifacts.save(
            ctx,
            name,
            "vasp_input",
            {"structure": artifacts.structure_summary(_li2o()), "note": "fixture"},
        )
        return "vasp_input"
    if base.startswith("band_structure"):
        artifacts.save(ctx, name, "band_structure", _band_structure().as_dict())
        return "band_structure"
    if base.startswith("dos"):
        artifacts.save(ctx, name, "dos", _dos().as_dict())
        return "dos"
    if base.startswith("structure") or base.startswith("_fixture_structure"):
        structure = _li2o()
        if suffix in (".pkl", ".pickle") or path.name.endswith(".pkl.json") or suffix == ".json":
            artifacts.save_structure(ctx, name, structure)
        elif suffix in STRUCTURE_EXTENSIONS:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(structure.to(fmt=STRUCTURE_EXTENSIONS[suffix]), encoding="utf-8")
        else:
            return None
        return "structure"
    return None


def prepare_inputs(ctx: ToolContext, manifest: ToolManifest, params: Any) -> list[str]:
    """Create stand-ins for the missing input files of one call; returns the kinds made."""
    if not manifest.uses_files:
        return []
    if isinstance(params, dict):
        pairs = list(params.items())
    else:
        pairs = [(p.name, v) for p, v in zip(manifest.parameters, params)]
    rows = 3
    for name, value in pairs:
        if name == "targets" and isinstance(value, list):
            rows = max(1, len(value))
    made = []
    for name, value in pairs:
        if name.startswith("output") or name in ("output_directory", "output_file_path"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if not isinstance(item, str) or not re.search(
                r"\.(pkl|pickle|json|cif|vasp|yaml|mson|res|cssr|xsf)$", item
            ):
                continue
            try:
                if artifacts.resolve(ctx, item).exists():
                    continue
                kind = make_fixture(ctx, item, rows)
            except Exception:  # a path the sandbox refuses: the tool call will report it
                continue
            if kind:
                made.append(kind)
    return made
