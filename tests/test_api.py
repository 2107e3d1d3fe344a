"""The HTTP API over real HTTP on 127.0.0.1 (uvicorn in a thread) and the web page."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
import uvicorn

from chemground.api.app import create_app
from chemground.settings import Settings


@pytest.fixture(scope="module")
def base_url(small_kb_path, tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(
        Settings(kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("cache"))
    )
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=5)


def test_ask_over_http(base_url):
    reply = httpx.post(
        f"{base_url}/ask",
        json={"question": "What is the molecular weight of CC(=O)Nc1ccc(O)cc1?", "id": "h1"},
        timeout=30,
    )
    assert reply.status_code == 200
    data = reply.json()
    assert (
        data["id"] == "h1" and data["value"] == 151.16 and data["evidence"][0]["match"] == "exact"
    )


def test_retrieve_compound_health_and_page(base_url):
    hits = httpx.post(
        f"{base_url}/retrieve", json={"question": "smiles for aspirin", "k": 2}, timeout=30
    ).json()
    assert (
        hits["query"]["aspect"] == "name_to_smiles"
        and hits["hits"][0]["record"]["smiles"] == "CC(=O)Oc1ccccc1C(=O)O"
    )
    record = httpx.get(f"{base_url}/compound", params={"q": "Clc1ncc(Cl)cn1"}, timeout=30).json()
    assert record["formula"] == "C4H2Cl2N2"
    assert httpx.get(f"{base_url}/health", timeout=30).json()["reactions"] == 274
    page = httpx.get(f"{base_url}/", timeout=30)
    assert page.status_code == 200 and "chemground" in page.text and "/static/app.js" in page.text
    assert "/ask" in httpx.get(f"{base_url}/static/app.js", timeout=30).text


def test_bad_input_is_a_400_with_the_message(base_url):
    reply = httpx.get(f"{base_url}/compound", params={"q": "zzzqqq-notachem"}, timeout=30)
    assert reply.status_code == 400 and "could not resolve" in reply.json()["detail"]
    reply = httpx.post(f"{base_url}/ask", json={"question": "x", "method": "nope"}, timeout=30)
    assert reply.status_code == 400 and "unknown method" in reply.json()["detail"]
