"""Gold reaction records for the extraction benchmark, read from ORD-derived datasets.

Two formats: the ORD-JSON text-to-JSON set (paragraph + ORD record with names only, as a JSON
file with ``train_data``/``test_data``) and ORD USPTO grant records (JSON Lines of full ORD
reactions: names, SMILES, roles, conditions and the paragraph). Both are read with the ORD
importer's own converter, so gold roles, temperatures, times and yields mean what they mean
in the KB. Nothing here is needed at run time; the benchmark takes the paths as arguments.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf import json_format
from ord_schema.proto import reaction_pb2

from chemground.errors import ImportFileError
from chemground.extract.snippets import Snippet
from chemground.jsonl import read_jsonl
from chemground.kb.importers.base import RawReaction
from chemground.kb.importers.ord import raw_reaction_from_ord
from chemground.kb.records import Role

TEXT2JSON = "ord_text2json"
USPTO_GRANTS = "ord_uspto_grants"
AMBIENT_C = (
    25.0  # ORD's AMBIENT temperature control has no number; scored as 25 °C (± the tolerance)
)

_ROLE = {
    Role.REACTANT: "reactant",
    Role.REAGENT: "reactant",
    Role.SOLVENT: "solvent",
    Role.CATALYST: "catalyst",
    Role.PRODUCT: "product",
}


@dataclass
class GoldCompound:
    role: str
    name: str | None
    smiles: str | None = None


@dataclass
class GoldRecord:
    """One paragraph and the reaction the dataset says it describes."""

    id: str
    dataset: str
    text: str
    compounds: list[GoldCompound] = field(default_factory=list)
    temperature_c: float | None = None
    time_h: float | None = None
    yield_percent: float | None = None

    def snippet(self) -> Snippet:
        return Snippet(self.id, 0, self.text, None, self.dataset)

    def by_role(self, role: str) -> list[GoldCompound]:
        return [c for c in self.compounds if c.role == role]


def gold_from_raw(raw: RawReaction, dataset: str, record_id: str, text: str) -> GoldRecord:
    temperature = raw.conditions.temperature_c
    if temperature is None and (raw.conditions.temperature_text or "").lower() == "ambient":
        temperature = AMBIENT_C
    yield_percent = (
        raw.yield_percent
        if (raw.provenance.get("yield_kind") or "").upper() == "PERCENTYIELD"
        else None
    )
    return GoldRecord(
        id=record_id,
        dataset=dataset,
        text=text,
        compounds=[GoldCompound(_ROLE[p.role], p.name, p.smiles) for p in raw.participants],
        temperature_c=temperature,
        time_h=raw.conditions.time_h,
        yield_percent=yield_percent,
    )


def load_text2json(path: Path, split: str = "test") -> list[GoldRecord]:
    """Records of the ORD text-to-JSON set (``split``: test, train or all)."""
    try:
        with (
            gzip.open(path, "rt", encoding="utf-8")
            if path.name.endswith(".gz")
            else open(path, encoding="utf-8") as f
        ):
            data = json.load(f)
    except (OSError, EOFError, json.JSONDecodeError) as error:
        raise ImportFileError(f"{path}: not a readable text-to-JSON file: {error}") from error
    parts = {
        "test": ["test_data"],
        "train": ["train_data"],
        "all": ["train_data", "test_data"],
    }.get(split)
    if parts is None:
        raise ImportFileError(f"unknown split {split!r}; choose test, train or all")
    out = []
    for part in parts:
        for item in data.get(part, []):
            try:
                reaction = json_format.ParseDict(
                    json.loads(item["output"]), reaction_pb2.Reaction(), ignore_unknown_fields=True
                )
            except (KeyError, json.JSONDecodeError, json_format.ParseError) as error:
                raise ImportFileError(
                    f"{path}: record {item.get('reaction_id')!r} has no usable ORD output: {error}"
                ) from error
            raw = raw_reaction_from_ord(reaction, TEXT2JSON)
            out.append(gold_from_raw(raw, TEXT2JSON, item["reaction_id"], item["instruction"]))
    return out


def iter_uspto_grants(path: Path) -> Iterator[GoldRecord]:
    """Records of ORD USPTO grant JSON Lines ({"dataset_name", "reaction": {...}} per line)."""
    for line_number, record in read_jsonl(path, error=ImportFileError):
        try:
            if not isinstance(record, dict):
                raise json_format.ParseError("a line must be a JSON object")
            reaction = json_format.ParseDict(
                record.get("reaction", record),
                reaction_pb2.Reaction(),
                ignore_unknown_fields=True,
            )
        except json_format.ParseError as error:
            raise ImportFileError(f"{path}:{line_number}: not an ORD reaction: {error}") from error
        text = reaction.notes.procedure_details
        if not text:
            continue
        raw = raw_reaction_from_ord(reaction, record.get("dataset_name") or USPTO_GRANTS)
        yield gold_from_raw(
            raw, USPTO_GRANTS, reaction.reaction_id or f"{path.name}:{line_number}", text
        )


def sample(records: list[GoldRecord], limit: int | None, seed: int = 0) -> list[GoldRecord]:
    """A reproducible random sample (all records when ``limit`` is None or larger)."""
    if limit is None or limit >= len(records):
        return list(records)
    return random.Random(seed).sample(records, limit)


def find_datasets(data_dir: Path) -> dict[str, Path]:
    """The two gold files under a ``reactions`` data folder (as laid out in shared/data)."""
    found = {}
    text2json = sorted(data_dir.glob("ord_text2json*/*.json*"))
    grants = sorted(data_dir.glob("ord_uspto_grants/*13501.jsonl*")) or sorted(
        data_dir.glob("ord_uspto_grants/*.jsonl*")
    )
    if text2json:
        found[TEXT2JSON] = text2json[0]
    if grants:
        found[USPTO_GRANTS] = grants[0]
    return found


def load(
    dataset: str, path: Path, limit: int | None = None, seed: int = 0, split: str = "test"
) -> list[GoldRecord]:
    if dataset == TEXT2JSON:
        return sample(load_text2json(path, split), limit, seed)
    if dataset == USPTO_GRANTS:
        return sample(list(iter_uspto_grants(path)), limit, seed)
    raise ImportFileError(f"unknown gold dataset {dataset!r}; choose {TEXT2JSON} or {USPTO_GRANTS}")
