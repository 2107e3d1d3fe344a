"""chemground's own tools: the compound look-up over the knowledge base, and makers of the
inputs that materials tools need and no other tool produces offline (entries, workflows,
MD trajectories).

The table, graph, literature and route-search tools of the other areas join the pool by
adding their module to ``chemground.agent.registry.TOOL_MODULES``.
"""

from __future__ import annotations

from chemground.agent import artifacts
from chemground.agent.registry import P, ToolContext, tool
from chemground.errors import ChemgroundError


@tool(
    "chemground/lookup_compound",
    "Look up one compound in chemground's knowledge base by name (IUPAC, common, synonym), SMILES, "
    "InChI, InChIKey "
    "or CAS number: structure (SMILES, InChIKey, formula), molecular weight, PubChem CID, CAS, "
    "synonyms and how many "
    "reactions in the knowledge base it takes part in. Systematic names not in the dictionary are "
    "parsed by OPSIN.",
    [
        P(
            "query",
            "string",
            "Name or identifier of the compound.",
            examples=["aspirin", "CCO", "64-17-5"],
        ),
        P(
            "max_reactions",
            "integer",
            "How many linked reaction ids to list.",
            required=False,
            default=10,
            minimum=0,
            maximum=200,
            examples=[10],
        ),
    ],
    (
        "object",
        "the compound record: names, smiles, inchikey, formula, molecular_weight (g/mol), ids, "
        "reaction count",
    ),
    needs_kb=True,
    timeout_s=60,
    tags=["compound", "knowledge base", "identifier"],
)
def lookup_compound(ctx: ToolContext, query: str, max_reactions: int = 10) -> dict:
    from chemground.kb.lookup import lookup_compound as lookup

    workspace = ctx.workspace
    found = lookup(workspace.kb, workspace.resolver, query, max_reactions=max_reactions)
    data = found.to_dict()
    data.pop("provenance", None)
    data["reaction_ids"] = data.get("reaction_ids", [])[:max_reactions]
    return data


@tool(
    "chemground/create_entries",
    "Save a list of computed entries (formula and total energy of each phase) for the "
    "phase-diagram, reaction-energy "
    "and Pourbaix tools; energies are your own (e.g. DFT total energies), not looked up.",
    [
        P(
            "entries",
            "array",
            "One {'formula': str, 'energy': total energy in eV per formula unit as written, "
            "'name': optional} per phase.",
            items={"type": "object"},
            min_items=1,
            examples=[
                [
                    {"formula": "Li", "energy": -1.9},
                    {"formula": "O2", "energy": -9.86},
                    {"formula": "Li2O", "energy": -14.3},
                ]
            ],
        ),
        P(
            "output_entries_pickle_file_path",
            "string",
            "Where to save the entries.",
            examples=["entries_li_o.json"],
        ),
    ],
    ("object", "{'path', 'count', 'formulas'}"),
    uses_files=True,
    tags=["entries", "thermodynamics"],
)
def create_entries(ctx: ToolContext, entries: list, output_entries_pickle_file_path: str) -> dict:
    from chemground.agent.tools.materials_analysis import entry_from_dict

    made = [entry_from_dict(item) for item in entries]
    path = artifacts.save(
        ctx, output_entries_pickle_file_path, "entries", [e.as_dict() for e in made]
    )
    return {
        "path": path,
        "count": len(made),
        "formulas": [e.composition.reduced_formula for e in made],
    }


@tool(
    "chemground/create_workflow",
    "Save a workflow: an ordered list of tool calls ({'tool': name, 'arguments': {...}}) that "
    "High_Throughput_Calculation/submit_job runs step by step.",
    [
        P(
            "steps",
            "array",
            "The tool calls, in order.",
            items={"type": "object"},
            min_items=1,
            examples=[
                [
                    {
                        "tool": "Basic_Functionality/create_cubic_lattice",
                        "arguments": [3.6, "lattice.json"],
                    }
                ]
            ],
        ),
        P(
            "output_workflow_pickle_file_path",
            "string",
            "Where to save the workflow.",
            examples=["workflow.json"],
        ),
    ],
    ("object", "{'path', 'steps'}"),
    uses_files=True,
    tags=["workflow"],
)
def create_workflow(ctx: ToolContext, steps: list, output_workflow_pickle_file_path: str) -> dict:
    from chemground.agent.registry import default_registry

    registry = default_registry()
    checked = []
    for number, step in enumerate(steps, 1):
        if "tool" not in step:
            raise ChemgroundError(f"step {number} has no 'tool'")
        manifest, arguments = registry.validate(step["tool"], step.get("arguments"))
        checked.append({"tool": manifest.name, "arguments": arguments})
    path = artifacts.save(ctx, output_workflow_pickle_file_path, "workflow", {"steps": checked})
    return {"path": path, "steps": [s["tool"] for s in checked]}


@tool(
    "chemground/create_md_trajectory",
    "Save a molecular-dynamics trajectory (saved structures in time order) with the diffusing "
    "species, temperature, "
    "time step and step skip, for Materials_Analysis/analyze_diffusion.",
    [
        P(
            "structure_paths",
            "array",
            "Saved structures (frames) in time order.",
            items={"type": "string"},
            min_items=2,
            examples=[["frame_000.json", "frame_001.json"]],
        ),
        P("specie", "string", "Diffusing element.", examples=["Li"]),
        P(
            "temperature",
            "number",
            "Temperature of the run.",
            unit="K",
            minimum=0,
            examples=[1000.0],
        ),
        P(
            "time_step",
            "number",
            "Time step between MD steps.",
            unit="fs",
            minimum=0,
            examples=[2.0],
        ),
        P("step_skip", "integer", "MD steps between saved frames.", minimum=1, examples=[10]),
        P(
            "output_trajectory_path",
            "string",
            "Where to save the trajectory.",
            examples=["md_li.json"],
        ),
    ],
    ("object", "{'path', 'frames'}"),
    uses_files=True,
    tags=["molecular dynamics", "diffusion"],
)
def create_md_trajectory(
    ctx: ToolContext,
    structure_paths: list,
    specie: str,
    temperature: float,
    time_step: float,
    step_skip: int,
    output_trajectory_path: str,
) -> dict:
    from chemground.chem.formula import element_symbol

    structures = [artifacts.load_structure(ctx, name).as_dict() for name in structure_paths]
    data = {
        "structures": structures,
        "specie": element_symbol(specie),
        "temperature": temperature,
        "time_step": time_step,
        "step_skip": step_skip,
    }
    return {
        "path": artifacts.save(ctx, output_trajectory_path, "md_trajectory", data),
        "frames": len(structures),
    }
