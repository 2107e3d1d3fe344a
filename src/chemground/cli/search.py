"""``chemground search``: structure search over compounds and reaction participants.

One of ``--substructure`` (SMILES or SMARTS), ``--similar`` (SMILES, Tanimoto at or above
``--threshold``) or ``--exact`` (InChIKey or SMILES). With ``--role`` (repeatable) or
``--reactions`` it lists reactions with a matching participant; without, compounds.
"""

from __future__ import annotations

import typer
from rich.table import Table

from chemground.cli.common import JSONOutput, console, print_json, state
from chemground.errors import ChemgroundError
from chemground.kb.structure_search import ReactionMatch, match_to_dict, search_structures


def search(
    ctx: typer.Context,
    substructure: str | None = typer.Option(
        None,
        "--substructure",
        "-s",
        help="Substructure pattern: SMILES (a molecule) or SMARTS (a query).",
    ),
    similar: str | None = typer.Option(
        None, "--similar", help="SMILES of a molecule for a similarity search."
    ),
    exact: str | None = typer.Option(
        None, "--exact", help="InChIKey or SMILES of the exact structure."
    ),
    role: list[str] | None = typer.Option(
        None,
        "--role",
        "-r",
        help="Search reactions whose participant in this role matches (reactant, product, "
        "solvent, catalyst, reagent); repeatable.",
    ),
    reactions: bool = typer.Option(
        False, "--reactions", help="Search reactions (participants in any role)."
    ),
    threshold: float = typer.Option(
        0.7, "--threshold", "-t", help="Least Tanimoto similarity (--similar)."
    ),
    limit: int = typer.Option(20, "--limit", "-n", help="Most results shown."),
    query_format: str = typer.Option(
        "auto", "--format", help="How to read --substructure: auto, smiles or smarts."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Find compounds, or reactions by participant role: substructure, similarity, exact."""
    given = [
        (mode, q)
        for mode, q in (("substructure", substructure), ("similarity", similar), ("exact", exact))
        if q is not None
    ]
    if len(given) != 1:
        raise ChemgroundError("give exactly one of --substructure, --similar or --exact")
    mode, query = given[0]
    with state(ctx).workspace(readonly=True) as ws:  # a search never writes to the KB
        matches = search_structures(
            query,
            mode=mode,
            roles=role or None,
            reactions=reactions,
            threshold=threshold,
            limit=limit,
            query_format=query_format,
            kb=ws.kb,
        )  # type: ignore[arg-type]
        titles = {}
        if matches and isinstance(matches[0], ReactionMatch):
            found = ws.kb.get_reactions([m.reaction_id for m in matches])
            titles = {rid: (r.title or r.reaction_class or "") for rid, r in found.items()}
    if as_json:
        print_json(
            {
                "query": query,
                "mode": mode,
                "roles": role or None,
                "target": "reactions" if role or reactions else "compounds",
                "results": [
                    match_to_dict(m)
                    | (
                        {"title": titles.get(m.reaction_id, "")}
                        if isinstance(m, ReactionMatch)
                        else {}
                    )
                    for m in matches
                ],
            }
        )
        return
    if not matches:
        console.print(
            f"No {'reactions' if role or reactions else 'compounds'} match {query!r} ({mode})."
        )
        return
    if isinstance(matches[0], ReactionMatch):
        table = Table(
            "reaction", "title", "matching participants", "score", title=f"{mode}: {query}"
        )
        for m in matches:
            parts = "; ".join(f"{p.role.value}: {p.smiles}" for p in m.participants)
            table.add_row(
                m.reaction_id, titles.get(m.reaction_id, "")[:60], parts, f"{m.score:.3f}"
            )
    else:
        table = Table("id", "name", "SMILES", "score", title=f"{mode}: {query}")
        for m in matches:
            table.add_row(str(m.compound_id), m.name or "", m.smiles, f"{m.score:.3f}")
    console.print(table)
