"""The SQLite KB's schema (the conversions between rows and records are shared by both
stores: :mod:`chemground.kb.rows`).

Tables: ``compounds`` (one row per structure, keyed by InChIKey), ``compound_names``
(normalised name -> compound, for exact name look-up), ``compound_keys`` (extra InChIKeys
that identify the same compound, e.g. the dictionary's own key where RDKit's differs),
``reactions`` and the link table ``participants`` (reaction, compound, role), FTS5 indexes
over reaction and compound text, ``imports`` (what was imported, for idempotency),
``compound_screens`` (substructure pre-screen fingerprints) and ``meta``. The PostgreSQL
store uses the same tables and columns.
"""

from __future__ import annotations

from chemground.kb.rows import (
    COMPOUND_COLUMNS,
    CURATED_DICTIONARY_SOURCES,
    REACTION_COLUMNS,
    SOURCE_PRIORITY_SQL,
    compound_from_row,
    json_text,
    matched_name,
    structure_from_row,
)
from chemground.kb.sqlite_structure import SCREEN_SCHEMA
from chemground.kb.text_query import FTS_TOKEN, fts_query

__all__ = [
    "CURATED_DICTIONARY_SOURCES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "fts_query",
]

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

# The row names below lived here before both stores shared them (chemground.kb.rows);
# sqlite_store re-exports them, so the old names keep working.
_COMPOUND_COLUMNS = COMPOUND_COLUMNS
_REACTION_COLUMNS = REACTION_COLUMNS
_SOURCE_PRIORITY_SQL = SOURCE_PRIORITY_SQL
_FTS_TOKEN = FTS_TOKEN
_structure_from_row = structure_from_row
_compound_from_row = compound_from_row
_matched_name = matched_name
_json = json_text
