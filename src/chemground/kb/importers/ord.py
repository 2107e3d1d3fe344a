"""Open Reaction Database datasets, read with ``ord-schema``.

Accepts what ORD distributes (.pb, .pb.gz, .pbtxt, .json of a Dataset) and JSON Lines of
single reactions (``{"reaction": {...}}`` per line, optionally gzipped). Keeps what the
records carry: component names, SMILES/InChI and roles, amounts, the procedure paragraph,
temperature, pressure, atmosphere, time, yields and the workup steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from google.protobuf import json_format, text_format
from google.protobuf.message import DecodeError
from ord_schema import message_helpers
from ord_schema.proto import dataset_pb2, reaction_pb2

from chemground.errors import ImportFileError
from chemground.kb.importers.base import RawParticipant, RawReaction, RowError
from chemground.kb.importers.reaction_smiles import strip_atom_maps
from chemground.kb.importers.textio import GZIP_ERRORS, open_binary, open_text
from chemground.kb.records import Conditions, Role
from chemground.kb.units import bar, celsius, hours

_ROLE = {
    "REACTANT": Role.REACTANT,
    "REAGENT": Role.REAGENT,
    "SOLVENT": Role.SOLVENT,
    "CATALYST": Role.CATALYST,
    "PRODUCT": Role.PRODUCT,
    "BYPRODUCT": Role.PRODUCT,
    "SIDE_PRODUCT": Role.PRODUCT,
    "UNSPECIFIED": Role.REACTANT,
}
_SKIP_ROLES = {"WORKUP", "INTERNAL_STANDARD", "AUTHENTIC_STANDARD"}
_AMOUNT_UNITS = {
    "LITER": "L",
    "MILLILITER": "mL",
    "MICROLITER": "µL",
    "NANOLITER": "nL",
    "KILOGRAM": "kg",
    "GRAM": "g",
    "MILLIGRAM": "mg",
    "MICROGRAM": "µg",
    "MOLE": "mol",
    "MILLIMOLE": "mmol",
    "MICROMOLE": "µmol",
    "NANOMOLE": "nmol",
}


# reaction_role number -> our role (None: not a participant, e.g. a workup component)
_COMPONENT_ROLE: dict[int, Role | None] = {
    value.number: None if value.name in _SKIP_ROLES else _ROLE.get(value.name, Role.REACTANT)
    for value in reaction_pb2.ReactionRole.DESCRIPTOR.enum_types_by_name["ReactionRoleType"].values
}
_SMILES, _NAME, _INCHI = (
    reaction_pb2.CompoundIdentifier.SMILES,
    reaction_pb2.CompoundIdentifier.NAME,
    reaction_pb2.CompoundIdentifier.INCHI,
)


def _enum_name(message: Any, field: str, value: int) -> str:
    return _enum_value_name(message.DESCRIPTOR, field, value)


@lru_cache(maxsize=4096)
def _enum_value_name(descriptor: Any, field: str, value: int) -> str:
    """Descriptor walks cost microseconds and a patent file makes ~100k of them: cached."""
    return descriptor.fields_by_name[field].enum_type.values_by_number[value].name


def _amount(compound: Any, is_product: bool) -> str | None:
    if not is_product:
        return _format_amount(compound.amount) if compound.HasField("amount") else None
    for measurement in compound.measurements:  # products carry amounts as AMOUNT measurements
        if measurement.type == reaction_pb2.ProductMeasurement.AMOUNT and measurement.HasField(
            "amount"
        ):
            return _format_amount(measurement.amount)
    return None


# (amount kind, units number) -> unit as a chemist writes it
_UNIT_TEXT: dict[tuple[str, int], str] = {
    (kind, value.number): _AMOUNT_UNITS.get(value.name, "")
    for kind, message in (
        ("mass", reaction_pb2.Mass),
        ("moles", reaction_pb2.Moles),
        ("volume", reaction_pb2.Volume),
    )
    for value in message.DESCRIPTOR.fields_by_name["units"].enum_type.values
}


def _format_amount(amount: Any) -> str | None:
    kind = amount.WhichOneof("kind")
    if kind in ("mass", "moles", "volume"):
        quantity = getattr(amount, kind)
        value = quantity.value
        if value:
            unit = _UNIT_TEXT.get((kind, quantity.units), "")
            return f"{value:g} {unit}" if unit else f"{value:g}"
    return None


def _participant(compound: Any, role: Role, is_product: bool = False) -> RawParticipant:
    smiles = name = inchi = None  # the first non-empty identifier of each kind
    for identifier in compound.identifiers:
        kind = identifier.type
        if kind == _SMILES:
            smiles = smiles or identifier.value.strip() or None
        elif kind == _NAME:
            name = name or identifier.value.strip() or None
        elif kind == _INCHI:
            inchi = inchi or identifier.value.strip() or None
    return RawParticipant(
        role=role,
        name=name,
        smiles=strip_atom_maps(smiles) if smiles else None,
        inchi=inchi,
        amount=_amount(compound, is_product),
    )


def _conditions(reaction: reaction_pb2.Reaction) -> Conditions:
    found: dict[
        str, Any
    ] = {}  # one Conditions(...) at the end: pydantic's attribute setting is slow
    c = reaction.conditions
    if c.HasField("temperature"):
        t = c.temperature
        if t.HasField("setpoint") and t.setpoint.units:
            found["temperature_c"] = round(
                celsius(t.setpoint.value, _enum_name(t.setpoint, "units", t.setpoint.units)), 2
            )
        if t.HasField("control") and t.control.type:
            control = _enum_name(t.control, "type", t.control.type).lower().replace("_", " ")
            if control != "custom" or t.control.details:
                found["temperature_text"] = t.control.details or control
    if c.HasField("reflux") and c.reflux and not found.get("temperature_text"):
        found["temperature_text"] = "reflux"
    if c.HasField("pressure"):
        p = c.pressure
        if p.HasField("setpoint") and p.setpoint.units:
            unit = _enum_name(p.setpoint, "units", p.setpoint.units)
            factor_unit = {
                "ATMOSPHERE": "atm",
                "KILOPASCAL": "kpa",
                "PASCAL": "pa",
                "MM_HG": "mmhg",
            }.get(unit, unit.lower())
            if factor_unit == "kpsi":
                found["pressure_bar"] = round(bar(p.setpoint.value * 1000, "psi"), 4)
            else:
                found["pressure_bar"] = round(bar(p.setpoint.value, factor_unit), 4)
        if p.HasField("atmosphere") and p.atmosphere.type:
            found["atmosphere"] = (
                _enum_name(p.atmosphere, "type", p.atmosphere.type).lower().replace("_", " ")
            )
    if c.HasField("ph"):
        found["ph"] = c.ph
    for outcome in reaction.outcomes:
        if outcome.HasField("reaction_time") and outcome.reaction_time.units:
            unit = _enum_name(outcome.reaction_time, "units", outcome.reaction_time.units)
            found["time_h"] = round(hours(outcome.reaction_time.value, unit), 4)
            break
    return Conditions(**found)


def _yield(reaction: reaction_pb2.Reaction) -> tuple[float | None, str | None]:
    """The desired product's yield: text-mined PERCENTYIELD preferred over the calculated one."""
    best: tuple[float | None, str | None] = (None, None)
    for outcome in reaction.outcomes:
        for product in outcome.products:
            for measurement in product.measurements:
                if (
                    measurement.type != reaction_pb2.ProductMeasurement.YIELD
                    or not measurement.HasField("percentage")
                ):
                    continue
                kind = measurement.details or "yield"
                value = measurement.percentage.value
                if best[0] is None or (
                    kind.upper() == "PERCENTYIELD" and (best[1] or "").upper() != "PERCENTYIELD"
                ):
                    best = (value, kind)
            if best[0] is not None:
                return best
    return best


def _operations(reaction: reaction_pb2.Reaction) -> list[dict[str, Any]]:
    steps = []
    for workup in reaction.workups:
        step: dict[str, Any] = {"type": _enum_name(workup, "type", workup.type).lower()}
        if workup.details:
            step["details"] = workup.details
        if (
            workup.HasField("temperature")
            and workup.temperature.HasField("setpoint")
            and workup.temperature.setpoint.units
        ):
            sp = workup.temperature.setpoint
            step["temperature_c"] = round(celsius(sp.value, _enum_name(sp, "units", sp.units)), 2)
        if workup.HasField("duration") and workup.duration.units:
            step["duration_h"] = round(
                hours(
                    workup.duration.value,
                    _enum_name(workup.duration, "units", workup.duration.units),
                ),
                4,
            )
        steps.append(step)
    return steps


def raw_reaction_from_ord(
    reaction: reaction_pb2.Reaction, dataset_name: str, line: int | None = None
) -> RawReaction:
    participants: list[RawParticipant] = []
    inputs = reaction.inputs
    for key in sorted(inputs):
        for component in inputs[key].components:
            role = _COMPONENT_ROLE.get(component.reaction_role, Role.REACTANT)
            if role is not None:
                participants.append(_participant(component, role))
    for outcome in reaction.outcomes:
        for product in outcome.products:
            participants.append(_participant(product, Role.PRODUCT, is_product=True))
    yield_value, yield_kind = _yield(reaction)
    reaction_smiles = message_helpers.get_reaction_smiles(reaction) or None
    provenance: dict[str, Any] = {"ord_dataset": dataset_name}
    if reaction.provenance.doi:
        provenance["doi"] = reaction.provenance.doi
    if yield_kind:
        provenance["yield_kind"] = yield_kind
    return RawReaction(
        participants=participants,
        id=reaction.reaction_id or None,
        source=reaction.provenance.patent or dataset_name,
        dataset=f"ord:{dataset_name}" if dataset_name else "ord",
        description=reaction.notes.procedure_details,
        reaction_smiles=strip_atom_maps(reaction_smiles) if reaction_smiles else None,
        conditions=_conditions(reaction),
        yield_percent=yield_value,
        operations=_operations(reaction),
        notes=reaction.conditions.details
        if reaction.conditions.details
        and not reaction.conditions.details.startswith("See reaction.notes")
        else "",
        provenance=provenance,
        line=line,
        mapped_smiles=reaction_smiles,
        reagents_among_reactants=True,  # ORD's USPTO sets keep Lowe's reactants, reagents included
    )


def read_ord_file(path: Path, encoding: str | None = None) -> Iterator[RawReaction | RowError]:
    """Reactions of an ORD Dataset file or of a JSON Lines file of ORD reactions."""
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")):
        yield from _read_jsonl(path, encoding)
        return
    dataset = _load_dataset(path, encoding)
    dataset_name = dataset.name or dataset.dataset_id or path.stem
    for index, reaction in enumerate(dataset.reactions, start=1):
        yield raw_reaction_from_ord(reaction, dataset_name, line=index)


def _load_dataset(path: Path, encoding: str | None) -> dataset_pb2.Dataset:
    """An ORD Dataset from text (.pbtxt, .txtpb), JSON (.json) or binary (.pb, .binpb, anything
    else),
    optionally gzipped."""
    name = path.name.lower().removesuffix(".gz")
    try:
        if name.endswith((".pbtxt", ".txtpb", ".json")):
            with open_text(path, encoding) as handle:
                text = _read_all(handle, path)
            if name.endswith(".json"):
                return json_format.Parse(text, dataset_pb2.Dataset())
            return text_format.Parse(text, dataset_pb2.Dataset())
        with open_binary(path) as handle:
            data = _read_all(handle, path)
        return dataset_pb2.Dataset.FromString(data)
    except (
        ValueError,
        DecodeError,
        json_format.ParseError,
        text_format.ParseError,
        RecursionError,
    ) as error:
        detail = " ".join(str(error).split())[:300]
        raise ImportFileError(
            f"{path}: not a readable ORD dataset ({type(error).__name__}: {detail})"
        ) from None


def _read_all(handle, path: Path):
    try:
        return handle.read()
    except GZIP_ERRORS as error:
        raise ImportFileError(
            f"{path}: not a readable ORD dataset (truncated or corrupt gzip data: "
            f"{type(error).__name__}: {error})"
        ) from None


def _read_jsonl(path: Path, encoding: str | None) -> Iterator[RawReaction | RowError]:
    with open_text(path, encoding) as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                payload = record.get("reaction", record)
                reaction = json_format.ParseDict(
                    payload, reaction_pb2.Reaction(), ignore_unknown_fields=True
                )
            except (
                json.JSONDecodeError,
                json_format.ParseError,
                AttributeError,
                TypeError,
                ValueError,
                RecursionError,
            ) as error:
                yield RowError(
                    line_number, f"not an ORD reaction: {' '.join(str(error).split())[:300]}"
                )
                continue
            dataset_name = record.get("dataset_name") or record.get("dataset_id") or path.stem
            yield raw_reaction_from_ord(reaction, dataset_name, line=line_number)
