"""Materials analysis tools on pymatgen: phase diagrams and thermodynamics, reactions and
batteries, diffusion (pymatgen-analysis-diffusion), electronic structure, magnetism and a
small structure-property machine-learning loop.

Energies come from the entries the user supplies (``chemground/create_entries``, a JSON
list of pymatgen entries, or ``get_all_entries`` with Materials Project access): chemground
has no DFT. Namespaces follow the benchmark (``Phase_Diagrams``, ``Thermodynamic_Calculation``,
``Reactions_And_Batteries``, ``Materials_Analysis``, ``Diffusion_Analysis``,
``Battery_Materials_Analysis``, ``Electronic_Structure_Analysis``,
``Machine_Learning_Integration``).
"""

from __future__ import annotations

import io
import warnings
from typing import Any

from chemground.agent import artifacts
from chemground.agent.registry import P, ToolContext, tool
from chemground.agent.tools.materials_basic import pmg_composition
from chemground.chem.formula import element_symbol
from chemground.errors import ChemgroundError

ENTRIES_IN = P(
    "entries_pickle_file_path",
    "string",
    "Saved list of computed entries (formula + total energy), e.g. from chemground/create_entries.",
    examples=["entries_li_o.json"],
)
STRUCTURE_IN = P(
    "structure_pickle_file_path",
    "string",
    "Saved structure or a structure file (CIF, POSCAR).",
    examples=["structure_licoo2.json"],
)
WORKING_IONS = ("Li", "Na", "K", "Mg", "Ca", "Zn", "Al")


def entry_from_dict(data: dict[str, Any]):
    """A pymatgen entry from its JSON (pymatgen entry dicts, or {'formula'/'composition',
    'energy'})."""
    from monty.json import MontyDecoder
    from pymatgen.entries.computed_entries import ComputedEntry

    if "@class" in data:
        artifacts.check_classes(data, "entry")
        return MontyDecoder().process_decoded(data)
    formula = data.get("formula") or data.get("composition")
    if formula is None or "energy" not in data:
        raise ChemgroundError(
            f"an entry needs a formula and a total energy (eV), got {sorted(data)}"
        )
    return ComputedEntry(
        pmg_composition(str(formula)) if isinstance(formula, str) else formula,
        float(data["energy"]),
        entry_id=data.get("entry_id") or data.get("name"),
    )


def load_entries(ctx: ToolContext, name: str) -> list:
    _, data = artifacts.load(ctx, name, ("entries", "entry"))
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ChemgroundError(f"{name!r} holds no entries")
    return [entry_from_dict(item) for item in items]


def entry_summary(entry, pd=None) -> dict[str, Any]:
    out = {
        "formula": entry.composition.reduced_formula,
        "composition": entry.composition.formula,
        "energy": float(entry.energy),
        "energy_per_atom": float(entry.energy_per_atom),
    }
    if entry.entry_id is not None:
        out["entry_id"] = str(entry.entry_id)
    if pd is not None:
        out["e_above_hull"] = float(pd.get_e_above_hull(entry, allow_negative=True) or 0.0)
        out["formation_energy_per_atom"] = float(pd.get_form_energy_per_atom(entry))
    return out


def _phase_diagram(entries):
    from pymatgen.analysis.phase_diagram import PhaseDiagram

    try:
        return PhaseDiagram(entries)
    except ValueError as error:
        raise ChemgroundError(
            f"cannot build a phase diagram from these entries: {error} (every element of the "
            "system "
            "needs an elemental entry)"
        ) from None


def phase_properties(entries) -> dict[str, Any]:
    pd = _phase_diagram(entries)
    return {
        "elements": [str(e) for e in pd.elements],
        "stable_entries": [
            entry_summary(e, pd)
            for e in sorted(pd.stable_entries, key=lambda e: e.composition.reduced_formula)
        ],
        "unstable_entries": [
            entry_summary(e, pd)
            for e in sorted(pd.unstable_entries, key=lambda e: e.composition.reduced_formula)
        ],
        "hull": {
            e.composition.reduced_formula: float(pd.get_hull_energy_per_atom(e.composition))
            for e in pd.stable_entries
        },
    }


# --- Phase_Diagrams / Thermodynamic_Calculation / Materials_Analysis ----------------------------


@tool(
    "Phase_Diagrams/create_phase_diagram",
    "Build the convex-hull phase diagram of a set of computed entries and save it; reports stable "
    "phases and "
    "formation energies.",
    [
        ENTRIES_IN,
        P(
            "output_phase_diagram_pickle_file_path",
            "string",
            "Where to save the phase diagram.",
            examples=["pd_li_o.json"],
        ),
    ],
    ("object", "{'path', 'elements', 'stable_entries', 'unstable_entries', 'hull'}"),
    uses_files=True,
    tags=["phase diagram", "thermodynamics"],
)
def create_phase_diagram(
    ctx: ToolContext, entries_pickle_file_path: str, output_phase_diagram_pickle_file_path: str
) -> dict:
    entries = load_entries(ctx, entries_pickle_file_path)
    properties = phase_properties(entries)
    path = artifacts.save(
        ctx, output_phase_diagram_pickle_file_path, "phase_diagram", [e.as_dict() for e in entries]
    )
    return {"path": path, **properties}


PD_IN = P(
    "phase_diagram_pickle_file_path",
    "string",
    "Saved phase diagram (from create_phase_diagram).",
    examples=["pd_li_o.json"],
)
ENTRY_ONE = P(
    "entry_pickle_file_path",
    "string",
    "Saved entry (e.g. from get_most_stable_entry).",
    examples=["entry_li2o.json"],
)


def load_phase_diagram(ctx: ToolContext, name: str):
    _, data = artifacts.load(ctx, name, ("phase_diagram",))
    return _phase_diagram([entry_from_dict(item) for item in data])


@tool(
    "Phase_Diagrams/get_decomposition",
    "Decomposition of an entry's composition into the stable phases of a saved phase diagram "
    "(phase -> fraction).",
    [PD_IN, ENTRY_ONE],
    ("object", "stable phase formula -> molar fraction"),
    uses_files=True,
    tags=["phase diagram", "stability"],
)
def get_decomposition(
    ctx: ToolContext, phase_diagram_pickle_file_path: str, entry_pickle_file_path: str
) -> dict:
    pd = load_phase_diagram(ctx, phase_diagram_pickle_file_path)
    entry = load_entries(ctx, entry_pickle_file_path)[0]
    decomposition = pd.get_decomposition(entry.composition)
    return {e.composition.reduced_formula: float(x) for e, x in decomposition.items()}


@tool(
    "Phase_Diagrams/get_e_above_hull",
    "Energy above the convex hull of an entry in a saved phase diagram (0 = thermodynamically "
    "stable).",
    [PD_IN, ENTRY_ONE],
    ("number", "energy above hull", "eV/atom"),
    uses_files=True,
    tags=["phase diagram", "stability"],
)
def get_e_above_hull(
    ctx: ToolContext, phase_diagram_pickle_file_path: str, entry_pickle_file_path: str
) -> float:
    pd = load_phase_diagram(ctx, phase_diagram_pickle_file_path)
    entry = load_entries(ctx, entry_pickle_file_path)[0]
    return float(pd.get_e_above_hull(entry, allow_negative=True))


@tool(
    "Thermodynamic_Calculation/calculate_reaction_energy",
    "Balanced reaction between saved reactant entries and product entries, and its reaction "
    "energy.",
    [
        P(
            "reactant_entries_pickle_file_path",
            "string",
            "Saved reactant entries.",
            examples=["reactants.json"],
        ),
        P(
            "product_entries_pickle_file_path",
            "string",
            "Saved product entries.",
            examples=["products.json"],
        ),
    ],
    ("object", "{'reaction', 'reaction_energy_eV', 'reaction_energy_kJ_per_mol'}"),
    uses_files=True,
    tags=["reaction", "thermodynamics", "energy"],
)
def calculate_reaction_energy(
    ctx: ToolContext, reactant_entries_pickle_file_path: str, product_entries_pickle_file_path: str
) -> dict:
    from pymatgen.analysis.reaction_calculator import ComputedReaction

    reactants = load_entries(ctx, reactant_entries_pickle_file_path)
    products = load_entries(ctx, product_entries_pickle_file_path)
    try:
        reaction = ComputedReaction(reactants, products)
    except Exception as error:
        raise ChemgroundError(f"cannot balance a reaction between these entries: {error}") from None
    energy = float(reaction.calculated_reaction_energy)
    return {
        "reaction": str(reaction),
        "reaction_energy_eV": energy,
        "reaction_energy_kJ_per_mol": energy * 96.48533212,
    }


@tool(
    "Thermodynamic_Calculation/get_most_stable_entry",
    "Among saved entries, the lowest-energy-per-atom entry with a given formula (polymorph "
    "ranking); saves it.",
    [
        ENTRIES_IN,
        P("composition_str", "string", "Formula to look for.", examples=["Li2O"]),
        P(
            "output_entry_pickle_file_path",
            "string",
            "Where to save the entry.",
            examples=["entry_li2o.json"],
        ),
    ],
    ("object", "{'path', 'formula', 'energy_per_atom', 'candidates'}"),
    uses_files=True,
    tags=["thermodynamics", "polymorph"],
)
def get_most_stable_entry(
    ctx: ToolContext,
    entries_pickle_file_path: str,
    composition_str: str,
    output_entry_pickle_file_path: str,
) -> dict:
    target = pmg_composition(composition_str).reduced_formula
    entries = [
        e
        for e in load_entries(ctx, entries_pickle_file_path)
        if e.composition.reduced_formula == target
    ]
    if not entries:
        raise ChemgroundError(f"no entry with the formula {target} in {entries_pickle_file_path!r}")
    best = min(entries, key=lambda e: e.energy_per_atom)
    path = artifacts.save(ctx, output_entry_pickle_file_path, "entry", best.as_dict())
    return {"path": path, **entry_summary(best), "candidates": len(entries)}


@tool(
    "Thermodynamic_Calculation/analyze_phase_stability",
    "Phase stability of saved entries: which phases lie on the convex hull, and each phase's "
    "energy above hull "
    "and formation energy.",
    [ENTRIES_IN],
    ("object", "{'elements', 'stable_entries', 'unstable_entries', 'hull'}"),
    uses_files=True,
    tags=["phase diagram", "stability"],
)
def analyze_phase_stability(ctx: ToolContext, entries_pickle_file_path: str) -> dict:
    return phase_properties(load_entries(ctx, entries_pickle_file_path))


@tool(
    "Materials_Analysis/get_phase_diagram_properties",
    "Build the phase diagram of saved entries and report its key properties: stable and unstable "
    "phases, energies "
    "above hull, formation energies and hull energies.",
    [ENTRIES_IN],
    ("object", "{'elements', 'stable_entries', 'unstable_entries', 'hull'}"),
    uses_files=True,
    tags=["phase diagram"],
)
def get_phase_diagram_properties(ctx: ToolContext, entries_pickle_file_path: str) -> dict:
    return phase_properties(load_entries(ctx, entries_pickle_file_path))


@tool(
    "Thermodynamic_Calculation/create_pourbaix_diagram",
    "Solid-phase Pourbaix (potential-pH) diagram from saved entries: formation energies from the "
    "entries' own "
    "elemental references, O and H handled as water/H+; saves it and lists the stable phases over "
    "pH 0-14 and "
    "potential -2 to 2 V. Aqueous ions are not included (their reference energies need online "
    "data).",
    [
        ENTRIES_IN,
        P(
            "output_pourbaix_diagram_pickle_file_path",
            "string",
            "Where to save the diagram.",
            examples=["pourbaix_fe.json"],
        ),
    ],
    ("object", "{'path', 'stable_entries', 'unstable_entries', 'stable_at': {'pH,V': phase}}"),
    uses_files=True,
    timeout_s=120,
    tags=["Pourbaix", "electrochemistry", "corrosion"],
)
def create_pourbaix_diagram(
    ctx: ToolContext, entries_pickle_file_path: str, output_pourbaix_diagram_pickle_file_path: str
) -> dict:
    from pymatgen.analysis.pourbaix_diagram import PourbaixDiagram, PourbaixEntry
    from pymatgen.entries.computed_entries import ComputedEntry

    entries = load_entries(ctx, entries_pickle_file_path)
    pd = _phase_diagram(entries)
    pourbaix_entries = []
    for entry in pd.stable_entries | set(pd.unstable_entries):
        elements = {str(e) for e in entry.composition.elements}
        if elements <= {"O", "H"}:
            continue
        formation = pd.get_form_energy(entry)
        pourbaix_entries.append(
            PourbaixEntry(ComputedEntry(entry.composition, formation, entry_id=entry.entry_id))
        )
    if not pourbaix_entries:
        raise ChemgroundError(
            "no solid phase besides O/H: a Pourbaix diagram needs at least one metal-containing "
            "entry"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagram = PourbaixDiagram(pourbaix_entries, filter_solids=False)
    stable_at = {}
    for ph in (0, 7, 14):
        for v in (-1.0, 0.0, 1.0):
            stable_at[f"pH={ph},V={v:+.1f}"] = diagram.get_stable_entry(ph, v).name
    path = artifacts.save(
        ctx,
        output_pourbaix_diagram_pickle_file_path,
        "pourbaix",
        {"entries": [e.as_dict() for e in entries]},
    )
    return {
        "path": path,
        "stable_entries": sorted({e.name for e in diagram.stable_entries}),
        "unstable_entries": sorted({e.name for e in diagram.unstable_entries}),
        "stable_at": stable_at,
    }


# --- Reactions_And_Batteries --------------------------------------------------------------------


@tool(
    "Reactions_And_Batteries/get_all_entries",
    "Download all computed entries of a chemical system (e.g. ['Li', 'Fe', 'O']) from the "
    "Materials Project and save them.",
    [
        P(
            "chemical_system",
            "array",
            "Elements of the chemical system.",
            items={"type": "string"},
            min_items=1,
            examples=[["Li", "Fe", "O"]],
        ),
        P(
            "output_entries_pickle_file_path",
            "string",
            "Where to save the entries.",
            examples=["entries_lifeo.json"],
        ),
    ],
    ("object", "{'path', 'count', 'formulas'}"),
    needs_network=True,
    offline_note="the Materials Project is online only (needs an API key in MP_API_KEY); offline "
    "the tool says so, and "
    "entries can be made by hand with chemground/create_entries",
    uses_files=True,
    timeout_s=300,
    tags=["Materials Project", "entries"],
)
def get_all_entries(
    ctx: ToolContext, chemical_system: list, output_entries_pickle_file_path: str
) -> dict:
    from chemground.agent.runner import ToolOffline

    elements = [element_symbol(e) for e in chemical_system]
    if not getattr(ctx.settings, "allow_network", False):
        raise ToolOffline(
            "Reactions_And_Batteries/get_all_entries",
            f"entries of {'-'.join(elements)} come from the "
            "Materials Project, which is online only and the network is not allowed; make entries "
            "with "
            "chemground/create_entries instead",
        )
    key = ctx.settings.tools.materials_project_api_key  # MP_API_KEY
    if not key:
        raise ToolOffline(
            "Reactions_And_Batteries/get_all_entries",
            "set MP_API_KEY to a Materials Project API key",
        )
    from mp_api.client import MPRester

    with MPRester(key) as rester:
        entries = rester.get_entries_in_chemsys(elements)
    path = artifacts.save(
        ctx, output_entries_pickle_file_path, "entries", [e.as_dict() for e in entries]
    )
    return {
        "path": path,
        "count": len(entries),
        "formulas": sorted({e.composition.reduced_formula for e in entries}),
    }


@tool(
    "Reactions_And_Batteries/balance_reaction",
    "Balance a reaction between the compositions of saved reactant entries and product entries; "
    "saves and returns it.",
    [
        P(
            "reactant_entries_pickle_file_path",
            "string",
            "Saved reactant entries.",
            examples=["reactants.json"],
        ),
        P(
            "product_entries_pickle_file_path",
            "string",
            "Saved product entries.",
            examples=["products.json"],
        ),
        P(
            "output_reaction_pickle_file_path",
            "string",
            "Where to save the reaction.",
            examples=["reaction.json"],
        ),
    ],
    ("object", "{'path', 'reaction', 'coefficients'}"),
    uses_files=True,
    tags=["reaction", "balance"],
)
def balance_reaction(
    ctx: ToolContext,
    reactant_entries_pickle_file_path: str,
    product_entries_pickle_file_path: str,
    output_reaction_pickle_file_path: str,
) -> dict:
    from pymatgen.analysis.reaction_calculator import Reaction

    reactants = [e.composition for e in load_entries(ctx, reactant_entries_pickle_file_path)]
    products = [e.composition for e in load_entries(ctx, product_entries_pickle_file_path)]
    try:
        reaction = Reaction(reactants, products)
    except Exception as error:
        raise ChemgroundError(
            f"cannot balance a reaction between these compositions: {error}"
        ) from None
    coefficients = {c.reduced_formula: float(x) for c, x in zip(reaction.all_comp, reaction.coeffs)}
    path = artifacts.save(ctx, output_reaction_pickle_file_path, "reaction", reaction.as_dict())
    return {"path": path, "reaction": str(reaction), "coefficients": coefficients}


def _working_ion(structure) -> str:
    present = {str(e) for e in structure.composition.elements}
    for ion in WORKING_IONS:
        if ion in present:
            return ion
    raise ChemgroundError(
        f"no working ion ({', '.join(WORKING_IONS)}) in {structure.composition.reduced_formula}"
    )


def battery_capacity(structure) -> dict[str, Any]:
    from pymatgen.apps.battery.analyzer import BatteryAnalyzer

    ion = _working_ion(structure)
    oxidised = structure.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            oxidised.add_oxidation_state_by_guess()
        except Exception as error:
            raise ChemgroundError(
                f"could not assign oxidation states to {structure.composition.reduced_formula}: "
                f"{error}"
            ) from None
        analyzer = BatteryAnalyzer(oxidised, working_ion=ion)
        units = structure.composition.get_reduced_composition_and_factor()[1]
        return {
            "formula": structure.composition.reduced_formula,
            "working_ion": ion,
            "max_ion_removal_per_formula_unit": float(analyzer.max_ion_removal) / units,
            "max_ion_insertion_per_formula_unit": float(analyzer.max_ion_insertion) / units,
            "removal_capacity_mAh_g": float(analyzer.get_max_capgrav(remove=True, insert=False)),
            "max_gravimetric_capacity_mAh_g": float(
                analyzer.get_max_capgrav(remove=True, insert=True)
            ),
            "max_volumetric_capacity_mAh_cm3": float(
                analyzer.get_max_capvol(remove=True, insert=True)
            ),
        }


@tool(
    "Reactions_And_Batteries/analyze_battery",
    "Battery analysis of an electrode structure: the working ion it contains (Li, Na, K, Mg, Ca, "
    "Zn, Al), how much "
    "can be removed (charging) and inserted with charge balance (oxidation states by guess), the "
    "capacity of "
    "removal alone and the maximum gravimetric and volumetric capacities of removal plus "
    "insertion.",
    [STRUCTURE_IN],
    (
        "object",
        "{'working_ion', 'max_ion_removal_per_formula_unit', 'removal_capacity_mAh_g', "
        "'max_gravimetric_capacity_mAh_g', 'max_volumetric_capacity_mAh_cm3'}",
    ),
    uses_files=True,
    timeout_s=120,
    tags=["battery", "capacity"],
)
def analyze_battery(ctx: ToolContext, structure_pickle_file_path: str) -> dict:
    return battery_capacity(artifacts.load_structure(ctx, structure_pickle_file_path))


@tool(
    "Battery_Materials_Analysis/screen_electrode_materials",
    "Screen a structure as an intercalation electrode: working ion, removable and insertable ions, "
    "theoretical "
    "gravimetric (removal, and removal plus insertion) and volumetric capacity and density, with a "
    "verdict "
    "(promising when the removal capacity exceeds 100 mAh/g).",
    [STRUCTURE_IN],
    ("object", "capacity figures and 'promising'"),
    uses_files=True,
    timeout_s=120,
    tags=["battery", "electrode", "screening"],
)
def screen_electrode_materials(ctx: ToolContext, structure_pickle_file_path: str) -> dict:
    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    out = battery_capacity(structure)
    out["density_g_cm3"] = float(structure.density)
    out["promising"] = out["removal_capacity_mAh_g"] > 100.0
    return out


# --- diffusion ------------------------------------------------------------------------------


def _hops(structure, ion: str, max_distance: float) -> list[dict[str, Any]]:
    from pymatgen.analysis.diffusion.neb.full_path_mapper import MigrationGraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = MigrationGraph.with_distance(
            structure, migrating_specie=ion, max_distance=max_distance
        )
    return _graph_hops(graph)


def _graph_hops(graph) -> list[dict[str, Any]]:
    hops = []
    for key, hop in sorted(graph.unique_hops.items()):
        path = hop["hop"]
        hops.append(
            {
                "hop_label": int(hop.get("hop_label", key)),
                "length": round(float(path.length), 4),
                "start_frac": [round(float(x), 4) for x in path.isite.frac_coords],
                "end_frac": [round(float(x), 4) for x in path.esite.frac_coords],
                "start_index": int(hop["iindex"]),
                "end_index": int(hop["eindex"]),
            }
        )
    return hops


@tool(
    "Battery_Materials_Analysis/analyze_ion_diffusion_pathways",
    "Migration pathways of the mobile ion (Li, Na, K, Mg, Ca, Zn or Al) in a structure: the "
    "symmetry-distinct hops "
    "between its sites up to 5 Å (pymatgen-analysis-diffusion), and the surface slab of the given "
    "thickness and "
    "vacuum (cut along (0, 0, 1)) through which they reach the surface.",
    [
        STRUCTURE_IN,
        P(
            "min_slab_size",
            "number",
            "Minimum slab thickness.",
            unit="Å",
            minimum=0.1,
            examples=[10.0],
        ),
        P(
            "min_vacuum_size",
            "number",
            "Minimum vacuum thickness.",
            unit="Å",
            minimum=0.0,
            examples=[10.0],
        ),
    ],
    ("object", "{'migrating_ion', 'diffusion_paths', 'number_of_paths', 'surface_slab'}"),
    uses_files=True,
    timeout_s=180,
    tags=["diffusion", "battery", "migration"],
)
def analyze_ion_diffusion_pathways(
    ctx: ToolContext, structure_pickle_file_path: str, min_slab_size: float, min_vacuum_size: float
) -> dict:
    from chemground.agent.tools.materials_structure import _slabs, slab_summary

    structure = artifacts.load_structure(ctx, structure_pickle_file_path)
    ion = _working_ion(structure)
    hops = _hops(structure, ion, 5.0)
    slab = _slabs(structure, [0, 0, 1], min_slab_size, min_vacuum_size)[0]
    return {
        "migrating_ion": ion,
        "diffusion_paths": hops,
        "number_of_paths": len(hops),
        "surface_slab": slab_summary(slab),
    }


@tool(
    "Diffusion_Analysis/create_migration_graph",
    "Build the migration graph of a mobile ion in a structure file (sites of the ion linked by "
    "hops up to 5 Å) and "
    "save it.",
    [
        P(
            "structure_file_path",
            "string",
            "Structure file (CIF, POSCAR, JSON) or saved structure.",
            examples=["licoo2.cif"],
        ),
        P("migrating_ion", "string", "Element of the mobile ion.", examples=["Li"]),
        P(
            "output_migration_graph_pickle_file_path",
            "string",
            "Where to save the graph.",
            examples=["mg_li.json"],
        ),
    ],
    ("object", "{'path', 'migrating_ion', 'number_of_unique_hops', 'hops'}"),
    uses_files=True,
    timeout_s=180,
    tags=["diffusion", "migration"],
)
def create_migration_graph(
    ctx: ToolContext,
    structure_file_path: str,
    migrating_ion: str,
    output_migration_graph_pickle_file_path: str,
) -> dict:
    from pymatgen.analysis.diffusion.neb.full_path_mapper import MigrationGraph

    ion = element_symbol(migrating_ion)
    structure = artifacts.load_structure(ctx, structure_file_path)
    if ion not in {str(e) for e in structure.composition.elements}:
        raise ChemgroundError(f"{ion} is not in {structure.composition.reduced_formula}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = MigrationGraph.with_distance(structure, migrating_specie=ion, max_distance=5.0)
    hops = _graph_hops(graph)
    path = artifacts.save(
        ctx,
        output_migration_graph_pickle_file_path,
        "migration_graph",
        {"structure": structure.as_dict(), "migrating_ion": ion, "max_distance": 5.0},
    )
    return {"path": path, "migrating_ion": ion, "number_of_unique_hops": len(hops), "hops": hops}


@tool(
    "Diffusion_Analysis/get_migration_paths",
    "The distinct migration hops (length, start and end positions) of a saved migration graph.",
    [
        P(
            "migration_graph_pickle_file_path",
            "string",
            "Saved migration graph.",
            examples=["mg_li.json"],
        )
    ],
    ("array", "hops with 'length' (Å) and fractional start/end positions"),
    uses_files=True,
    timeout_s=180,
    tags=["diffusion", "migration"],
)
def get_migration_paths(ctx: ToolContext, migration_graph_pickle_file_path: str) -> list:
    from pymatgen.core import Structure

    _, data = artifacts.load(ctx, migration_graph_pickle_file_path, ("migration_graph",))
    return _hops(
        Structure.from_dict(data["structure"]), data["migrating_ion"], float(data["max_distance"])
    )


def _neb(ctx: ToolContext, name: str):
    _, data = artifacts.load(ctx, name, ("neb_analysis",))
    return data


@tool(
    "Diffusion_Analysis/create_neb_analysis",
    "Read a VASP nudged-elastic-band calculation (a folder with image sub-folders 00, 01, ... "
    "holding OUTCARs and "
    "structures) and save the energies and distances along the path.",
    [
        P(
            "neb_dir",
            "string",
            "Root folder of the NEB calculation in the tool files folder.",
            examples=["neb_li/"],
        ),
        P(
            "output_neb_analysis_pickle_file_path",
            "string",
            "Where to save the analysis.",
            examples=["neb.json"],
        ),
    ],
    ("object", "{'path', 'images', 'barrier_eV', 'energies_eV', 'distances'}"),
    uses_files=True,
    timeout_s=180,
    tags=["NEB", "diffusion", "barrier"],
)
def create_neb_analysis(
    ctx: ToolContext, neb_dir: str, output_neb_analysis_pickle_file_path: str
) -> dict:
    from pymatgen.analysis.transition_state import NEBAnalysis as Analysis

    folder = artifacts.resolve(ctx, neb_dir, must_exist=True)
    if not folder.is_dir():
        raise ChemgroundError(f"{neb_dir!r} is not a folder")
    artifacts.check_folder(ctx, folder, neb_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            analysis = Analysis.from_dir(str(folder))
        except Exception as error:
            raise ChemgroundError(
                f"could not read a VASP NEB calculation from {neb_dir!r}: {error}"
            ) from None
    energies = [float(e) for e in analysis.energies]
    data = {
        "energies_eV": energies,
        "distances": [float(r) for r in analysis.r],
        "forces": [float(f) for f in analysis.forces],
    }
    path = artifacts.save(ctx, output_neb_analysis_pickle_file_path, "neb_analysis", data)
    return {
        "path": path,
        "images": len(energies),
        "barrier_eV": max(energies) - energies[0],
        **data,
    }


NEB_IN = P(
    "neb_analysis_pickle_file_path",
    "string",
    "Saved NEB analysis (from create_neb_analysis).",
    examples=["neb.json"],
)


@tool(
    "Diffusion_Analysis/get_decomposition",
    "Energy profile of a saved NEB path decomposed per image: each image's energy relative to the "
    "initial image and "
    "its distance along the path.",
    [NEB_IN],
    ("array", "[{'image', 'distance', 'relative_energy_eV'}]"),
    uses_files=True,
    tags=["NEB", "diffusion"],
)
def neb_decomposition(ctx: ToolContext, neb_analysis_pickle_file_path: str) -> list:
    data = _neb(ctx, neb_analysis_pickle_file_path)
    e0 = data["energies_eV"][0]
    return [
        {"image": i, "distance": r, "relative_energy_eV": e - e0}
        for i, (r, e) in enumerate(zip(data["distances"], data["energies_eV"]))
    ]


@tool(
    "Diffusion_Analysis/get_e_above_hull",
    "Energy of each image of a saved NEB path above the lowest image, and the migration barrier.",
    [NEB_IN],
    ("object", "{'energies_above_minimum_eV', 'barrier_eV'}"),
    uses_files=True,
    tags=["NEB", "barrier"],
)
def neb_energy_above_minimum(ctx: ToolContext, neb_analysis_pickle_file_path: str) -> dict:
    energies = _neb(ctx, neb_analysis_pickle_file_path)["energies_eV"]
    low = min(energies)
    return {
        "energies_above_minimum_eV": [e - low for e in energies],
        "barrier_eV": max(energies) - energies[0],
    }


@tool(
    "Materials_Analysis/analyze_diffusion",
    "Diffusion from a molecular-dynamics trajectory: diffusivity, conductivity and mean square "
    "displacement of a "
    "species. Input: a saved trajectory {'structures': [...], 'specie', 'temperature' (K), "
    "'time_step' (fs), "
    "'step_skip'} (chemground/create_md_trajectory).",
    [P("entries_pickle_file_path", "string", "Saved MD trajectory.", examples=["md_li.json"])],
    ("object", "{'diffusivity_cm2_s', 'conductivity_mS_cm', 'specie', 'temperature_K'}"),
    uses_files=True,
    timeout_s=180,
    tags=["diffusion", "molecular dynamics"],
)
def analyze_diffusion(ctx: ToolContext, entries_pickle_file_path: str) -> dict:
    from pymatgen.analysis.diffusion.analyzer import DiffusionAnalyzer
    from pymatgen.core import Structure

    kind, data = artifacts.load(ctx, entries_pickle_file_path, ("md_trajectory", "entries"))
    if kind != "md_trajectory":
        raise ChemgroundError(
            "diffusion analysis needs a molecular-dynamics trajectory (a series of structures over "
            "time), not a list of entries; save one with chemground/create_md_trajectory"
        )
    structures = [Structure.from_dict(s) for s in data["structures"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyzer = DiffusionAnalyzer.from_structures(
            structures,
            data["specie"],
            float(data["temperature"]),
            float(data["time_step"]),
            int(data.get("step_skip", 1)),
            smoothed=False,
        )
    return {
        "specie": data["specie"],
        "temperature_K": float(data["temperature"]),
        "diffusivity_cm2_s": float(analyzer.diffusivity),
        "conductivity_mS_cm": float(analyzer.conductivity),
        "frames": len(structures),
    }


@tool(
    "Materials_Analysis/calculate_magnetic_properties",
    "Magnetic analysis of saved structures with magnetic moments (site property 'magmom'): total "
    "magnetization, "
    "moments per site, whether magnetic and the ordering (FM, AFM, FiM, NM).",
    [
        P(
            "entries_pickle_file_path",
            "string",
            "Saved structure, or saved entries that carry structures.",
            examples=["structure_fe3o4.json"],
        )
    ],
    (
        "object",
        "{'magnetic_properties': [{'formula', 'total_magnetization', 'magnetic_moments', "
        "'is_magnetic', "
        "'magnetic_ordering'}]}",
    ),
    uses_files=True,
    tags=["magnetism"],
)
def calculate_magnetic_properties(ctx: ToolContext, entries_pickle_file_path: str) -> dict:
    from pymatgen.analysis.magnetism.analyzer import CollinearMagneticStructureAnalyzer
    from pymatgen.core import Structure

    kind, data = artifacts.load(ctx, entries_pickle_file_path, ("structure", "entries", "entry"))
    if kind == "structure":
        structures = [Structure.from_dict(data)]
    else:
        items = data if isinstance(data, list) else [data]
        structures = [entry_from_dict(item).structure for item in items if "structure" in item]
        if not structures:
            raise ChemgroundError(
                "these entries carry no structures; magnetic analysis needs structures with magmoms"
            )
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for structure in structures:
            analyzer = CollinearMagneticStructureAnalyzer(structure, make_primitive=False)
            out.append(
                {
                    "formula": structure.composition.reduced_formula,
                    "total_magnetization": float(analyzer.total_magmoms),
                    "magnetic_moments": [float(m) for m in analyzer.magmoms],
                    "is_magnetic": bool(analyzer.is_magnetic),
                    "magnetic_ordering": analyzer.ordering.value,
                }
            )
    return {"magnetic_properties": out}


# --- Electronic_Structure_Analysis ---------------------------------------------------------------


def _vasprun(path):
    from pymatgen.io.vasp import Vasprun

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Vasprun(str(path), parse_potcar_file=False)


@tool(
    "Electronic_Structure_Analysis/analyze_band_structure",
    "Band gap (direct or indirect), metallicity, valence-band maximum and conduction-band minimum "
    "of a band "
    "structure (a saved band structure or a VASP vasprun.xml).",
    [
        P(
            "band_structure_pickle_file_path",
            "string",
            "Saved band structure (pymatgen JSON) or vasprun.xml.",
            examples=["vasprun.xml"],
        )
    ],
    (
        "object",
        "{'band_gap_eV', 'direct', 'transition', 'is_metal', 'vbm_eV', 'cbm_eV', 'efermi_eV'}",
    ),
    uses_files=True,
    timeout_s=180,
    tags=["band structure", "band gap", "electronic structure"],
)
def analyze_band_structure(ctx: ToolContext, band_structure_pickle_file_path: str) -> dict:
    from pymatgen.electronic_structure.bandstructure import BandStructure, BandStructureSymmLine

    path = artifacts.resolve(ctx, band_structure_pickle_file_path, must_exist=True)
    if path.name.endswith(".xml"):
        bs = _vasprun(path).get_band_structure()
    else:
        _, data = artifacts.load(ctx, band_structure_pickle_file_path, ("band_structure",))
        cls = (
            BandStructureSymmLine
            if data.get("@class") == "BandStructureSymmLine"
            else BandStructure
        )
        bs = cls.from_dict(data)
    gap = bs.get_band_gap()
    metal = bool(bs.is_metal())
    return {
        "band_gap_eV": float(gap["energy"]),
        "direct": bool(gap["direct"]),
        "transition": gap["transition"],
        "is_metal": metal,
        "vbm_eV": None if metal else float(bs.get_vbm()["energy"]),
        "cbm_eV": None if metal else float(bs.get_cbm()["energy"]),
        "efermi_eV": float(bs.efermi),
    }


def _dos(ctx: ToolContext, name: str):
    from pymatgen.electronic_structure.dos import CompleteDos, Dos

    path = artifacts.resolve(ctx, name, must_exist=True)
    if path.name.endswith(".xml"):
        return _vasprun(path).complete_dos
    _, data = artifacts.load(ctx, name, ("dos",))
    return (CompleteDos if data.get("@class") == "CompleteDos" else Dos).from_dict(data)


@tool(
    "Electronic_Structure_Analysis/calculate_density_of_states",
    "Key properties of a density of states (a saved DOS or vasprun.xml): Fermi level, energy "
    "range, DOS at the Fermi "
    "level, band gap from the DOS, and the total DOS curve.",
    [
        P(
            "dos_pickle_file_path",
            "string",
            "Saved density of states (pymatgen JSON) or vasprun.xml.",
            examples=["vasprun.xml"],
        )
    ],
    ("object", "{'fermi_level_eV', 'band_gap_eV', 'dos_at_fermi', 'energies_eV', 'total_dos'}"),
    uses_files=True,
    timeout_s=180,
    tags=["density of states", "electronic structure"],
)
def calculate_density_of_states(ctx: ToolContext, dos_pickle_file_path: str) -> dict:
    import numpy as np

    dos = _dos(ctx, dos_pickle_file_path)
    total = np.asarray(dos.get_densities())
    energies = np.asarray(dos.energies)
    at_fermi = float(np.interp(dos.efermi, energies, total))
    return {
        "fermi_level_eV": float(dos.efermi),
        "band_gap_eV": dos_gap(energies, total, float(dos.efermi)),
        "dos_at_fermi": at_fermi,
        "energy_range_eV": [float(energies.min()), float(energies.max())],
        "energies_eV": energies.tolist(),
        "total_dos": total.tolist(),
    }


def dos_gap(energies, total, efermi: float, tol: float = 1e-3) -> float:
    """Width of the region around the Fermi level where the DOS is below tol x its maximum (0 for a
    metal)."""
    import numpy as np

    empty = total <= tol * float(np.max(total))
    index = int(np.argmin(np.abs(energies - efermi)))
    if not empty[index]:
        return 0.0
    low = index
    while low > 0 and empty[low - 1]:
        low -= 1
    high = index
    while high < len(energies) - 1 and empty[high + 1]:
        high += 1
    return float(energies[high] - energies[low])


@tool(
    "Electronic_Structure_Analysis/plot_fermi_surface",
    "Plot the density of states around the Fermi level (a saved DOS or vasprun.xml) to a PNG "
    "image, marking the Fermi "
    "level; the states at the Fermi level show whether there is a Fermi surface (metal) at all. A "
    "full 3-D Fermi "
    "surface needs band energies on a k-point mesh, which a DOS does not hold.",
    [
        P(
            "dos_pickle_file_path",
            "string",
            "Saved density of states or vasprun.xml.",
            examples=["vasprun.xml"],
        )
    ],
    ("object", "{'image', 'fermi_level_eV', 'dos_at_fermi', 'has_fermi_surface'}"),
    uses_files=True,
    timeout_s=120,
    tags=["Fermi level", "density of states", "plot"],
)
def plot_fermi_surface(ctx: ToolContext, dos_pickle_file_path: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    dos = _dos(ctx, dos_pickle_file_path)
    energies = np.asarray(dos.energies) - dos.efermi
    total = np.asarray(dos.get_densities())
    window = (energies > -5) & (energies < 5)
    figure, axis = plt.subplots(figsize=(5, 3.5))
    axis.plot(energies[window], total[window], color="black")
    axis.axvline(0.0, color="red", linestyle="--", label="Fermi level")
    axis.set_xlabel("E - E_F (eV)")
    axis.set_ylabel("DOS (states/eV)")
    axis.legend()
    stem = artifacts.resolve(ctx, dos_pickle_file_path).name.split(".")[0]
    image = artifacts.resolve(ctx, f"{stem}_fermi.png")
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=120)
    plt.close(figure)
    artifacts.write_bytes(ctx, image, png.getvalue())
    at_fermi = float(np.interp(0.0, energies, total))
    return {
        "image": artifacts.display(ctx, image),
        "fermi_level_eV": float(dos.efermi),
        "dos_at_fermi": at_fermi,
        "has_fermi_surface": at_fermi > 1e-3,
    }


# --- Machine_Learning_Integration ---------------------------------------------------------------

FEATURE_NAMES = [
    "density_g_cm3",
    "volume_per_atom",
    "n_elements",
    "mean_Z",
    "mean_atomic_mass",
    "mean_X",
    "std_X",
    "mean_atomic_radius",
    "std_atomic_radius",
    "mean_coordination",
]


def structure_features(structure) -> list[float]:
    """Composition and structure descriptors (coordination from pymatgen's CrystalNN)."""
    import numpy as np
    from pymatgen.analysis.local_env import CrystalNN

    comp = structure.composition
    fractions = [(el, comp.get_atomic_fraction(el)) for el in comp.elements]

    def weighted(values):
        vals = np.array([v for v, _ in values], dtype=float)
        weights = np.array([w for _, w in values], dtype=float)
        mean = float(np.average(vals, weights=weights))
        std = float(np.sqrt(np.average((vals - mean) ** 2, weights=weights)))
        return mean, std

    x_mean, x_std = weighted([(el.X if el.X == el.X else 0.0, f) for el, f in fractions])
    r_mean, r_std = weighted([(el.atomic_radius or 0.0, f) for el, f in fractions])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn = CrystalNN()
        coordination = float(
            np.mean([nn.get_cn(structure, i) for i in range(min(len(structure), 50))])
        )
    return [
        float(structure.density),
        float(structure.volume / len(structure)),
        float(len(comp.elements)),
        weighted([(el.Z, f) for el, f in fractions])[0],
        weighted([(float(el.atomic_mass), f) for el, f in fractions])[0],
        x_mean,
        x_std,
        r_mean,
        r_std,
        coordination,
    ]


@tool(
    "Machine_Learning_Integration/generate_features",
    "Featurize saved structures for machine learning: density, volume per atom, number of "
    "elements, mean atomic "
    "number and mass, mean/std electronegativity and atomic radius, mean coordination number "
    "(CrystalNN); saves the "
    "feature matrix.",
    [
        P(
            "structure_pickle_file_path_list",
            "array",
            "Saved structures, one feature row each.",
            items={"type": "string"},
            min_items=1,
            examples=[["structure_a.json", "structure_b.json"]],
        ),
        P(
            "output_feature_pickle_file_path",
            "string",
            "Where to save the features.",
            examples=["features.json"],
        ),
    ],
    ("object", "{'path', 'feature_names', 'features'}"),
    uses_files=True,
    timeout_s=300,
    tags=["machine learning", "features"],
)
def generate_features(
    ctx: ToolContext, structure_pickle_file_path_list: list, output_feature_pickle_file_path: str
) -> dict:
    rows = [
        structure_features(artifacts.load_structure(ctx, name))
        for name in structure_pickle_file_path_list
    ]
    data = {
        "feature_names": FEATURE_NAMES,
        "features": rows,
        "sources": list(structure_pickle_file_path_list),
    }
    return {"path": artifacts.save(ctx, output_feature_pickle_file_path, "features", data), **data}


def _features(ctx: ToolContext, name: str) -> list[list[float]]:
    _, data = artifacts.load(ctx, name, ("features",))
    return data["features"]


def _fit(features, targets, random_state: int):
    from sklearn.ensemble import RandomForestRegressor

    model = RandomForestRegressor(n_estimators=100, random_state=random_state)
    model.fit(features, targets)
    return model


@tool(
    "Machine_Learning_Integration/train_model",
    "Train a random-forest regressor on saved features and target values with a train/test split; "
    "reports test "
    "predictions and mean squared error and saves the model (as its training data and settings, "
    "refitted "
    "deterministically when used).",
    [
        P(
            "feature_pickle_file_path",
            "string",
            "Saved features (from generate_features).",
            examples=["features.json"],
        ),
        P(
            "targets",
            "array",
            "Target value for each feature row, in order.",
            items={"type": "number"},
            min_items=2,
            examples=[[1.2, 3.4, 2.2]],
        ),
        P(
            "test_size",
            "number",
            "Fraction of rows held out for testing.",
            minimum=0.0,
            maximum=0.9,
            examples=[0.2],
        ),
        P("random_state", "integer", "Seed for the split and the forest.", minimum=0, examples=[0]),
        P(
            "output_model_pickle_file_path",
            "string",
            "Where to save the model.",
            examples=["model.json"],
        ),
    ],
    ("object", "{'path', 'n_train', 'n_test', 'test_predictions', 'mse'}"),
    uses_files=True,
    timeout_s=300,
    tags=["machine learning", "regression"],
)
def train_model(
    ctx: ToolContext,
    feature_pickle_file_path: str,
    targets: list,
    test_size: float,
    random_state: int,
    output_model_pickle_file_path: str,
) -> dict:
    from sklearn.metrics import mean_squared_error
    from sklearn.model_selection import train_test_split

    features = _features(ctx, feature_pickle_file_path)
    if len(features) != len(targets):
        raise ChemgroundError(f"{len(features)} feature rows but {len(targets)} targets")
    if test_size > 0:
        x_train, x_test, y_train, y_test = train_test_split(
            features, targets, test_size=test_size, random_state=random_state
        )
    else:
        x_train, x_test, y_train, y_test = features, [], targets, []
    if not x_train:
        raise ChemgroundError("no rows left for training; lower test_size")
    model = _fit(x_train, y_train, random_state)
    predictions = model.predict(x_test).tolist() if x_test else []
    mse = float(mean_squared_error(y_test, predictions)) if x_test else None
    record = {
        "algorithm": "RandomForestRegressor",
        "n_estimators": 100,
        "random_state": random_state,
        "train_features": x_train,
        "train_targets": y_train,
    }
    path = artifacts.save(ctx, output_model_pickle_file_path, "model", record)
    return {
        "path": path,
        "n_train": len(x_train),
        "n_test": len(x_test),
        "test_predictions": predictions,
        "mse": mse,
    }


@tool(
    "Machine_Learning_Integration/predict_with_model",
    "Predict target values for saved features with a saved model (from train_model).",
    [
        P("model_pickle_file_path", "string", "Saved model.", examples=["model.json"]),
        P(
            "feature_pickle_file_path",
            "string",
            "Saved features to predict for.",
            examples=["features.json"],
        ),
    ],
    ("array", "one prediction per feature row"),
    uses_files=True,
    timeout_s=300,
    tags=["machine learning", "prediction"],
)
def predict_with_model(
    ctx: ToolContext, model_pickle_file_path: str, feature_pickle_file_path: str
) -> list:
    _, record = artifacts.load(ctx, model_pickle_file_path, ("model",))
    features = _features(ctx, feature_pickle_file_path)
    width = len(record["train_features"][0])
    if any(len(row) != width for row in features):
        raise ChemgroundError(
            f"the model was trained on {width} features per row; these rows differ"
        )
    model = _fit(record["train_features"], record["train_targets"], int(record["random_state"]))
    return [float(x) for x in model.predict(features)]


@tool(
    "Surface_Interface_Analysis/model_interfacial_reactions",
    "Reactions at the interface of two materials: the reaction energy as a function of the mixing "
    "ratio (the "
    "'kinks' of the interfacial reactivity, pymatgen) between the first phase of each saved "
    "entries file, with all "
    "entries of both files forming the phase diagram. With an open element the reactions are "
    "computed in the grand "
    "potential at that element's elemental chemical potential. Energies are the entries' own; the "
    "temperature is "
    "reported with the result and applies only through the entries you supply.",
    [
        P(
            "entries_pickle_file_path_1",
            "string",
            "Saved entries; the first one is reactant 1.",
            examples=["entries_a.json"],
        ),
        P(
            "entries_pickle_file_path_2",
            "string",
            "Saved entries; the first one is reactant 2.",
            examples=["entries_b.json"],
        ),
        P(
            "open_elem",
            "string",
            "Element open to the environment (e.g. O for air); omit for a closed system.",
            examples=["O"],
            required=False,
        ),
        P(
            "temperature",
            "number",
            "Temperature the entries' energies refer to.",
            unit="K",
            minimum=0,
            examples=[298.15],
            required=False,
        ),
    ],
    (
        "object",
        "{'reactant_1', 'reactant_2', 'kinks': [{'mixing_ratio', 'reaction', "
        "'energy_eV_per_atom'}], "
        "'most_exothermic'}",
    ),
    uses_files=True,
    timeout_s=180,
    tags=["interface", "reaction", "thermodynamics"],
)
def model_interfacial_reactions(
    ctx: ToolContext,
    entries_pickle_file_path_1: str,
    entries_pickle_file_path_2: str,
    open_elem: str | None = None,
    temperature: float | None = None,
) -> dict:
    from pymatgen.analysis.interface_reactions import (
        GrandPotentialInterfacialReactivity,
        InterfacialReactivity,
    )
    from pymatgen.analysis.phase_diagram import GrandPotentialPhaseDiagram
    from pymatgen.core import Element

    first = load_entries(ctx, entries_pickle_file_path_1)
    second = load_entries(ctx, entries_pickle_file_path_2)
    pd = _phase_diagram(first + second)
    c1, c2 = first[0].composition.reduced_composition, second[0].composition.reduced_composition
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if open_elem and open_elem.strip():
            element = Element(element_symbol(open_elem))
            if element not in pd.elements:
                raise ChemgroundError(
                    f"{element} is not in the chemical system {[str(e) for e in pd.elements]}"
                )
            mu = pd.el_refs[element].energy_per_atom
            grand = GrandPotentialPhaseDiagram(pd.all_entries, {element: mu})
            reactivity = GrandPotentialInterfacialReactivity(
                c1, c2, grand, pd, norm=True, use_hull_energy=True
            )
        else:
            reactivity = InterfacialReactivity(c1, c2, pd, norm=True, use_hull_energy=True)
        kinks = [
            {
                "mixing_ratio": float(x),
                "reaction": str(reaction),
                "energy_eV_per_atom": float(energy),
            }
            for _, x, energy, reaction, _ in reactivity.get_kinks()
        ]
    best = min(kinks, key=lambda k: k["energy_eV_per_atom"]) if kinks else None
    return {
        "reactant_1": c1.reduced_formula,
        "reactant_2": c2.reduced_formula,
        "open_element": open_elem or None,
        "temperature_K": temperature,
        "kinks": kinks,
        "most_exothermic": best,
    }
