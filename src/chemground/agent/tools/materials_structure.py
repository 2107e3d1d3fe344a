"""Materials tools on pymatgen that build and change crystal structures: structures from lattices
or space groups, site edits, symmetry datasets, surfaces and adsorption, point defects,
structure files, and local workflows.

Namespaces follow the benchmark (``Crystal_Structure_Manipulation``,
``Structure_Mainpulation_and_Analysis`` [sic], ``IO_Operations``, ``Surface_Analysis``,
``Surface_Interface_Analysis``, ``Catalysis_Studies``, ``Defect_Analysis``,
``High_Throughput_Calculation``). Objects pass between calls as JSON artifacts.
"""

from __future__ import annotations

import warnings
from typing import Any

from chemground.agent import artifacts
from chemground.agent.registry import P, ToolContext, tool
from chemground.agent.tools.materials_basic import (
    COORDS,
    SPECIES,
    build_structure,
    symmetry_summary,
)
from chemground.chem.formula import element_symbol
from chemground.errors import ChemgroundError

STRUCTURE_IN = P(
    "structure_pickle_file_path",
    "string",
    "Saved structure (JSON artifact) or a structure file (CIF, POSCAR) in the tool files folder.",
    examples=["structure_nacl.json"],
)
STRUCTURE_OUT = P(
    "output_structure_pickle_file_path",
    "string",
    "Where to save the resulting structure.",
    examples=["structure_out.json"],
)
LATTICE = P(
    "lattice",
    "array",
    "Lattice vectors as a 3x3 matrix [[ax, ay, az], [bx, by, bz], [cx, cy, cz]].",
    unit="Å",
    items={"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
    min_items=3,
    max_items=3,
    examples=[[[5.64, 0, 0], [0, 5.64, 0], [0, 0, 5.64]]],
)
MILLER = P(
    "miller_index",
    "array",
    "Miller index (h, k, l) of the surface plane; each index between -4 and 4 "
    "(higher-index slabs have thousands of atoms).",
    items={"type": "integer", "minimum": -4, "maximum": 4},
    min_items=3,
    max_items=3,
    examples=[[1, 1, 1]],
)
MIN_SLAB = P(
    "min_slab_size", "number", "Minimum slab thickness.", unit="Å", minimum=0.1, examples=[10.0]
)
MIN_VACUUM = P(
    "min_vacuum_size", "number", "Minimum vacuum thickness.", unit="Å", minimum=0.0, examples=[10.0]
)


def _summary(structure) -> dict[str, Any]:
    return artifacts.structure_summary(structure)


def _lattice(matrix: list[list[float]]):
    from pymatgen.core import Lattice

    lattice = Lattice(matrix)
    if abs(lattice.volume) < 1e-6:
        raise ChemgroundError("the lattice vectors are linearly dependent (zero volume)")
    return lattice


# --- Crystal_Structure_Manipulation -----------------------------------------------------------


@tool(
    "Crystal_Structure_Manipulation/create_structure",
    "Create a crystal structure from lattice vectors, the species of each site and fractional "
    "coordinates, and save it.",
    [LATTICE, SPECIES, COORDS, STRUCTURE_OUT],
    ("object", "{'path', structure summary}"),
    uses_files=True,
    tags=["structure"],
)
def create_structure(
    ctx: ToolContext,
    lattice: list,
    species: list,
    coords: list,
    output_structure_pickle_file_path: str,
) -> dict:
    structure = build_structure(_lattice(lattice), species, coords)
    return {
        "path": artifacts.save_structure(ctx, output_structure_pickle_file_path, structure),
        **_summary(structure),
    }


@tool(
    "Crystal_Structure_Manipulation/analyze_symmetry",
    "Space group, point group, crystal system and lattice parameters of a saved crystal structure "
    "(spglib).",
    [STRUCTURE_IN],
    (
        "object",
        "{'space_group_symbol', 'space_group_number', 'point_group', 'crystal_system', "
        "'lattice_abc', 'lattice_angles'}",
    ),
    uses_files=True,
    tags=["symmetry", "space group"],
)
def analyze_symmetry(ctx: ToolContext, structure_pickle_file_path: str) -> dict:
    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    out = symmetry_summary(structure)
    out["lattice_abc"] = [float(x) for x in structure.lattice.abc]
    out["lattice_angles"] = [float(x) for x in structure.lattice.angles]
    return out


def _site(structure, index: int):
    if not 0 <= index < len(structure):
        raise ChemgroundError(
            f"site index {index} is out of range: the structure has {len(structure)} sites "
            f"(indices 0-{len(structure) - 1})"
        )
    return structure[index]


@tool(
    "Crystal_Structure_Manipulation/modify_site_occupancy",
    "Set the occupancy of one site (partial occupancy, 0-1) in a saved structure and save the "
    "result.",
    [
        STRUCTURE_IN,
        P("site_index", "integer", "Index of the site (0-based).", minimum=0, examples=[0]),
        P(
            "occupancy",
            "number",
            "New occupancy of the site's species.",
            minimum=0,
            maximum=1,
            examples=[0.5],
        ),
        STRUCTURE_OUT,
    ],
    ("object", "{'path', 'site', 'occupancy', structure summary}"),
    uses_files=True,
    tags=["structure", "disorder"],
)
def modify_site_occupancy(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    site_index: int,
    occupancy: float,
    output_structure_pickle_file_path: str,
) -> dict:
    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    site = _site(structure, site_index)
    if occupancy == 0:
        structure.remove_sites([site_index])
    else:
        species = {
            sp: amount * occupancy / site.species.num_atoms for sp, amount in site.species.items()
        }
        structure.replace(site_index, species, site.frac_coords)
    path = artifacts.save_structure(ctx, output_structure_pickle_file_path, structure)
    return {"path": path, "site": site_index, "occupancy": occupancy, **_summary(structure)}


def _defect_summary(defect) -> dict[str, Any]:
    site = defect.site
    return {
        "defect_type": type(defect).__name__,
        "name": defect.name,
        "site_species": site.species_string,
        "site_frac_coords": [round(float(x), 6) for x in site.frac_coords],
        "multiplicity": int(defect.multiplicity),
        "charge_states": list(defect.get_charge_states()),
        "host_formula": defect.structure.composition.reduced_formula,
        "defect_formula": defect.defect_structure.composition.formula,
    }


@tool(
    "Crystal_Structure_Manipulation/create_vacancy",
    "Create a vacancy point defect by removing the atom at a site of a saved structure; saves the "
    "defect.",
    [
        STRUCTURE_IN,
        P(
            "site_index",
            "integer",
            "Index of the site to vacate (0-based).",
            minimum=0,
            examples=[0],
        ),
        P(
            "output_vacancy_pickle_file_path",
            "string",
            "Where to save the vacancy defect.",
            examples=["vacancy.json"],
        ),
    ],
    ("object", "{'path', 'defect_type', 'name', 'site_species', 'multiplicity', ...}"),
    uses_files=True,
    tags=["defect", "vacancy"],
)
def create_vacancy(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    site_index: int,
    output_vacancy_pickle_file_path: str,
) -> dict:
    from pymatgen.analysis.defects.core import Vacancy

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    defect = Vacancy(structure, _site(structure, site_index))
    path = artifacts.save(ctx, output_vacancy_pickle_file_path, "defect", defect.as_dict())
    return {"path": path, **_defect_summary(defect)}


@tool(
    "Crystal_Structure_Manipulation/create_interstitial",
    "Create an interstitial point defect: an extra atom of an element at fractional coordinates in "
    "a saved "
    "structure; saves the defect.",
    [
        STRUCTURE_IN,
        P("element_str", "string", "Element of the interstitial atom.", examples=["Li"]),
        P(
            "coords",
            "array",
            "Fractional coordinates [x, y, z] of the interstitial.",
            items={"type": "number"},
            min_items=3,
            max_items=3,
            examples=[[0.25, 0.25, 0.25]],
        ),
        P(
            "output_interstitial_pickle_file_path",
            "string",
            "Where to save the defect.",
            examples=["interstitial.json"],
        ),
    ],
    ("object", "{'path', 'defect_type', 'name', 'site_species', 'site_frac_coords', ...}"),
    uses_files=True,
    tags=["defect", "interstitial"],
)
def create_interstitial(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    element_str: str,
    coords: list,
    output_interstitial_pickle_file_path: str,
) -> dict:
    from pymatgen.analysis.defects.core import Interstitial
    from pymatgen.core import PeriodicSite

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    site = PeriodicSite(element_symbol(element_str), coords, structure.lattice)
    defect = Interstitial(structure, site)
    path = artifacts.save(ctx, output_interstitial_pickle_file_path, "defect", defect.as_dict())
    return {"path": path, **_defect_summary(defect)}


# --- Structure_Mainpulation_and_Analysis --------------------------------------------------------


@tool(
    "Structure_Mainpulation_and_Analysis/create_structure_from_file",
    "Read a crystal structure from a file (CIF, POSCAR/CONTCAR/.vasp, CSSR, XSF, RES, pymatgen "
    "JSON/YAML) and save it.",
    [
        P(
            "structure_file_path",
            "string",
            "Structure file in the tool files folder.",
            examples=["nacl.cif"],
        ),
        STRUCTURE_OUT,
    ],
    ("object", "{'path', structure summary}"),
    uses_files=True,
    tags=["structure", "file"],
)
def create_structure_from_file(
    ctx: ToolContext, structure_file_path: str, output_structure_pickle_file_path: str
) -> dict:
    structure = artifacts.load_structure(ctx, structure_file_path)
    return {
        "path": artifacts.save_structure(ctx, output_structure_pickle_file_path, structure),
        **_summary(structure),
    }


@tool(
    "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
    "Build a crystal structure from a space group (symbol or number), the lattice and the "
    "asymmetric-unit sites "
    "(species and fractional coordinates); symmetry generates the equivalent sites. Saves it.",
    [
        P(
            "spacegroup",
            "string",
            "Space group symbol (Hermann-Mauguin) or number.",
            examples=["Fm-3m", "225"],
        ),
        LATTICE,
        SPECIES,
        COORDS,
        STRUCTURE_OUT,
    ],
    ("object", "{'path', structure summary}"),
    uses_files=True,
    tags=["structure", "space group"],
)
def create_structure_from_spacegroup(
    ctx: ToolContext,
    spacegroup: str,
    lattice: list,
    species: list,
    coords: list,
    output_structure_pickle_file_path: str,
) -> dict:
    from pymatgen.core import Structure

    if len(species) != len(coords):
        raise ChemgroundError(f"{len(species)} species but {len(coords)} coordinates")
    group: Any = int(spacegroup) if spacegroup.strip().isdigit() else spacegroup.strip()
    try:
        structure = Structure.from_spacegroup(
            group, _lattice(lattice), [element_symbol(s) for s in species], coords
        )
    except ChemgroundError:
        raise
    except Exception as error:
        raise ChemgroundError(
            f"cannot build a structure in space group {spacegroup!r}: {error}"
        ) from None
    return {
        "path": artifacts.save_structure(ctx, output_structure_pickle_file_path, structure),
        **_summary(structure),
    }


@tool(
    "Structure_Mainpulation_and_Analysis/remove_sites",
    "Remove the sites with the given indices (0-based) from a saved structure and save the result.",
    [
        STRUCTURE_IN,
        P(
            "indices",
            "array",
            "Indices of the sites to remove.",
            items={"type": "integer", "minimum": 0},
            min_items=1,
            examples=[[0, 3]],
        ),
        STRUCTURE_OUT,
    ],
    ("object", "{'path', 'removed', structure summary}"),
    uses_files=True,
    tags=["structure"],
)
def remove_sites(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    indices: list,
    output_structure_pickle_file_path: str,
) -> dict:
    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    bad = [i for i in indices if i >= len(structure)]
    if bad:
        raise ChemgroundError(
            f"site indices {bad} are out of range: the structure has {len(structure)} sites"
        )
    if len(set(indices)) >= len(structure):
        raise ChemgroundError("removing every site would leave an empty structure")
    structure.remove_sites(sorted(set(indices)))
    path = artifacts.save_structure(ctx, output_structure_pickle_file_path, structure)
    return {"path": path, "removed": sorted(set(indices)), **_summary(structure)}


@tool(
    "Structure_Mainpulation_and_Analysis/get_symmetry_dataset",
    "Full spglib symmetry dataset of a saved structure (space group, Hall symbol, Wyckoff letters, "
    "equivalent atoms, "
    "number of operations) and save it.",
    [
        STRUCTURE_IN,
        P(
            "output_structure_pickle_file_path",
            "string",
            "Where to save the symmetry dataset.",
            examples=["symmetry.json"],
        ),
    ],
    (
        "object",
        "{'path', 'number', 'international', 'hall', 'wyckoffs', 'equivalent_atoms', "
        "'n_operations'}",
    ),
    uses_files=True,
    tags=["symmetry"],
)
def get_symmetry_dataset(
    ctx: ToolContext, structure_pickle_file_path: str, output_structure_pickle_file_path: str
) -> dict:
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    dataset = SpacegroupAnalyzer(structure).get_symmetry_dataset()
    data = {
        "number": int(dataset.number),
        "international": dataset.international,
        "hall": dataset.hall,
        "pointgroup": dataset.pointgroup,
        "wyckoffs": list(dataset.wyckoffs),
        "equivalent_atoms": [int(x) for x in dataset.equivalent_atoms],
        "n_operations": len(dataset.rotations),
    }
    return {
        "path": artifacts.save(ctx, output_structure_pickle_file_path, "symmetry", data),
        **data,
    }


@tool(
    "Structure_Mainpulation_and_Analysis/get_primitive_structure",
    "Standard primitive cell of a saved structure (spglib) and save it.",
    [STRUCTURE_IN, STRUCTURE_OUT],
    ("object", "{'path', 'sites_before', structure summary}"),
    uses_files=True,
    tags=["structure", "symmetry"],
)
def get_primitive_structure(
    ctx: ToolContext, structure_pickle_file_path: str, output_structure_pickle_file_path: str
) -> dict:
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    primitive = SpacegroupAnalyzer(structure).get_primitive_standard_structure()
    path = artifacts.save_structure(ctx, output_structure_pickle_file_path, primitive)
    return {"path": path, "sites_before": len(structure), **_summary(primitive)}


# --- IO_Operations ---------------------------------------------------------------------------


@tool(
    "IO_Operations/handle_cif",
    "Write a saved structure as a CIF file (symmetrised CIF text); returns the CIF text.",
    [
        STRUCTURE_IN,
        P(
            "output_cif_pickle_file_path",
            "string",
            "Where to write the CIF.",
            examples=["nacl.cif"],
        ),
    ],
    ("object", "{'path', 'cif'}"),
    uses_files=True,
    tags=["CIF", "file"],
)
def handle_cif(
    ctx: ToolContext, structure_pickle_file_path: str, output_cif_pickle_file_path: str
) -> dict:
    from pymatgen.io.cif import CifWriter

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    text = str(CifWriter(structure, symprec=0.01))
    path = artifacts.resolve(ctx, output_cif_pickle_file_path)
    if path.name.endswith(".json"):  # a pickle-style name: keep the CIF in an artifact
        written = artifacts.save(ctx, output_cif_pickle_file_path, "cif", {"cif": text})
    else:
        artifacts.write_text(ctx, path, text)
        written = artifacts.display(ctx, path)
    return {"path": written, "cif": text}


@tool(
    "IO_Operations/handle_vasp",
    "Read VASP files and summarise them: a folder of inputs (INCAR, KPOINTS, POSCAR), a "
    "vasprun.xml (final energy, "
    "band gap, convergence) or a saved VASP input set.",
    [
        P(
            "vasp_pickle_file_path",
            "string",
            "A folder with VASP inputs, a vasprun.xml, or a saved VASP input artifact.",
            examples=["vasp_nacl/", "vasprun.xml"],
        )
    ],
    ("object", "summary of the VASP inputs or outputs"),
    uses_files=True,
    timeout_s=120,
    tags=["VASP", "file"],
)
def handle_vasp(ctx: ToolContext, vasp_pickle_file_path: str) -> dict:
    path = artifacts.resolve(ctx, vasp_pickle_file_path, must_exist=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if path.is_dir():
            from pymatgen.io.vasp import Incar, Kpoints, Poscar

            artifacts.check_folder(ctx, path, vasp_pickle_file_path)
            out: dict[str, Any] = {
                "directory": artifacts.display(ctx, path),
                "files": sorted(p.name for p in path.iterdir()),
            }
            if (path / "INCAR").exists():
                out["incar"] = dict(Incar.from_file(path / "INCAR"))
            if (path / "KPOINTS").exists():
                out["kpoints"] = str(Kpoints.from_file(path / "KPOINTS")).splitlines()
            if (path / "POSCAR").exists():
                out["structure"] = _summary(Poscar.from_file(path / "POSCAR").structure)
            if len(out) == 2:
                raise ChemgroundError(f"{vasp_pickle_file_path!r} has no INCAR, KPOINTS or POSCAR")
            return out
        if path.name.endswith(".xml") or "vasprun" in path.name:
            from pymatgen.io.vasp import Vasprun

            run = Vasprun(str(path), parse_potcar_file=False, parse_dos=False, parse_eigen=True)
            gap, _cbm, _vbm, direct = run.eigenvalue_band_properties
            return {
                "final_energy_eV": float(run.final_energy),
                "converged": bool(run.converged),
                "band_gap_eV": float(gap),
                "is_direct_gap": bool(direct),
                "efermi_eV": _maybe(run.efermi),
                "structure": _summary(run.final_structure),
                "ionic_steps": len(run.ionic_steps),
            }
    _, data = artifacts.load(ctx, vasp_pickle_file_path, ("vasp_input",))
    return data


def _maybe(value: Any) -> float | None:
    return None if value is None else float(value)


@tool(
    "IO_Operations/get_structure_by_material_id",
    "Download the crystal structure of a Materials Project entry (e.g. mp-149) with an MP API key.",
    [
        P("api_key", "string", "Materials Project API key.", examples=["your-mp-api-key"]),
        P("material_id", "string", "Materials Project id, e.g. 'mp-149'.", examples=["mp-149"]),
    ],
    ("object", "structure summary and the structure as pymatgen JSON"),
    needs_network=True,
    offline_note="the Materials Project is online only; offline the tool says so",
    timeout_s=120,
    tags=["Materials Project", "structure"],
)
def get_structure_by_material_id(ctx: ToolContext, api_key: str, material_id: str) -> dict:
    from chemground.agent.runner import ToolOffline

    if not getattr(ctx.settings, "allow_network", False):
        raise ToolOffline(
            "IO_Operations/get_structure_by_material_id",
            "the Materials Project API is online only and "
            "the network is not allowed (set CHEMGROUND_ALLOW_NETWORK=1)",
        )
    try:
        from mp_api.client import MPRester
    except ImportError:
        raise ToolOffline(
            "IO_Operations/get_structure_by_material_id",
            "needs the mp-api package (pip install mp-api)",
        ) from None
    mid = material_id.strip()
    if mid.isdigit():
        mid = f"mp-{mid}"
    with MPRester(api_key) as rester:
        structure = rester.get_structure_by_material_id(mid)
    return {"material_id": mid, **_summary(structure), "structure": structure.as_dict()}


# --- surfaces, adsorption, catalysis -----------------------------------------------------------


def _slabs(structure, miller_index: list[int], min_slab_size: float, min_vacuum_size: float):
    from pymatgen.core.surface import SlabGenerator

    if all(h == 0 for h in miller_index):
        raise ChemgroundError("the Miller index may not be (0, 0, 0)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slabs = SlabGenerator(
            structure, tuple(miller_index), min_slab_size, min_vacuum_size, center_slab=True
        ).get_slabs()
    if not slabs:
        raise ChemgroundError(f"no slab could be cut for Miller index {tuple(miller_index)}")
    return slabs


def slab_summary(slab) -> dict[str, Any]:
    return {
        "miller_index": list(slab.miller_index),
        "shift": round(float(slab.shift), 6),
        "num_sites": len(slab),
        "formula": slab.composition.formula,
        "surface_area": float(slab.surface_area),
        "is_symmetric": bool(slab.is_symmetric()),
        "is_polar": bool(slab.is_polar()),
    }


@tool(
    "Surface_Analysis/get_slabs_info",
    "Enumerate the surface slabs of a structure for all low-index Miller planes (max index 1; 10 Å "
    "slab, 10 Å vacuum): "
    "Miller index, termination shift, number of atoms, surface area, symmetric and polar flags.",
    [STRUCTURE_IN],
    ("array", "one summary per distinct slab"),
    uses_files=True,
    timeout_s=120,
    tags=["surface", "slab"],
)
def get_slabs_info(ctx: ToolContext, structure_pickle_file_path: str) -> list:
    from pymatgen.core.surface import generate_all_slabs

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slabs = generate_all_slabs(structure, max_index=1, min_slab_size=10.0, min_vacuum_size=10.0)
    return [slab_summary(s) for s in slabs]


@tool(
    "Surface_Interface_Analysis/generate_surface",
    "Cut a surface slab of a structure along a Miller plane with given slab and vacuum thickness; "
    "reports each "
    "termination.",
    [STRUCTURE_IN, MILLER, MIN_SLAB, MIN_VACUUM],
    (
        "object",
        "{'slab': summary of the first termination, 'terminations': number, 'all': summaries}",
    ),
    uses_files=True,
    timeout_s=120,
    tags=["surface", "slab"],
)
def generate_surface(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    miller_index: list,
    min_slab_size: float,
    min_vacuum_size: float,
) -> dict:
    slabs = _slabs(
        artifacts.load_structure(ctx, structure_pickle_file_path),
        miller_index,
        min_slab_size,
        min_vacuum_size,
    )
    summaries = [slab_summary(s) for s in slabs]
    return {"slab": summaries[0], "terminations": len(slabs), "all": summaries}


@tool(
    "Catalysis_Studies/model_catalyst_surface",
    "Build a catalyst surface model: cut a slab of a structure along a Miller plane (given slab "
    "and vacuum "
    "thickness) and save it for adsorption studies.",
    [
        STRUCTURE_IN,
        MILLER,
        MIN_SLAB,
        MIN_VACUUM,
        P(
            "output_slab_pickle_file_path",
            "string",
            "Where to save the slab.",
            examples=["slab_pt111.json"],
        ),
    ],
    ("object", "{'path', slab summary}"),
    uses_files=True,
    timeout_s=120,
    tags=["catalysis", "surface", "slab"],
)
def model_catalyst_surface(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    miller_index: list,
    min_slab_size: float,
    min_vacuum_size: float,
    output_slab_pickle_file_path: str,
) -> dict:
    slab = _slabs(
        artifacts.load_structure(ctx, structure_pickle_file_path),
        miller_index,
        min_slab_size,
        min_vacuum_size,
    )[0]
    path = artifacts.save(ctx, output_slab_pickle_file_path, "slab", slab.as_dict())
    return {"path": path, **slab_summary(slab)}


def load_slab(ctx: ToolContext, name: str):
    from pymatgen.core.surface import Slab

    kind, data = artifacts.load(ctx, name, ("slab", "structure"))
    if kind == "slab":
        return Slab.from_dict(data)
    return artifacts.load_structure(ctx, name)


def _adsorbate_molecule(adsorbate: str):
    from pymatgen.core import Molecule

    text = adsorbate.strip()
    presets = {
        "CO": (["C", "O"], [[0, 0, 0], [0, 0, 1.15]]),
        "OH": (["O", "H"], [[0, 0, 0], [0, 0, 0.97]]),
        "H2O": (["O", "H", "H"], [[0, 0, 0], [0.76, 0, 0.59], [-0.76, 0, 0.59]]),
        "NO": (["N", "O"], [[0, 0, 0], [0, 0, 1.15]]),
    }
    if text in presets:
        species, coords = presets[text]
        return Molecule(species, coords)
    return Molecule([element_symbol(text)], [[0, 0, 0]])


@tool(
    "Surface_Interface_Analysis/perform_adsorption_study",
    "Find the adsorption sites (on-top, bridge, hollow) on the surface of a saved slab or "
    "structure and count the "
    "distinct adsorption configurations of an adsorbate (an atom, or CO, OH, H2O, NO).",
    [
        STRUCTURE_IN,
        P(
            "adsorbate",
            "string",
            "Adsorbate: element symbol or CO, OH, H2O, NO.",
            examples=["O", "CO"],
        ),
    ],
    (
        "object",
        "{'sites': {kind: count}, 'site_coords': {kind: [[x,y,z],...]}, 'number_of_sites', "
        "'configurations'}",
    ),
    uses_files=True,
    timeout_s=120,
    tags=["adsorption", "surface", "catalysis"],
)
def perform_adsorption_study(
    ctx: ToolContext, structure_pickle_file_path: str, adsorbate: str
) -> dict:
    from pymatgen.analysis.adsorption import AdsorbateSiteFinder

    slab = load_slab(ctx, structure_pickle_file_path)
    molecule = _adsorbate_molecule(adsorbate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        finder = AdsorbateSiteFinder(slab)
        sites = finder.find_adsorption_sites()
        configurations = finder.generate_adsorption_structures(molecule, repeat=[1, 1, 1])
    kinds = {k: v for k, v in sites.items() if k != "all"}
    return {
        "adsorbate": adsorbate,
        "sites": {k: len(v) for k, v in kinds.items()},
        "site_coords": {k: [[round(float(x), 4) for x in c] for c in v] for k, v in kinds.items()},
        "number_of_sites": len(sites["all"]),
        "configurations": len(configurations),
    }


EMT_ELEMENTS = {"Al", "Cu", "Ag", "Au", "Ni", "Pd", "Pt", "H", "C", "N", "O"}


@tool(
    "Catalysis_Studies/calculate_adsorption_energy",
    "Estimate the adsorption energy of an atom on a saved slab: E(slab+adsorbate) - E(slab) - "
    "E(isolated atom), "
    "placing the atom 1.8 Å above each kind of surface site and keeping the lowest. Energies come "
    "from ASE's "
    "effective-medium theory (EMT) potential, a rough model for Al, Cu, Ag, Au, Ni, Pd, Pt "
    "surfaces with H, C, N, O "
    "adsorbates (single points, no relaxation).",
    [
        P(
            "slab_pickle_file_path",
            "string",
            "Saved slab (from model_catalyst_surface).",
            examples=["slab_pt111.json"],
        ),
        P("adsorbate", "string", "Adsorbate atom (element symbol).", examples=["O"]),
    ],
    ("object", "{'adsorption_energy_eV', 'site', 'per_site_eV', 'method'}", "eV"),
    uses_files=True,
    timeout_s=120,
    tags=["catalysis", "adsorption", "energy"],
)
def calculate_adsorption_energy(
    ctx: ToolContext, slab_pickle_file_path: str, adsorbate: str
) -> dict:
    from pymatgen.analysis.adsorption import AdsorbateSiteFinder
    from pymatgen.core import Molecule
    from pymatgen.io.ase import AseAtomsAdaptor

    symbol = element_symbol(adsorbate)
    slab = load_slab(ctx, slab_pickle_file_path)
    elements = {str(e) for e in slab.composition.elements} | {symbol}
    unsupported = sorted(elements - EMT_ELEMENTS)
    if unsupported:
        raise ChemgroundError(
            f"no energy model for {', '.join(unsupported)}: the built-in EMT potential covers only "
            f"{', '.join(sorted(EMT_ELEMENTS))}; adsorption energies for other systems need DFT"
        )
    from ase import Atoms
    from ase.calculators.emt import EMT

    def energy(structure) -> float:
        atoms = AseAtomsAdaptor.get_atoms(structure)
        atoms.calc = EMT()
        return float(atoms.get_potential_energy())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        finder = AdsorbateSiteFinder(slab)
        sites = finder.find_adsorption_sites(distance=1.8)
        e_slab = energy(slab)
        isolated = Atoms(symbol, positions=[[0, 0, 0]], cell=[20, 20, 20], pbc=False)
        isolated.calc = EMT()
        e_atom = float(isolated.get_potential_energy())
        per_site: dict[str, float] = {}
        for kind in ("ontop", "bridge", "hollow"):
            if sites.get(kind):
                with_adsorbate = finder.add_adsorbate(
                    Molecule([symbol], [[0, 0, 0]]), sites[kind][0]
                )
                per_site[kind] = energy(with_adsorbate) - e_slab - e_atom
    if not per_site:
        raise ChemgroundError("no adsorption site was found on this slab")
    best = min(per_site, key=per_site.get)
    return {
        "adsorption_energy_eV": per_site[best],
        "site": best,
        "per_site_eV": per_site,
        "method": "ASE EMT single point, adsorbate 1.8 Å above the site, no relaxation",
    }


# --- Defect_Analysis ------------------------------------------------------------------------

DEFECT_IN = P(
    "defect_pickle_file_path",
    "string",
    "Saved defect (from create_defect, create_vacancy or create_interstitial).",
    examples=["defect.json"],
)


def load_defect(ctx: ToolContext, name: str):
    from monty.json import MontyDecoder

    _, data = artifacts.load(ctx, name, ("defect",))
    return MontyDecoder().process_decoded(
        data
    )  # classes were checked to be pymatgen's by artifacts.load


@tool(
    "Defect_Analysis/create_defect",
    "Create a point defect in a saved structure: a vacancy (removes the atom nearest to the given "
    "fractional "
    "position), a substitution (replaces that atom by `species`) or an interstitial (adds a "
    "`species` atom there), "
    "with its multiplicity and charge state; saves it.",
    [
        STRUCTURE_IN,
        P(
            "defect_type",
            "string",
            "Kind of defect.",
            enum=["vacancy", "substitution", "interstitial"],
            examples=["vacancy"],
        ),
        P(
            "defect_site",
            "array",
            "Fractional coordinates [x, y, z] of the defect.",
            items={"type": "number"},
            min_items=3,
            max_items=3,
            examples=[[0, 0, 0]],
        ),
        P(
            "multiplicity",
            "integer",
            "Number of equivalent defect sites in the cell.",
            minimum=1,
            examples=[1],
        ),
        P(
            "charge",
            "integer",
            "Charge state of the defect.",
            minimum=-10,
            maximum=10,
            examples=[0],
        ),
        P(
            "output_defect_pickle_file_path",
            "string",
            "Where to save the defect.",
            examples=["defect.json"],
        ),
        P(
            "species",
            "string",
            "Element put on the site (substitution / interstitial only).",
            required=False,
            examples=["Mg"],
        ),
    ],
    (
        "object",
        "{'path', 'defect_type', 'name', 'site_species', 'site_frac_coords', 'multiplicity', "
        "'charge'}",
    ),
    uses_files=True,
    tags=["defect"],
)
def create_defect(
    ctx: ToolContext,
    structure_pickle_file_path: str,
    defect_type: str,
    defect_site: list,
    multiplicity: int,
    charge: int,
    output_defect_pickle_file_path: str,
    species: str | None = None,
) -> dict:
    import numpy as np
    from pymatgen.analysis.defects.core import Interstitial, Substitution, Vacancy
    from pymatgen.core import PeriodicSite

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    if defect_type == "interstitial":
        if not species:
            raise ChemgroundError(
                "an interstitial needs the element of the extra atom (parameter 'species')"
            )
        defect = Interstitial(
            structure,
            PeriodicSite(element_symbol(species), defect_site, structure.lattice),
            multiplicity=multiplicity,
            user_charges=[charge],
        )
    else:
        distances = [site.distance_and_image_from_frac_coords(defect_site)[0] for site in structure]
        nearest = int(np.argmin(distances))
        site = structure[nearest]
        if defect_type == "vacancy":
            defect = Vacancy(structure, site, multiplicity=multiplicity, user_charges=[charge])
        else:
            if not species:
                raise ChemgroundError(
                    "a substitution needs the substituting element (parameter 'species')"
                )
            new_site = PeriodicSite(element_symbol(species), site.frac_coords, structure.lattice)
            defect = Substitution(
                structure, new_site, multiplicity=multiplicity, user_charges=[charge]
            )
    path = artifacts.save(ctx, output_defect_pickle_file_path, "defect", defect.as_dict())
    return {"path": path, **_defect_summary(defect), "charge": charge}


@tool(
    "Defect_Analysis/load_defect_from_pickle",
    "Load a saved point defect and describe it.",
    [DEFECT_IN],
    (
        "object",
        "{'defect_type', 'name', 'site_species', 'site_frac_coords', 'multiplicity', "
        "'charge_states'}",
    ),
    uses_files=True,
    tags=["defect"],
)
def load_defect_summary(ctx: ToolContext, defect_pickle_file_path: str) -> dict:
    return _defect_summary(load_defect(ctx, defect_pickle_file_path))


@tool(
    "Defect_Analysis/get_defect_type",
    "Type of a saved point defect (Vacancy, Substitution or Interstitial).",
    [DEFECT_IN],
    ("string", "defect type"),
    uses_files=True,
    tags=["defect"],
)
def get_defect_type(ctx: ToolContext, defect_pickle_file_path: str) -> str:
    return type(load_defect(ctx, defect_pickle_file_path)).__name__


@tool(
    "Defect_Analysis/get_defect_site",
    "Site of a saved point defect: species and fractional coordinates.",
    [DEFECT_IN],
    ("object", "{'species', 'frac_coords'}"),
    uses_files=True,
    tags=["defect"],
)
def get_defect_site(ctx: ToolContext, defect_pickle_file_path: str) -> dict:
    site = load_defect(ctx, defect_pickle_file_path).site
    return {"species": site.species_string, "frac_coords": [float(x) for x in site.frac_coords]}


@tool(
    "Defect_Analysis/get_defect_charge",
    "Charge state(s) of a saved point defect: the user-set charge, else the charge states "
    "suggested from oxidation states.",
    [DEFECT_IN],
    ("array", "charge states"),
    uses_files=True,
    tags=["defect"],
)
def get_defect_charge(ctx: ToolContext, defect_pickle_file_path: str) -> list:
    return [int(q) for q in load_defect(ctx, defect_pickle_file_path).get_charge_states()]


@tool(
    "Defect_Analysis/create_defect_entry",
    "Create a defect entry: a saved defect in its (first) charge state with the total energy of "
    "its supercell "
    "calculation; saves it.",
    [
        DEFECT_IN,
        P(
            "energy",
            "number",
            "Total energy of the defect supercell.",
            unit="eV",
            examples=[-345.2],
        ),
        P(
            "output_defect_entry_pickle_file_path",
            "string",
            "Where to save the defect entry.",
            examples=["defect_entry.json"],
        ),
    ],
    ("object", "{'path', 'defect', 'charge_state', 'energy'}"),
    uses_files=True,
    tags=["defect", "energy"],
)
def create_defect_entry(
    ctx: ToolContext,
    defect_pickle_file_path: str,
    energy: float,
    output_defect_entry_pickle_file_path: str,
) -> dict:
    from pymatgen.analysis.defects.thermo import DefectEntry
    from pymatgen.entries.computed_entries import ComputedStructureEntry

    defect = load_defect(ctx, defect_pickle_file_path)
    charge = int(defect.get_charge_states()[0]) if defect.user_charges else 0
    supercell = defect.get_supercell_structure(sc_mat=_supercell_matrix(defect.structure))
    entry = DefectEntry(
        defect=defect, charge_state=charge, sc_entry=ComputedStructureEntry(supercell, energy)
    )
    path = artifacts.save(
        ctx, output_defect_entry_pickle_file_path, "defect_entry", entry.as_dict()
    )
    return {"path": path, "defect": defect.name, "charge_state": charge, "energy": energy}


def _supercell_matrix(structure, min_length: float = 8.0) -> list[list[int]]:
    """Diagonal supercell with every lattice vector at least ``min_length`` Å long."""
    import math

    factors = [max(1, math.ceil(min_length / length)) for length in structure.lattice.abc]
    return [[factors[0], 0, 0], [0, factors[1], 0], [0, 0, factors[2]]]


ENTRY_IN = P(
    "defect_entry_pickle_file_path", "string", "Saved defect entry.", examples=["defect_entry.json"]
)


def load_defect_entry(ctx: ToolContext, name: str):
    from monty.json import MontyDecoder

    _, data = artifacts.load(ctx, name, ("defect_entry",))
    return MontyDecoder().process_decoded(data)


@tool(
    "Defect_Analysis/load_defect_entry_from_pickle",
    "Load a saved defect entry and describe it.",
    [ENTRY_IN],
    ("object", "{'defect', 'defect_type', 'charge_state', 'energy', 'supercell_formula'}"),
    uses_files=True,
    tags=["defect"],
)
def load_defect_entry_summary(ctx: ToolContext, defect_entry_pickle_file_path: str) -> dict:
    entry = load_defect_entry(ctx, defect_entry_pickle_file_path)
    return {
        "defect": entry.defect.name,
        "defect_type": type(entry.defect).__name__,
        "charge_state": int(entry.charge_state),
        "energy": float(entry.sc_entry.energy),
        "supercell_formula": entry.sc_entry.composition.formula,
    }


@tool(
    "Defect_Analysis/get_defect_energy",
    "Total supercell energy stored in a saved defect entry.",
    [ENTRY_IN],
    ("number", "energy", "eV"),
    uses_files=True,
    tags=["defect", "energy"],
)
def get_defect_energy(ctx: ToolContext, defect_entry_pickle_file_path: str) -> float:
    return float(load_defect_entry(ctx, defect_entry_pickle_file_path).sc_entry.energy)


# --- High_Throughput_Calculation ---------------------------------------------------------------


@tool(
    "High_Throughput_Calculation/match_structures",
    "Compare every pair of saved structures in a list (pymatgen StructureMatcher) and say which "
    "are the same crystal.",
    [
        P(
            "structure_pickle_file_path_list",
            "array",
            "Saved structures to compare.",
            items={"type": "string"},
            min_items=2,
            examples=[["structure_a.json", "structure_b.json"]],
        )
    ],
    ("array", "one boolean per pair (0,1), (0,2), ..., (1,2), ... in that order"),
    uses_files=True,
    timeout_s=120,
    tags=["structure", "comparison", "high throughput"],
)
def match_structure_list(ctx: ToolContext, structure_pickle_file_path_list: list) -> list:
    from pymatgen.analysis.structure_matcher import StructureMatcher

    structures = [artifacts.load_structure(ctx, name) for name in structure_pickle_file_path_list]
    matcher = StructureMatcher()
    return [
        bool(matcher.fit(structures[i], structures[j]))
        for i in range(len(structures))
        for j in range(i + 1, len(structures))
    ]


@tool(
    "High_Throughput_Calculation/submit_job",
    "Run a saved workflow (a list of chemground tool calls made with chemground/create_workflow) "
    "step by step on "
    "this machine and save the job record with each step's result.",
    [
        P("workflow_pickle_file_path", "string", "Saved workflow.", examples=["workflow.json"]),
        P(
            "output_job_pickle_file_path",
            "string",
            "Where to save the job record.",
            examples=["job.json"],
        ),
    ],
    ("object", "{'path', 'status', 'steps': [{tool, ok, result or error}]}"),
    uses_files=True,
    timeout_s=300,
    tags=["workflow", "high throughput"],
)
def submit_job(
    ctx: ToolContext, workflow_pickle_file_path: str, output_job_pickle_file_path: str
) -> dict:
    from chemground.agent.registry import default_registry
    from chemground.agent.validation import ToolError

    _, workflow = artifacts.load(ctx, workflow_pickle_file_path, ("workflow",))
    registry = default_registry()
    steps = []
    status = "completed"
    for step in workflow["steps"]:
        if step["tool"] == "High_Throughput_Calculation/submit_job":
            raise ChemgroundError("a workflow may not submit other workflows")
        try:
            value = registry.call_in_process(step["tool"], step.get("arguments"), ctx)
            steps.append({"tool": step["tool"], "ok": True, "result": value})
        except ToolError as error:
            steps.append({"tool": step["tool"], "ok": False, "error": error.reason})
            status = "failed"
            break
    record = {"workflow": workflow_pickle_file_path, "status": status, "steps": steps}
    return {"path": artifacts.save(ctx, output_job_pickle_file_path, "job", record), **record}
