"""Name resolution for extraction: formulas, spellings, and PubChem only behind the network flag."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from chemground.extract.resolve import (
    ExtractedNameResolver,
    formula_counts,
    hill_formula,
    lookup_for_workspace,
)
from chemground.pubchem import PubChem
from chemground.settings import Settings
from chemground.workspace import Workspace


def test_formulas_written_as_names():
    assert hill_formula(formula_counts("K2CO3")) == "CK2O3"
    assert hill_formula(formula_counts("CH2Cl2")) == "CH2Cl2"
    assert hill_formula(formula_counts("LiOH.H2O")) == "H3LiO2"
    assert hill_formula(formula_counts("Ca(OH)2")) == "CaH2O2"
    assert (
        formula_counts("ethanol") is None
        and formula_counts("Pd(OAc)2") is None
        and formula_counts("C") is None
    )


def test_offline_resolution_sources(lookup):
    found = lookup.resolve_many(
        ["ethanol", "CCO", "K2CO3", "2-chloro-5-methylpyridine", "compound 3"]
    )
    assert found["ethanol"].source == "dictionary" and found["ethanol"].structure.smiles == "CCO"
    assert (
        found["CCO"].source == "smiles" and found["CCO"].compound_id == found["ethanol"].compound_id
    )
    assert found["K2CO3"].resolved and found["K2CO3"].structure.formula == "CK2O3"
    assert found["2-chloro-5-methylpyridine"].source == "opsin"
    assert not found["compound 3"].resolved and "label" in found["compound 3"].reason


@pytest.mark.parametrize(
    "label", ["( a )", "(XVI)", "monohydrate", "hydrochloride", "free base", "A"]
)
def test_labels_and_salt_forms_never_resolve(lookup, label):
    assert not lookup.resolve(label).resolved


def test_a_formula_name_must_have_that_formula(lookup, kb_copy):
    # a noisy synonym: pretend the dictionary files "CS2" under water; the formula decides
    water = kb_copy.lookup_name("water")[0].compound_id
    kb_copy.execute("INSERT OR IGNORE INTO compound_names VALUES ('cs2', ?, 2)", (water,))
    check = lookup.resolve("CS2")
    assert check.structure is not None and check.structure.formula == "CS2"


def test_pubchem_is_not_asked_when_the_network_is_off(tmp_path, small_kb_path):
    settings = Settings(kb={"path": small_kb_path}, cache_dir=tmp_path, allow_network=False)
    with Workspace(settings, readonly=True) as ws:
        lookup = lookup_for_workspace(ws)
        assert lookup.pubchem is None
        check = lookup.resolve("frobnozzle blue")
    assert not check.resolved and "network off" in check.reason


class _FakePubChem:
    """PUG REST look-alike on 127.0.0.1: knows one name."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                name = parse_qs(body)["name"][0]
                outer.requests.append((self.path, name))
                if name == "frobnozzle blue":
                    data = json.dumps(
                        {
                            "PropertyTable": {
                                "Properties": [
                                    {"CID": 702, "InChI": "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3"}
                                ]
                            }
                        }
                    ).encode()
                    self.send_response(200)
                else:
                    data = b'{"Fault": {"Code": "PUGREST.NotFound"}}'
                    self.send_response(404)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/rest/pug"


@pytest.fixture
def fake_pubchem():
    server = _FakePubChem()
    yield server
    server.server.shutdown()


def test_pubchem_fallback_with_cache(kb_copy, tmp_path, fake_pubchem):
    client = PubChem(fake_pubchem.url, tmp_path / "pubchem.sqlite")
    lookup = ExtractedNameResolver(kb_copy, None, client)
    check = lookup.resolve("frobnozzle blue")
    assert check.source == "pubchem" and check.structure.smiles == "CCO"
    assert not lookup.resolve("no such thing").resolved
    assert fake_pubchem.requests[0] == (
        "/rest/pug/compound/name/property/InChI/JSON",
        "frobnozzle blue",
    )
    again = PubChem(fake_pubchem.url, tmp_path / "pubchem.sqlite")
    assert (
        again.inchi_for_name("frobnozzle blue")[0] == 702
        and again.inchi_for_name("no such thing") is None
    )
    assert len(fake_pubchem.requests) == 2  # answers, "not found" included, came from the cache
