"""The KB's tables and columns, written once for both stores' schemas.

The two stores keep the same tables and columns, so a KB migrates row for row (ids and
reaction order kept) and :mod:`chemground.kb.rows` reads and writes both alike. They differ
only in column types (:data:`SQLITE_TYPES`, :data:`POSTGRES_TYPES`), in what each engine adds
to a table (PostgreSQL's cartridge and ``tsvector`` columns; SQLite's ``WITHOUT ROWID``) and
in their indexes, which each store's schema writes around these tables
(:mod:`chemground.kb.sqlite_schema`, :mod:`chemground.kb.pg_store`).
"""

from __future__ import annotations

from collections.abc import Mapping
from string import Template

SQLITE_TYPES = {"int": "INTEGER", "real": "REAL", "blob": "BLOB"}
POSTGRES_TYPES = {"int": "BIGINT", "real": "DOUBLE PRECISION", "blob": "BYTEA"}

# (columns, table constraint): ``$int``, ``$real`` and ``$blob`` are the store's types
_TABLES: dict[str, tuple[str, str]] = {
    "compounds": (
        """
    id $int PRIMARY KEY,
    inchikey TEXT UNIQUE,
    parent_inchikey TEXT,
    smiles TEXT,
    inchi TEXT,
    formula TEXT,
    molecular_weight $real,
    exact_mass $real,
    iupac_name TEXT,
    common_name TEXT,
    synonyms TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    pubchem_cid $int,
    cas TEXT,
    kind TEXT NOT NULL DEFAULT 'compound',
    source TEXT NOT NULL DEFAULT '',
    provenance TEXT NOT NULL DEFAULT '{}',
    fingerprint $blob""",
        "",
    ),
    "compound_keys": (
        """
    inchikey TEXT PRIMARY KEY,
    compound_id $int NOT NULL REFERENCES compounds(id)""",
        "",
    ),
    "compound_names": (
        """
    norm TEXT NOT NULL,
    compound_id $int NOT NULL REFERENCES compounds(id),
    rank INTEGER NOT NULL""",
        "PRIMARY KEY (norm, compound_id)",
    ),
    "reactions": (
        """
    rowid $int PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL DEFAULT '',
    title TEXT,
    reaction_class TEXT,
    description TEXT NOT NULL DEFAULT '',
    reaction_smiles TEXT,
    temperature_c $real,
    temperature_text TEXT,
    time_h $real,
    ph $real,
    pressure_bar $real,
    atmosphere TEXT,
    yield_percent $real,
    operations TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '',
    flags TEXT NOT NULL DEFAULT '[]',
    provenance TEXT NOT NULL DEFAULT '{}'""",
        "",
    ),
    "participants": (
        """
    reaction_rowid $int NOT NULL REFERENCES reactions(rowid),
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    compound_id $int REFERENCES compounds(id),
    name TEXT,
    smiles TEXT,
    inchikey TEXT,
    amount TEXT,
    unresolved_reason TEXT""",
        "PRIMARY KEY (reaction_rowid, position)",
    ),
    "imports": (
        """
    sha256 TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    summary TEXT NOT NULL""",
        "",
    ),
}


def create_table(
    name: str, types: Mapping[str, str], extra_columns: str = "", options: str = ""
) -> str:
    """``CREATE TABLE IF NOT EXISTS`` for one of the KB's tables, in a store's types.

    Args:
        name: the table (a key of the shared table list).
        types: :data:`SQLITE_TYPES` or :data:`POSTGRES_TYPES`.
        extra_columns: the store's own columns, each line ``,\\n    name TYPE ...``.
        options: written after the closing parenthesis (SQLite's `` WITHOUT ROWID``).
    """
    columns, constraint = _TABLES[name]
    body = Template(columns).substitute(types) + extra_columns
    if constraint:
        body += f",\n    {constraint}"
    return f"CREATE TABLE IF NOT EXISTS {name} ({body}\n){options};"
