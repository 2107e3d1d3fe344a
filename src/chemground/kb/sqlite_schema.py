"""The SQLite KB's schema and the conversions between its rows and records.

Tables: ``compounds`` (one row per structure, keyed by InChIKey), ``compound_names``
(normalised name -> compound, for exact name look-up), ``compound_keys`` (extra InChIKeys
that identify the same compound, e.g. the dictionary's own key where RDKit's differs),
``reactions`` and the link table ``participants`` (reaction, compound, role), FTS5 indexes
over reaction and compound text, ``imports`` (what was imported, for idempotency),
``compound_screens`` (substructure pre-screen fingerprints) and ``meta``. The PostgreSQL
store uses the same tables and columns.
"""

from __future__ import annotations

import json
import re
import sqlite3

from chemground.chem.names import normalize_name
from chemground.chem.structure import Structure
from chemground.kb.records import Compound
from chemground.kb.sqlite_structure import SCREEN_SCHEMA

SCHEMA_VERSION = "1"

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);

CREATE TABLE IF NOT EXISTS compounds (
    id INTEGER PRIMARY KEY,
    inchikey TEXT UNIQUE,
    parent_inchikey TEXT,
    smiles TEXT,
    inchi TEXT,
    formula TEXT,
    molecular_weight REAL,
    exact_mass REAL,
    iupac_name TEXT,
    common_name TEXT,
    synonyms TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    pubchem_cid INTEGER,
    cas TEXT,
    kind TEXT NOT NULL DEFAULT 'compound',
    source TEXT NOT NULL DEFAULT '',
    provenance TEXT NOT NULL DEFAULT '{}',
    fingerprint BLOB
);
CREATE INDEX IF NOT EXISTS compounds_parent ON compounds(parent_inchikey);
CREATE INDEX IF NOT EXISTS compounds_connectivity ON compounds(substr(inchikey, 1, 14));
CREATE INDEX IF NOT EXISTS compounds_smiles ON compounds(smiles);
CREATE INDEX IF NOT EXISTS compounds_cas ON compounds(cas);

CREATE TABLE IF NOT EXISTS compound_keys (
    inchikey TEXT PRIMARY KEY,
    compound_id INTEGER NOT NULL REFERENCES compounds(id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS compound_names (
    norm TEXT NOT NULL,
    compound_id INTEGER NOT NULL REFERENCES compounds(id),
    rank INTEGER NOT NULL,
    PRIMARY KEY (norm, compound_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS reactions (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL DEFAULT '',
    title TEXT,
    reaction_class TEXT,
    description TEXT NOT NULL DEFAULT '',
    reaction_smiles TEXT,
    temperature_c REAL,
    temperature_text TEXT,
    time_h REAL,
    ph REAL,
    pressure_bar REAL,
    atmosphere TEXT,
    yield_percent REAL,
    operations TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '',
    flags TEXT NOT NULL DEFAULT '[]',
    provenance TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS reactions_source ON reactions(source);

CREATE TABLE IF NOT EXISTS participants (
    reaction_rowid INTEGER NOT NULL REFERENCES reactions(rowid),
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    compound_id INTEGER REFERENCES compounds(id),
    name TEXT,
    smiles TEXT,
    inchikey TEXT,
    amount TEXT,
    unresolved_reason TEXT,
    PRIMARY KEY (reaction_rowid, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS participants_compound ON participants(compound_id, role);

CREATE VIRTUAL TABLE IF NOT EXISTS reactions_fts USING fts5(
    title, description, notes, content='reactions', content_rowid='rowid'
);
CREATE VIRTUAL TABLE IF NOT EXISTS compounds_fts USING fts5(
    iupac_name, common_name, synonyms, description, content='compounds', content_rowid='id'
);

CREATE TABLE IF NOT EXISTS imports (
    sha256 TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    format TEXT NOT NULL,
    summary TEXT NOT NULL
);
"""
    + SCREEN_SCHEMA
)

_COMPOUND_COLUMNS = (
    "id, inchikey, parent_inchikey, smiles, inchi, formula, molecular_weight, exact_mass, "
    "iupac_name, common_name, synonyms, description, pubchem_cid, cas, kind, source, provenance"
)
_REACTION_COLUMNS = (
    "rowid, id, source, dataset, title, reaction_class, description, reaction_smiles, "
    "temperature_c, "
    "temperature_text, time_h, ph, pressure_bar, atmosphere, yield_percent, operations, notes, "
    "flags, provenance"
)
# Which compound wins a shared name: the curated dictionary files beat the large PubChem
# file (as in ``chemicals``, where later files override), and any dictionary record beats a
# compound first seen in an imported dataset.
CURATED_DICTIONARY_SOURCES = (
    "pubchem-small",
    "chemicals-user-db",
    "chemicals-cations",
    "chemicals-anions",
    "chemicals-inorganic",
    "chemicals-elements",
    "chemicals-mixtures",
    "abbreviations",
    "chemground-descriptions",
)
_SOURCE_PRIORITY_SQL = (
    "CASE WHEN c.source IN ("
    + ", ".join(f"'{s}'" for s in CURATED_DICTIONARY_SOURCES)
    + ") THEN 2 "
    "WHEN c.source = 'pubchem-large' THEN 1 ELSE 0 END"
)
_FTS_TOKEN = re.compile(r"[\w\-]+", re.UNICODE)


def _structure_from_row(row: sqlite3.Row) -> Structure | None:
    if not row["smiles"] or not row["inchikey"]:
        return None
    return Structure(
        smiles=row["smiles"],
        inchikey=row["inchikey"],
        formula=row["formula"] or "",
        molecular_weight=row["molecular_weight"] or 0.0,
        exact_mass=row["exact_mass"] or 0.0,
        parent_inchikey=row["parent_inchikey"] or row["inchikey"],
    )


def _compound_from_row(row: sqlite3.Row) -> Compound:
    return Compound(
        id=row["id"],
        inchikey=row["inchikey"],
        parent_inchikey=row["parent_inchikey"],
        smiles=row["smiles"],
        inchi=row["inchi"],
        formula=row["formula"],
        molecular_weight=row["molecular_weight"],
        exact_mass=row["exact_mass"],
        iupac_name=row["iupac_name"],
        common_name=row["common_name"],
        synonyms=json.loads(row["synonyms"]),
        description=row["description"],
        pubchem_cid=row["pubchem_cid"],
        cas=row["cas"],
        kind=row["kind"],
        source=row["source"],
        provenance=json.loads(row["provenance"]),
    )


def _matched_name(row: sqlite3.Row, normalized: str) -> str:
    for name in [row["iupac_name"], row["common_name"], *json.loads(row["synonyms"])]:
        if name and normalize_name(name) == normalized:
            return name
    return normalized


def fts_query(text: str) -> str:
    """A safe FTS5 query: every word quoted, OR-ed (so punctuation cannot break the syntax)."""
    tokens = [t for t in _FTS_TOKEN.findall(text) if len(t) > 1]
    return " OR ".join('"' + t.replace('"', "") + '"' for t in tokens[:64])


def _json(value: list | dict) -> str:
    """JSON text of a list/dict column; empty ones (most flags and synonyms) without the encoder."""
    if not value:
        return "[]" if isinstance(value, list) else "{}"
    return json.dumps(value)
