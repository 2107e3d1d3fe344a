"""A digest of everything a KB stores, to assert that an operation changed nothing."""

from __future__ import annotations

import hashlib

from chemground.kb.sqlite_store import SQLiteKB

TABLES = {
    "compounds": "id",
    "compound_names": "norm, compound_id",
    "compound_keys": "inchikey",
    "reactions": "rowid",
    "participants": "reaction_rowid, position",
    "meta": "key",
}


def kb_digest(kb: SQLiteKB) -> dict[str, str]:
    out = {}
    for table, order in TABLES.items():
        digest = hashlib.sha256()
        for row in kb.connection.execute(f"SELECT * FROM {table} ORDER BY {order}"):
            digest.update(repr(tuple(row)).encode())
        out[table] = digest.hexdigest()
    return out
