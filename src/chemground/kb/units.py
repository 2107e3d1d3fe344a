"""Unit normalisation for reaction conditions: °C, hours, bar, percent.

Sources write "80 °C", "353 K", "reflux", "2 hrs", "overnight", "3 atm", "85%"; the KB stores
one typed number per quantity so that answers and benchmarks compare like with like.
"""

from __future__ import annotations

import re

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_RANGE = re.compile(rf"({_NUMBER})\s*(?:-|–|to|~)\s*({_NUMBER})")

_TEMPERATURE = re.compile(
    rf"({_NUMBER})(?:\s*(?:-|–|to)\s*({_NUMBER}))?\s*(°\s*C|°\s*F|º\s*C|deg(?:rees?)?\s*[CF]?|[CFK]\b|celsius|fahrenheit|kelvin)",
    re.IGNORECASE,
)
_DURATION = re.compile(
    rf"({_NUMBER})(?:\s*(?:-|–|to)\s*({_NUMBER}))?\s*(seconds?|secs?|s\b|minutes?|mins?|min\b|hours?|hrs?|h\b|days?|d\b|weeks?)",
    re.IGNORECASE,
)
_PRESSURE = re.compile(rf"({_NUMBER})\s*(bar|atm|psi|mmhg|torr|kpa|mpa|pa)\b", re.IGNORECASE)
_PERCENT = re.compile(rf"({_NUMBER})\s*%")

# Words are kept as text with no number: "room temperature" is 15-25 °C depending on who
# writes it, and the KB does not invent precision the source did not give.
WORD_TEMPERATURES = ("room temperature", "rt", "r.t.", "ambient", "reflux", "ice bath", "ice-cold")
WORD_DURATIONS = {"overnight": 16.0, "over night": 16.0}


def celsius(value: float, unit: str) -> float:
    u = (
        unit.strip()
        .lower()
        .replace("°", "")
        .replace("º", "")
        .replace("degrees", "")
        .replace("degree", "")
    )
    u = u.replace("deg", "").strip()
    if u in ("f", "fahrenheit"):
        return (value - 32.0) * 5.0 / 9.0
    if u in ("k", "kelvin"):
        return value - 273.15
    return value


def hours(value: float, unit: str) -> float:
    u = unit.strip().lower()
    if u.startswith("s"):
        return value / 3600.0
    if u.startswith("m"):
        return value / 60.0
    if u.startswith("d"):
        return value * 24.0
    if u.startswith("w"):
        return value * 168.0
    return value


def bar(value: float, unit: str) -> float:
    u = unit.strip().lower()
    factors = {
        "bar": 1.0,
        "atm": 1.01325,
        "psi": 0.0689476,
        "mmhg": 0.00133322,
        "torr": 0.00133322,
        "kpa": 0.01,
        "mpa": 10.0,
        "pa": 1e-5,
    }
    if u not in factors:
        raise ValueError(f"unknown pressure unit {unit!r}")
    return value * factors[u]


def _mean(a: str, b: str | None) -> float:
    return (float(a) + float(b)) / 2.0 if b is not None else float(a)


def parse_temperature(text: str | float | int | None) -> tuple[float | None, str | None]:
    """(°C, descriptive text) from "80 °C", "353 K", "0-5 °C", "reflux", "room temperature".

    A range gives its midpoint and keeps the text; words ("reflux", "room temperature")
    keep the text and give no number.
    """
    if text is None:
        return None, None
    if isinstance(text, (int, float)):
        return float(text), None
    raw = str(text).strip()
    if not raw:
        return None, None
    match = _TEMPERATURE.search(raw)
    if match:
        value = _mean(match.group(1), match.group(2))
        unit = match.group(3)
        description = raw if match.group(2) else None
        return round(celsius(value, unit), 2), description
    lowered = raw.lower()
    for word in WORD_TEMPERATURES:
        if lowered == word or lowered.startswith(word + " "):
            return None, raw
    try:
        return float(raw), None
    except ValueError:
        return None, raw


def parse_duration(text: str | float | int | None) -> float | None:
    """Hours from "2 h", "30 min", "1.5 hours", "overnight" (16 h), "2-3 days" (midpoint)."""
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    raw = str(text).strip().lower()
    if not raw:
        return None
    match = _DURATION.search(raw)
    if match:
        return round(hours(_mean(match.group(1), match.group(2)), match.group(3)), 4)
    for word, value in WORD_DURATIONS.items():
        if word in raw:
            return value
    try:
        return float(raw)
    except ValueError:
        return None


def parse_pressure(text: str | float | int | None) -> float | None:
    """bar from "3 atm", "50 psi", "1 bar"; bare numbers are taken as bar."""
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    raw = str(text).strip()
    match = _PRESSURE.search(raw)
    if match:
        return round(bar(float(match.group(1)), match.group(2)), 5)
    try:
        return float(raw)
    except ValueError:
        return None


def parse_percent(text: str | float | int | None) -> float | None:
    """A percentage from "85%", "85", 85.0; None for empty."""
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    raw = str(text).strip()
    if not raw:
        return None
    match = _PERCENT.search(raw)
    if match:
        return float(match.group(1))
    try:
        return float(raw)
    except ValueError:
        return None
