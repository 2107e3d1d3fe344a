"""Formula, element, constant and spectrum tools on ``chemistry-tools``, and PubChem-style
compound look-ups answered offline (the ``chemistrytools/*`` family).

The look-ups by name or PubChem CID read chemground's compound dictionary (about 76,000
PubChem compounds shipped in the ``chemicals`` package) through the knowledge base. A
compound outside it is looked up online in PubChem (``chemground.pubchem``) when the
user allows the network (``CHEMGROUND_ALLOW_NETWORK=1``); otherwise those calls fail with a
``ToolOffline`` error that says so, never with a guess.
"""

from __future__ import annotations

import re
import warnings
from types import SimpleNamespace

from chemground.agent.registry import P, ToolContext, tool
from chemground.chem.formula import element_counts, element_symbol
from chemground.errors import ChemgroundError

CID = P(
    "compound_CID", "integer", "PubChem Compound Identifier (CID).", minimum=1, examples=[2244, 702]
)
FORMULA = P("compound", "string", "Molecular formula, e.g. 'C9H8O4'.", examples=["C9H8O4", "H2SO4"])
OFFLINE = (
    "answers from the offline compound dictionary (~76k PubChem compounds); other compounds are "
    "looked up "
    "online in PubChem when CHEMGROUND_ALLOW_NETWORK=1, otherwise reported as not available offline"
)


def _formulae():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import chemistry_tools.formulae as formulae
    return formulae


def _check_formula(text: str) -> str:
    text = text.strip().translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789"))
    if not re.fullmatch(r"[A-Za-z0-9()\[\]·.+\-]+", text) or not re.search(r"[A-Z]", text):
        raise ChemgroundError(f"{text!r} is not a chemical formula")
    return text


@tool(
    "chemistrytools/calculate_compound_molar_mass",
    "Molar mass (average molecular weight) of a compound from its molecular formula, with "
    "chemistry-tools' "
    "atomic weights.",
    [FORMULA],
    ("number", "molar mass", "g/mol"),
    tags=["formula", "mass"],
)
def molar_mass(compound: str) -> float:
    return float(_read_formula(compound).mass)


def _read_formula(compound: str):
    """chemistry-tools' Formula of ``compound``, or a ChemgroundError naming the formula."""
    formulae = _formulae()
    try:
        return formulae.Formula.from_string(_check_formula(compound))
    except ChemgroundError:
        raise
    except Exception as error:
        raise ChemgroundError(f"cannot read the formula {compound!r}: {error}") from None


@tool(
    "chemistrytools/calculate_compound_monoisotopic_mass",
    "Monoisotopic (exact) mass of a compound from its molecular formula: the sum of each "
    "element's most abundant isotope, as a mass spectrum's M peak.",
    [FORMULA],
    ("number", "monoisotopic mass", "Da"),
    tags=["formula", "mass"],
)
def monoisotopic_mass(compound: str) -> float:
    return float(_read_formula(compound).monoisotopic_mass)


@tool(
    "chemistrytools/compound_string_to_html",
    "Write a chemical formula in HTML with <sub> subscripts (and <sup> charges).",
    [FORMULA],
    ("string", "HTML, e.g. 'H<sub>2</sub>O'"),
    tags=["formula", "formatting"],
)
def formula_html(compound: str) -> str:
    return _formulae().string_to_html(_check_formula(compound))


@tool(
    "chemistrytools/compound_string_to_latex",
    "Write a chemical formula in LaTeX with _{} subscripts.",
    [FORMULA],
    ("string", "LaTeX, e.g. 'H_{2}O'"),
    tags=["formula", "formatting"],
)
def formula_latex(compound: str) -> str:
    return _formulae().string_to_latex(_check_formula(compound))


@tool(
    "chemistrytools/compound_string_to_unicode",
    "Write a chemical formula with Unicode subscript digits.",
    [FORMULA],
    ("string", "Unicode formula, e.g. 'H₂O'"),
    tags=["formula", "formatting"],
)
def formula_unicode(compound: str) -> str:
    return _formulae().string_to_unicode(_check_formula(compound))


@tool(
    "chemistrytools/get_element_information",
    "Basic data of a chemical element from chemistry-tools: atomic number, symbol, name, atomic "
    "mass, a "
    "short description (occurrence, uses, discovery) and electron configuration.",
    [P("element", "string", "Element symbol.", examples=["Fe"])],
    (
        "object",
        "{'number', 'symbol', 'name', 'mass' (u), 'description', 'eleconfig', 'eleconfig_dict'}",
    ),
    tags=["element", "periodic table"],
)
def element_information(element: str) -> dict:
    from chemistry_tools.elements._elements import ELEMENTS

    ele = ELEMENTS[element_symbol(element)]
    return {
        "number": ele.number,
        "symbol": ele.symbol,
        "name": ele.name,
        "mass": ele.mass,
        "description": ele.description,
        "eleconfig": ele.eleconfig,
        "eleconfig_dict": str(ele.eleconfig_dict),
    }


CONSTANTS = [
    "avogadro_number",
    "boltzmann_constant",
    "electron_radius",
    "faraday_constant",
    "molar_gas_constant",
    "neutron_mass",
    "plancks_constant",
    "speed_of_light",
    "vacuum_permittivity",
]


@tool(
    "chemistrytools/get_constants",
    "Value, unit and symbol of a physical constant (Avogadro number, Boltzmann constant, classical "
    "electron "
    "radius, Faraday constant, molar gas constant, neutron mass, Planck constant, speed of light, "
    "vacuum "
    "permittivity).",
    [P("name", "string", "Which constant.", enum=CONSTANTS, examples=["faraday_constant"])],
    ("array", "[name, value, unit, symbol]"),
    tags=["physical constant"],
)
def constants(name: str) -> list:
    from chemistry_tools import constants as table

    constant = getattr(table, name)
    return [name, float(constant.value), str(constant.unit), constant.symbol]


@tool(
    "chemistrytools/calculate_spectrum_similarity",
    "Similarity of two mass spectra (lists of m/z and intensities; cosine of the aligned "
    "intensities, using peaks "
    "with m/z 50-1200 and above 1% of the base peak): returns the score of the top spectrum "
    "against the bottom one "
    "and of the bottom against the top.",
    [
        P(
            "mz_top",
            "array",
            "m/z values of the top spectrum.",
            items={"type": "number"},
            min_items=1,
            examples=[[27, 28, 39]],
        ),
        P(
            "intensities_top",
            "array",
            "Intensities matching mz_top.",
            items={"type": "number"},
            min_items=1,
            examples=[[138, 210, 895]],
        ),
        P(
            "mz_bottom",
            "array",
            "m/z values of the bottom spectrum.",
            items={"type": "number"},
            min_items=1,
            examples=[[27, 29, 39]],
        ),
        P(
            "intensities_bottom",
            "array",
            "Intensities matching mz_bottom.",
            items={"type": "number"},
            min_items=1,
            examples=[[240, 980, 30]],
        ),
    ],
    ("array", "[score top vs bottom, score bottom vs top], each between 0 and 1"),
    tags=["mass spectrometry"],
)
def spectrum_similarity(
    mz_top: list, intensities_top: list, mz_bottom: list, intensities_bottom: list
) -> list:
    from chemistry_tools.spectrum_similarity import SpectrumSimilarity, create_array

    if len(mz_top) != len(intensities_top) or len(mz_bottom) != len(intensities_bottom):
        raise ChemgroundError("each spectrum needs as many intensities as m/z values")
    top = create_array(mz=mz_top, intensities=intensities_top)
    bottom = create_array(mz=mz_bottom, intensities=intensities_bottom)
    import math

    score = [float(x) for x in SpectrumSimilarity(top, bottom).score()]
    if any(math.isnan(x) for x in score):
        raise ChemgroundError(
            "a spectrum has no peaks with m/z between 50 and 1200 above 1% of its base peak, so "
            "the similarity is undefined"
        )
    return score


# --- offline PubChem look-ups ------------------------------------------------------------------


def _by_cid(ctx: ToolContext, cid: int, tool_name: str):
    """The compound with this CID: the dictionary's record, else (network allowed) PubChem's
    properties
    with the same attribute names, so every by-CID tool formats both alike."""
    from chemground.agent.tools._common import offline_error
    from chemground.pubchem import PubChem, network_allowed

    kb = ctx.workspace.kb
    compound_id = kb.compound_id_for_pubchem_cid(cid)
    if compound_id is not None:
        return kb.get_compound(compound_id, with_reactions=0)
    if not network_allowed(ctx.settings):
        raise offline_error(
            tool_name,
            f"PubChem CID {cid} is not in the offline compound dictionary; it needs an "
            "online PubChem look-up, which is not available offline",
        )
    with PubChem.from_settings(ctx.settings) as pubchem:
        found = pubchem.properties(cid)
    return SimpleNamespace(
        formula=found["MolecularFormula"],
        smiles=found["SMILES"],
        molecular_weight=found["MolecularWeight"],
        iupac_name=found["IUPACName"],
        charge=found["Charge"],
        source="PubChem",
    )


def _cid_field(ctx: ToolContext, cid: int, tool_name: str, attribute: str, what: str):
    """One field of the compound with this CID, or an error saying which source lacks it."""
    record = _by_cid(ctx, cid, tool_name)
    value = getattr(record, attribute)
    if value is None or value == "":
        raise ChemgroundError(
            f"{getattr(record, 'source', 'the dictionary')} has no {what} for CID {cid}"
        )
    return value


def _pubchem_query(compound: str, resolution) -> tuple[str, str]:
    """(identifier, kind) to ask PubChem for: CAS and InChIKey as given, a structure the resolver
    understood by its SMILES, anything else as a name."""
    from chemground.chem.names import is_cas_number
    from chemground.chem.structure import is_inchikey

    query = compound.strip().strip("\"'`")
    if is_cas_number(query):
        return query, "cas"
    if is_inchikey(query):
        return query, "inchikey"
    if resolution is not None and resolution.structure is not None:
        return resolution.structure.smiles, "smiles"
    return query, "name"


@tool(
    "chemistrytools/get_compound_CID",
    "PubChem Compound Identifier (CID) of a compound given by name (common or IUPAC), SMILES, "
    "InChIKey or CAS number; "
    "the first step before the by-CID tools (molecular weight, formula, SMILES, IUPAC name, "
    "charge).",
    [
        P(
            "compound",
            "string",
            "Compound name or identifier.",
            examples=["aspirin", "ethanol", "64-17-5"],
        )
    ],
    ("integer", "PubChem CID"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem"],
)
def compound_cid(ctx: ToolContext, compound: str) -> int:
    from chemground.agent.tools._common import offline_error
    from chemground.pubchem import PubChem, network_allowed

    name = "chemistrytools/get_compound_CID"
    try:
        resolution = ctx.workspace.resolver.resolve(compound)
    except ChemgroundError as error:
        if not network_allowed(ctx.settings):
            raise offline_error(
                name,
                f"{compound!r} is not in the offline compound dictionary ({error}); its CID "
                "needs an online PubChem look-up",
            ) from None
        resolution = None
    if resolution is not None and resolution.compound_id is not None:
        record = ctx.workspace.kb.get_compound(resolution.compound_id, with_reactions=0)
        if record.pubchem_cid:
            return int(record.pubchem_cid)
    if not network_allowed(ctx.settings):
        raise offline_error(
            name,
            f"{compound!r} was understood (structure "
            f"{resolution.structure.smiles if resolution.structure else '?'}) but the offline "
            "dictionary has no PubChem CID for it; that needs an online PubChem look-up",
        )
    with PubChem.from_settings(ctx.settings) as pubchem:
        return pubchem.cids(*_pubchem_query(compound, resolution))[0]


@tool(
    "chemistrytools/convert_compound_CID_to_Molecular_Formula",
    "Molecular formula of the compound with a given PubChem CID (get the CID from a name with "
    "chemistrytools/get_compound_CID), as element counts.",
    [CID],
    ("object", "element symbol -> number of atoms"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem", "formula"],
)
def cid_formula(ctx: ToolContext, compound_CID: int) -> dict:
    return element_counts(
        _cid_field(
            ctx,
            compound_CID,
            "chemistrytools/convert_compound_CID_to_Molecular_Formula",
            "formula",
            "formula",
        ),
        charge=True,
    )


@tool(
    "chemistrytools/convert_compound_CID_to_SMILES",
    "SMILES of the compound with a given PubChem CID (get the CID from a name with "
    "chemistrytools/get_compound_CID).",
    [CID],
    ("string", "SMILES"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem", "SMILES"],
)
def cid_smiles(ctx: ToolContext, compound_CID: int) -> str:
    return _cid_field(
        ctx, compound_CID, "chemistrytools/convert_compound_CID_to_SMILES", "smiles", "SMILES"
    )


@tool(
    "chemistrytools/get_compound_charge_by_CID",
    "Net formal charge of the compound with a given PubChem CID (get the CID from a name with "
    "chemistrytools/get_compound_CID).",
    [CID],
    ("integer", "net formal charge"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem", "charge"],
)
def cid_charge(ctx: ToolContext, compound_CID: int) -> int:
    from rdkit import Chem

    from chemground.chem.structure import mol_from_smiles

    record = _by_cid(ctx, compound_CID, "chemistrytools/get_compound_charge_by_CID")
    if not record.smiles:
        if getattr(record, "charge", None) is None:
            raise ChemgroundError(f"no SMILES (and so no charge) is known for CID {compound_CID}")
        return int(record.charge)
    return int(Chem.GetFormalCharge(mol_from_smiles(record.smiles)))


@tool(
    "chemistrytools/get_compound_MolecularWeight_by_CID",
    "Molecular weight (average, g/mol) of the compound with a given PubChem CID (get the CID from "
    "a name with chemistrytools/get_compound_CID).",
    [CID],
    ("number", "molecular weight", "g/mol"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem", "mass"],
)
def cid_weight(ctx: ToolContext, compound_CID: int) -> float:
    return float(
        _cid_field(
            ctx,
            compound_CID,
            "chemistrytools/get_compound_MolecularWeight_by_CID",
            "molecular_weight",
            "molecular weight",
        )
    )


@tool(
    "chemistrytools/convert_compound_CID_to_IUPAC",
    "IUPAC name of the compound with a given PubChem CID (get the CID from a name with "
    "chemistrytools/get_compound_CID).",
    [CID],
    ("string", "IUPAC name"),
    needs_network=True,
    offline_note=OFFLINE,
    needs_kb=True,
    tags=["identifier", "PubChem", "name"],
)
def cid_iupac(ctx: ToolContext, compound_CID: int) -> str:
    return _cid_field(
        ctx,
        compound_CID,
        "chemistrytools/convert_compound_CID_to_IUPAC",
        "iupac_name",
        "IUPAC name",
    )
