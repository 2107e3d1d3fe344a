"""``chemground compound NAME_OR_SMILES``: one compound's record."""

from __future__ import annotations

import typer
from rich.table import Table

from chemground.cli.common import JSONOutput, console, print_json, state
from chemground.kb.lookup import lookup_compound


def compound(
    ctx: typer.Context,
    query: str = typer.Argument(
        ..., help="A name (IUPAC, common, synonym), SMILES, InChI, InChIKey or CAS number."
    ),
    as_json: JSONOutput = False,
    reactions: int = typer.Option(
        10, "--reactions", min=0, help="How many linked reaction ids to list."
    ),
) -> None:
    """Show a compound: names, SMILES, formula, molecular weight, ids and linked reactions."""
    with state(ctx).workspace(readonly=True) as ws:  # a look-up never writes to the KB
        found = lookup_compound(ws.kb, ws.resolver, query, max_reactions=reactions)
    data = found.to_dict()
    if as_json:
        print_json(data)
        return
    c = found.compound
    title = c.name or c.smiles or query
    table = Table(title=title, show_header=False, title_justify="left")
    how = {
        "dictionary": "name in the compound dictionary",
        "opsin": "systematic name parsed by OPSIN",
        "smiles": "SMILES",
        "inchi": "InChI",
        "inchikey": "InChIKey",
    }.get(found.resolution.source, found.resolution.source)
    if found.resolution.matched_name and found.resolution.source == "dictionary":
        how += f" ({found.resolution.matched_name!r})"
    table.add_row("resolved from", how)
    if not found.in_kb:
        table.add_row(
            "record",
            "[yellow]not in the knowledge base; identifiers computed from the structure[/]",
        )
    for label, key in (
        ("IUPAC name", "iupac_name"),
        ("common name", "common_name"),
        ("SMILES", "smiles"),
        ("InChIKey", "inchikey"),
        ("formula", "formula"),
    ):
        if data[key]:
            table.add_row(label, str(data[key]))
    if data["molecular_weight"] is not None:
        label = "mean molar mass" if c.kind == "mixture" else "molecular weight"
        table.add_row(label, f"{data['molecular_weight']:.2f} g/mol")
    if data["exact_mass"] is not None:
        table.add_row("exact mass", f"{data['exact_mass']:.4f} Da")
    ids = ", ".join(
        x
        for x in (
            f"PubChem CID {c.pubchem_cid}" if c.pubchem_cid else "",
            f"CAS {c.cas}" if c.cas else "",
            f"KB id {c.id}" if c.id else "",
        )
        if x
    )
    if ids:
        table.add_row("ids", ids)
    if c.synonyms:
        more = f" (+{len(c.synonyms) - 8} more)" if len(c.synonyms) > 8 else ""
        table.add_row("synonyms", "; ".join(c.synonyms[:8]) + more)
    if c.description:
        table.add_row("description", c.description)
    if found.in_kb:
        roles = ", ".join(f"{role} ×{n}" for role, n in found.reaction_roles.items())
        table.add_row("reactions", f"{found.reaction_count:,}" + (f" ({roles})" if roles else ""))
        if c.reaction_ids:
            table.add_row("reaction ids", ", ".join(c.reaction_ids[:reactions]))
        sources = c.provenance.get("sources") or ([c.source] if c.source else [])
        if sources:
            table.add_row("sources", ", ".join(sources))
    for note in found.resolution.notes:
        table.add_row("note", note)
    console.print(table)
