"""Name -> structure through PubChem's PUG REST service: the optional online fallback.

Used only when the user allows the network (``settings.allow_network``); the offline path
(dictionary, shorthand, OPSIN) always runs first. PubChem asks clients to stay under five
requests a second, so calls are spaced; answers, "not found" included, are cached on disk so
a name is asked once. The InChI is requested (its property name is stable across PubChem's
API revisions) and turned into a structure by RDKit.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import httpx

from chemground.errors import ExternalToolError

PUBCHEM_REST = "https://pubchem.ncbi.nlm.nih.gov/rest/pug"


class PubChemClient:
    """Looks names up in PubChem (InChI of the first matching compound)."""

    def __init__(self, cache_path: Path | None = None, *, base_url: str = PUBCHEM_REST, timeout_s: float = 15.0,
                 min_interval_s: float = 0.25) -> None:
        self.base_url = base_url.rstrip("/")
        self.min_interval_s = min_interval_s
        self._http = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)))
        self._lock = threading.Lock()
        self._last_call = 0.0
        self._db: sqlite3.Connection | None = None
        if cache_path is not None:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(cache_path, check_same_thread=False, timeout=30)
            self._db.execute("CREATE TABLE IF NOT EXISTS names (name TEXT PRIMARY KEY, cid INTEGER, inchi TEXT)")

    def inchi_for_name(self, name: str) -> tuple[int, str] | None:
        """(CID, InChI) of the compound PubChem files under ``name``; None when it has none.

        Raises :class:`ExternalToolError` when PubChem cannot be reached or answers with an error,
        so a network problem is never mistaken for "no such compound".
        """
        key = " ".join(name.split())
        with self._lock:
            if self._db is not None:
                row = self._db.execute("SELECT cid, inchi FROM names WHERE name = ?", (key,)).fetchone()
                if row is not None:
                    return (row[0], row[1]) if row[1] else None
            wait = self.min_interval_s - (time.monotonic() - self._last_call)
            if wait > 0:
                time.sleep(wait)
            self._last_call = time.monotonic()
            found = self._ask(key)
            if self._db is not None:
                self._db.execute("INSERT OR REPLACE INTO names VALUES (?, ?, ?)",
                                 (key, found[0] if found else None, found[1] if found else None))
                self._db.commit()
            return found

    def _ask(self, name: str) -> tuple[int, str] | None:
        url = f"{self.base_url}/compound/name/property/InChI/JSON"
        try:
            reply = self._http.post(url, data={"name": name})
        except httpx.HTTPError as error:
            raise ExternalToolError(f"PubChem could not be reached ({type(error).__name__}: {error})") from error
        if reply.status_code == 404:
            return None
        if reply.status_code != 200:
            raise ExternalToolError(f"PubChem answered HTTP {reply.status_code} for {name!r}: {reply.text[:200]}")
        try:
            properties = reply.json()["PropertyTable"]["Properties"]
            first = properties[0]
            return int(first["CID"]), str(first["InChI"])
        except (json.JSONDecodeError, KeyError, IndexError, TypeError, ValueError) as error:
            raise ExternalToolError(f"PubChem's reply for {name!r} has no PropertyTable InChI: "
                                    f"{reply.text[:200]}") from error

    def close(self) -> None:
        self._http.close()
        if self._db is not None:
            self._db.close()
