"""The online PubChem fallback, against a fake PUG-REST / PUG-View server on 127.0.0.1.

No test reaches pubchem.ncbi.nlm.nih.gov: the server below answers with canned JSON shaped
like PubChem's, counts the requests, and can answer slowly, with 503s or with broken JSON.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import pytest

from chemground.agent.registry import ToolContext
from chemground.agent.runner import ToolOffline, ToolRunner
from chemground.agent.validation import ToolError
from chemground.errors import ConfigError
from chemground.pubchem import (
    NETWORK_HINT,
    PubChem,
    PubChemError,
    PubChemNotFound,
    is_valid_cas,
    pug_view_url,
)
from chemground.settings import Settings, get_settings

NOT_FOUND = {
    "Fault": {
        "Code": "PUGREST.NotFound",
        "Message": "No CID found",
        "Details": ["No CID found that matches the given name"],
    }
}
VIEW_NOT_FOUND = {"Fault": {"Code": "PUGVIEW.NotFound", "Message": "No data found for CID"}}
# CIDs the fake server knows and the small dictionary does not
ZORB = 999999001  # "zorbonium blue", hexadecanol's structure
PHOS = 999999002  # CAS 1234-56-6, phosphoryl chloride's structure (a controlled chemical)


def identifiers(*cids: int) -> dict:
    return {"IdentifierList": {"CID": list(cids)}}


def property_row(cid: int, **values) -> dict:
    return {"PropertyTable": {"Properties": [{"CID": cid, **values}]}}


def synonyms(cid: int, *names: str) -> dict:
    return {"InformationList": {"Information": [{"CID": cid, "Synonym": list(names)}]}}


def ghs_record(cid: int, *statements: str) -> dict:
    """A PUG-View record as PubChem nests it: Safety and Hazards > Hazards Identification > GHS
    Classification."""
    info = [
        {
            "ReferenceNumber": 1,
            "Name": "Pictogram(s)",
            "Value": {
                "StringWithMarkup": [
                    {"String": " ", "Markup": [{"Type": "Icon", "Extra": "Explosive"}]}
                ]
            },
        },
        {
            "ReferenceNumber": 1,
            "Name": "Signal",
            "Value": {"StringWithMarkup": [{"String": "Danger"}]},
        },
        {
            "ReferenceNumber": 1,
            "Name": "GHS Hazard Statements",
            "Value": {"StringWithMarkup": [{"String": s} for s in statements]},
        },
        {
            "ReferenceNumber": 1,
            "Name": "Precautionary Statement Codes",
            "Value": {"StringWithMarkup": [{"String": "P210, P230, P240"}]},
        },
    ]
    return {
        "Record": {
            "RecordType": "CID",
            "RecordNumber": cid,
            "RecordTitle": "compound",
            "Section": [
                {
                    "TOCHeading": "Safety and Hazards",
                    "Section": [
                        {
                            "TOCHeading": "Hazards Identification",
                            "Section": [{"TOCHeading": "GHS Classification", "Information": info}],
                        }
                    ],
                }
            ],
        }
    }


class FakePubChem:
    """Routes (method, path[, form]) -> answers (status, body, delay); the last answer repeats."""

    def __init__(self) -> None:
        self.routes: dict[tuple, list[tuple[int, object, float]]] = {}
        self.requests: list[tuple[str, str, dict]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self._answer("GET", {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._answer("POST", dict(parse_qsl(self.rfile.read(length).decode())))

            def _answer(self, method: str, form: dict) -> None:
                fake.requests.append((method, self.path, form))
                status, body, delay = fake.lookup(method, self.path, form)
                if delay:
                    time.sleep(delay)
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (read timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/rest/pug"

    def add(self, method: str, path: str, *answers, form: dict | None = None) -> None:
        """Answers are bodies (status 200) or (status, body) or (status, body, delay) tuples."""
        normal = [a if isinstance(a, tuple) else (200, a) for a in answers]
        self.routes[(method, "/rest" + path, tuple(sorted(form.items())) if form else None)] = [
            (a[0], a[1], a[2] if len(a) > 2 else 0.0) for a in normal
        ]

    def lookup(self, method: str, path: str, form: dict) -> tuple[int, object, float]:
        for key in (
            (method, path, tuple(sorted(form.items())) if form else None),
            (method, path, None),
        ):
            answers = self.routes.get(key)
            if answers:
                return answers.pop(0) if len(answers) > 1 else answers[0]
        return 404, NOT_FOUND, 0.0

    def count(self, path: str | None = None) -> int:
        return sum(1 for _, p, _ in self.requests if path is None or p == "/rest" + path)


@pytest.fixture
def fake():
    server = FakePubChem()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


@pytest.fixture
def client(fake, tmp_path):
    with PubChem(
        fake.url, tmp_path / "cache" / "pubchem-cache.sqlite", read_timeout_s=0.5, backoff_s=0.01
    ) as pubchem:
        yield pubchem


@pytest.fixture
def online_context(fake, small_kb_path, tmp_path) -> ToolContext:
    settings = Settings(
        kb={"path": small_kb_path},
        cache_dir=tmp_path / "cache",
        allow_network=True,
        pubchem_url=fake.url,
    )
    return ToolContext(settings=settings, files_dir=tmp_path / "files")


def serve_zorbonium(fake: FakePubChem) -> None:
    fake.add(
        "POST", "/pug/compound/name/cids/JSON", identifiers(ZORB), form={"name": "zorbonium blue"}
    )
    fake.add(
        "GET",
        f"/pug/compound/cid/{ZORB}/property/MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,"
        "IUPACName,Charge/JSON",
        property_row(
            ZORB,
            MolecularFormula="C16H34O",
            MolecularWeight="242.44",
            SMILES="CCCCCCCCCCCCCCCCO",
            ConnectivitySMILES="CCCCCCCCCCCCCCCCO",
            IUPACName="hexadecan-1-ol",
            Charge=0,
        ),
    )
    fake.add(
        "GET",
        f"/pug/compound/cid/{ZORB}/synonyms/JSON",
        synonyms(
            ZORB, "zorbonium blue", "36653-82-5", "EINECS 253-149-0", "36653-82-4", "36653-82-4"
        ),
    )


# --- the client ----------------------------------------------------------------------------


def test_cid_lookups_by_each_kind(fake, client):
    fake.add(
        "POST", "/pug/compound/name/cids/JSON", identifiers(2244, 12345), form={"name": "aspirin"}
    )
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(702), form={"name": "64-17-5"})
    fake.add(
        "POST",
        "/pug/compound/smiles/cids/JSON",
        identifiers(2244),
        form={"smiles": "CC(=O)OC1=CC=CC=C1C(=O)O"},
    )
    fake.add(
        "GET", "/pug/compound/inchikey/BSYNRYMUTXBXSQ-UHFFFAOYSA-N/cids/JSON", identifiers(2244)
    )

    assert client.cids("aspirin", "name") == [2244, 12345]
    assert client.cids("64-17-5", "cas") == [702]
    assert client.cids("CC(=O)OC1=CC=CC=C1C(=O)O", "smiles") == [2244]
    assert client.cids("BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "inchikey") == [2244]
    # SMILES travel in a POST form, so '#', '/' and '+' need no URL escaping
    assert (
        "POST",
        "/rest/pug/compound/smiles/cids/JSON",
        {"smiles": "CC(=O)OC1=CC=CC=C1C(=O)O"},
    ) in fake.requests
    with pytest.raises(PubChemError, match="unknown identifier kind"):
        client.cids("aspirin", "formula")
    with pytest.raises(PubChemError, match="not a valid CAS number"):
        client.cids("64-17-6", "cas")


def test_cid_zero_means_pubchem_does_not_hold_the_structure(fake, client):
    fake.add("POST", "/pug/compound/smiles/cids/JSON", identifiers(0))
    with pytest.raises(PubChemNotFound, match="no compound for smiles"):
        client.cids("CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCl", "smiles")


def test_properties_new_and_legacy_smiles_keys(fake, client):
    fake.add(
        "GET",
        "/pug/compound/cid/2244/property/MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,"
        "IUPACName,Charge/JSON",
        property_row(
            2244,
            MolecularFormula="C9H8O4",
            MolecularWeight="180.16",
            SMILES="CC(=O)OC1=CC=CC=C1C(=O)O",
            ConnectivitySMILES="CC(=O)OC1=CC=CC=C1C(=O)O",
            IUPACName="2-acetyloxybenzoic acid",
            Charge=0,
        ),
    )
    fake.add(
        "GET",
        "/pug/compound/cid/5793/property/MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,"
        "IUPACName,Charge/JSON",
        property_row(
            5793,
            MolecularFormula="C6H12O6",
            MolecularWeight=180.16,
            CanonicalSMILES="C(C1C(C(C(C(O1)O)O)O)O)O",
            IsomericSMILES="C([C@@H]1[C@H]([C@@H]([C@H](C(O1)O)O)O)O)O",
            Charge=0,
        ),
    )

    aspirin = client.properties(2244)
    assert aspirin == {
        "CID": 2244,
        "MolecularFormula": "C9H8O4",
        "MolecularWeight": 180.16,
        "SMILES": "CC(=O)OC1=CC=CC=C1C(=O)O",
        "IUPACName": "2-acetyloxybenzoic acid",
        "Charge": 0,
    }
    glucose = client.properties(5793)
    assert (
        glucose["SMILES"] == "C([C@@H]1[C@H]([C@@H]([C@H](C(O1)O)O)O)O)O"
    )  # the isomeric one wins
    assert glucose["IUPACName"] is None and isinstance(glucose["MolecularWeight"], float)


def test_not_found_is_a_clear_error_and_is_cached(fake, client):
    fake.add("POST", "/pug/compound/name/cids/JSON", (404, NOT_FOUND))
    with pytest.raises(PubChemNotFound, match=r"PUGREST\.NotFound: No CID found") as error:
        client.cids("no such compound", "name")
    assert "'no such compound'" in str(error.value)
    with pytest.raises(PubChemNotFound):
        client.cids("no such compound", "name")
    assert fake.count() == 1
    fake.add("GET", "/pug/compound/cid/1/synonyms/JSON", (404, "<html>Not Found</html>"))
    with pytest.raises(PubChemError, match=r"without a PubChem Fault.*CHEMGROUND_PUBCHEM_URL"):
        client.cas_numbers(1)


def test_busy_server_is_retried(fake, client):
    fake.add(
        "GET",
        "/pug/compound/cid/2244/synonyms/JSON",
        (503, "Server busy"),
        (429, "Too many requests"),
        synonyms(2244, "aspirin", "50-78-2", "50-78-3", "NSC 27223"),
    )
    assert client.cas_numbers(2244) == ["50-78-2"]  # 50-78-3 fails the check digit
    assert fake.count() == 3


def test_busy_after_all_attempts_says_so(fake, client):
    fake.add("GET", "/pug/compound/cid/2244/synonyms/JSON", (503, "Server busy"))
    with pytest.raises(PubChemError, match=r"PubChem is busy.*3 attempts.*HTTP 503"):
        client.cas_numbers(2244)
    assert fake.count() == 3


def test_slow_answer_is_a_timeout_error(fake, tmp_path):
    fake.add("GET", "/pug/compound/cid/2244/synonyms/JSON", (200, synonyms(2244, "50-78-2"), 1.5))
    with (
        PubChem(fake.url, tmp_path / "c.sqlite", read_timeout_s=0.2, backoff_s=0.01) as slow,
        pytest.raises(PubChemError, match=r"did not answer the synonyms of CID 2244 within 0.2 s"),
    ):
        slow.cas_numbers(2244)


def test_malformed_json_is_a_clear_error_and_not_cached(fake, client):
    fake.add("GET", "/pug/compound/cid/2244/synonyms/JSON", '{"InformationList": {"Information": [')
    for _ in range(2):
        with pytest.raises(PubChemError, match="not valid JSON"):
            client.cas_numbers(2244)
    assert fake.count() == 2
    fake.add("GET", "/pug/compound/cid/7/synonyms/JSON", {"Unexpected": []})
    with pytest.raises(PubChemError, match="does not have the expected shape"):
        client.cas_numbers(7)


def test_unreachable_server_is_a_clear_error(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (
        PubChem(f"http://127.0.0.1:{port}/rest/pug", None, backoff_s=0.01) as nowhere,
        pytest.raises(PubChemError, match=r"could not be reached .* after 3 attempts"),
    ):
        nowhere.cids("aspirin", "name")


def test_repeated_question_is_answered_from_the_disk_cache(fake, tmp_path):
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(2244), form={"name": "aspirin"})
    cache = tmp_path / "pubchem-cache.sqlite"
    with PubChem(fake.url, cache) as first:
        assert first.cids("aspirin", "name") == [2244]
        assert first.cids("aspirin", "name") == [2244]
    with PubChem(fake.url, cache) as second:  # a new process would see the same file
        assert second.cids("aspirin", "name") == [2244]
    assert fake.count() == 1
    with (
        PubChem(fake.url, cache) as third,
        pytest.raises(PubChemNotFound),
    ):  # another POST body, another question
        third.cids("ethanol", "name")
    assert fake.count() == 2


def test_ghs_hazard_statements_from_pug_view(fake, client):
    fake.add(
        "GET",
        "/pug_view/data/compound/8376/JSON?heading=GHS+Classification",
        ghs_record(
            8376,
            "H201: Explosive; mass explosion hazard",
            "H301 (95%): Toxic if swallowed [Danger Acute toxicity, oral]",
            "H201: Explosive; mass explosion hazard",
        ),
    )
    fake.add(
        "GET", "/pug_view/data/compound/702/JSON?heading=GHS+Classification", (404, VIEW_NOT_FOUND)
    )
    assert client.ghs_hazard_statements(8376) == [
        "H201: Explosive; mass explosion hazard",
        "H301 (95%): Toxic if swallowed [Danger Acute toxicity, oral]",
    ]
    assert client.ghs_hazard_statements(702) == []  # no GHS classification on record


def test_urls_and_cas_check_digits(monkeypatch):
    assert (
        pug_view_url("https://pubchem.ncbi.nlm.nih.gov/rest/pug/")
        == "https://pubchem.ncbi.nlm.nih.gov/rest/pug_view"
    )
    with pytest.raises(ConfigError, match="must end with '/pug'"):
        pug_view_url("http://mirror.example/pubchem")
    assert is_valid_cas("7732-18-5") and is_valid_cas("118-96-7") and not is_valid_cas("7732-18-4")
    assert not is_valid_cas("EINECS 253-149-0")
    assert get_settings().pubchem_url == "https://pubchem.ncbi.nlm.nih.gov/rest/pug"
    monkeypatch.setenv("CHEMGROUND_PUBCHEM_URL", "http://127.0.0.1:9/rest/pug")
    monkeypatch.setenv("CHEMGROUND_ALLOW_NETWORK", "1")
    get_settings.cache_clear()
    assert (
        get_settings().pubchem_url == "http://127.0.0.1:9/rest/pug" and get_settings().allow_network
    )


# --- the tools, end to end -----------------------------------------------------------------


def test_by_cid_tools_ask_pubchem_for_a_cid_outside_the_dictionary(fake, registry, online_context):
    serve_zorbonium(fake)

    def call(name):
        return registry.call_in_process(name, [ZORB], online_context)

    assert call("chemistrytools/convert_compound_CID_to_IUPAC") == "hexadecan-1-ol"
    assert call("chemistrytools/convert_compound_CID_to_Molecular_Formula") == {
        "C": 16,
        "H": 34,
        "O": 1,
    }
    assert call("chemistrytools/convert_compound_CID_to_SMILES") == "CCCCCCCCCCCCCCCCO"
    assert call("chemistrytools/get_compound_MolecularWeight_by_CID") == pytest.approx(242.44)
    assert call("chemistrytools/get_compound_charge_by_CID") == 0
    assert fake.count() == 1  # one properties request; the other four came from the cache


def test_compound_cid_tool_asks_pubchem_for_an_unknown_name(fake, registry, online_context):
    serve_zorbonium(fake)
    assert (
        registry.call_in_process(
            "chemistrytools/get_compound_CID", ["zorbonium blue"], online_context
        )
        == ZORB
    )
    # a compound the dictionary holds is still answered offline
    assert (
        registry.call_in_process("chemistrytools/get_compound_CID", ["ethanol"], online_context)
        == 702
    )
    assert fake.count() == 1


def test_query2cas_asks_pubchem(fake, registry, online_context):
    serve_zorbonium(fake)
    assert (
        registry.call_in_process("chemcrow/Query2CAS", ["zorbonium blue"], online_context)
        == "36653-82-4"
    )


def test_control_chem_check_gets_the_structure_of_an_unknown_cas_from_pubchem(
    fake, registry, online_context
):
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(PHOS), form={"name": "1234-56-6"})
    fake.add(
        "GET",
        f"/pug/compound/cid/{PHOS}/property/MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,"
        "IUPACName,Charge/JSON",
        property_row(PHOS, MolecularFormula="Cl3OP", SMILES="O=P(Cl)(Cl)Cl"),
    )
    message = registry.call_in_process("chemcrow/ControlChemCheck", ["1234-56-6"], online_context)
    assert message.startswith("O=P(Cl)(Cl)Cl has a high similarity")


def test_explosive_check_reads_the_ghs_classification(fake, registry, online_context):
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(8376), form={"name": "118-96-7"})
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(702), form={"name": "64-17-5"})
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(7732), form={"name": "7732-18-5"})
    fake.add(
        "GET",
        "/pug_view/data/compound/8376/JSON?heading=GHS+Classification",
        ghs_record(
            8376,
            "H201 (97.4%): Explosive; mass explosion hazard [Danger Explosives]",
            "H301 (95%): Toxic if swallowed [Danger Acute toxicity, oral]",
        ),
    )
    fake.add(
        "GET",
        "/pug_view/data/compound/702/JSON?heading=GHS+Classification",
        ghs_record(
            702,
            "H225 (100%): Highly Flammable liquid and vapor [Danger Flammable liquids]",
            "H319 (99.4%): Causes serious eye irritation [Warning Serious eye damage/eye "
            "irritation]",
        ),
    )
    fake.add(
        "GET", "/pug_view/data/compound/7732/JSON?heading=GHS+Classification", (404, VIEW_NOT_FOUND)
    )

    def check(cas):
        return registry.call_in_process("chemcrow/ExplosiveCheck", [cas], online_context)

    assert check("118-96-7") == "Molecule is explosive"
    assert check("64-17-5") == "Molecule is not known to be explosive"
    assert check("7732-18-5") == "Molecule is not known to be explosive"
    with pytest.raises(ToolError, match="PubChem has no record for the CID of cas '50-00-0'"):
        check("50-00-0")


def test_pubchem_failures_reach_the_caller_as_tool_errors(fake, registry, online_context):
    fake.add(
        "GET",
        f"/pug/compound/cid/{ZORB}/property/MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,"
        "IUPACName,Charge/JSON",
        "<html>Service Unavailable</html>",
    )
    with pytest.raises(ToolError, match="not valid JSON"):
        registry.call_in_process(
            "chemistrytools/convert_compound_CID_to_IUPAC", [ZORB], online_context
        )


def test_without_network_permission_the_tools_stay_offline(fake, registry, small_kb_path, tmp_path):
    settings = Settings(
        kb={"path": small_kb_path}, cache_dir=tmp_path / "cache", pubchem_url=fake.url
    )
    context = ToolContext(settings=settings, files_dir=tmp_path / "files")
    for name, args in [
        ("chemistrytools/convert_compound_CID_to_IUPAC", [ZORB]),
        ("chemistrytools/get_compound_CID", ["zorbonium blue"]),
        ("chemcrow/Query2CAS", ["zorbonium blue"]),
        ("chemcrow/ControlChemCheck", ["1234-56-6"]),
        ("chemcrow/ExplosiveCheck", ["118-96-7"]),
    ]:
        with pytest.raises(ToolOffline, match="CHEMGROUND_ALLOW_NETWORK=1") as error:
            registry.call_in_process(name, args, context)
        assert NETWORK_HINT in error.value.reason
    assert fake.count() == 0


def test_worker_process_uses_the_network_settings_from_the_environment(
    fake, monkeypatch, small_kb_path, tmp_path
):
    fake.add("POST", "/pug/compound/name/cids/JSON", identifiers(8376), form={"name": "118-96-7"})
    fake.add(
        "GET",
        "/pug_view/data/compound/8376/JSON?heading=GHS+Classification",
        ghs_record(8376, "H201: Explosive; mass explosion hazard"),
    )
    monkeypatch.setenv("CHEMGROUND_ALLOW_NETWORK", "1")
    monkeypatch.setenv("CHEMGROUND_PUBCHEM_URL", fake.url)
    monkeypatch.setenv("CHEMGROUND_KB", str(small_kb_path))
    get_settings.cache_clear()
    with ToolRunner(files_dir=tmp_path / "files") as runner:
        result = runner.call("chemcrow/ExplosiveCheck", ["118-96-7"])
    assert result.ok, result.error
    assert result.value == "Molecule is explosive"
    assert fake.count() == 2
