"""Materials tools on pymatgen: elements, species, compositions, lattices and basic structures.

Namespaces follow the benchmark's toolkits (``Basic_Functionality``, ``Element_Properties``,
``External_Resources``, ``Composition_Handling``, ``Composition_Analysis``). Objects that
one call hands to the next (lattices, structures, compositions) are written as JSON
artifacts in the tool files folder (see :mod:`chemground.agent.artifacts`), never pickled.
"""

from __future__ import annotations

import warnings
from typing import Any

from chemground.agent import artifacts
from chemground.agent.registry import P, ToolContext, tool
from chemground.chem.formula import element_symbol
from chemground.errors import ChemgroundError

ELEMENT = P("element_str", "string", "Element symbol.", examples=["Fe", "O"])
FORMULA = P(
    "composition_str",
    "string",
    "Chemical formula of the composition.",
    examples=["Fe2O3", "LiFePO4"],
)


def pmg_element(symbol: str):
    from pymatgen.core import Element

    return Element(element_symbol(symbol))


def pmg_composition(formula: str):
    from pymatgen.core import Composition

    try:
        composition = Composition(formula.strip())
    except Exception as error:
        raise ChemgroundError(f"cannot read the formula {formula!r}: {error}") from None
    if composition.num_atoms <= 0:
        raise ChemgroundError(f"the formula {formula!r} has no atoms")
    return composition


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def element_summary(el) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "symbol": el.symbol,
            "name": el.long_name,
            "Z": el.Z,
            "atomic_mass": _float(el.atomic_mass),
            "group": el.group,
            "row": el.row,
            "block": el.block,
            "X": _float(el.X) if el.X == el.X else None,
            "atomic_radius": _float(el.atomic_radius),
            "common_oxidation_states": list(el.common_oxidation_states),
            "is_metal": bool(el.is_metal),
        }


# --- Basic_Functionality: elements, species, compositions --------------------------------------


@tool(
    "Basic_Functionality/get_atomic_mass",
    "Atomic mass (standard atomic weight) of an element, from pymatgen.",
    [ELEMENT],
    ("number", "atomic mass", "amu (g/mol)"),
    tags=["element"],
)
def get_atomic_mass(element_str: str) -> float:
    return float(pmg_element(element_str).atomic_mass)


@tool(
    "Basic_Functionality/get_melting_point",
    "Melting point of an element (pymatgen periodic-table data).",
    [ELEMENT],
    ("number", "melting point", "K"),
    tags=["element", "thermal"],
)
def get_melting_point(element_str: str) -> float:
    value = pmg_element(element_str).melting_point
    if value is None:
        raise ChemgroundError(f"no melting point is tabulated for {element_str}")
    return float(value)


@tool(
    "Basic_Functionality/get_ionic_radii",
    "Ionic radii of an element for each oxidation state (Shannon radii as tabulated in pymatgen).",
    [ELEMENT],
    ("object", "oxidation state -> ionic radius", "Å"),
    tags=["element", "ionic radius"],
)
def get_ionic_radii(element_str: str) -> dict:
    return {str(k): float(v) for k, v in pmg_element(element_str).ionic_radii.items()}


@tool(
    "Basic_Functionality/get_atomic_mass_in_unit",
    "Atomic mass of an element converted to a mass unit (amu, g, kg, ...).",
    [ELEMENT, P("unit", "string", "Target mass unit.", examples=["amu", "kg", "g"])],
    ("number", "atomic mass of one atom in the requested unit"),
    tags=["element", "unit conversion"],
)
def get_atomic_mass_in_unit(element_str: str, unit: str) -> float:
    mass = pmg_element(element_str).atomic_mass
    try:
        return float(mass.to(unit.strip()))
    except Exception as error:
        raise ChemgroundError(f"cannot express a mass in {unit!r}: {error}") from None


@tool(
    "Basic_Functionality/get_species_properties",
    "Properties of an ion (element with an oxidation state): atomic mass and Shannon ionic radius.",
    [
        ELEMENT,
        P(
            "oxidation_state",
            "integer",
            "Oxidation state of the ion.",
            minimum=-8,
            maximum=9,
            examples=[2, -2],
        ),
    ],
    ("object", "{'species', 'atomic_mass' (amu), 'ionic_radius' (Å or null when not tabulated)}"),
    tags=["ion", "species"],
)
def get_species_properties(element_str: str, oxidation_state: int) -> dict:
    from pymatgen.core import Species

    species = Species(element_symbol(element_str), oxidation_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        radius = species.ionic_radius
    return {
        "species": str(species),
        "atomic_mass": float(species.atomic_mass),
        "ionic_radius": _float(radius),
    }


@tool(
    "Basic_Functionality/get_composition_properties",
    "Properties of one element within a composition: the formula weight, the amount of the "
    "element, its atomic "
    "fraction and its weight fraction.",
    [FORMULA, ELEMENT],
    ("object", "{'weight' (g/mol), 'amount_of_element', 'atomic_fraction', 'weight_fraction'}"),
    tags=["composition"],
)
def get_composition_properties(composition_str: str, element_str: str) -> dict:
    comp = pmg_composition(composition_str)
    el = element_symbol(element_str)
    if comp[el] == 0:
        raise ChemgroundError(f"{el} is not in {composition_str}")
    return {
        "weight": float(comp.weight),
        "amount_of_element": float(comp[el]),
        "atomic_fraction": float(comp.get_atomic_fraction(el)),
        "weight_fraction": float(comp.get_wt_fraction(el)),
    }


# --- Basic_Functionality: lattices and structures ------------------------------------------------


@tool(
    "Basic_Functionality/create_cubic_lattice",
    "Create a cubic lattice with lattice parameter a and save it (JSON) for later structure "
    "building.",
    [
        P(
            "lattice_parameter",
            "number",
            "Cubic lattice constant a.",
            unit="Å",
            minimum=0.1,
            examples=[3.6],
        ),
        P(
            "output_lattice_pickle_file_path",
            "string",
            "Where to save the lattice (in the tool files folder).",
            examples=["lattice_cu.json"],
        ),
    ],
    ("object", "{'path', 'matrix', 'volume' (Å³)}"),
    uses_files=True,
    tags=["lattice"],
)
def create_cubic_lattice(
    ctx: ToolContext, lattice_parameter: float, output_lattice_pickle_file_path: str
) -> dict:
    from pymatgen.core import Lattice

    lattice = Lattice.cubic(lattice_parameter)
    path = artifacts.save(ctx, output_lattice_pickle_file_path, "lattice", lattice.as_dict())
    return {"path": path, "matrix": lattice.matrix.tolist(), "volume": float(lattice.volume)}


def load_lattice(ctx: ToolContext, name: str):
    from pymatgen.core import Lattice

    _, data = artifacts.load(ctx, name, ("lattice",))
    return Lattice.from_dict(data)


SPECIES = P(
    "species",
    "array",
    "Element symbol of each site.",
    items={"type": "string"},
    min_items=1,
    examples=[["Na", "Cl"]],
)
COORDS = P(
    "coords",
    "array",
    "Fractional coordinates of each site, one [x, y, z] per species.",
    items={"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
    min_items=1,
    examples=[[[0, 0, 0], [0.5, 0.5, 0.5]]],
)


def build_structure(lattice, species: list[str], coords: list[list[float]]):
    from pymatgen.core import Structure

    if len(species) != len(coords):
        raise ChemgroundError(f"{len(species)} species but {len(coords)} coordinates")
    return Structure(lattice, [element_symbol(s) for s in species], coords)


@tool(
    "Basic_Functionality/create_structure",
    "Create a crystal structure from a saved lattice, the species of each site and their "
    "fractional coordinates, "
    "and save it.",
    [
        P(
            "lattice_pickle_file_path",
            "string",
            "Saved lattice (from create_cubic_lattice).",
            examples=["lattice_cu.json"],
        ),
        SPECIES,
        COORDS,
        P(
            "output_structure_pickle_file_path",
            "string",
            "Where to save the structure.",
            examples=["structure_nacl.json"],
        ),
    ],
    ("object", "{'path', 'formula', 'num_sites', lattice parameters, 'volume', 'density_g_cm3'}"),
    uses_files=True,
    tags=["structure"],
)
def create_structure_on_lattice(
    ctx: ToolContext,
    lattice_pickle_file_path: str,
    species: list,
    coords: list,
    output_structure_pickle_file_path: str,
) -> dict:
    structure = build_structure(load_lattice(ctx, lattice_pickle_file_path), species, coords)
    path = artifacts.save_structure(ctx, output_structure_pickle_file_path, structure)
    return {"path": path, **artifacts.structure_summary(structure)}


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


@tool(
    "Basic_Functionality/create_immutable_structure",
    "Make an immutable copy (IStructure) of a saved structure and save it.",
    [STRUCTURE_IN, STRUCTURE_OUT],
    ("object", "{'path', 'immutable': true, structure summary}"),
    uses_files=True,
    tags=["structure"],
)
def create_immutable_structure(
    ctx: ToolContext, structure_pickle_file_path: str, output_structure_pickle_file_path: str
) -> dict:
    from pymatgen.core import IStructure

    structure = IStructure.from_sites(artifacts.load_structure(ctx, structure_pickle_file_path))
    path = artifacts.save(ctx, output_structure_pickle_file_path, "structure", structure.as_dict())
    return {"path": path, "immutable": True, **artifacts.structure_summary(structure)}


def symmetry_summary(structure, symprec: float = 0.01) -> dict[str, Any]:
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    try:
        analyzer = SpacegroupAnalyzer(structure, symprec=symprec)
        return {
            "space_group_symbol": analyzer.get_space_group_symbol(),
            "space_group_number": analyzer.get_space_group_number(),
            "point_group": analyzer.get_point_group_symbol(),
            "crystal_system": analyzer.get_crystal_system(),
            "lattice_type": analyzer.get_lattice_type(),
            "hall_symbol": analyzer.get_hall(),
            "formula": structure.composition.reduced_formula,
        }
    except Exception as error:
        raise ChemgroundError(f"symmetry analysis failed (spglib): {error}") from None


@tool(
    "Basic_Functionality/analyze_symmetry",
    "Space group (symbol and number), point group, crystal system and lattice type of a structure "
    "(spglib).",
    [STRUCTURE_IN],
    (
        "object",
        "{'space_group_symbol', 'space_group_number', 'point_group', 'crystal_system', ...}",
    ),
    uses_files=True,
    tags=["symmetry", "space group"],
)
def analyze_symmetry_basic(ctx: ToolContext, structure_pickle_file_path: str) -> dict:
    return symmetry_summary(artifacts.load_structure(ctx, structure_pickle_file_path))


@tool(
    "Basic_Functionality/match_structures",
    "Check whether two structures are the same crystal (pymatgen StructureMatcher, allowing for "
    "different "
    "cells, origin shifts and small distortions).",
    [
        P(
            "structure_pickle_file_path_1",
            "string",
            "First saved structure.",
            examples=["structure_a.json"],
        ),
        P(
            "structure_pickle_file_path_2",
            "string",
            "Second saved structure.",
            examples=["structure_b.json"],
        ),
    ],
    ("boolean", "true if the structures match"),
    uses_files=True,
    tags=["structure", "comparison"],
)
def match_two_structures(
    ctx: ToolContext, structure_pickle_file_path_1: str, structure_pickle_file_path_2: str
) -> bool:
    from pymatgen.analysis.structure_matcher import StructureMatcher

    a = artifacts.load_structure(ctx, structure_pickle_file_path_1)
    b = artifacts.load_structure(ctx, structure_pickle_file_path_2)
    return bool(StructureMatcher().fit(a, b))


WRITE_FORMATS = {
    ".cif": "cif",
    ".vasp": "poscar",
    ".poscar": "poscar",
    ".cssr": "cssr",
    ".xsf": "xsf",
    ".json": "json",
    ".yaml": "yaml",
    ".res": "res",
    ".mcsqs": "mcsqs",
}


@tool(
    "Basic_Functionality/write_structure_to_file",
    "Write a saved structure to a structure file; the format follows the extension (.cif, "
    ".vasp/POSCAR, .cssr, "
    ".xsf, .json, .yaml, .res).",
    [
        STRUCTURE_IN,
        P("output_file_path", "string", "File to write.", examples=["nacl.cif", "POSCAR"]),
    ],
    ("object", "{'path', 'format', 'bytes'}"),
    uses_files=True,
    tags=["structure", "file"],
)
def write_structure_to_file(
    ctx: ToolContext, structure_pickle_file_path: str, output_file_path: str
) -> dict:
    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    path = artifacts.resolve(ctx, output_file_path)
    fmt = WRITE_FORMATS.get(path.suffix.lower()) or (
        "poscar" if "POSCAR" in path.name or "CONTCAR" in path.name else None
    )
    if fmt is None:
        raise ChemgroundError(
            f"cannot tell the file format of {output_file_path!r}; use one of "
            f"{', '.join(sorted(WRITE_FORMATS))} or a POSCAR name"
        )
    text = structure.to(fmt=fmt)
    artifacts.write_text(ctx, path, text)
    return {"path": artifacts.display(ctx, path), "format": fmt, "bytes": len(text.encode())}


@tool(
    "Basic_Functionality/read_structure_from_file",
    "Read a structure file (CIF, POSCAR/CONTCAR/.vasp, CSSR, XSF, RES, pymatgen JSON/YAML) and "
    "save it as a "
    "structure for other tools.",
    [
        P(
            "input_file_path",
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
def read_structure_from_file(
    ctx: ToolContext, input_file_path: str, output_structure_pickle_file_path: str
) -> dict:
    structure = artifacts.load_structure(ctx, input_file_path)
    path = artifacts.save_structure(ctx, output_structure_pickle_file_path, structure)
    return {"path": path, **artifacts.structure_summary(structure)}


@tool(
    "Basic_Functionality/create_vasp_input_files",
    "Write a complete set of VASP input files (INCAR, KPOINTS, POSCAR and POTCAR.spec naming the "
    "pseudopotentials) "
    "for a structure with the Materials Project relaxation settings (MPRelaxSet).",
    [
        STRUCTURE_IN,
        P("output_directory", "string", "Folder to write the inputs to.", examples=["vasp_nacl/"]),
    ],
    ("object", "{'directory', 'files', 'incar', 'kpoints', 'potcar_symbols'}"),
    uses_files=True,
    timeout_s=120,
    tags=["VASP", "DFT input"],
)
def create_vasp_input_files(
    ctx: ToolContext, structure_pickle_file_path: str, output_directory: str
) -> dict:
    from pymatgen.io.vasp.sets import MPRelaxSet

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    folder = artifacts.resolve(ctx, output_directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        input_set = MPRelaxSet(structure)
        artifacts.write_folder(
            ctx,
            folder,
            output_directory,
            lambda staging: input_set.write_input(str(staging), potcar_spec=True),
        )
        incar = dict(input_set.incar)
        kpoints = str(input_set.kpoints).splitlines()
        symbols = list(input_set.potcar_symbols)
    return {
        "directory": artifacts.display(ctx, folder),
        "files": sorted(p.name for p in folder.iterdir()),
        "incar": incar,
        "kpoints": kpoints,
        "potcar_symbols": symbols,
    }


# --- Element_Properties / External_Resources ----------------------------------------------------


@tool(
    "Element_Properties/create_element",
    "Create an element object and report its basic data: name, atomic number, atomic mass, group, "
    "row, block, "
    "electronegativity, atomic radius and common oxidation states.",
    [ELEMENT],
    ("object", "element summary"),
    tags=["element"],
)
def create_element(element_str: str) -> dict:
    return element_summary(pmg_element(element_str))


@tool(
    "Element_Properties/get_atomic_mass",
    "Atomic mass of an element (pymatgen).",
    [ELEMENT],
    ("number", "atomic mass", "amu"),
    tags=["element"],
)
def element_atomic_mass(element_str: str) -> float:
    return float(pmg_element(element_str).atomic_mass)


@tool(
    "Element_Properties/get_atomic_radius",
    "Empirical atomic radius of an element (pymatgen data).",
    [ELEMENT],
    ("number", "atomic radius", "Å"),
    tags=["element", "radius"],
)
def element_atomic_radius(element_str: str) -> float:
    radius = pmg_element(element_str).atomic_radius
    if radius is None:
        raise ChemgroundError(f"no atomic radius is tabulated for {element_str}")
    return float(radius)


@tool(
    "Element_Properties/get_electron_affinity",
    "Electron affinity of an element: energy released when a neutral atom gains an electron.",
    [ELEMENT],
    ("number", "electron affinity", "eV"),
    tags=["element", "electron affinity"],
)
def element_electron_affinity(element_str: str) -> float:
    el = pmg_element(element_str)
    try:
        return float(el.electron_affinity)
    except Exception as error:
        raise ChemgroundError(
            f"no electron affinity is tabulated for {el.symbol}: {error}"
        ) from None


@tool(
    "External_Resources/get_element_properties",
    "Physical properties of an element: atomic mass, density of the solid, electron affinity, "
    "ionization energy, "
    "electronegativity, melting and boiling points and atomic radius (pymatgen's periodic-table "
    "data, offline).",
    [ELEMENT],
    ("object", "{'atomic_mass' (amu), 'density' (g/cm³), 'electron_affinity' (eV), ...}"),
    tags=["element"],
)
def external_element_properties(element_str: str) -> dict:
    el = pmg_element(element_str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        def grab(fn):
            try:
                value = fn()
                return None if value is None else float(value)
            except Exception:  # not tabulated for this element
                return None

        density = grab(lambda: el.density_of_solid)
        return {
            "symbol": el.symbol,
            "atomic_mass": float(el.atomic_mass),
            "density": density / 1000.0 if density is not None else None,
            "electron_affinity": grab(lambda: el.electron_affinity),
            "ionization_energy": grab(lambda: el.ionization_energy),
            "electronegativity": grab(lambda: el.X if el.X == el.X else None),
            "melting_point": grab(lambda: el.melting_point),
            "boiling_point": grab(lambda: el.boiling_point),
            "atomic_radius": grab(lambda: el.atomic_radius),
        }


@tool(
    "External_Resources/calculate_average",
    "Arithmetic mean of a list of numbers (0.0 for an empty list).",
    [
        P(
            "number_list",
            "array",
            "The numbers.",
            items={"type": "number"},
            examples=[[1.0, 2.5, 4.0]],
        )
    ],
    ("number", "the average"),
    tags=["math"],
)
def calculate_average(number_list: list) -> float:
    return sum(number_list) / len(number_list) if number_list else 0.0


# --- Composition_Handling / Composition_Analysis ------------------------------------------------

COMPOSITION_IN = P(
    "composition_pickle_file_path",
    "string",
    "Saved composition (from create_composition).",
    examples=["composition_fe2o3.json"],
)


def load_composition(ctx: ToolContext, name: str):
    from pymatgen.core import Composition

    _, data = artifacts.load(ctx, name, ("composition",))
    return Composition.from_dict(data)


def composition_summary(comp) -> dict[str, Any]:
    return {
        "formula": comp.formula,
        "reduced_formula": comp.reduced_formula,
        "num_atoms": float(comp.num_atoms),
        "weight": float(comp.weight),
        "elements": {str(k): float(v) for k, v in comp.get_el_amt_dict().items()},
    }


@tool(
    "Composition_Handling/create_composition",
    "Create a composition from a chemical formula and save it.",
    [
        P("formula", "string", "Chemical formula.", examples=["Fe2O3"]),
        P(
            "output_composition_pickle_file_path",
            "string",
            "Where to save the composition.",
            examples=["composition_fe2o3.json"],
        ),
    ],
    ("object", "{'path', 'formula', 'reduced_formula', 'num_atoms', 'weight', 'elements'}"),
    uses_files=True,
    tags=["composition"],
)
def create_composition(
    ctx: ToolContext, formula: str, output_composition_pickle_file_path: str
) -> dict:
    comp = pmg_composition(formula)
    path = artifacts.save(ctx, output_composition_pickle_file_path, "composition", comp.as_dict())
    return {"path": path, **composition_summary(comp)}


@tool(
    "Composition_Handling/get_atomic_fraction",
    "Atomic (mole) fraction of each element in a saved composition.",
    [COMPOSITION_IN],
    ("object", "element -> atomic fraction"),
    uses_files=True,
    tags=["composition"],
)
def get_atomic_fraction(ctx: ToolContext, composition_pickle_file_path: str) -> dict:
    comp = load_composition(ctx, composition_pickle_file_path)
    return {str(el): float(comp.get_atomic_fraction(el)) for el in comp.elements}


@tool(
    "Composition_Handling/get_weight_fraction",
    "Weight (mass) fraction of each element in a saved composition.",
    [COMPOSITION_IN],
    ("object", "element -> weight fraction"),
    uses_files=True,
    tags=["composition"],
)
def get_weight_fraction(ctx: ToolContext, composition_pickle_file_path: str) -> dict:
    comp = load_composition(ctx, composition_pickle_file_path)
    return {str(el): float(comp.get_wt_fraction(el)) for el in comp.elements}


@tool(
    "Composition_Handling/get_reduced_composition",
    "Reduce a saved composition to its smallest whole-number formula (e.g. Fe4O6 -> Fe2O3) and "
    "save it.",
    [
        COMPOSITION_IN,
        P(
            "output_composition_pickle_file_path",
            "string",
            "Where to save the reduced composition.",
            examples=["composition_reduced.json"],
        ),
    ],
    ("object", "{'path', 'reduced_formula', 'factor', ...}"),
    uses_files=True,
    tags=["composition"],
)
def get_reduced_composition(
    ctx: ToolContext, composition_pickle_file_path: str, output_composition_pickle_file_path: str
) -> dict:
    comp = load_composition(ctx, composition_pickle_file_path)
    reduced, factor = comp.get_reduced_composition_and_factor()
    path = artifacts.save(
        ctx, output_composition_pickle_file_path, "composition", reduced.as_dict()
    )
    return {"path": path, "factor": float(factor), **composition_summary(reduced)}


@tool(
    "Composition_Analysis/analyze_elemental_composition",
    "Amount of each element in a chemical formula (atoms per formula unit).",
    [FORMULA],
    ("object", "element -> amount"),
    tags=["composition"],
)
def analyze_elemental_composition(composition_str: str) -> dict:
    return {str(k): float(v) for k, v in pmg_composition(composition_str).get_el_amt_dict().items()}


@tool(
    "Composition_Analysis/guess_oxidation_states",
    "Guess charge-balanced oxidation states for the elements of a composition (pymatgen, based on "
    "ICSD statistics of "
    "inorganic crystals); most likely first. Large organic formulas (dozens of C/H/O atoms) can "
    "take minutes and hit "
    "the time limit.",
    [FORMULA],
    (
        "array",
        "list of {element: oxidation state} guesses, most likely first (empty if none balance)",
    ),
    timeout_s=30,
    tags=["oxidation state"],
)
def guess_oxidation_states(composition_str: str) -> list:
    comp = pmg_composition(composition_str)
    if comp.num_atoms > 200:
        raise ChemgroundError(
            "the formula has more than 200 atoms; oxidation-state guessing would take too long"
        )
    guesses = comp.oxi_state_guesses()
    return [{str(k): float(v) for k, v in guess.items()} for guess in guesses]


@tool(
    "Composition_Analysis/mix_elements",
    "Make a new composition with the given atomic ratios of elements, starting from a formula, and "
    "save it: "
    "the ratios are normalised to fractions, and the change of each element's atomic fraction "
    "relative to the "
    "formula is reported.",
    [
        FORMULA,
        P(
            "element_ratios",
            "object",
            "Element -> atomic ratio (any positive scale; normalised).",
            values={"type": "number", "minimum": 0},
            min_items=1,
            examples=[{"Fe": 0.4, "O": 0.6}],
        ),
        P(
            "output_composition_pickle_file_path",
            "string",
            "Where to save the mixed composition.",
            examples=["composition_mix.json"],
        ),
    ],
    ("object", "{'path', 'fractions', 'change_vs_formula', 'formula'}"),
    uses_files=True,
    tags=["composition"],
)
def mix_elements(
    ctx: ToolContext,
    composition_str: str,
    element_ratios: dict,
    output_composition_pickle_file_path: str,
) -> dict:
    from pymatgen.core import Composition

    base = pmg_composition(composition_str).fractional_composition
    ratios = {element_symbol(k): float(v) for k, v in element_ratios.items()}
    total = sum(ratios.values())
    if total <= 0:
        raise ChemgroundError("the element ratios must not all be zero")
    mixed = Composition({k: v / total for k, v in ratios.items() if v > 0})
    path = artifacts.save(ctx, output_composition_pickle_file_path, "composition", mixed.as_dict())
    elements = sorted({str(e) for e in base.elements} | set(ratios))
    change = {el: float(mixed[el] - base[el]) for el in elements}
    return {
        "path": path,
        "formula": mixed.formula,
        "fractions": {str(k): float(v) for k, v in mixed.items()},
        "change_vs_formula": change,
    }
