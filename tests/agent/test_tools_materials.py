"""Every materials tool with a real call, chained the way an agent would use them (objects pass
between calls as JSON files in the tool files folder), checked against known crystallography
and thermodynamics; plus the file-safety rules (no pickles, no escaping the folder)."""

from __future__ import annotations

import json
import math

import pytest

from chemground.agent.registry import ToolContext, default_registry
from chemground.agent.runner import ToolOffline
from chemground.agent.validation import ToolError
from chemground.settings import Settings

LI2O_CELL = [[4.61, 0, 0], [0, 4.61, 0], [0, 0, 4.61]]
LI_O_ENTRIES = [
    {"formula": "Li", "energy": -1.9},
    {"formula": "O2", "energy": -9.86},
    {"formula": "Li2O", "energy": -14.3},
    {"formula": "Li2O2", "energy": -19.6},
]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory, small_kb_path):
    root = tmp_path_factory.mktemp("materials")
    return ToolContext(
        settings=Settings(kb={"path": small_kb_path}, cache_dir=root / "cache"),
        files_dir=root / "files",
    )


@pytest.fixture(scope="module")
def run(ctx):
    registry = default_registry()

    def call(name, args):
        return registry.call_in_process(name, args, ctx)

    # the shared objects every test below builds on
    call(
        "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
        ["Fm-3m", LI2O_CELL, ["Li", "O"], [[0.25, 0.25, 0.25], [0, 0, 0]], "li2o.pkl"],
    )
    call("Structure_Mainpulation_and_Analysis/get_primitive_structure", ["li2o.pkl", "prim.pkl"])
    call(
        "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
        ["Fm-3m", [[3.92, 0, 0], [0, 3.92, 0], [0, 0, 3.92]], ["Pt"], [[0, 0, 0]], "pt.json"],
    )
    call("chemground/create_entries", [LI_O_ENTRIES, "entries.json"])
    return call


def test_structure_from_spacegroup_generates_the_antifluorite_cell(run):
    summary = run("Crystal_Structure_Manipulation/analyze_symmetry", ["li2o.pkl"])
    assert summary["space_group_number"] == 225 and summary["crystal_system"] == "cubic"
    assert (
        run("Basic_Functionality/analyze_symmetry", ["prim.pkl"])["space_group_symbol"] == "Fm-3m"
    )


def test_primitive_cell_of_fcc_li2o_has_three_atoms(run):
    result = run(
        "Structure_Mainpulation_and_Analysis/get_primitive_structure", ["li2o.pkl", "prim2.pkl"]
    )
    assert (
        result["sites_before"] == 12
        and result["num_sites"] == 3
        and result["reduced_formula"] == "Li2O"
    )


def test_symmetry_dataset_wyckoff_positions(run):
    data = run("Structure_Mainpulation_and_Analysis/get_symmetry_dataset", ["li2o.pkl", "sym.pkl"])
    assert data["number"] == 225 and data["n_operations"] == 192
    assert sorted(set(data["wyckoffs"])) == ["a", "c"]


def test_lattice_structure_and_immutable_copy(run):
    lattice = run("Basic_Functionality/create_cubic_lattice", [5.64, "lattice.pkl"])
    assert math.isclose(lattice["volume"], 5.64**3, rel_tol=1e-9)
    made = run(
        "Basic_Functionality/create_structure",
        ["lattice.pkl", ["Na", "Cl"], [[0, 0, 0], [0.5, 0.5, 0.5]], "nacl.pkl"],
    )
    assert made["reduced_formula"] == "NaCl" and made["num_sites"] == 2
    frozen = run("Basic_Functionality/create_immutable_structure", ["nacl.pkl", "nacl_frozen.pkl"])
    assert frozen["immutable"] is True
    assert run("Basic_Functionality/match_structures", ["nacl.pkl", "nacl_frozen.pkl"]) is True
    assert run("Basic_Functionality/match_structures", ["nacl.pkl", "li2o.pkl"]) is False


def test_crystal_structure_from_lattice_vectors(run):
    made = run(
        "Crystal_Structure_Manipulation/create_structure",
        [
            [[3.0, 0, 0], [0, 3.0, 0], [0, 0, 3.0]],
            ["Cs", "Cl"],
            [[0, 0, 0], [0.5, 0.5, 0.5]],
            "cscl.json",
        ],
    )
    assert made["reduced_formula"] == "CsCl" and math.isclose(made["volume"], 27.0)


def test_structure_files_round_trip(run, ctx):
    written = run("Basic_Functionality/write_structure_to_file", ["li2o.pkl", "li2o.cif"])
    assert written["format"] == "cif" and (ctx.files_dir / "li2o.cif").exists()
    back = run("Basic_Functionality/read_structure_from_file", ["li2o.cif", "li2o_back.pkl"])
    assert back["reduced_formula"] == "Li2O" and back["num_sites"] == 12
    again = run(
        "Structure_Mainpulation_and_Analysis/create_structure_from_file",
        ["li2o.cif", "li2o_again.json"],
    )
    assert again["num_sites"] == 12
    cif = run("IO_Operations/handle_cif", ["li2o.pkl", "li2o_sym.cif"])
    assert "_symmetry_space_group_name_H-M   Fm-3m" in cif["cif"]
    assert run(
        "High_Throughput_Calculation/match_structures", [["li2o.pkl", "li2o_back.pkl", "pt.json"]]
    ) == [True, False, False]


def test_vasp_inputs_are_written_and_read_back(run):
    made = run("Basic_Functionality/create_vasp_input_files", ["prim.pkl", "/runs/li2o/"])
    assert made["directory"] == "runs/li2o"  # absolute paths stay inside the files folder
    assert {"INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"} <= set(made["files"])
    summary = run("IO_Operations/handle_vasp", ["runs/li2o/"])
    assert summary["incar"]["ENCUT"] == 520 and summary["structure"]["reduced_formula"] == "Li2O"


def test_site_edits(run):
    removed = run(
        "Structure_Mainpulation_and_Analysis/remove_sites", ["li2o.pkl", [0, 1], "removed.pkl"]
    )
    assert removed["num_sites"] == 10
    partial = run(
        "Crystal_Structure_Manipulation/modify_site_occupancy", ["li2o.pkl", 0, 0.5, "partial.pkl"]
    )
    assert partial["formula"].startswith("Li7.5")
    with pytest.raises(ToolError, match="out of range"):
        run("Structure_Mainpulation_and_Analysis/remove_sites", ["li2o.pkl", [99], "x.pkl"])


def test_point_defects(run):
    vacancy = run("Crystal_Structure_Manipulation/create_vacancy", ["prim.pkl", 0, "vac.pkl"])
    assert vacancy["name"] == "v_Li" and vacancy["defect_type"] == "Vacancy"
    interstitial = run(
        "Crystal_Structure_Manipulation/create_interstitial",
        ["prim.pkl", "Li", [0.5, 0.5, 0.5], "int.pkl"],
    )
    assert interstitial["name"] == "Li_i"
    made = run(
        "Defect_Analysis/create_defect",
        ["prim.pkl", "substitution", [0.25, 0.25, 0.25], 2, 1, "sub.pkl", "Na"],
    )
    assert made["name"] == "Na_Li" and made["multiplicity"] == 2
    assert run("Defect_Analysis/get_defect_type", ["sub.pkl"]) == "Substitution"
    assert run("Defect_Analysis/get_defect_charge", ["sub.pkl"]) == [1]
    site = run("Defect_Analysis/get_defect_site", ["sub.pkl"])
    assert site["species"] == "Na"
    assert run("Defect_Analysis/load_defect_from_pickle", ["vac.pkl"])["site_species"].startswith(
        "Li"
    )
    entry = run("Defect_Analysis/create_defect_entry", ["sub.pkl", -123.4, "entry_sub.pkl"])
    assert entry["charge_state"] == 1
    assert run("Defect_Analysis/get_defect_energy", ["entry_sub.pkl"]) == -123.4
    assert (
        run("Defect_Analysis/load_defect_entry_from_pickle", ["entry_sub.pkl"])["defect"] == "Na_Li"
    )
    with pytest.raises(ToolError, match="species"):
        run("Defect_Analysis/create_defect", ["prim.pkl", "substitution", [0, 0, 0], 1, 0, "x.pkl"])


def test_surfaces_adsorption_and_catalysis(run):
    surface = run("Surface_Interface_Analysis/generate_surface", ["pt.json", [1, 1, 1], 6.0, 10.0])
    assert surface["slab"]["miller_index"] == [1, 1, 1] and surface["terminations"] >= 1
    slabs = run("Surface_Analysis/get_slabs_info", ["pt.json"])
    assert {tuple(s["miller_index"]) for s in slabs} >= {(1, 0, 0), (1, 1, 0), (1, 1, 1)}
    slab = run(
        "Catalysis_Studies/model_catalyst_surface", ["pt.json", [1, 1, 1], 6.0, 10.0, "slab.pkl"]
    )
    assert slab["is_symmetric"] is True
    study = run("Surface_Interface_Analysis/perform_adsorption_study", ["slab.pkl", "CO"])
    assert set(study["sites"]) >= {"ontop", "bridge", "hollow"}
    energy = run("Catalysis_Studies/calculate_adsorption_energy", ["slab.pkl", "O"])
    assert energy["adsorption_energy_eV"] < -1.0  # O binds strongly to Pt
    assert energy["site"] in ("bridge", "hollow")
    with pytest.raises(ToolError, match=r"miller_index. takes at most 3 items"):
        run(
            "Catalysis_Studies/model_catalyst_surface",
            ["pt.json", [1, 1, 1, 1], 6.0, 10.0, "bad.pkl"],
        )
    with pytest.raises(ToolError, match="no energy model"):
        run("Catalysis_Studies/calculate_adsorption_energy", ["slab.pkl", "Y"])


def test_phase_diagram_and_thermodynamics(run):
    pd = run("Phase_Diagrams/create_phase_diagram", ["entries.json", "pd.json"])
    stable = {e["formula"] for e in pd["stable_entries"]}
    assert {"Li", "O2", "Li2O"} <= stable
    best = run(
        "Thermodynamic_Calculation/get_most_stable_entry",
        ["entries.json", "Li2O", "entry_li2o.pkl"],
    )
    assert best["formula"] == "Li2O"
    assert run("Phase_Diagrams/get_e_above_hull", ["pd.json", "entry_li2o.pkl"]) == pytest.approx(
        0.0, abs=1e-9
    )
    assert run("Phase_Diagrams/get_decomposition", ["pd.json", "entry_li2o.pkl"]) == {
        "Li2O": pytest.approx(1.0)
    }
    stability = run("Thermodynamic_Calculation/analyze_phase_stability", ["entries.json"])
    assert stability["elements"] == ["Li", "O"]
    assert (
        run("Materials_Analysis/get_phase_diagram_properties", ["entries.json"])["hull"]["Li2O"] < 0
    )
    run("chemground/create_entries", [LI_O_ENTRIES[:2], "reactants.json"])
    run("chemground/create_entries", [LI_O_ENTRIES[2:3], "products.json"])
    energy = run(
        "Thermodynamic_Calculation/calculate_reaction_energy", ["reactants.json", "products.json"]
    )
    assert energy["reaction"] == "2 Li + 0.5 O2 -> Li2O"
    assert energy["reaction_energy_eV"] == pytest.approx(-14.3 + 2 * 1.9 + 0.5 * 9.86)
    balanced = run(
        "Reactions_And_Batteries/balance_reaction", ["reactants.json", "products.json", "rx.json"]
    )
    assert balanced["coefficients"]["Li"] == pytest.approx(-2.0)
    interface = run(
        "Surface_Interface_Analysis/model_interfacial_reactions",
        ["reactants.json", "products.json", "O", 300.0],
    )
    assert interface["reactant_1"] == "Li" and interface["kinks"]


def test_pourbaix_diagram_of_iron_oxide(run):
    run(
        "chemground/create_entries",
        [
            [
                {"formula": "Fe", "energy": -8.3},
                {"formula": "O2", "energy": -9.86},
                {"formula": "Fe2O3", "energy": -38.0},
                {"formula": "H2", "energy": -6.77},
                {"formula": "H2O", "energy": -14.2},
            ],
            "fe.json",
        ],
    )
    result = run("Thermodynamic_Calculation/create_pourbaix_diagram", ["fe.json", "pourbaix.json"])
    assert set(result["stable_entries"]) == {"Fe(s)", "Fe2O3(s)"}
    assert (
        result["stable_at"]["pH=7,V=-1.0"] == "Fe(s)"
        and result["stable_at"]["pH=7,V=+1.0"] == "Fe2O3(s)"
    )


def test_battery_and_diffusion(run):
    run(
        "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
        [
            "R-3m",
            [[2.82, 0, 0], [-1.41, 2.4422, 0], [0, 0, 14.05]],
            ["Li", "Co", "O"],
            [[0, 0, 0.5], [0, 0, 0], [0, 0, 0.2604]],
            "licoo2.json",
        ],
    )
    screen = run("Battery_Materials_Analysis/screen_electrode_materials", ["licoo2.json"])
    assert screen["working_ion"] == "Li"
    assert screen["removal_capacity_mAh_g"] == pytest.approx(
        273.8, rel=0.01
    )  # textbook LiCoO2 value
    assert run("Reactions_And_Batteries/analyze_battery", ["licoo2.json"])[
        "max_ion_removal_per_formula_unit"
    ] == pytest.approx(1.0)
    paths = run(
        "Battery_Materials_Analysis/analyze_ion_diffusion_pathways", ["licoo2.json", 8.0, 8.0]
    )
    assert paths["migrating_ion"] == "Li" and paths["number_of_paths"] >= 1
    graph = run("Diffusion_Analysis/create_migration_graph", ["licoo2.json", "Li", "mg.json"])
    hops = run("Diffusion_Analysis/get_migration_paths", ["mg.json"])
    assert len(hops) == graph["number_of_unique_hops"] and min(
        h["length"] for h in hops
    ) == pytest.approx(2.82, abs=0.01)


def test_neb_profile(run, ctx):
    from chemground.agent import artifacts

    artifacts.save(
        ctx,
        "neb.json",
        "neb_analysis",
        {
            "energies_eV": [0.0, 0.2, 0.45, 0.2, 0.05],
            "distances": [0, 1, 2, 3, 4],
            "forces": [0] * 5,
        },
    )
    profile = run("Diffusion_Analysis/get_decomposition", ["neb.json"])
    assert [p["relative_energy_eV"] for p in profile] == [0.0, 0.2, 0.45, 0.2, 0.05]
    assert run("Diffusion_Analysis/get_e_above_hull", ["neb.json"])["barrier_eV"] == pytest.approx(
        0.45
    )
    with pytest.raises(ToolError, match="NEB"):
        run(
            "Diffusion_Analysis/create_neb_analysis", ["runs/", "neb2.json"]
        )  # a folder without VASP NEB outputs


def test_md_diffusion_analysis(run, ctx):
    from pymatgen.core import Lattice, Structure

    from chemground.agent import artifacts

    frames = []
    for i in range(6):
        structure = Structure(
            Lattice.cubic(10.0), ["Li", "Cl"], [[0.1 * i / 10, 0, 0], [0.5, 0.5, 0.5]]
        )
        frames.append(artifacts.save_structure(ctx, f"frame_{i}.json", structure))
    run("chemground/create_md_trajectory", [frames, "Li", 1000.0, 2.0, 10, "md.json"])
    result = run("Materials_Analysis/analyze_diffusion", ["md.json"])
    assert result["diffusivity_cm2_s"] > 0 and result["frames"] == 6
    with pytest.raises(ToolError, match="trajectory"):
        run("Materials_Analysis/analyze_diffusion", ["entries.json"])


def test_magnetism_of_a_ferromagnet(run, ctx):
    from pymatgen.core import Lattice, Structure

    from chemground.agent import artifacts

    iron = Structure(
        Lattice.cubic(2.87),
        ["Fe", "Fe"],
        [[0, 0, 0], [0.5, 0.5, 0.5]],
        site_properties={"magmom": [2.2, 2.2]},
    )
    artifacts.save_structure(ctx, "fe_bcc.json", iron)
    result = run("Materials_Analysis/calculate_magnetic_properties", ["fe_bcc.json"])[
        "magnetic_properties"
    ][0]
    assert result["magnetic_ordering"] == "FM" and result["total_magnetization"] == pytest.approx(
        4.4
    )


def test_electronic_structure(run, ctx):
    from chemground.agent import artifacts
    from chemground.agent.fixtures import _band_structure, _dos

    artifacts.save(ctx, "dos.json", "dos", _dos().as_dict())
    artifacts.save(ctx, "bands.json", "band_structure", _band_structure().as_dict())
    dos = run("Electronic_Structure_Analysis/calculate_density_of_states", ["dos.json"])
    # two Gaussian bands at -3 and +3 eV: the DOS falls below 0.1% of its peak within 2.63 eV of
    # each centre
    assert (
        dos["fermi_level_eV"] == 0.0
        and dos["dos_at_fermi"] < 0.01
        and dos["band_gap_eV"] == pytest.approx(0.7, abs=0.06)
    )
    bands = run("Electronic_Structure_Analysis/analyze_band_structure", ["bands.json"])
    assert bands["is_metal"] is False and bands["band_gap_eV"] == pytest.approx(1.0 - (-0.5))
    plot = run("Electronic_Structure_Analysis/plot_fermi_surface", ["dos.json"])
    assert plot["image"].endswith(".png") and (ctx.files_dir / plot["image"]).stat().st_size > 1000
    assert plot["has_fermi_surface"] is False


def test_machine_learning_loop(run):
    run(
        "Structure_Mainpulation_and_Analysis/create_structure_from_spacegroup",
        [
            "Fm-3m",
            [[5.64, 0, 0], [0, 5.64, 0], [0, 0, 5.64]],
            ["Na", "Cl"],
            [[0, 0, 0], [0.5, 0.5, 0.5]],
            "nacl2.json",
        ],
    )
    features = run(
        "Machine_Learning_Integration/generate_features",
        [["li2o.pkl", "pt.json", "nacl2.json"], "f.json"],
    )
    assert len(features["features"]) == 3 and len(features["features"][0]) == len(
        features["feature_names"]
    )
    pt_coordination = features["features"][1][features["feature_names"].index("mean_coordination")]
    assert pt_coordination == pytest.approx(12.0)  # fcc
    trained = run(
        "Machine_Learning_Integration/train_model",
        ["f.json", [1.0, 2.0, 3.0], 0.0, 0, "model.json"],
    )
    assert trained["n_train"] == 3 and trained["mse"] is None
    predictions = run("Machine_Learning_Integration/predict_with_model", ["model.json", "f.json"])
    assert len(predictions) == 3 and predictions == sorted(predictions)
    with pytest.raises(ToolError, match="3 feature rows but 2 targets"):
        run("Machine_Learning_Integration/train_model", ["f.json", [1.0, 2.0], 0.2, 0, "m2.json"])


def test_workflow_runs_its_steps(run):
    run(
        "chemground/create_workflow",
        [
            [
                {"tool": "Basic_Functionality/get_atomic_mass", "arguments": ["Cu"]},
                {
                    "tool": "Composition_Analysis/analyze_elemental_composition",
                    "arguments": {"composition_str": "Fe2O3"},
                },
            ],
            "wf.json",
        ],
    )
    job = run("High_Throughput_Calculation/submit_job", ["wf.json", "job.json"])
    assert job["status"] == "completed"
    assert job["steps"][0]["result"] == pytest.approx(63.546)
    assert job["steps"][1]["result"] == {"Fe": 2.0, "O": 3.0}
    with pytest.raises(ToolError, match="element_str"):
        run(
            "chemground/create_workflow",
            [[{"tool": "Basic_Functionality/get_atomic_mass", "arguments": [5]}], "bad.json"],
        )


ELEMENT_CALLS = {
    "Basic_Functionality/get_atomic_mass": (["Fe"], lambda v: v == pytest.approx(55.845)),
    "Basic_Functionality/get_melting_point": (["Fe"], lambda v: v == pytest.approx(1811.0)),
    "Basic_Functionality/get_ionic_radii": (
        ["Fe"],
        lambda v: v["2"] == pytest.approx(0.92) and "3" in v,
    ),
    "Basic_Functionality/get_atomic_mass_in_unit": (
        ["C", "kg"],
        lambda v: v == pytest.approx(12.0107 * 1.66054e-27, rel=1e-4),
    ),
    "Basic_Functionality/get_species_properties": (
        ["Fe", 2],
        lambda v: v["species"] == "Fe2+" and v["ionic_radius"] > 0.7,
    ),
    "Basic_Functionality/get_composition_properties": (
        ["Fe2O3", "O"],
        lambda v: (
            v["atomic_fraction"] == pytest.approx(0.6)
            and v["weight_fraction"] == pytest.approx(0.3006, rel=1e-3)
        ),
    ),
    "Element_Properties/create_element": (["O"], lambda v: v["Z"] == 8 and v["group"] == 16),
    "Element_Properties/get_atomic_mass": (["O"], lambda v: v == pytest.approx(15.9994)),
    "Element_Properties/get_atomic_radius": (["Na"], lambda v: v == pytest.approx(1.8)),
    "Element_Properties/get_electron_affinity": (
        ["Cl"],
        lambda v: v == pytest.approx(3.61, rel=0.01),
    ),
    "External_Resources/get_element_properties": (
        ["Cu"],
        lambda v: v["density"] == pytest.approx(8.92, rel=0.01),
    ),
    "External_Resources/calculate_average": ([[1, 2, 3, 6]], lambda v: v == 3.0),
    "Composition_Analysis/analyze_elemental_composition": (
        ["C6H12O6"],
        lambda v: v == {"C": 6.0, "H": 12.0, "O": 6.0},
    ),
    "Composition_Analysis/guess_oxidation_states": (
        ["Fe2O3"],
        lambda v: v[0] == {"Fe": 3.0, "O": -2.0},
    ),
}


@pytest.mark.parametrize("name", sorted(ELEMENT_CALLS))
def test_element_and_composition_tools(name, run):
    arguments, check = ELEMENT_CALLS[name]
    value = run(name, arguments)
    assert check(value), f"{name}{arguments} returned {value!r}"


def test_composition_handling(run):
    made = run("Composition_Handling/create_composition", ["Fe4O6", "comp.json"])
    assert made["reduced_formula"] == "Fe2O3"
    assert run("Composition_Handling/get_atomic_fraction", ["comp.json"]) == {
        "Fe": pytest.approx(0.4),
        "O": pytest.approx(0.6),
    }
    weights = run("Composition_Handling/get_weight_fraction", ["comp.json"])
    assert weights["Fe"] == pytest.approx(0.6994, rel=1e-3)
    reduced = run("Composition_Handling/get_reduced_composition", ["comp.json", "reduced.json"])
    assert reduced["factor"] == 2.0 and reduced["formula"] == "Fe2 O3"
    mixed = run("Composition_Analysis/mix_elements", ["Fe2O3", {"Fe": 1, "O": 1}, "mix.json"])
    assert mixed["fractions"] == {"Fe": 0.5, "O": 0.5} and mixed["change_vs_formula"][
        "Fe"
    ] == pytest.approx(0.1)


def test_online_materials_tools_say_so(run):
    with pytest.raises(ToolOffline, match="online"):
        run("IO_Operations/get_structure_by_material_id", ["key", "mp-149"])
    with pytest.raises(ToolOffline, match="Materials Project"):
        run("Reactions_And_Batteries/get_all_entries", [["Li", "O"], "mp_entries.json"])


def test_pickle_files_are_never_loaded(run, ctx):
    import pickle

    (ctx.files_dir / "evil.pkl.json").write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(ToolError, match="never loads pickles"):
        run("Composition_Handling/get_atomic_fraction", ["evil.pkl"])


def test_foreign_classes_in_json_are_refused(run, ctx):
    payload = {
        "chemground_artifact": "composition",
        "version": 1,
        "data": {"@module": "os", "@class": "system", "x": 1},
    }
    (ctx.files_dir / "foreign.json").write_text(json.dumps(payload))
    with pytest.raises(ToolError, match="only pymatgen objects"):
        run("Composition_Handling/get_atomic_fraction", ["foreign.json"])


def test_paths_cannot_leave_the_files_folder(run):
    with pytest.raises(ToolError, match=r"'\.\.'"):
        run("Basic_Functionality/write_structure_to_file", ["li2o.pkl", "../outside.cif"])


def test_an_output_may_not_replace_the_calls_input(run, ctx):
    """read_structure_from_file(nacl.cif, nacl.cif) replaced the CIF by a JSON artifact."""
    run("Basic_Functionality/write_structure_to_file", ["li2o.pkl", "own.cif"])
    cif = (ctx.files_dir / "own.cif").read_bytes()
    with pytest.raises(ToolError, match=r"the output 'own\.cif' is the input file 'own\.cif'"):
        run("Basic_Functionality/read_structure_from_file", ["own.cif", "own.cif"])
    with pytest.raises(ToolError, match=r"is the input file 'li2o\.pkl'"):  # both li2o.pkl.json
        run("Basic_Functionality/write_structure_to_file", ["li2o.pkl", "li2o.pkl.json"])
    assert (ctx.files_dir / "own.cif").read_bytes() == cif
    run("Basic_Functionality/read_structure_from_file", ["own.cif", "own.pkl"])  # another name


def test_wrong_artifact_kind_is_explained(run):
    with pytest.raises(ToolError, match="holds a entries"):
        run("Composition_Handling/get_atomic_fraction", ["entries.json"])


def test_every_materials_tool_is_tested():
    """Guard: a new materials tool must get a real call in this file."""
    import inspect
    import re
    import sys

    source = inspect.getsource(sys.modules[__name__])
    called = set(re.findall(r'"([A-Z][A-Za-z_]+/[a-z_]+)"', source))
    materials = {m.name for m in default_registry().manifests() if m.namespace[0].isupper()}
    assert materials - called == set()
