"""The tools channel of ``ask`` (no LLM): aspect -> tool, arguments from the parsed question.

For a tool-computable aspect (``chemground.routing.TOOL_ASPECTS``, and molecular weight or
exact mass when compounds are compared) the tool is picked deterministically from
``TOOL_FOR_ASPECT``; when that tool is missing from the registry, tool retrieval (BM25 over
the manifests) picks the best one-SMILES tool instead, and the evidence says so. Arguments
come from the resolved mentions (SMILES; a formula written by RDKit), from amounts with
units in the question ("5 g", "0.25 mol", "250 mg") and from an equation written in it
("H2 + O2 = H2O"). Calls run in the time-limited tool worker (``agent.runner.ToolRunner``);
each call and its result become one ``Evidence`` (kind ``tool_result``): the tool, its
arguments, the raw return and its unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from chemground.evidence import Evidence
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple


@dataclass(frozen=True)
class ToolSpec:
    tool: str
    input: str  # smiles | formula | amount | equation | constant
    label: str  # how the answer names the property
    unit: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()


TOOL_FOR_ASPECT: dict[Aspect, ToolSpec] = {
    Aspect.LOGP: ToolSpec("cactus/CalculateLogP", "smiles", "logP (Crippen)"),
    Aspect.TPSA: ToolSpec(
        "cactus/CalculateTPSA", "smiles", "topological polar surface area (TPSA)", "Å²"
    ),
    Aspect.QED: ToolSpec("cactus/CalculateQED", "smiles", "QED drug-likeness score"),
    Aspect.HBD: ToolSpec("properties/CountHBondDonors", "smiles", "number of H-bond donors"),
    Aspect.HBA: ToolSpec("properties/CountHBondAcceptors", "smiles", "number of H-bond acceptors"),
    Aspect.ROTATABLE_BONDS: ToolSpec(
        "properties/CountRotatableBonds", "smiles", "number of rotatable bonds"
    ),
    Aspect.RING_COUNT: ToolSpec("properties/CountRings", "smiles", "number of rings"),
    Aspect.HEAVY_ATOMS: ToolSpec("properties/CountHeavyAtoms", "smiles", "number of heavy atoms"),
    Aspect.ATOM_COUNT: ToolSpec("properties/CountAtoms", "smiles", "number of atoms"),
    Aspect.STEREOCENTRES: ToolSpec(
        "properties/FindStereocentres", "smiles", "number of stereocentres"
    ),
    Aspect.INCHI: ToolSpec("properties/SMILESToInChI", "smiles", "standard InChI"),
    Aspect.INCHIKEY: ToolSpec("properties/SMILESToInChIKey", "smiles", "InChIKey"),
    Aspect.FUNCTIONAL_GROUPS: ToolSpec("chemcrow/FuncGroups", "smiles", "functional groups"),
    Aspect.LIPINSKI: ToolSpec(
        "cactus/CalculateDruglikeness", "smiles", "Lipinski rule-of-five check"
    ),
    Aspect.MOLECULAR_WEIGHT: ToolSpec(
        "properties/AverageMolecularWeight", "smiles", "molecular weight", "g/mol"
    ),
    Aspect.EXACT_MASS: ToolSpec(
        "cactus/CalculateMolWt", "smiles", "monoisotopic (exact) mass", "Da"
    ),
    Aspect.AMOUNT: ToolSpec("chem_lib/convert_compound_stoichiometry_amount", "amount", "amount"),
    Aspect.BALANCE: ToolSpec("chem_lib/balance_the_reaction", "equation", "balanced equation"),
    Aspect.BOILING_POINT: ToolSpec(
        "properties/PhysicalConstant",
        "constant",
        "boiling point",
        "K",
        (("property", "boiling_point"),),
    ),
    Aspect.MELTING_POINT: ToolSpec(
        "properties/PhysicalConstant",
        "constant",
        "melting point",
        "K",
        (("property", "melting_point"),),
    ),
    Aspect.DENSITY: ToolSpec(
        "properties/PhysicalConstant", "constant", "density", "g/cm3", (("property", "density"),)
    ),
    Aspect.FLASH_POINT: ToolSpec(
        "properties/PhysicalConstant",
        "constant",
        "flash point",
        "K",
        (("property", "flash_point"),),
    ),
    Aspect.HAZARDS: ToolSpec("properties/SafetyData", "smiles", "safety data"),
}
# Used when a mass is asked of a bare formula that names no compound ("molar mass of Fe2O3",
# "exact mass of C8H10N4O2"): the formula alone fixes either mass.
FORMULA_MASS_TOOLS = {
    Aspect.MOLECULAR_WEIGHT: ToolSpec(
        "chemistrytools/calculate_compound_molar_mass", "formula", "molar mass", "g/mol"
    ),
    Aspect.EXACT_MASS: ToolSpec(
        "chemistrytools/calculate_compound_monoisotopic_mass",
        "formula",
        "monoisotopic (exact) mass",
        "Da",
    ),
}

_NUMBER = r"(\d+(?:[.,]\d+)?(?:\s*[x×*]\s*10\^?(-?\d+)|[eE](-?\d+))?)"
_UNITS = {
    "mg": ("grams", 1e-3),
    "milligram": ("grams", 1e-3),
    "milligrams": ("grams", 1e-3),
    "g": ("grams", 1.0),
    "gram": ("grams", 1.0),
    "grams": ("grams", 1.0),
    "kg": ("grams", 1e3),
    "kilogram": ("grams", 1e3),
    "kilograms": ("grams", 1e3),
    "mmol": ("moles", 1e-3),
    "millimol": ("moles", 1e-3),
    "millimole": ("moles", 1e-3),
    "millimoles": ("moles", 1e-3),
    "mol": ("moles", 1.0),
    "mole": ("moles", 1.0),
    "moles": ("moles", 1.0),
    "kmol": ("moles", 1e3),
}
AMOUNT = re.compile(
    _NUMBER + r"\s*(" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")(?![/\w])",
    re.IGNORECASE,
)
_SPECIES = r"(?:\d+\s*)?[A-Z][A-Za-z0-9()\[\]·.]*"
EQUATION = re.compile(
    rf"({_SPECIES}(?:\s*\+\s*{_SPECIES})*)\s*(?:=+>?|-+>|→|⟶|⇌|<=>|<->|\byields\b|\bgives\b|\bto "
    r"give\b|\bforms?\b)"
    rf"\s*({_SPECIES}(?:\s*\+\s*{_SPECIES})*)"
)


def _hydrate_as_group(formula: str) -> str:
    """ "CaCl2·2H2O" as "CaCl2(H2O)2": the molar-mass tool dropped the part after the dot (it
    gave the anhydrous 110.98 g/mol for the dihydrate)."""
    return re.sub(
        r"[·.*](\d*)((?:[A-Z][a-z]?\d*)+)$",
        lambda m: f"({m.group(2)}){m.group(1) if m.group(1) not in ('', '1') else ''}",
        formula,
    )


FORMULA = re.compile(
    # (not after a dot: "citric acid·H2O" names no water to weigh)
    r"(?<![A-Za-z0-9·•])((?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*|\[(?:[A-Z][a-z]?\d*)+\]\d*)+"
    r"(?:[·.*]\d*(?:[A-Z][a-z]?\d*)+)?)(?![A-Za-z0-9])"
)


def parse_amount(text: str) -> tuple[float, str, str] | None:
    """(amount in g or mol, 'grams' | 'moles', as written) of the first amount with a unit, or
    None."""
    match = AMOUNT.search(text)
    if not match:
        return None
    number = match.group(1).replace(" ", "")
    mantissa = re.match(r"\d+(?:[.,]\d+)?", number).group(0).replace(",", ".")
    exponent = match.group(2) or match.group(3)
    value = float(mantissa) * (10 ** int(exponent) if exponent else 1)
    unit, factor = _UNITS[match.group(4).lower()]
    return value * factor, unit, match.group(0)


def target_unit(text: str, given: str) -> str:
    """What the question wants an amount converted to: grams, moles or molecules."""
    low = text.lower()
    if re.search(r"\bmolecules\b|\bparticles\b|\bnumber of (molecules|particles)\b", low):
        return "molecules"
    if given == "grams":
        return "moles"
    return "grams"


def formula_of(smiles: str) -> str | None:
    """A neutral formula chemlib can read (charges dropped: '[Cl-].[Na+]' -> 'ClNa')."""
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    m = Chem.MolFromSmiles(smiles)
    if m is None:
        return None
    formula = rdMolDescriptors.CalcMolFormula(m)
    return re.sub(r"[+-]\d*$", "", formula) or None


MAX_FORMULA_CHARS = 60  # longer than any formula a chemist types; the input limits apply to SMILES
BARE_SYMBOL_RUN = re.compile(r"([A-Z][a-z]?)(?![a-z\d])\1(?![a-z\d])\1(?![a-z\d])")

# "vitamin B12", "vitamin D3": a vitamin's letter, not the formula B12 (12 borons)
VITAMIN = re.compile(r"\bvitamins?\s+[A-Z]\d*\b", re.IGNORECASE)
# "Grubbs II", "copper(II)", "step IV": a Roman numeral, not I2 or IV (iodine-vanadium)
ROMAN_NUMERAL = re.compile(r"(?:I{1,3}|IV|VI{0,3}|IX|XI{0,3}|XI?V|XV?I{0,3})")


# English words written in capitals that spell element symbols ("IS", "IN", "AS"): no formula
_CAPITAL_WORDS = frozenset(
    "IS AS AT IN IF OF ON OR SO BE HE BY AN DO US IT MY WE ME OK NOT".split()
)


def is_formula(text: str) -> bool:
    """True when ``text`` reads as a molecular formula (H2O, CH3COOH, CuSO4·5H2O), not a SMILES."""
    from chemground.chem.formula import element_counts
    from chemground.errors import ChemgroundError

    text = text.strip()
    if (
        text in _CAPITAL_WORDS  # "IS stock: ... exact mass?" was answered for iodine sulfide
        or len(text) > MAX_FORMULA_CHARS
        or not FORMULA.fullmatch(text)
        or not re.search(r"[A-Z]", text)
        or ROMAN_NUMERAL.fullmatch(text)
        # "C1CC1C" (a broken SMILES, from "MW of C1CC1C("): formulas never write a count of 1
        or re.search(r"[A-Za-z]1(?!\d)", text)
    ):
        return False
    if BARE_SYMBOL_RUN.search(
        text
    ):  # "CCCC", "CCO": a SMILES, not a formula (chemists write C4H10)
        return False
    try:
        element_counts(text)
    except ChemgroundError:
        return False
    return True


def equation_of(text: str) -> str | None:
    """The equation in ``text`` as chemlib reads it ('H2 + O2 --> H2O'), written coefficients
    dropped."""
    match = EQUATION.search(text)
    if not match:
        return None
    sides = []
    for side in match.groups():
        species = [re.sub(r"^\d+\s*", "", s.strip()).rstrip(".,;?") for s in side.split("+")]
        if not all(species) or not all(is_formula(s) for s in species):
            return None
        sides.append(" + ".join(species))
    return " --> ".join(sides)


class ToolChannel:
    """``--method tools``: runs the aspect's tool on each compound of the question."""

    name = "tools"

    def __init__(self, settings: Any = None, runner: Any = None, isolate: bool = True) -> None:
        self.settings = settings
        self._runner = runner
        self.isolate = isolate

    @cached_property
    def registry(self):
        from chemground.agent.registry import default_registry

        return self._runner.registry if self._runner is not None else default_registry()

    @property
    def runner(self):
        if self._runner is None:
            from chemground.agent.runner import ToolRunner

            self._runner = ToolRunner(self.registry, settings=self.settings, isolate=self.isolate)
        return self._runner

    def warm_up(self) -> None:
        self.runner.warm_up()

    # -- choosing the tool ------------------------------------------------------------------
    def spec(self, query: QueryTuple) -> ToolSpec | None:
        aspect = query.aspect
        if aspect in FORMULA_MASS_TOOLS and not query.resolved_mentions:
            return FORMULA_MASS_TOOLS[aspect]
        return TOOL_FOR_ASPECT.get(aspect) if aspect is not None else None

    def choose(self, spec: ToolSpec) -> tuple[str, str]:
        """(tool name, how it was chosen): the table's tool, else the best retrieved one-SMILES
        tool."""
        if spec.tool in self.registry:
            return spec.tool, "aspect table"
        from chemground.agent.retriever import ToolRetriever

        for name, _ in ToolRetriever(self.registry).search(spec.label, k=10, method="bm25"):
            params = [p for p in self.registry.get(name).parameters if p.required]
            if [p.name for p in params] == ["compound_SMILES"]:
                return name, f"tool retrieval (no {spec.tool} in the registry)"
        return spec.tool, "aspect table (missing from the registry)"

    # -- arguments --------------------------------------------------------------------------
    def calls(
        self, query: QueryTuple, spec: ToolSpec
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(arguments, context for the evidence record) per call."""
        text = query.question
        if spec.input == "equation":
            equation = equation_of(text)
            return [({"reaction_formula": equation}, {"equation": equation})] if equation else []
        if spec.input == "formula":
            from chemground.chem.names import names_no_one_compound, subscript_digits

            for m in query.mentions:
                if not m.resolved:  # "O=C(Cl)OCc1ccccc1)" is an invalid SMILES, not "Cl"
                    end = m.end
                    bracket = re.match(r"\s*\([^()]*\)", text[end:])
                    if bracket and names_no_one_compound(m.reason):
                        end += bracket.end()  # "aqua regia (3:1 HCl/HNO3)": its composition
                    text = text[: m.start] + " " * (end - m.start) + text[end:]
            text = subscript_digits(text)  # "HNO₃" is HNO3, not HNO
            formulas = [
                f
                for f in dict.fromkeys(FORMULA.findall(VITAMIN.sub("", text)))
                if is_formula(f) and len(f) > 1
            ]
            return [
                ({"compound": _hydrate_as_group(f)}, {"compound": f, "formula": f})
                for f in formulas[:4]
            ]
        if spec.input == "amount":
            amount = parse_amount(text)
            if amount is None:
                return []
            value, unit, written = amount
            compound = self._amount_compound(query, written)
            if compound is None:
                return []
            name, formula, smiles = compound
            want = target_unit(text, unit)
            return [
                (
                    {"compound": formula, "unit": unit, "amount": value},
                    {
                        "compound": name,
                        "formula": formula,
                        "smiles": smiles,
                        "given": written,
                        "given_unit": unit,
                        "want": want,
                    },
                )
            ]
        # one call per compound: "ibuprofen (2-(4-isobutylphenyl)propanoic acid)", "caffeine,
        # aka guaranine" name one compound twice (its two logPs were compared)
        names: dict[str, list[str]] = {}
        first: dict[str, QueryMention] = {}
        for mention in query.resolved_mentions:
            key = mention.inchikey or mention.smiles or mention.text
            first.setdefault(key, mention)
            if mention.text not in names.setdefault(key, []):
                names[key].append(mention.text)
        out = []
        for key, mention in first.items():
            args = {"compound_SMILES": mention.smiles, **dict(spec.extra)}
            shown = names[key][0] + (
                f" ({', '.join(names[key][1:])})" if len(names[key]) > 1 else ""
            )
            out.append((args, {"compound": shown, "smiles": mention.smiles}))
        return out

    @staticmethod
    def _amount_compound(query: QueryTuple, written: str) -> tuple[str, str, str | None] | None:
        resolved = [m for m in query.resolved_mentions if m.smiles]
        for mention in resolved:
            formula = formula_of(mention.smiles)
            if formula:
                return mention.text, formula, mention.smiles
        for mention in query.mentions:  # "CO2" that the resolver took for a SMILES: still a formula
            if is_formula(mention.text):
                return mention.text, mention.text, None
        rest = query.question.replace(written, " ")
        for formula in FORMULA.findall(rest):
            if len(formula) > 1 and is_formula(formula):
                return formula, formula, None
        return None

    # -- running ----------------------------------------------------------------------------
    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        spec = self.spec(query)
        if spec is None:
            return []
        tool, chosen_by = self.choose(spec)
        evidence = []
        for args, context in self.calls(query, spec):
            result = self.runner.call(tool, args)
            e = result.evidence()
            record = {
                **e.record,
                "property": query.aspect.value if query.aspect else None,
                "label": spec.label,
                "unit": spec.unit,
                **context,
            }
            evidence.append(
                e.model_copy(
                    update={
                        "record": record,
                        "why": f"{e.why} on {context.get('compound') or context.get('equation')}",
                        "provenance": {**e.provenance, "chosen_by": chosen_by},
                    }
                )
            )
        return evidence


def unresolved_mentions(query: QueryTuple) -> list[QueryMention]:
    """Mentions the tools could not use: unresolved, and not a formula the tool reads as text."""
    if query.aspect in (Aspect.BALANCE, Aspect.AMOUNT):
        return []
    return [m for m in query.mentions if not m.resolved]


__all__ = [
    "TOOL_FOR_ASPECT",
    "ToolChannel",
    "ToolSpec",
    "equation_of",
    "parse_amount",
    "unresolved_mentions",
]
