"""A small PubChem PUG-REST / PUG-View client: chemground's opt-in online fallback.

Everything answers from the offline compound dictionary (and OPSIN) first; only when that lacks
the compound and the user allows the network (``settings.allow_network``, env
``CHEMGROUND_ALLOW_NETWORK=1``) do the compound tools and the extraction pipeline's name
resolution ask PubChem through this client. PubChem asks clients to stay under five requests a
second and answers 503 when busy, so requests are spaced process-wide and retried with
exponential backoff. Answers (JSON and "not found") are kept in an on-disk SQLite cache keyed
by the request, so a repeated question costs no request. Every failure is a
:class:`PubChemError` that says what was asked and what went wrong; nothing is swallowed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote, urlencode

import httpx

from chemground.cache import DiskCache
from chemground.chem.names import is_valid_cas
from chemground.errors import ChemgroundError, ConfigError

PUG_REST = "https://pubchem.ncbi.nlm.nih.gov/rest/pug"
CACHE_FILE = "pubchem-cache.sqlite"
NETWORK_HINT = "set CHEMGROUND_ALLOW_NETWORK=1 to enable the online PubChem look-up"
KINDS = ("name", "smiles", "inchikey", "cas")
PROPERTIES = (
    "MolecularFormula",
    "MolecularWeight",
    "SMILES",
    "ConnectivitySMILES",
    "IUPACName",
    "Charge",
)
# PubChem renamed IsomericSMILES -> SMILES and CanonicalSMILES -> ConnectivitySMILES in 2025; accept
# all,
# preferring the SMILES with stereochemistry.
SMILES_KEYS = ("SMILES", "IsomericSMILES", "ConnectivitySMILES", "CanonicalSMILES")
RETRY_STATUS = {429, 500, 502, 503, 504}
MAX_REQUESTS_PER_SECOND = 5.0


class PubChemError(ChemgroundError):
    """PubChem could not answer: unreachable, busy, refused the request or sent something
    unreadable."""


class PubChemNotFound(PubChemError, LookupError):
    """PubChem answered, and has no such compound or record."""


def network_allowed(settings: Any) -> bool:
    """Whether the user allowed online look-ups (off by default, and off without settings)."""
    return bool(getattr(settings, "allow_network", False))


def pug_view_url(pug_url: str) -> str:
    """The PUG-View base next to a PUG-REST base ('.../rest/pug' -> '.../rest/pug_view')."""
    base = pug_url.rstrip("/")
    if not base.endswith("/pug"):
        raise ConfigError(
            f"cannot derive the PubChem PUG-View URL from {pug_url!r}: CHEMGROUND_PUBCHEM_URL must "
            "end with '/pug' (like https://pubchem.ncbi.nlm.nih.gov/rest/pug)"
        )
    return base[: -len("/pug")] + "/pug_view"


class _RateLimiter:
    """Spaces requests process-wide (all clients together), as PubChem's usage policy asks."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self._lock = threading.Lock()
        self._last = 0.0

    def wait(self) -> None:
        with self._lock:
            delay = self._last + self.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._last = time.monotonic()


_LIMITER = _RateLimiter(MAX_REQUESTS_PER_SECOND)


class PubChem:
    """PUG-REST / PUG-View look-ups with timeouts, retries, rate limiting and a disk cache."""

    def __init__(
        self,
        base_url: str = PUG_REST,
        cache_path: Path | None = None,
        *,
        connect_timeout_s: float = 5.0,
        read_timeout_s: float = 20.0,
        attempts: int = 3,
        backoff_s: float = 1.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.read_timeout_s = read_timeout_s
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        self._http = httpx.Client(
            timeout=httpx.Timeout(read_timeout_s, connect=connect_timeout_s),
            headers={"User-Agent": "chemground"},
        )
        # replies by request: {"status", "body", "fetched_at"}
        self._cache = DiskCache(cache_path, name="PubChem cache", table="pug_replies")

    @classmethod
    def from_settings(cls, settings: Any) -> PubChem:
        """The client the tools use: ``settings.pubchem_url``, cache in ``settings.cache_dir``."""
        return cls(
            getattr(settings, "pubchem_url", None) or PUG_REST,
            Path(settings.cache_dir) / CACHE_FILE,
        )

    def close(self) -> None:
        self._http.close()
        self._cache.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- look-ups ---------------------------------------------------------------------------
    def cids(self, identifier: str, kind: str) -> list[int]:
        """PubChem CIDs (best match first) of a name, SMILES, InChIKey or CAS number.

        Names, CAS numbers and SMILES go in a POST form, so slashes, '#' and '+' need no escaping.
        """
        query = identifier.strip()
        if kind not in KINDS:
            raise PubChemError(f"unknown identifier kind {kind!r}; use one of {', '.join(KINDS)}")
        if not query:
            raise PubChemError(f"empty {kind} given for a PubChem look-up")
        if kind == "cas" and not is_valid_cas(query):
            raise PubChemError(f"{query!r} is not a valid CAS number (wrong format or check digit)")
        what = f"the CID of {kind} {query!r}"
        if kind == "inchikey":
            url, form = f"{self.base_url}/compound/inchikey/{quote(query, safe='')}/cids/JSON", None
        elif kind == "smiles":
            url, form = f"{self.base_url}/compound/smiles/cids/JSON", {"smiles": query}
        else:  # name or CAS number: PubChem files CAS numbers among the names
            url, form = f"{self.base_url}/compound/name/cids/JSON", {"name": query}
        found = self._get_json(
            url,
            what,
            lambda data: [int(c) for c in data["IdentifierList"]["CID"] if int(c) > 0],
            form,
        )
        if not found:  # PubChem answers CID 0 for a valid structure it does not hold
            raise PubChemNotFound(f"PubChem has no compound for {kind} {query!r}")
        return found

    def properties(self, cid: int) -> dict[str, Any]:
        """CID, MolecularFormula, MolecularWeight (float), SMILES, IUPACName and Charge (None when
        PubChem has none)."""
        url = f"{self.base_url}/compound/cid/{int(cid)}/property/{','.join(PROPERTIES)}/JSON"

        def parse(data: Any) -> dict[str, Any]:
            row = data["PropertyTable"]["Properties"][0]
            weight, charge = row.get("MolecularWeight"), row.get("Charge")
            return {
                "CID": int(row.get("CID", cid)),
                "MolecularFormula": row.get("MolecularFormula"),
                "MolecularWeight": None if weight is None else float(weight),
                "SMILES": next((row[k] for k in SMILES_KEYS if row.get(k)), None),
                "IUPACName": row.get("IUPACName"),
                "Charge": None if charge is None else int(charge),
            }

        return self._get_json(url, f"the properties of CID {cid}", parse)

    def inchi_for_name(self, name: str) -> tuple[int, str] | None:
        """(CID, InChI) of the first compound PubChem files under ``name``; None when it has none.

        The InChI property name is stable across PubChem's API revisions (the SMILES ones are not).
        """
        url = f"{self.base_url}/compound/name/property/InChI/JSON"
        try:
            row = self._get_json(
                url,
                f"the name {name!r}",
                lambda data: data["PropertyTable"]["Properties"][0],
                form={"name": " ".join(name.split())},
            )
        except PubChemNotFound:
            return None
        return int(row["CID"]), str(row["InChI"])

    def cas_numbers(self, cid: int) -> list[str]:
        """CAS numbers among the compound's synonyms (valid check digit, PubChem's order, no
        repeats)."""
        url = f"{self.base_url}/compound/cid/{int(cid)}/synonyms/JSON"
        synonyms = self._get_json(
            url,
            f"the synonyms of CID {cid}",
            lambda data: list(data["InformationList"]["Information"][0].get("Synonym", [])),
        )
        return list(
            dict.fromkeys(s.strip() for s in synonyms if isinstance(s, str) and is_valid_cas(s))
        )

    def ghs_hazard_statements(self, cid: int) -> list[str]:
        """GHS hazard statements ('H201: Explosive; mass explosion hazard', ...) from PUG-View.

        An empty list when PubChem has no GHS classification for the compound (PUG-View answers
        404).
        """
        url = (
            f"{pug_view_url(self.base_url)}/data/compound/{int(cid)}/JSON"
            "?heading=GHS+Classification"
        )

        def parse(data: Any) -> list[str]:
            out: list[str] = []
            stack = list(data["Record"].get("Section", []))
            while stack:
                section = stack.pop(0)
                for info in section.get("Information", []):
                    if info.get("Name") == "GHS Hazard Statements":
                        out.extend(
                            m["String"] for m in info.get("Value", {}).get("StringWithMarkup", [])
                        )
                stack.extend(section.get("Section", []))
            return list(dict.fromkeys(out))

        try:
            return self._get_json(url, f"the GHS classification of CID {cid}", parse)
        except PubChemNotFound:
            return []

    # -- transport --------------------------------------------------------------------------
    def _get_json(
        self, url: str, what: str, parse: Callable[[Any], Any], form: dict[str, str] | None = None
    ) -> Any:
        """Parsed answer to one request, from the cache or PubChem; caches JSON that parses and
        PubChem's 404 Faults."""
        method = "POST" if form is not None else "GET"
        key = f"{method} {url}" + (
            f"\n{urlencode(sorted(form.items()))}" if form is not None else ""
        )
        cached = self._cached(key)
        if cached is not None:
            status, body = cached
        else:
            reply = self._request(method, url, form, what)
            status, body = reply.status_code, reply.text
        if status == 404:
            fault = _fault(body)
            # a 404 without PubChem's Fault is a wrong URL, not an answer: neither cached nor "not
            # found"
            if not fault:
                raise PubChemError(
                    f"HTTP 404 without a PubChem Fault for {what} from {url}; is "
                    "CHEMGROUND_PUBCHEM_URL "
                    "right?"
                )
            if cached is None:
                self._store(key, status, body)
            raise PubChemNotFound(f"PubChem has no record for {what}: {fault}")
        if status != 200:
            fault = _fault(body)
            raise PubChemError(
                f"PubChem refused the request for {what} (HTTP {status}"
                f"{': ' + fault if fault else ''}): {url}"
            )
        try:
            data = json.loads(body)
        except ValueError:
            raise PubChemError(
                f"PubChem's answer for {what} is not valid JSON: {body[:200]!r}"
            ) from None
        if isinstance(data, dict) and "Fault" in data:
            raise PubChemError(f"PubChem reported an error for {what}: {_fault(body)}")
        try:
            value = parse(data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            raise PubChemError(
                f"PubChem's answer for {what} does not have the expected shape "
                f"({type(error).__name__}: {error}): {body[:200]!r}"
            ) from None
        if cached is None:
            self._store(key, status, body)
        return value

    def _request(
        self, method: str, url: str, form: dict[str, str] | None, what: str
    ) -> httpx.Response:
        """One request with retries on 429/5xx and connection errors (exponential backoff)."""
        problem, busy, retry_after = "", False, None
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(self._delay(attempt, retry_after))
            _LIMITER.wait()
            try:
                reply = self._http.request(method, url, data=form)
            except (
                httpx.ConnectTimeout,
                httpx.PoolTimeout,
                httpx.NetworkError,
                httpx.RemoteProtocolError,
            ) as error:
                problem, busy, retry_after = f"{type(error).__name__}: {error}", False, None
                continue
            except httpx.TimeoutException:
                raise PubChemError(
                    f"PubChem did not answer {what} within {self.read_timeout_s:g} s "
                    f"(read timeout); it may be overloaded, try again later"
                ) from None
            except httpx.HTTPError as error:
                raise PubChemError(
                    f"the request to PubChem for {what} failed ({type(error).__name__}: {error})"
                ) from None
            if reply.status_code in RETRY_STATUS or reply.status_code >= 500:
                problem, busy, retry_after = (
                    f"HTTP {reply.status_code}",
                    True,
                    reply.headers.get("Retry-After"),
                )
                continue
            return reply
        if busy:
            raise PubChemError(
                f"PubChem is busy: {what} still failed after {self.attempts} attempts ({problem}); "
                "try again later"
            )
        raise PubChemError(
            f"PubChem could not be reached at {self.base_url} for {what} after {self.attempts} "
            "attempts "
            f"({problem}); check the network connection or CHEMGROUND_PUBCHEM_URL"
        )

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Backoff before retry ``attempt``: backoff_s * 2**(attempt-1), or longer if the server's
        Retry-After asks (capped at 10 s so a tool call stays within its time limit)."""
        delay = self.backoff_s * 2 ** (attempt - 1)
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), 10.0))
            except ValueError:
                pass
        return delay

    def _cached(self, key: str) -> tuple[int, str] | None:
        value = self._cache.get_json(key)
        if not isinstance(value, dict) or not isinstance(value.get("body"), str):
            return None
        return int(value.get("status", 0)), value["body"]

    def _store(self, key: str, status: int, body: str) -> None:
        self._cache.put_json(key, {"status": status, "body": body, "fetched_at": time.time()})


def _fault(body: str) -> str:
    """'PUGREST.NotFound: No CID found' from a PubChem Fault body ('' when the body is no Fault)."""
    try:
        fault = json.loads(body)["Fault"]
        details = "; ".join(str(d) for d in fault.get("Details", []) if d)
        text = ": ".join(str(p) for p in (fault.get("Code"), fault.get("Message")) if p)
        return f"{text} ({details})" if details else text
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""


__all__ = [
    "NETWORK_HINT",
    "PUG_REST",
    "PubChem",
    "PubChemError",
    "PubChemNotFound",
    "is_valid_cas",
    "network_allowed",
    "pug_view_url",
]
