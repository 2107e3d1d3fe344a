"""Reactions from CSV or JSON Lines in chemground's documented schema.

One reaction per row/line. Fields (all optional except that a row needs at least one
participant or a reaction SMILES):

- ``id``, ``source`` (patent/DOI/dataset), ``title``, ``reaction_class``, ``text`` (or
  ``description`` / ``paragraph``): the source paragraph, ``notes``, ``reaction_smiles``
- per role ``reactants``, ``products``, ``solvents``, ``catalysts``, ``reagents``:
  CSV: names separated by ``;`` and, aligned with them, ``<role>_smiles`` separated by ``;``.
  JSONL: a list whose items are a name or SMILES string, or ``{"name", "smiles", "inchi",
  "amount"}``.
- conditions: ``temperature_c`` or ``temperature`` ("80 °C", "353 K", "reflux"), ``time_h``
  or ``time`` ("2 h", "overnight"), ``ph``, ``pressure_bar`` or ``pressure`` ("3 atm"),
  ``atmosphere``; ``yield_percent`` or ``yield`` ("85%"); ``operations`` (list, or ``;``-separated).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chemground.chem.structure import looks_like_smiles
from chemground.kb.importers.base import RawParticipant, RawReaction, RowError
from chemground.kb.importers.reaction_smiles import (
    participants_from_reaction_smiles,
    strip_atom_maps,
)
from chemground.kb.importers.textio import open_text
from chemground.kb.records import Conditions, Role
from chemground.kb.units import parse_duration, parse_percent, parse_pressure, parse_temperature

ROLE_FIELDS = {
    "reactants": Role.REACTANT,
    "products": Role.PRODUCT,
    "solvents": Role.SOLVENT,
    "catalysts": Role.CATALYST,
    "reagents": Role.REAGENT,
}
TEXT_FIELDS = ("text", "description", "paragraph", "procedure")
KNOWN_FIELDS = (
    set(ROLE_FIELDS)
    | {f"{r}_smiles" for r in ROLE_FIELDS}
    | set(TEXT_FIELDS)
    | {
        "id",
        "source",
        "dataset",
        "title",
        "reaction_class",
        "notes",
        "reaction_smiles",
        "temperature_c",
        "temperature",
        "time_h",
        "time",
        "ph",
        "pressure_bar",
        "pressure",
        "atmosphere",
        "yield_percent",
        "yield",
        "operations",
    }
)


class RowProblem(ValueError):
    """A field that cannot be read (reported with the row's line number)."""


def _split(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value).split(";") if part.strip()]


def _participants_from_csv(row: dict[str, Any]) -> list[RawParticipant]:
    out = []
    for field, role in ROLE_FIELDS.items():
        names = _split(row.get(field))
        smiles = _split(row.get(f"{field}_smiles"))
        if names and smiles and len(names) != len(smiles):
            raise RowProblem(
                f"{field} has {len(names)} names but {field}_smiles has {len(smiles)} SMILES"
            )
        for i in range(max(len(names), len(smiles))):
            name = names[i] if i < len(names) else None
            smi = smiles[i] if i < len(smiles) else None
            if name and not smi and looks_like_smiles(name) and not name.isalpha():
                name, smi = None, name
            out.append(RawParticipant(role, name=name, smiles=smi))
    return out


def _participants_from_json(record: dict[str, Any]) -> list[RawParticipant]:
    out = []
    for field, role in ROLE_FIELDS.items():
        items = record.get(field) or []
        if isinstance(items, (str, dict)):
            items = [items]
        if not isinstance(items, list):
            raise RowProblem(f"{field} must be a list, got {type(items).__name__}")
        for item in items:
            if isinstance(item, str):
                text = item.strip()
                if looks_like_smiles(text) and not text.isalpha():
                    out.append(RawParticipant(role, smiles=text))
                else:
                    out.append(RawParticipant(role, name=text))
            elif isinstance(item, dict):
                unknown = set(item) - {"name", "smiles", "inchi", "amount"}
                if unknown:
                    raise RowProblem(
                        f"{field}: unknown keys {sorted(unknown)} (expected name, smiles, inchi, "
                        "amount)"
                    )
                if not any(item.get(k) for k in ("name", "smiles", "inchi")):
                    raise RowProblem(f"{field}: an entry has no name, smiles or inchi")
                out.append(
                    RawParticipant(
                        role,
                        name=item.get("name"),
                        smiles=item.get("smiles"),
                        inchi=item.get("inchi"),
                        amount=item.get("amount"),
                    )
                )
            else:
                raise RowProblem(
                    f"{field}: entries must be strings or objects, got {type(item).__name__}"
                )
    return out


def _number(record: dict[str, Any], field: str) -> float | None:
    value = record.get(field)
    if value in (None, ""):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise RowProblem(f"{field} must be a number, got {value!r}") from None


def _reaction(
    record: dict[str, Any], participants: list[RawParticipant], dataset: str, line: int
) -> RawReaction:
    temperature_c = _number(record, "temperature_c")
    temperature_text = None
    if temperature_c is None and record.get("temperature") not in (None, ""):
        temperature_c, temperature_text = parse_temperature(record["temperature"])
        if temperature_c is None and temperature_text is None:
            raise RowProblem(f"temperature {record['temperature']!r} is not understood")
    time_h = _number(record, "time_h")
    if time_h is None and record.get("time") not in (None, ""):
        time_h = parse_duration(record["time"])
        if time_h is None:
            raise RowProblem(
                f"time {record['time']!r} is not understood (e.g. '2 h', '30 min', 'overnight')"
            )
    pressure = _number(record, "pressure_bar")
    if pressure is None and record.get("pressure") not in (None, ""):
        pressure = parse_pressure(record["pressure"])
    yield_percent = _number(record, "yield_percent")
    if yield_percent is None and record.get("yield") not in (None, ""):
        yield_percent = parse_percent(record["yield"])
        if yield_percent is None:
            raise RowProblem(f"yield {record['yield']!r} is not a percentage")
    if yield_percent is not None and not 0 <= yield_percent <= 100:
        raise RowProblem(f"yield {yield_percent} is outside 0-100 %")
    operations = record.get("operations") or []
    if isinstance(operations, str):
        operations = [{"details": step} for step in _split(operations)]
    elif isinstance(operations, list):
        operations = [op if isinstance(op, dict) else {"details": str(op)} for op in operations]
    text = next((str(record[f]) for f in TEXT_FIELDS if record.get(f)), "")
    rxn = (record.get("reaction_smiles") or "").strip() or None
    roles_from_smiles = bool(rxn and not participants)  # else the row names each role itself
    if roles_from_smiles:
        try:
            participants = participants_from_reaction_smiles(rxn)
        except ValueError as error:
            raise RowProblem(str(error)) from None
    if not participants:
        raise RowProblem(
            "no participants: give reactants/products (names or SMILES) or reaction_smiles"
        )
    provenance = {k: v for k, v in record.items() if k not in KNOWN_FIELDS and v not in (None, "")}
    return RawReaction(
        participants=participants,
        id=(str(record["id"]).strip() if record.get("id") not in (None, "") else None),
        source=str(record.get("source") or dataset),
        dataset=str(record.get("dataset") or dataset),
        title=record.get("title") or None,
        reaction_class=record.get("reaction_class") or None,
        description=text,
        reaction_smiles=strip_atom_maps(rxn) if rxn else None,
        conditions=Conditions(
            temperature_c=temperature_c,
            temperature_text=temperature_text,
            time_h=time_h,
            ph=_number(record, "ph"),
            pressure_bar=pressure,
            atmosphere=record.get("atmosphere") or None,
        ),
        yield_percent=yield_percent,
        operations=operations,
        notes=str(record.get("notes") or ""),
        provenance={"extra": provenance} if provenance else {},
        line=line,
        mapped_smiles=rxn if roles_from_smiles else None,
        reagents_among_reactants=roles_from_smiles,
    )


def read_csv(
    path: Path, dataset: str | None = None, encoding: str | None = None
) -> Iterator[RawReaction | RowError]:
    dataset = dataset or path.stem
    with open_text(path, encoding, newline="") as handle:
        sample = handle.readline()
        handle.seek(0)
        dialect = "excel-tab" if sample.count("\t") > sample.count(",") else "excel"
        reader = csv.DictReader(handle, dialect=dialect)
        try:
            header = [h.strip() for h in (reader.fieldnames or [])]
        except csv.Error as error:
            yield RowError(1, f"malformed CSV header: {error}")
            return
        reader.fieldnames = header
        if not (
            set(header)
            & (set(ROLE_FIELDS) | {f"{r}_smiles" for r in ROLE_FIELDS} | {"reaction_smiles"})
        ):
            yield RowError(
                1,
                f"missing columns: the header {_shown(header)} has none of "
                f"{', '.join([*list(ROLE_FIELDS), 'reaction_smiles'])}",
            )
            return
        try:
            for line, row in enumerate(reader, start=2):
                if None in row:
                    yield RowError(line, f"more fields than the header has ({len(header)} columns)")
                    continue
                if any(v is None for v in row.values()):
                    yield RowError(
                        line,
                        f"fewer fields than the header has ({len(header)} columns); truncated row?",
                    )
                    continue
                try:
                    yield _reaction(row, _participants_from_csv(row), dataset, line)
                except RowProblem as problem:
                    yield RowError(line, str(problem))
        except csv.Error as error:
            yield RowError(reader.line_num, f"malformed CSV: {error}")


def _shown(header: list[str], limit: int = 200) -> str:
    """A header for an error message, cut short (a binary file's "header" can be megabytes)."""
    text = repr(header)
    return text if len(text) <= limit else text[:limit] + "…]"


def read_jsonl(
    path: Path, dataset: str | None = None, encoding: str | None = None
) -> Iterator[RawReaction | RowError]:
    dataset = dataset or path.stem.removesuffix(".jsonl")
    with open_text(path, encoding) as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                yield RowError(
                    line, f"not valid JSON ({error.msg} at column {error.colno}); truncated line?"
                )
                continue
            if not isinstance(record, dict):
                yield RowError(line, f"expected a JSON object, got {type(record).__name__}")
                continue
            try:
                yield _reaction(record, _participants_from_json(record), dataset, line)
            except RowProblem as problem:
                yield RowError(line, str(problem))
