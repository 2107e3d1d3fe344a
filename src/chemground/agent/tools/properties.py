"""Structure descriptors, identifiers and offline physical/safety data (the ``properties/*``
family).

These are the tools ``ask`` routes to without an LLM (see ``chemground.routing``) where the
older families have no tool for the property: H-bond donors and acceptors, rotatable bonds,
rings, stereocentres, InChI / InChIKey and average molecular weight (RDKit), and boiling
point, melting point, liquid density, flash point and safety data from the ``chemicals``
package (offline tables: CRC, NIST WebBook, Yaws, IARC, ...), each value with its source.
GHS hazard statements are not in those tables: the safety tool says so (they need PubChem,
i.e. the network).
"""

from __future__ import annotations

from functools import lru_cache

from chemground.agent.registry import P, tool
from chemground.agent.tools._common import mol
from chemground.errors import ChemgroundError

SMILES = P(
    "compound_SMILES",
    "string",
    "The molecule as a SMILES string.",
    examples=["CC(=O)OC1=CC=CC=C1C(=O)O", "CCO"],
)
CONSTANTS = ("boiling_point", "melting_point", "density", "flash_point")
_SOURCE_NAMES = {
    "CRC_ORG": "CRC Handbook (organic)",
    "CRC_INORG": "CRC Handbook (inorganic)",
    "COMMON_CHEMISTRY": "CAS Common Chemistry",
    "WEBBOOK": "NIST WebBook",
    "YAWS": "Yaws' handbook",
    "OPEN_NTBKM": "Open Notebook melting points",
    "HEOS": "CoolProp (HEOS)",
    "WIKIDATA": "Wikidata",
    "JOBACK": "Joback group-contribution estimate",
}


@tool(
    "properties/CountHBondDonors",
    "Number of hydrogen-bond donors of a molecule (Lipinski definition: N-H and O-H groups, "
    "RDKit).",
    [SMILES],
    ("integer", "number of H-bond donors"),
    tags=["descriptor", "Lipinski"],
)
def count_hbond_donors(compound_SMILES: str) -> int:
    from rdkit.Chem import Lipinski

    return int(Lipinski.NumHDonors(mol(compound_SMILES)))


@tool(
    "properties/CountHBondAcceptors",
    "Number of hydrogen-bond acceptors of a molecule (Lipinski definition as implemented by RDKit: "
    "N and O "
    "atoms that can accept a hydrogen bond).",
    [SMILES],
    ("integer", "number of H-bond acceptors"),
    tags=["descriptor", "Lipinski"],
)
def count_hbond_acceptors(compound_SMILES: str) -> int:
    from rdkit.Chem import Lipinski

    return int(Lipinski.NumHAcceptors(mol(compound_SMILES)))


@tool(
    "properties/CountHeavyAtoms",
    "Number of heavy (non-hydrogen) atoms of a molecule (RDKit), e.g. 13 for aspirin.",
    [SMILES],
    ("integer", "number of heavy atoms"),
    tags=["descriptor", "size"],
)
def count_heavy_atoms(compound_SMILES: str) -> int:
    return int(mol(compound_SMILES).GetNumHeavyAtoms())


@tool(
    "properties/CountAtoms",
    "Number of atoms of each element in a molecule, hydrogens included, and their total "
    "(RDKit), e.g. {'C': 9, 'H': 8, 'O': 4, 'total': 21} for aspirin.",
    [SMILES],
    ("object", "element symbol -> number of atoms, and 'total'"),
    tags=["descriptor", "composition", "size"],
)
def count_atoms(compound_SMILES: str) -> dict:
    from collections import Counter

    from rdkit import Chem

    counts: Counter = Counter()
    for atom in Chem.AddHs(mol(compound_SMILES)).GetAtoms():
        counts[atom.GetSymbol()] += 1
    return {**dict(sorted(counts.items())), "total": sum(counts.values())}


@tool(
    "properties/CountRotatableBonds",
    "Number of rotatable bonds of a molecule (single, non-ring bonds between non-terminal heavy "
    "atoms; RDKit), "
    "a measure of molecular flexibility.",
    [SMILES],
    ("integer", "number of rotatable bonds"),
    tags=["descriptor", "flexibility"],
)
def count_rotatable_bonds(compound_SMILES: str) -> int:
    from rdkit.Chem import Lipinski

    return int(Lipinski.NumRotatableBonds(mol(compound_SMILES)))


@tool(
    "properties/CountRings",
    "Number of rings of a molecule (smallest set of smallest rings), with how many are aromatic.",
    [SMILES],
    ("object", "{'rings': n, 'aromatic_rings': n}"),
    tags=["descriptor", "rings"],
)
def count_rings(compound_SMILES: str) -> dict:
    from rdkit.Chem import rdMolDescriptors

    m = mol(compound_SMILES)
    return {
        "rings": int(rdMolDescriptors.CalcNumRings(m)),
        "aromatic_rings": int(rdMolDescriptors.CalcNumAromaticRings(m)),
    }


@tool(
    "properties/FindStereocentres",
    "Stereocentres (chiral centres) of a molecule: how many, and the CIP label (R/S) of those the "
    "SMILES "
    "specifies; unspecified ones are counted as '?'.",
    [SMILES],
    ("object", "{'count': n, 'centres': [{'atom': index, 'symbol': 'C', 'label': 'R'|'S'|'?'}]}"),
    tags=["stereochemistry", "chirality"],
)
def find_stereocentres(compound_SMILES: str) -> dict:
    from chemground.chem.structure import stereocentres

    m = mol(compound_SMILES)
    centres = stereocentres(m)
    return {
        "count": len(centres),
        "centres": [
            {"atom": i, "symbol": m.GetAtomWithIdx(i).GetSymbol(), "label": label}
            for i, label in centres
        ],
    }


@tool(
    "properties/SMILESToInChI",
    "Standard InChI (IUPAC International Chemical Identifier) of a molecule from its SMILES.",
    [SMILES],
    ("string", "standard InChI, e.g. 'InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3'"),
    tags=["identifier"],
)
def smiles_to_inchi(compound_SMILES: str) -> str:
    from rdkit import Chem

    inchi = Chem.MolToInchi(mol(compound_SMILES))
    if not inchi:
        raise ChemgroundError(f"no InChI can be written for {compound_SMILES!r}")
    return inchi


@tool(
    "properties/SMILESToInChIKey",
    "Standard InChIKey (27-character hashed InChI) of a molecule from its SMILES.",
    [SMILES],
    ("string", "InChIKey, e.g. 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N'"),
    tags=["identifier"],
)
def smiles_to_inchikey(compound_SMILES: str) -> str:
    from rdkit import Chem

    key = Chem.MolToInchiKey(mol(compound_SMILES))
    if not key:
        raise ChemgroundError(f"no InChIKey can be written for {compound_SMILES!r}")
    return key


@tool(
    "properties/AverageMolecularWeight",
    "Average molecular weight (molar mass from standard atomic weights) of a molecule from its "
    "SMILES, with "
    "its molecular formula.",
    [SMILES],
    ("object", "{'molecular_weight': g/mol, 'formula': 'C9H8O4'}", "g/mol"),
    tags=["mass", "descriptor"],
)
def average_molecular_weight(compound_SMILES: str) -> dict:
    from rdkit.Chem import Descriptors

    from chemground.chem.structure import molecular_formula

    m = mol(compound_SMILES)
    return {
        "molecular_weight": float(Descriptors.MolWt(m)),
        "formula": molecular_formula(m),
    }


@lru_cache(maxsize=4096)
def _cas_of(inchikey: str) -> tuple[str, str] | None:
    """(CAS number, name) of a structure in the ``chemicals`` dictionary, or None."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from chemicals.identifiers import search_chemical
    try:
        found = search_chemical(f"InChIKey={inchikey}")
    except Exception:
        return None
    return (found.CASs, found.common_name) if found is not None else None


def _by_source(getter, methods_getter, cas: str) -> tuple[float, str] | None:
    methods = list(methods_getter(cas) or [])
    ordered = [m for m in methods if m != "JOBACK"] + [
        m for m in methods if m == "JOBACK"
    ]  # estimates last
    for method in ordered:
        try:
            value = getter(cas, method=method)
        except Exception:
            continue
        if value is not None:
            return float(value), method
    return None


def _liquid_density(cas: str) -> tuple[float, str, str] | None:
    """(g/cm3, source, state) near 25 °C from the offline density tables of ``chemicals``."""
    import chemicals.volume as volume

    volume._load_rho_data()
    t = 298.15
    perry = volume.rho_data_Perry_8E_105_l
    if cas in perry.index:
        row = perry.loc[cas]
        if row["Tmin"] <= t <= row["Tmax"]:
            # Perry's equation 105: molar density in mol/m3; needs the molar mass.
            molar = row["C1"] / row["C2"] ** (1 + (1 - t / row["C3"]) ** row["C4"])
            from chemicals.identifiers import search_chemical

            mw = search_chemical(cas).MW
            return (
                float(molar * mw / 1e6),
                "Perry's Handbook 8th ed., equation 105 at 25 °C",
                "liquid",
            )
    for table, state in (
        ("rho_data_CRC_inorg_l_const", "liquid"),
        ("rho_data_CRC_inorg_s_const", "solid"),
    ):
        data = getattr(volume, table)
        if cas in data.index:
            vm = float(data.loc[cas]["Vm"])  # m3/mol
            from chemicals.identifiers import search_chemical

            mw = search_chemical(cas).MW
            return float(mw / vm / 1e6), f"CRC Handbook (inorganic, {state})", state
    return None


@tool(
    "properties/PhysicalConstant",
    "Boiling point, melting point, liquid density (near 25 °C) or flash point of a compound from "
    "the offline "
    "tables of the 'chemicals' package (CRC Handbook, NIST WebBook, Yaws, Perry...), with the "
    "source of the "
    "value; reports when the compound or the property is not in those tables.",
    [
        SMILES,
        P(
            "property",
            "string",
            "Which constant.",
            enum=list(CONSTANTS),
            examples=["boiling_point"],
        ),
    ],
    (
        "object",
        "{'property', 'value', 'unit', 'value_c' (°C for temperatures), 'source', 'cas', 'name'}",
    ),
    tags=["physical property", "boiling point", "melting point", "density"],
)
def physical_constant(compound_SMILES: str, property: str) -> dict:
    import warnings

    from rdkit import Chem

    if property not in CONSTANTS:
        raise ChemgroundError(
            f"unknown property {property!r}; choose one of {', '.join(CONSTANTS)}"
        )
    key = Chem.MolToInchiKey(mol(compound_SMILES))
    found = _cas_of(key) if key else None
    if found is None:
        raise ChemgroundError(
            f"{compound_SMILES} is not in the offline tables of the 'chemicals' package"
        )
    cas, name = found
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from chemicals import phase_change, safety

        if property == "density":
            density = _liquid_density(cas)
            if density is None:
                raise ChemgroundError(f"no density of {name} (CAS {cas}) is in the offline tables")
            value, source, state = density
            return {
                "property": property,
                "value": value,
                "unit": "g/cm3",
                "state": state,
                "source": source,
                "cas": cas,
                "name": name,
            }
        getter, methods = {
            "boiling_point": (phase_change.Tb, phase_change.Tb_methods),
            "melting_point": (phase_change.Tm, phase_change.Tm_methods),
            "flash_point": (safety.T_flash, safety.T_flash_methods),
        }[property]
        found_value = _by_source(getter, methods, cas)
    if found_value is None:
        raise ChemgroundError(
            f"no {property.replace('_', ' ')} of {name} (CAS {cas}) is in the offline tables"
        )
    value, method = found_value
    return {
        "property": property,
        "value": value,
        "unit": "K",
        "value_c": value - 273.15,
        "source": _SOURCE_NAMES.get(method, method),
        "estimate": method == "JOBACK",
        "cas": cas,
        "name": name,
    }


@tool(
    "properties/SafetyData",
    "Offline safety data of a compound from the 'chemicals' package: flash point, autoignition "
    "temperature, "
    "IARC / NTP carcinogen classification and occupational exposure limits (TWA, STEL). GHS hazard "
    "statements "
    "are not in the offline tables (they need PubChem, i.e. the network).",
    [SMILES],
    (
        "object",
        "{'name', 'cas', 'flash_point_c', 'autoignition_c', 'carcinogen', 'TWA', 'STEL', 'ghs'}",
    ),
    tags=["safety", "hazard", "toxicity"],
)
def safety_data(compound_SMILES: str) -> dict:
    import warnings

    from rdkit import Chem

    key = Chem.MolToInchiKey(mol(compound_SMILES))
    found = _cas_of(key) if key else None
    if found is None:
        raise ChemgroundError(
            f"{compound_SMILES} is not in the offline tables of the 'chemicals' package"
        )
    cas, name = found
    out: dict = {"name": name, "cas": cas}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from chemicals import safety

        for field, fn in (
            ("flash_point_c", safety.T_flash),
            ("autoignition_c", safety.T_autoignition),
        ):
            try:
                value = fn(cas)
            except Exception:
                value = None
            out[field] = None if value is None else round(float(value) - 273.15, 1)
        for field, fn in (
            ("carcinogen", safety.Carcinogen),
            ("TWA", safety.TWA),
            ("STEL", safety.STEL),
        ):
            try:
                value = fn(cas)
            except Exception:
                value = None
            if isinstance(value, tuple):
                value = f"{value[0]:g} {value[1]}"
            out[field] = value
    out["ghs"] = None
    out["ghs_note"] = (
        "GHS hazard statements and pictograms are not in the offline tables; they need PubChem "
        "(set CHEMGROUND_ALLOW_NETWORK=1 and use the chemcrow/ExplosiveCheck or PubChem tools)"
    )
    return out
