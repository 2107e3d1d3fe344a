"""Reading the knowledge base into graph tables (columns, not objects), ready for bulk loading.

Reads the KB's graph rows (:mod:`chemground.kb.graph_rows`) through the
:class:`~chemground.kb.store.KnowledgeBase` interface, so the graph builds from a SQLite or a
PostgreSQL KB alike, and no ``Reaction`` models are built only to be flattened again.
Participants that are not linked to a compound and have no structure are left out (a name
alone is no identity: "title compound" would join unrelated reactions) and counted in the
summary.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from chemground.graph.schema import MOLECULE, REACTION, REL_BY_ROLE, RELATIONSHIPS
from chemground.kb.records import Role
from chemground.kb.store import KnowledgeBase
from chemground.progress import Progress

_ARROW_TYPES = {
    "STRING": pa.string(),
    "DOUBLE": pa.float64(),
    "INT64": pa.int64(),
    "BOOLEAN": pa.bool_(),
}


def _arrow_schema(properties, prefix: tuple[tuple[str, pa.DataType], ...] = ()) -> pa.Schema:
    return pa.schema([*prefix, *((p.name, _ARROW_TYPES[p.type]) for p in properties)])


MOLECULE_ARROW = _arrow_schema(MOLECULE.properties)
REACTION_ARROW = _arrow_schema(REACTION.properties)
EDGE_ARROW = {
    rel.type: _arrow_schema(rel.properties, (("from", pa.string()), ("to", pa.string())))
    for rel in RELATIONSHIPS
}


# Stoichiometric by-products that are never the product a synthesis step is run for: a route
# follows the main product, and the heaviest product of a Wittig, Appel or Mitsunobu reaction is
# triphenylphosphine oxide (issue 20), or bromoform in an Appel bromination. Salts, small gases
# and water are listed for the same reason.
BYPRODUCT_SMILES = (
    "O=P(c1ccccc1)(c1ccccc1)c1ccccc1",  # triphenylphosphine oxide
    "O=C(NC1CCCCC1)NC1CCCCC1",  # dicyclohexylurea (DCC couplings)
    "O=C1CCC(=O)N1",  # succinimide (NBS, NCS)
    "BrC(Br)Br",  # bromoform (Appel with CBr4), heavier than most alkyl bromides made
    "ClC(Cl)Cl",  # chloroform (Appel with CCl4, haloform reaction)
    "OC(=O)c1cccc(Cl)c1",  # 3-chlorobenzoic acid (mCPBA oxidations)
    "c1c[nH]cn1",  # imidazole (CDI couplings)
    "On1nnc2ccccc21",  # HOBt (peptide couplings)
    "Cc1ccc(S(=O)(=O)O)cc1",  # p-toluenesulfonic acid (tosylate leaving groups)
    "CCOC(=O)NNC(=O)OCC",  # diethyl hydrazinedicarboxylate (DEAD, Mitsunobu)
    "CC(C)OC(=O)NNC(=O)OC(C)C",  # diisopropyl hydrazinedicarboxylate (DIAD)
    "O",
    "Cl",
    "Br",
    "I",
    "F",
    "[H][H]",
    "N#N",
    "O=C=O",
    "O=S=O",
    "[C-]#[O+]",
    "[Na+].[Cl-]",
    "[Na+].[Br-]",
    "[Na+].[I-]",
    "[K+].[Cl-]",
    "[K+].[Br-]",
    "[Li+].[Cl-]",
    "CCN(CC)CC.Cl",  # triethylamine hydrochloride
)


def byproduct_keys() -> frozenset[str]:
    """InChIKeys of ``BYPRODUCT_SMILES`` (computed once)."""
    global _BYPRODUCT_KEYS
    if _BYPRODUCT_KEYS is None:
        from chemground.chem.structure import structure_from_smiles

        _BYPRODUCT_KEYS = frozenset(structure_from_smiles(s).inchikey for s in BYPRODUCT_SMILES)
    return _BYPRODUCT_KEYS


_BYPRODUCT_KEYS: frozenset[str] | None = None


def main_product_key(products: list[tuple[float, int, str, Any]], inchikeys: dict[str, str]) -> str:
    """The product a step is run for: the heaviest that is not a known by-product (the heaviest
    of all when every product is one).

    Args:
        products: ``(molecular weight, position, key, amount)`` per product of one reaction.
        inchikeys: molecule key -> InChIKey, for the products that have one.

    Returns:
        The main product's molecule key.
    """
    byproducts = byproduct_keys()
    wanted = [p for p in products if inchikeys.get(p[2]) not in byproducts] or products
    return max(wanted, key=lambda item: (item[0], -item[1]))[2]


def molecule_key(inchikey: str | None, compound_id: int | None) -> str | None:
    """A molecule's node key: its InChIKey, else its KB compound id, else None (left out)."""
    if inchikey:
        return inchikey
    if compound_id is not None:
        return f"compound:{compound_id}"
    return None


def conditions_text(temperature_c, temperature_text, time_h, ph, pressure_bar, atmosphere) -> str:
    """One readable line, e.g. '78 °C; 4 h; under N2'."""
    parts = []
    if temperature_c is not None:
        parts.append(f"{temperature_c:g} °C")
    if temperature_text:
        parts.append(str(temperature_text))
    if time_h is not None:
        parts.append(f"{time_h:g} h")
    if pressure_bar is not None:
        parts.append(f"{pressure_bar:g} bar")
    if ph is not None:
        parts.append(f"pH {ph:g}")
    if atmosphere:
        parts.append(f"under {atmosphere}")
    return "; ".join(parts)


@dataclass
class GraphTables:
    """Node and edge tables of (part of) the graph, plus what was left out."""

    molecules: pa.Table
    reactions: pa.Table
    edges: dict[str, pa.Table]
    max_rowid: int
    skipped_participants: int = 0
    skipped_names: dict[str, int] = field(default_factory=dict)

    @property
    def edge_count(self) -> int:
        return sum(t.num_rows for t in self.edges.values())


def kb_fingerprint(kb: KnowledgeBase) -> dict[str, Any]:
    """What decides whether a graph built earlier is still up to date with ``kb``.

    Args:
        kb: the knowledge base (any backend).

    Returns:
        Reaction and compound counts and last ids, and the number of imports.
    """
    compounds, max_compound_id, reactions, max_rowid = kb.records_state()
    return {
        "reactions": reactions,
        "max_rowid": max_rowid,
        "compounds": compounds,
        "max_compound_id": max_compound_id,
        "imports": kb.import_count(),
    }


def export_tables(
    kb: KnowledgeBase,
    since_rowid: int = 0,
    existing_molecules: set[str] | None = None,
    progress: Progress | None = None,
) -> GraphTables:
    """Graph tables for the KB reactions stored after ``since_rowid``.

    Args:
        kb: the knowledge base (any backend).
        since_rowid: the last reaction already in the graph (0: all).
        existing_molecules: node keys already in the graph, not exported again (what makes
            an incremental update append-only).
        progress: called with ("export", done, total).

    Returns:
        The node and edge tables, and what was left out.
    """
    existing = existing_molecules or set()
    reaction_rows = kb.reaction_rows_after(since_rowid)
    if progress:
        progress("export", 0, len(reaction_rows))
    reaction_id: dict[int, str] = {}
    reactions: dict[str, list] = {p.name: [] for p in REACTION.properties}
    max_rowid = since_rowid
    for row in reaction_rows:
        reaction_id[row.rowid] = row.id
        max_rowid = max(max_rowid, row.rowid)
        values = {
            "id": row.id,
            "source": row.source,
            "dataset": row.dataset,
            "title": row.title,
            "reaction_class": row.reaction_class,
            "reaction_smiles": row.reaction_smiles,
            "yield_percent": row.yield_percent,
            "temperature_c": row.temperature_c,
            "temperature_text": row.temperature_text,
            "time_h": row.time_h,
            "pressure_bar": row.pressure_bar,
            "ph": row.ph,
            "atmosphere": row.atmosphere,
            "conditions": conditions_text(
                row.temperature_c,
                row.temperature_text,
                row.time_h,
                row.ph,
                row.pressure_bar,
                row.atmosphere,
            ),
            "main_product": None,
        }
        for name, column in reactions.items():
            column.append(values[name])

    participant_rows = kb.participant_rows_after(since_rowid)
    edges: dict[str, dict[str, list]] = {
        rel.type: {"from": [], "to": [], **{p.name: [] for p in rel.properties}}
        for rel in RELATIONSHIPS
    }
    seen_edges: set[tuple[int, str, str]] = set()
    needed_compounds: set[int] = set()
    orphan_molecules: dict[
        str, tuple[str | None, str | None]
    ] = {}  # key -> (smiles, name) without compound row
    products: dict[int, list[tuple[float, int, str, str | None]]] = defaultdict(list)
    product_inchikeys: dict[str, str] = {}
    skipped = 0
    skipped_names: dict[str, int] = defaultdict(int)
    for (
        rowid,
        position,
        role_text,
        compound_id,
        p_inchikey,
        p_smiles,
        p_name,
        amount,
        c_inchikey,
        c_weight,
    ) in participant_rows:
        key = molecule_key(c_inchikey or p_inchikey, compound_id)
        if key is None:
            skipped += 1
            skipped_names[p_name or p_smiles or "?"] += 1
            continue
        role = Role(role_text)
        rel = REL_BY_ROLE[role]
        if (rowid, rel.type, key) in seen_edges:
            continue
        seen_edges.add((rowid, rel.type, key))
        if compound_id is not None:
            needed_compounds.add(compound_id)
        elif key not in existing:
            orphan_molecules.setdefault(key, (p_smiles, p_name))
        if role is Role.PRODUCT:
            products[rowid].append((c_weight or 0.0, position, key, amount))
            if c_inchikey or p_inchikey:
                product_inchikeys[key] = c_inchikey or p_inchikey
            continue
        table = edges[rel.type]
        table["from"].append(key)
        table["to"].append(reaction_id[rowid])
        table["amount"].append(amount)
    row_index = {rowid: i for i, rowid in enumerate(reaction_id)}
    for rowid, items in products.items():
        main_key = main_product_key(items, product_inchikeys)
        reactions["main_product"][row_index[rowid]] = main_key
        table = edges["PRODUCES"]
        for _weight, _position, key, amount in items:
            table["from"].append(reaction_id[rowid])
            table["to"].append(key)
            table["amount"].append(amount)

    molecules: dict[str, list] = {p.name: [] for p in MOLECULE.properties}

    def add_molecule(values: dict[str, Any]) -> None:
        for name, column in molecules.items():
            column.append(values.get(name))

    for row in kb.molecule_rows(needed_compounds):
        key = molecule_key(row.inchikey, row.id)
        if key in existing:
            continue
        existing.add(key)
        first_synonym = (
            (row.synonyms or [None])[0] if not (row.common_name or row.iupac_name) else None
        )
        add_molecule(
            {
                "key": key,
                "inchikey": row.inchikey,
                "smiles": row.smiles,
                "name": row.common_name or row.iupac_name or first_synonym or row.smiles,
                "iupac_name": row.iupac_name,
                "formula": row.formula,
                "molecular_weight": row.molecular_weight,
                "compound_id": row.id,
            }
        )
    for key, (smiles, name) in orphan_molecules.items():
        if key in existing:
            continue
        existing.add(key)
        add_molecule({"key": key, "inchikey": key, "smiles": smiles, "name": name or smiles})
    if progress:
        progress("export", len(reaction_rows), None)
    return GraphTables(
        molecules=pa.table(molecules, schema=MOLECULE_ARROW),
        reactions=pa.table(reactions, schema=REACTION_ARROW),
        edges={rel: pa.table(columns, schema=EDGE_ARROW[rel]) for rel, columns in edges.items()},
        max_rowid=max_rowid,
        skipped_participants=skipped,
        skipped_names=dict(sorted(skipped_names.items(), key=lambda kv: -kv[1])),
    )
