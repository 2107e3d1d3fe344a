"""What the extraction LLMs must return, as pydantic models that say precisely what is wrong.

Stage 1 returns :class:`Extraction` (zero or more reactions per snippet); stage 2 returns
:class:`CheckResult` for one record. The validators enforce what the prompts ask for: compound
*names* only (no "compound 3" labels, no states of matter or concentrations), conditions as
plain numbers in fixed units, and values that can occur in a flask. A rejected reply goes back
to the model once with the reason (``LLM.chat_json``), so the messages are written for it too.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from chemground.kb.importers.base import is_generic_name
from chemground.kb.records import Role

# The roles an extracted record has (no reagents: the prompts ask for these four), and their
# field names in the LLM's JSON ("reactants", ...).
EXTRACTED_ROLES = (Role.REACTANT, Role.PRODUCT, Role.SOLVENT, Role.CATALYST)
ROLES = tuple(role.field for role in EXTRACTED_ROLES)
MAX_NAME_LENGTH = 400

# "compound 3", "Example 12A", "intermediate B", "(II)", "step 2 product": labels, not names.
_LABEL = re.compile(
    r"^(?:the\s+)?(?:compound|cpd\.?|example|intermediate|preparation|product|step|reference\s+example|"
    r"starting\s+material|formula|structure|acid|amine|ester|salt)s?\s*(?:no\.?\s*)?"
    r"[\[(]?\s*(?:[0-9]+[a-z]?|[a-z]|[ivxlc]+)(?:[-.][0-9a-z]+)*\s*[\])]?$",
    re.IGNORECASE,
)
# "(s)", "(aq)", "(l)", "(g)" annotations and state/form words around a name.
# Case matters: "(S)"/"(L)" are stereodescriptors; "(s)", "(l)", "(g)" at the end are states.
_STATE_ANNOTATION = re.compile(r"\((?:s|l|g)\)\s*$|\((?i:aq\.?|solid|liquid|gas|soln\.?)\)")
_STATE_WORDS = re.compile(
    r"\b(?:aqueous|solution|suspension|slurry|powder|crystals?|granules|pellets|gas|gaseous|liquid|"
    r"vapou?r|foam|syrup)\b",
    re.IGNORECASE,
)
# "2 M HCl", "1N NaOH", "10% Pd/C" (a loading is allowed: it names the catalyst grade), "saturated".
_CONCENTRATION = re.compile(
    r"^(?:\d+(?:\.\d+)?\s*(?:m|n|mol/l|mmol/l|wt\s*%|%\s*w/w|%\s*w/v)\b|saturated\b|sat\.|conc\.?\s|concentrated\b|"
    r"dilute\b|dil\.\s)",
    re.IGNORECASE,
)
# Names that are states or forms on their own, which is_generic_name already rejects, plus these.
_NOT_A_NAME = {"n/a", "na", "none", "null", "unknown", "not specified", "not given", "-", "?"}
# Work-up and purification words a model files as solvents ("brine", "column chromatography"):
# they are steps or mixtures, not a compound of the reaction (issue 20).
_WORKUP = re.compile(
    r"^(?:(?:saturated\s+)?brine|(?:flash\s+|column\s+)*chromatography|column|silica(?:\s+gel)?|"
    r"celite|work-?up|extraction|filtration|recrystalli[sz]ation|evaporation|distillation|tlc|hplc)$",
    re.IGNORECASE,
)

# An amount as a chemist writes it next to a name: "1.0 g", "5.35 mmol", "50 mL", "2.0 equiv",
# "3 mol%", "0.5 M".
_QUANTITY = r"(?:~|ca\.\s*)?(?:\d+\s*[x×]\s*)?\d+(?:[.,]\d+)?\s*"
_UNITS = r"(?:[mµu]?g|kg|[mµu]?l|[mµu]?mol|equiv\.?|eq\.?|[mµ]?M|N)(?![\w])"
_AMOUNT = rf"{_QUANTITY}(?:{_UNITS}|(?:mol\s*|wt\s*)?%)"
# before a name, a bare percentage is the grade of what follows ("10% Pd/C"), not an amount
_LEADING_AMOUNT = rf"{_QUANTITY}{_UNITS}"
_AMOUNT_GROUP = re.compile(
    rf"\s*[(\[]\s*{_AMOUNT}(?:\s*[,;/]\s*{_AMOUNT})*\s*[)\]]\s*$", re.IGNORECASE
)
_AMOUNT_PREFIX = re.compile(
    rf"^{_LEADING_AMOUNT}(?:\s*[,;/]\s*{_LEADING_AMOUNT})*\s+(?:of\s+)?", re.IGNORECASE
)


def split_amount(name: str) -> tuple[str, str]:
    """A name with the amounts written around it taken off: ``("4-bromoanisole", "1.0 g, 5.35
    mmol")`` for "4-bromoanisole (1.0 g, 5.35 mmol)", ``("methanol", "50 mL")`` for "50 mL of
    methanol". A model copies these from the text; left on, no name resolves (issue 20).

    Returns:
        ``(name, amount)``; ``amount`` is "" when there was none, and a name that would be left
        empty is returned whole.
    """
    text = " ".join(name.split())
    amount = ""
    match = _AMOUNT_GROUP.search(text)
    if match and match.start() > 0:
        amount, text = match.group().strip(" ()[]"), text[: match.start()]
    match = _AMOUNT_PREFIX.match(text)
    if match and match.end() < len(text):
        prefix = match.group().strip()
        prefix = prefix[:-3].strip() if prefix.lower().endswith(" of") else prefix
        amount, text = ", ".join(a for a in (prefix, amount) if a), text[match.end() :]
    return text.strip(), amount


def name_problem(name: str) -> str | None:
    """Why ``name`` is not acceptable as a compound name, or None when it is."""
    text = " ".join(name.split())
    if not text:
        return "an empty name"
    if len(text) > MAX_NAME_LENGTH:
        return (
            f"a name of {len(text)} characters (more than {MAX_NAME_LENGTH}): give one compound "
            "per entry"
        )
    if text.lower() in _NOT_A_NAME:
        return f"{text!r} is a placeholder, not a compound: leave the entry out instead"
    if _WORKUP.match(text):
        return (
            f"{text!r} is a work-up or purification step, not a compound of the reaction: leave "
            "it out"
        )
    if _LABEL.match(text) or is_generic_name(text):
        return (
            f"{text!r} is a label or a description, not a compound name: give the compound's name "
            "as written "
            "in the text, or leave it out if the text gives none"
        )
    if _STATE_ANNOTATION.search(text):
        return (
            f"{text!r} carries a state of matter: give the compound name only (e.g. 'sodium "
            "hydroxide')"
        )
    if _CONCENTRATION.match(text):
        return (
            f"{text!r} carries a concentration: give the compound name only (e.g. 'hydrochloric "
            "acid')"
        )
    if _STATE_WORDS.search(text):
        return (
            f"{text!r} describes a state or a form: give the compound name only (e.g. 'sodium "
            "hydroxide')"
        )
    return None


def _number(value: Any, field: str, unit_hint: str) -> float | None:
    """A plain number (ints, floats, numeric strings); anything with units or words is refused."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field} must be a number {unit_hint} or null, not {value!r}")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise ValueError(
                f"{field} must be a plain number {unit_hint} or null, not the text {value!r}"
            ) from None
    else:
        raise ValueError(
            f"{field} must be a number {unit_hint} or null, not {type(value).__name__}"
        )
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{field} must be a finite number")
    return number


class ExtractedConditions(BaseModel):
    """Numbers only: °C, hours, pH. Words ("reflux", "overnight") are the prompt's job to
    convert."""

    model_config = ConfigDict(extra="forbid")

    temperature_c: float | None = None
    time_h: float | None = None
    ph: float | None = None

    @field_validator("temperature_c", mode="before")
    @classmethod
    def _temperature(cls, value: Any) -> float | None:
        number = _number(value, "temperature_c", "in °C")
        if number is not None and not -200.0 <= number <= 1200.0:
            raise ValueError(
                f"temperature_c {number:g} °C is outside what a reaction can run at (-200 to 1200 "
                "°C)"
            )
        return number

    @field_validator("time_h", mode="before")
    @classmethod
    def _time(cls, value: Any) -> float | None:
        number = _number(value, "time_h", "in hours")
        if number is not None and not 0.0 < number <= 24 * 365:
            raise ValueError(
                f"time_h {number:g} h is not a reaction time (it must be > 0 and at most a year)"
            )
        return number

    @field_validator("ph", mode="before")
    @classmethod
    def _ph(cls, value: Any) -> float | None:
        number = _number(value, "ph", "(0-14)")
        if number is not None and not 0.0 <= number <= 14.0:
            raise ValueError(f"ph {number:g} is outside 0-14")
        return number

    def is_empty(self) -> bool:
        return self.temperature_c is None and self.time_h is None and self.ph is None


class ExtractedReaction(BaseModel):
    """One reaction as an LLM extracted it from a snippet: names per role, conditions, outcome."""

    model_config = ConfigDict(extra="forbid")

    reactants: list[str] = Field(default_factory=list)
    products: list[str] = Field(default_factory=list)
    solvents: list[str] = Field(default_factory=list)
    catalysts: list[str] = Field(default_factory=list)
    operations: list[str] = Field(default_factory=list)
    conditions: ExtractedConditions = Field(default_factory=ExtractedConditions)
    yield_percent: float | None = None
    remark: str = ""

    @field_validator(*ROLES, mode="before")
    @classmethod
    def _names(cls, value: Any, info) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise ValueError(
                f"{info.field_name} must be a list of compound names, not {type(value).__name__}"
            )
        names: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ValueError(
                    f"{info.field_name}[{index}] must be a compound name (a string), not "
                    f"{type(item).__name__} {item!r}"
                )
            name, _amount = split_amount(item)  # amounts are not part of a name
            problem = name_problem(name)
            if problem:
                raise ValueError(f"{info.field_name}[{index}]: {problem}")
            if name not in names:
                names.append(name)
        return names

    @field_validator("operations", mode="before")
    @classmethod
    def _operations(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("operations must be a list of short strings (e.g. 'stir', 'filter')")
        return [" ".join(v.split()) for v in value if v.strip()]

    @field_validator("conditions", mode="before")
    @classmethod
    def _conditions(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("yield_percent", mode="before")
    @classmethod
    def _yield(cls, value: Any) -> float | None:
        number = _number(value, "yield_percent", "in %")
        if number is not None and not 0.0 <= number <= 100.0:
            raise ValueError(
                f"yield_percent {number:g} is not a yield (it must be between 0 and 100 %)"
            )
        return number

    @field_validator("remark", mode="before")
    @classmethod
    def _remark(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()

    def names(self) -> list[tuple[str, str]]:
        """(role, name) for every compound, in role order."""
        return [(role, name) for role in ROLES for name in getattr(self, role)]

    def is_empty(self) -> bool:
        return not any(getattr(self, role) for role in ROLES)


class Extraction(BaseModel):
    """Stage-1 reply: every reaction the snippet describes (an empty list when it describes
    none)."""

    model_config = ConfigDict(extra="forbid")

    reactions: list[ExtractedReaction]

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, value: Any) -> Any:
        if isinstance(value, list):  # a bare list of reactions is unambiguous
            return {"reactions": value}
        if isinstance(value, dict) and "reactions" not in value and set(value) & set(ROLES):
            return {"reactions": [value]}  # one reaction without the wrapper
        return value


Verdict = Literal["ok", "corrected", "rejected"]


class CheckResult(BaseModel):
    """Stage-2 reply for one record: kept, corrected, or rejected (emptied) with the reasons."""

    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    reaction: ExtractedReaction | None = None
    issues: list[str] = Field(default_factory=list)

    @field_validator("issues", mode="before")
    @classmethod
    def _issues(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value]

    @model_validator(mode="after")
    def _consistent(self) -> CheckResult:
        if self.verdict == "rejected":
            if self.reaction is not None and not self.reaction.is_empty():
                raise ValueError(
                    "verdict 'rejected' must come with reaction null (the record is emptied)"
                )
            self.reaction = None
            if not self.issues:
                raise ValueError("verdict 'rejected' needs at least one entry in issues saying why")
        elif self.reaction is None or self.reaction.is_empty():
            raise ValueError(
                f"verdict {self.verdict!r} needs the (corrected) reaction with at least one "
                "compound; "
                "use verdict 'rejected' to empty the record"
            )
        return self
