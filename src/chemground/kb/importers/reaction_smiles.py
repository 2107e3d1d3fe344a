"""Reaction-SMILES files as distributed for patent reactions (``reactants>agents>products``).

Reads CSV/TSV (a column holding reaction SMILES, plus optional patent number, paragraph
text, title and yield columns) or plain text (one reaction SMILES per line, optional
tab-separated extras). Atom maps are stripped; CXSMILES fragment groups (``|f:3.4|``) keep a
salt's ions together as one participant. Agents (the middle part) are split into solvents,
catalysts and reagents by structure. The left part holds reagents too in patent data (HCl,
triethylamine, water): the import engine re-files them by the atom maps, or by a curated list
where there are none (:mod:`chemground.kb.reaction_roles`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

from chemground.chem.solvents import agent_role
from chemground.kb.importers.base import RawParticipant, RawReaction, RowError, content_id
from chemground.kb.importers.textio import open_text
from chemground.kb.records import Role
from chemground.kb.units import parse_percent

_ATOM_MAP = re.compile(r":\d+\]")
SMILES_COLUMNS = (
    "reaction_smiles",
    "rxn_smiles",
    "smiles",
    "lowe_smiles",
    "reaction",
    "rxn",
    "mapped_rxn",
)
TEXT_COLUMNS = ("paragraph", "paragraphtext", "text", "description", "procedure", "procedure_text")
SOURCE_COLUMNS = ("patent", "patentnumber", "patent_number", "document", "source", "doc_id")
TITLE_COLUMNS = ("title", "headingtext", "heading")
YIELD_COLUMNS = ("yield", "yield_percent", "textminedyield", "calculatedyield")


def strip_atom_maps(smiles: str) -> str:
    return _ATOM_MAP.sub("]", smiles) if ":" in smiles else smiles


def split_reaction_smiles(
    reaction_smiles: str, keep_maps: bool = False
) -> tuple[list[str], list[str], list[str]]:
    """(reactants, agents, products) as participant SMILES, honouring CXSMILES ``f:`` groups.

    Args:
        reaction_smiles: ``reactants>agents>products``, optionally with a CXSMILES extension.
        keep_maps: keep atom-map numbers (``[CH3:1]``); by default they are stripped.

    Returns:
        The participant SMILES of each part; a salt's ``f:``-grouped ions are one participant.

    Raises:
        ValueError: the text does not have three ``>``-separated parts.
    """
    text = reaction_smiles.strip()
    extension = ""
    if " " in text:
        text, _, extension = text.partition(" ")
    parts = text.split(">")
    if len(parts) != 3:
        raise ValueError(
            f"not a reaction SMILES (expected reactants>agents>products): {reaction_smiles[:80]!r}"
        )
    fragments: list[tuple[int, str]] = []
    for part_index, part in enumerate(parts):
        for fragment in part.split(".") if part else []:
            fragments.append((part_index, fragment))
    groups: dict[int, int] = {}
    match = re.search(r"f:([\d.,]+)", extension)
    if match:
        for group in match.group(1).split(","):
            members = [int(i) for i in group.split(".") if i.isdigit()]
            for member in members[1:]:
                groups[member] = members[0]
    merged: dict[int, list[str]] = {}
    for index, (_, fragment) in enumerate(fragments):
        merged.setdefault(groups.get(index, index), []).append(
            fragment if keep_maps else strip_atom_maps(fragment)
        )
    out: tuple[list[str], list[str], list[str]] = ([], [], [])
    for head, members in merged.items():
        out[fragments[head][0]].append(".".join(members))
    return out


def _find_column(header: list[str], candidates: tuple[str, ...]) -> str | None:
    lowered = {h.strip().lower().replace(" ", "_"): h for h in header}
    for candidate in candidates:
        if candidate in lowered:
            return lowered[candidate]
    return None


def participants_from_reaction_smiles(reaction_smiles: str) -> list[RawParticipant]:
    reactants, agents, products = split_reaction_smiles(reaction_smiles)
    participants = [RawParticipant(Role.REACTANT, smiles=s) for s in reactants]
    participants += [RawParticipant(agent_role(s), smiles=s) for s in agents]
    participants += [RawParticipant(Role.PRODUCT, smiles=s) for s in products]
    return participants


def read_reaction_smiles_file(
    path: Path,
    dataset: str | None = None,
    smiles_column: str | None = None,
    encoding: str | None = None,
) -> Iterator[RawReaction | RowError]:
    dataset = dataset or path.stem
    with open_text(path, encoding, newline="") as handle:
        first = handle.readline()
        handle.seek(0)
        if ">" in first.split(",")[0].split("\t")[0] and not first.lower().startswith(
            SMILES_COLUMNS
        ):
            yield from _read_plain(handle, dataset)
            return
        dialect = "excel-tab" if first.count("\t") > first.count(",") else "excel"
        reader = csv.DictReader(handle, dialect=dialect)
        try:
            yield from _read_table(reader, dataset, smiles_column)
        except csv.Error as error:
            yield RowError(reader.line_num, f"malformed CSV: {error}")


def _read_table(
    reader: csv.DictReader, dataset: str, smiles_column: str | None
) -> Iterator[RawReaction | RowError]:
    header = reader.fieldnames or []
    column = smiles_column or _find_column(header, SMILES_COLUMNS)
    if column is None or column not in header:
        shown = repr(header) if len(repr(header)) <= 200 else repr(header)[:200] + "…]"
        yield RowError(
            1,
            f"no reaction SMILES column found in header {shown}; expected one of "
            f"{', '.join(SMILES_COLUMNS)} "
            "(rename the column to one of these)",
        )
        return
    text_col = _find_column(header, TEXT_COLUMNS)
    source_col = _find_column(header, SOURCE_COLUMNS)
    title_col = _find_column(header, TITLE_COLUMNS)
    yield_col = _find_column(header, YIELD_COLUMNS)
    for line_number, row in enumerate(reader, start=2):
        if None in row:
            yield RowError(line_number, f"more fields than the header has ({len(header)} columns)")
            continue
        rxn = (row.get(column) or "").strip()
        if not rxn:
            yield RowError(line_number, f"empty {column!r}")
            continue
        try:
            participants = participants_from_reaction_smiles(rxn)
        except ValueError as error:
            yield RowError(line_number, str(error))
            continue
        text = (row.get(text_col) or "").strip() if text_col else ""
        source = (row.get(source_col) or "").strip() if source_col else ""
        title = (row.get(title_col) or "").strip() if title_col else None
        yield RawReaction(
            participants=participants,
            id=content_id(dataset, rxn, text),
            source=source or dataset,
            dataset=dataset,
            title=title or None,
            description=text,
            reaction_smiles=strip_atom_maps(rxn),
            yield_percent=parse_percent(row.get(yield_col)) if yield_col else None,
            provenance={
                "columns": {k: v for k, v in row.items() if k not in (column, text_col) and v}
            },
            line=line_number,
            mapped_smiles=rxn,
            reagents_among_reactants=True,
        )


def _read_plain(handle, dataset: str) -> Iterator[RawReaction | RowError]:
    for line_number, line in enumerate(handle, start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        rxn, *extras = line.split("\t")
        try:
            participants = participants_from_reaction_smiles(rxn)
        except ValueError as error:
            yield RowError(line_number, str(error))
            continue
        yield RawReaction(
            participants=participants,
            id=content_id(dataset, rxn, *extras),
            source=extras[0] if extras else dataset,
            dataset=dataset,
            description=extras[1] if len(extras) > 1 else "",
            reaction_smiles=strip_atom_maps(rxn),
            line=line_number,
            mapped_smiles=rxn,
            reagents_among_reactants=True,
        )
