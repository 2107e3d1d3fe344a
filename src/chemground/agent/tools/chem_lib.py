"""General-chemistry calculators on the ``chemlib`` library (the ``chem_lib/*`` family).

Element data, formula masses and composition, stoichiometry, empirical formulas, reaction
balancing and limiting reagents, pH, solutions, galvanic cells, electrolysis and
light/Rydberg calculations. Formulas chemlib writes use Unicode subscripts with explicit
ones (``H₂O₁``), as the benchmark's returns do.
"""

from __future__ import annotations

import warnings

from chemground.agent.registry import P, tool
from chemground.chem.formula import element_counts, element_symbol
from chemground.errors import ChemgroundError

FORMULA = P(
    "compound",
    "string",
    "Molecular formula of the compound, e.g. 'C6H12O6'; parentheses allowed.",
    examples=["C6H12O6", "Ca3(PO4)2"],
)
REACTION = P(
    "reaction_formula",
    "string",
    "Reaction written with formulas, reactants and products separated by '-->' and species by '+'; "
    "coefficients are optional.",
    examples=["H2 + O2 --> H2O", "2 Fe + 3 S --> Fe2S3"],
)
ELEMENT = P("element", "string", "Element symbol.", examples=["Fe", "Cu"])
UNIT = P(
    "unit",
    "string",
    "Which quantity the amount is given in.",
    enum=["grams", "moles", "molecules"],
    examples=["grams"],
)
AMOUNT = P(
    "amount",
    "number",
    "The amount of the compound, in the chosen unit (g, mol or molecules).",
    minimum=0,
    examples=[5.0],
)


def _chemlib():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import chemlib
    return chemlib


MAX_CHEMLIB_ATOMS = 2000  # chemlib builds one object per atom: huge formulas would take minutes


def _compound(formula: str):
    chemlib = _chemlib()
    atoms = sum(element_counts(formula).values())
    if atoms > MAX_CHEMLIB_ATOMS:
        raise ChemgroundError(
            f"the formula {formula!r} has {atoms} atoms; this calculation handles at most "
            f"{MAX_CHEMLIB_ATOMS}"
        )
    try:
        return chemlib.Compound(formula.strip())
    except Exception as error:
        raise ChemgroundError(f"cannot read the formula {formula!r}: {error}") from None


def _reaction(text: str):
    chemlib = _chemlib()
    if "-->" not in text:
        raise ChemgroundError(
            f"a reaction formula needs '-->' between reactants and products, got {text!r}"
        )
    try:
        return chemlib.Reaction.by_formula(text.strip())
    except Exception as error:
        raise ChemgroundError(f"cannot read the reaction {text!r}: {error}") from None


ELEMENT_FIELDS = [
    "AtomicNumber",
    "Element",
    "Symbol",
    "AtomicMass",
    "Neutrons",
    "Protons",
    "Electrons",
    "Period",
    "Group",
    "Phase",
    "Radioactive",
    "Natural",
    "Metal",
    "Nonmetal",
    "Metalloid",
    "Type",
    "AtomicRadius",
    "Electronegativity",
    "FirstIonization",
    "Density",
    "MeltingPoint",
    "BoilingPoint",
    "Isotopes",
    "Discoverer",
    "Year",
    "SpecificHeat",
    "Shells",
    "Valence",
    "Config",
    "MassNumber",
]


@tool(
    "chem_lib/get_element_properties",
    "All tabulated properties of a chemical element from chemlib's periodic table: atomic number, "
    "name, "
    "atomic mass, neutrons/protons/electrons, period, group, phase, metal/nonmetal/metalloid type, "
    "atomic "
    "radius, electronegativity, first ionization energy, density, melting and boiling point, "
    "isotopes, "
    "discoverer and year, specific heat, shells, valence, electron configuration, mass number.",
    [ELEMENT],
    ("object", "property name -> value (masses in u, temperatures in K, ionization in eV)"),
    tags=["element", "periodic table"],
)
def get_element_properties(element: str) -> dict:
    chemlib = _chemlib()
    ele = chemlib.Element(element_symbol(element))
    return {name: getattr(ele, name) for name in ELEMENT_FIELDS}


@tool(
    "chem_lib/calculate_element_frequencies_in_compound",
    "Count the atoms of each element in a molecular formula.",
    [FORMULA],
    ("object", "element symbol -> number of atoms"),
    tags=["formula", "composition"],
)
def element_frequencies(compound: str) -> dict:
    return element_counts(compound)


def _atomic_mass(symbol: str) -> float:
    return float(_chemlib().Element(symbol).AtomicMass)


def formula_mass(compound: str) -> float:
    """Molar mass with chemlib's atomic masses (computed from counts, so large formulas are
    fast)."""
    return sum(count * _atomic_mass(symbol) for symbol, count in element_counts(compound).items())


@tool(
    "chem_lib/calculate_compound_molar_mass",
    "Molar mass of a compound from its molecular formula (sum of standard atomic weights).",
    [FORMULA],
    ("number", "molar mass", "g/mol"),
    tags=["formula", "mass"],
)
def compound_molar_mass(compound: str) -> float:
    return formula_mass(compound)


@tool(
    "chem_lib/calculate_compound_percentage_composition_by_mass",
    "Mass percentage of one element in a compound given its molecular formula.",
    [
        FORMULA,
        P("element", "string", "The element whose mass percentage is wanted.", examples=["O"]),
    ],
    ("number", "mass percentage of the element", "%"),
    tags=["formula", "composition"],
)
def percentage_by_mass(compound: str, element: str) -> float:
    symbol = element_symbol(element)
    counts = element_counts(compound)
    if symbol not in counts:
        raise ChemgroundError(f"{symbol} is not in {compound}")
    return counts[symbol] * _atomic_mass(symbol) / formula_mass(compound) * 100


@tool(
    "chem_lib/convert_compound_stoichiometry_amount",
    "Convert an amount of a compound between grams, moles and number of molecules.",
    [FORMULA, UNIT, AMOUNT],
    ("object", "{'grams': g, 'moles': mol, 'molecules': count}"),
    tags=["stoichiometry", "unit conversion"],
)
def convert_stoichiometry_amount(compound: str, unit: str, amount: float) -> dict:
    return _compound(compound).get_amounts(**{unit: amount})


@tool(
    "chem_lib/get_empirical_formula_by_percent_composition",
    "Empirical formula of a compound from the mass percentages of its elements (must sum to 100).",
    [
        P(
            "percent_composition",
            "object",
            "Element symbol -> mass percentage.",
            values={"type": "number", "minimum": 0},
            min_items=1,
            examples=[{"C": 80.6, "H": 19.4}],
        )
    ],
    ("string", "empirical formula with Unicode subscripts, e.g. 'C₁H₃'"),
    tags=["empirical formula"],
)
def empirical_formula_by_percent(percent_composition: dict) -> str:
    total = sum(percent_composition.values())
    if abs(total - 100.0) > 1.0:
        raise ChemgroundError(f"the percentages must add up to 100, they add up to {total:g}")
    symbols = {element_symbol(k): v for k, v in percent_composition.items()}
    return _chemlib().empirical_formula_by_percent_comp(**symbols).formula


@tool(
    "chem_lib/analyze_combustion",
    "Empirical formula of a hydrocarbon from the grams of CO2 and H2O its combustion produced "
    "(combustion analysis).",
    [
        P(
            "CO2",
            "number",
            "Mass of carbon dioxide formed.",
            unit="g",
            minimum=0,
            examples=[1047.2],
        ),
        P("H2O", "number", "Mass of water formed.", unit="g", minimum=0, examples=[856.8]),
    ],
    ("string", "empirical formula of the hydrocarbon, e.g. 'CH4'"),
    tags=["empirical formula", "combustion"],
)
def analyze_combustion(CO2: float, H2O: float) -> str:
    from chemlib.thermochemistry import combustion_analysis

    if CO2 <= 0 or H2O <= 0:
        raise ChemgroundError("both CO2 and H2O masses must be positive")
    return combustion_analysis(CO2, H2O)


def side_counts(side: str, reaction: str) -> dict[str, float]:
    """Atom totals of one side of an equation, with the written coefficients."""
    import re

    totals: dict[str, float] = {}
    for term in side.split("+"):
        term = term.strip()
        match = re.match(r"^(\d+(?:\.\d+)?)\s*(.+)$", term)
        coefficient, formula = (float(match.group(1)), match.group(2)) if match else (1.0, term)
        if not formula:
            raise ChemgroundError(f"empty term in the reaction {reaction!r}")
        for symbol, count in element_counts(formula).items():
            totals[symbol] = totals.get(symbol, 0.0) + coefficient * count
    return totals


@tool(
    "chem_lib/judge_the_balance_of_reaction",
    "Check whether a chemical equation, with its coefficients as written, is balanced (the same "
    "number of each "
    "atom on both sides).",
    [REACTION],
    ("boolean", "true if balanced as written"),
    tags=["reaction", "balance"],
)
def judge_balance(reaction_formula: str) -> bool:
    if "-->" not in reaction_formula:
        raise ChemgroundError(
            "a reaction formula needs '-->' between reactants and products, got "
            f"{reaction_formula!r}"
        )
    left, right = reaction_formula.split("-->", 1)
    a, b = side_counts(left, reaction_formula), side_counts(right, reaction_formula)
    return set(a) == set(b) and all(abs(a[k] - b[k]) < 1e-9 for k in a)


@tool(
    "chem_lib/reactant_formulas_of_reaction",
    "List the reactant formulas of a reaction (written with Unicode subscripts).",
    [REACTION],
    ("array", "reactant formulas, e.g. ['H₂', 'O₂']"),
    tags=["reaction"],
)
def reactant_formulas(reaction_formula: str) -> list:
    return list(_reaction(reaction_formula).reactant_formulas)


@tool(
    "chem_lib/product_formulas_of_reaction",
    "List the product formulas of a reaction (written with Unicode subscripts).",
    [REACTION],
    ("array", "product formulas, e.g. ['H₂O₁']"),
    tags=["reaction"],
)
def product_formulas(reaction_formula: str) -> list:
    return list(_reaction(reaction_formula).product_formulas)


@tool(
    "chem_lib/combustion_reactions",
    "Write and balance the complete combustion reaction (with O2, giving CO2 and H2O) of a "
    "compound.",
    [P("compound", "string", "Molecular formula of the fuel.", examples=["CH4", "C6H12O6"])],
    ("array", "[balanced combustion equation, whether it is balanced]"),
    tags=["reaction", "combustion"],
)
def combustion_reaction(compound: str) -> list:
    chemlib = _chemlib()
    combustion = chemlib.Combustion(_compound(compound))
    return [combustion.formula, bool(combustion.is_balanced)]


@tool(
    "chem_lib/balance_the_reaction",
    "Balance a chemical equation (find the smallest whole-number coefficients).",
    [REACTION],
    ("string", "balanced equation, e.g. '2H₂ + 1O₂ --> 2H₂O₁'"),
    tags=["reaction", "balance"],
)
def balance_reaction(reaction_formula: str) -> str:
    reaction = _reaction(reaction_formula)
    reaction.balance()
    return reaction.formula


@tool(
    "chem_lib/reaction_stoichiometry_amounts",
    "Amounts (grams, moles, molecules) of every compound in a balanced reaction, given the amount "
    "of one "
    "compound chosen by its position (1 = first compound from the left).",
    [
        REACTION,
        P(
            "compound_number",
            "integer",
            "Position of the known compound, counting all compounds from the left starting at 1.",
            minimum=1,
            examples=[1],
        ),
        UNIT,
        AMOUNT,
    ],
    ("array", "one {'grams', 'moles', 'molecules'} object per compound, in order"),
    tags=["stoichiometry"],
)
def reaction_amounts(reaction_formula: str, compound_number: int, unit: str, amount: float) -> list:
    reaction = _reaction(reaction_formula)
    total = len(reaction.reactants) + len(reaction.products)
    if compound_number > total:
        raise ChemgroundError(
            f"compound_number must be between 1 and {total}, got {compound_number}"
        )
    return reaction.get_amounts(compound_number, **{unit: amount})


@tool(
    "chem_lib/limiting_reagent_of_reaction",
    "Find the limiting reagent of a reaction given the amount of each reactant.",
    [
        REACTION,
        P(
            "mode",
            "string",
            "Unit of all the reactant amounts.",
            enum=["grams", "moles", "molecules"],
            examples=["grams"],
        ),
        P(
            "rectant_amount_list",
            "array",
            "Amount of each reactant, in the order the reactants are written.",
            items={"type": "number", "minimum": 0},
            min_items=1,
            examples=[[50.0, 80.0]],
        ),
    ],
    ("string", "formula of the limiting reagent, e.g. 'O₂'"),
    tags=["stoichiometry", "limiting reagent"],
)
def limiting_reagent(reaction_formula: str, mode: str, rectant_amount_list: list) -> str:
    reaction = _reaction(reaction_formula)
    if len(rectant_amount_list) != len(reaction.reactants):
        raise ChemgroundError(
            f"the reaction has {len(reaction.reactants)} reactants but "
            f"{len(rectant_amount_list)} amounts were given"
        )
    return reaction.limiting_reagent(*rectant_amount_list, mode=mode).formula


@tool(
    "chem_lib/acidity_calculation",
    "From a pH value, compute pOH, [H+] and [OH-] (mol/L) and say whether the solution is acidic, "
    "basic or neutral.",
    [P("pH", "number", "The pH of the solution.", minimum=-2, maximum=16, examples=[3.5])],
    ("object", "{'pH', 'pOH', 'H' (mol/L), 'OH' (mol/L), 'acidity'}"),
    tags=["pH", "acid base"],
)
def acidity(pH: float) -> dict:
    return _chemlib().pH(pH=float(pH))


@tool(
    "chem_lib/make_solution_by_grams_per_liter",
    "Molarity of a solution made by dissolving a mass of a compound in a volume of solution.",
    [
        P("compound", "string", "Formula of the solute.", examples=["NaCl"]),
        P("grams", "number", "Mass of solute.", unit="g", minimum=0, examples=[10.0]),
        P("liters", "number", "Volume of solution.", unit="L", minimum=0, examples=[1.0]),
    ],
    ("number", "molarity", "mol/L"),
    tags=["solution", "concentration"],
)
def solution_molarity(compound: str, grams: float, liters: float) -> float:
    if liters <= 0:
        raise ChemgroundError("liters must be greater than 0")
    _compound(compound)
    return _chemlib().Solution.by_grams_per_liters(compound, grams, liters).molarity


def _cell(element_electrode1: str, element_electrode2: str):
    chemlib = _chemlib()
    a, b = element_symbol(element_electrode1), element_symbol(element_electrode2)
    try:
        return chemlib.Galvanic_Cell(a, b)
    except NotImplementedError as error:
        raise ChemgroundError(
            f"no standard reduction potential known for this electrode: {error}"
        ) from None


ELECTRODES = [
    P("element_electrode1", "string", "Element of one electrode.", examples=["Zn"]),
    P("element_electrode2", "string", "Element of the other electrode.", examples=["Cu"]),
]


@tool(
    "chem_lib/galvanic_cell_properties",
    "Build a galvanic (voltaic) cell from two metal electrodes: cell diagram, which is anode and "
    "cathode, "
    "and standard cell potential.",
    ELECTRODES,
    ("object", "{'Cell', 'Anode', 'Cathode', 'Cell Potential' (V)}"),
    tags=["electrochemistry"],
)
def galvanic_cell_properties(element_electrode1: str, element_electrode2: str) -> dict:
    return _cell(element_electrode1, element_electrode2).properties


@tool(
    "chem_lib/galvanic_cell_potential",
    "Standard cell potential of a galvanic cell made of two electrodes (difference of standard "
    "reduction potentials).",
    ELECTRODES,
    ("number", "standard cell potential", "V"),
    tags=["electrochemistry"],
)
def galvanic_cell_potential(element_electrode1: str, element_electrode2: str) -> float:
    return _cell(element_electrode1, element_electrode2).cell_potential


@tool(
    "chem_lib/perform_electrolysis",
    "Electrolysis (Faraday's law): the current needed to deposit a mass of an element in a given "
    "time, "
    "with n moles of electrons transferred per mole of element.",
    [
        P("element", "string", "Element deposited.", examples=["Cu"]),
        P(
            "n",
            "integer",
            "Moles of electrons transferred per mole of element.",
            minimum=1,
            examples=[2],
        ),
        P("grams", "number", "Mass deposited.", unit="g", minimum=0, examples=[28.3]),
        P(
            "seconds",
            "number",
            "Duration of the electrolysis.",
            unit="s",
            minimum=0,
            examples=[3600.0],
        ),
    ],
    ("object", "{'element', 'n', 'seconds', 'amps' (A), 'grams'}"),
    tags=["electrochemistry", "Faraday"],
)
def electrolysis(element: str, n: int, grams: float, seconds: float) -> dict:
    if seconds <= 0:
        raise ChemgroundError("seconds must be greater than 0")
    return _chemlib().electrolysis(element_symbol(element), n, grams=grams, seconds=seconds)


@tool(
    "chem_lib/electromagnetic_wave_by_wavelength",
    "Frequency and photon energy of electromagnetic radiation from its wavelength (values rounded "
    "to 4 significant digits).",
    [P("wavelength", "number", "Wavelength.", unit="m", minimum=0, examples=[5.0e-7])],
    ("object", "{'wavelength' (m), 'frequency' (Hz), 'energy' (J)}"),
    tags=["light", "photon"],
)
def wave_by_wavelength(wavelength: float) -> dict:
    return _chemlib().Wave(wavelength=wavelength).properties


@tool(
    "chem_lib/electromagnetic_wave_by_frequency",
    "Wavelength and photon energy of electromagnetic radiation from its frequency (4 significant "
    "digits).",
    [P("frequency", "number", "Frequency.", unit="Hz", minimum=0, examples=[6.0e14])],
    ("object", "{'wavelength' (m), 'frequency' (Hz), 'energy' (J)}"),
    tags=["light", "photon"],
)
def wave_by_frequency(frequency: float) -> dict:
    return _chemlib().Wave(frequency=frequency).properties


@tool(
    "chem_lib/electromagnetic_wave_by_energy",
    "Wavelength and frequency of a photon from its energy (4 significant digits).",
    [P("energy", "number", "Photon energy.", unit="J", minimum=0, examples=[4.0e-19])],
    ("object", "{'wavelength' (m), 'frequency' (Hz), 'energy' (J)}"),
    tags=["light", "photon"],
)
def wave_by_energy(energy: float) -> dict:
    return _chemlib().Wave(energy=energy).properties


@tool(
    "chem_lib/electromagnetic_wave_by_rydberg_equation",
    "Wavelength, frequency and energy of the photon emitted or absorbed when an electron moves "
    "between two "
    "orbitals of a hydrogen-like atom (Rydberg equation).",
    [
        P(
            "element",
            "string",
            "Element symbol (its atomic number enters the Rydberg equation).",
            examples=["H"],
        ),
        P("n1", "integer", "Initial (lower) orbital number.", minimum=1, examples=[2]),
        P(
            "n2",
            "integer",
            "Final (higher) orbital number, greater than n1.",
            minimum=1,
            examples=[3],
        ),
    ],
    ("object", "{'wavelength' (m), 'frequency' (Hz), 'energy' (J)}"),
    tags=["light", "atomic spectra"],
)
def rydberg(element: str, n1: int, n2: int) -> dict:
    if n2 <= n1:
        raise ChemgroundError(f"n2 must be greater than n1 (got n1={n1}, n2={n2})")
    chemlib = _chemlib()
    return chemlib.rydberg(chemlib.Element(element_symbol(element)), n1, n2)


@tool(
    "chem_lib/energy_of_hydrogen_orbital",
    "Energy of the electron in the n-th orbital of the hydrogen atom (Bohr model, negative = "
    "bound).",
    [P("n", "integer", "Principal quantum number (orbital number).", minimum=1, examples=[1, 2])],
    ("number", "electron energy", "J"),
    tags=["atomic structure", "hydrogen"],
)
def hydrogen_orbital_energy(n: int) -> float:
    return _chemlib().energy_of_hydrogen_orbital(n)
