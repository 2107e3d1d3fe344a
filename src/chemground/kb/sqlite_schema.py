"""The SQLite KB's schema (the conversions between rows and records are shared by both
stores: :mod:`chemground.kb.rows`).

Tables: ``compounds`` (one row per structure, keyed by InChIKey), ``compound_names``
(normalised name -> compound, for exact name look-up), ``compound_keys`` (extra InChIKeys
that identify the same compound, e.g. the dictionary's own key where RDKit's differs),
``reactions`` and the link table ``participants`` (reaction, compound, role), FTS5 indexes
over reaction and compound text, ``imports`` (what was imported, for idempotency),
``compound_screens`` (substructure pre-screen fingerprints) and ``meta``. The PostgreSQL
store uses the same tables and columns (:mod:`chemground.kb.schema_tables`).
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
from chemground.kb.schema_tables import SQLITE_TYPES, create_table
from chemground.kb.sqlite_structure import SCREEN_SCHEMA
from chemground.kb.text_query import FTS_TOKEN, fts_query

__all__ = [
    "CURATED_DICTIONARY_SOURCES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "fts_query",
]

SCHEMA_VERSION = "1"

_NO_ROWID = " WITHOUT ROWID"  # tables read by their primary key only

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);

{create_table("compounds", SQLITE_TYPES)}
CREATE INDEX IF NOT EXISTS compounds_parent ON compounds(parent_inchikey);
CREATE INDEX IF NOT EXISTS compounds_connectivity ON compounds(substr(inchikey, 1, 14));
CREATE INDEX IF NOT EXISTS compounds_smiles ON compounds(smiles);
CREATE INDEX IF NOT EXISTS compounds_cas ON compounds(cas);

{create_table("compound_keys", SQLITE_TYPES, options=_NO_ROWID)}

{create_table("compound_names", SQLITE_TYPES, options=_NO_ROWID)}

{create_table("reactions", SQLITE_TYPES)}
CREATE INDEX IF NOT EXISTS reactions_source ON reactions(source);

{create_table("participants", SQLITE_TYPES, options=_NO_ROWID)}
CREATE INDEX IF NOT EXISTS participants_compound ON participants(compound_id, role);

CREATE VIRTUAL TABLE IF NOT EXISTS reactions_fts USING fts5(
    title, description, notes, content='reactions', content_rowid='rowid'
);
CREATE VIRTUAL TABLE IF NOT EXISTS compounds_fts USING fts5(
    iupac_name, common_name, synonyms, description, content='compounds', content_rowid='id'
);

{create_table("imports", SQLITE_TYPES)}
{SCREEN_SCHEMA}"""

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
