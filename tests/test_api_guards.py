"""The HTTP API's guards (issue 14): limits, JSON errors, the optional token, security headers,
the Host check, and `chemground serve --workers`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest
from typer.testing import CliRunner

from chemground.api.app import create_app
from chemground.api.guards import host_name
from chemground.errors import ChemgroundError
from chemground.settings import Settings
from tests.support.uvicorn_server import free_port, serving

LIMITS = dict(api={"max_body_bytes": 16 * 1024, "max_query_chars": 300}, max_question_chars=4000)


@pytest.fixture(scope="module")
def app(small_kb_path, tmp_path_factory):
    return create_app(
        Settings(
            kb={"path": small_kb_path},
            api={**LIMITS["api"], "allowed_hosts": "chem.example.org, *.lab.example"},
            cache_dir=tmp_path_factory.mktemp("cache"),
            max_question_chars=LIMITS["max_question_chars"],
        )
    )


@pytest.fixture(scope="module")
def base_url(app):
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def token_url(small_kb_path, tmp_path_factory):
    app = create_app(
        Settings(
            kb={"path": small_kb_path},
            api={"token": "s3cret-token"},
            cache_dir=tmp_path_factory.mktemp("cache"),
        )
    )
    with serving(app) as url:
        yield url


def _post_raw(url: str, body: bytes, **kwargs) -> httpx.Response:
    return httpx.post(
        url, content=body, headers={"content-type": "application/json"}, timeout=30, **kwargs
    )


def _detail(reply: httpx.Response) -> str:
    assert reply.headers["content-type"].startswith("application/json"), reply.text[:200]
    detail = reply.json()["detail"]
    return detail if isinstance(detail, str) else str(detail)


# -- limits
# ---------------------------------------------------------------------------------------------
def test_a_body_over_the_limit_is_a_413(base_url):
    reply = httpx.post(f"{base_url}/ask", json={"question": "benzene " * 5000}, timeout=30)
    assert (
        reply.status_code == 413
        and "16,384 bytes" in _detail(reply)
        and "api.max_body_bytes" in _detail(reply)
    )

    def chunks():  # no Content-Length: counted while reading
        yield b'{"question": "'
        for _ in range(40):
            yield b"benzene " * 100
        yield b'"}'

    reply = httpx.post(
        f"{base_url}/ask",
        content=chunks(),
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert reply.status_code == 413 and "16,384 bytes" in _detail(reply)


def test_a_question_over_the_limit_is_a_422_naming_it(base_url):
    for path in ("/ask", "/retrieve"):
        reply = httpx.post(f"{base_url}{path}", json={"question": "C" * 4001}, timeout=30)
        assert reply.status_code == 422
        assert "4,001 characters" in _detail(reply) and "limit is 4,000" in _detail(reply)
        assert "max_question_chars" in _detail(reply) and "CCCC" not in _detail(reply)


def test_a_compound_query_over_the_limit_is_a_422(base_url):
    reply = httpx.get(f"{base_url}/compound", params={"q": "C" * 60_000}, timeout=30)
    assert (
        reply.status_code == 422 and "limit is 300" in _detail(reply) and len(reply.content) < 500
    )


def test_a_lone_surrogate_or_invalid_utf8_is_a_clean_400(base_url):
    reply = _post_raw(f"{base_url}/ask", b'{"question": "\\ud800 molecular weight of benzene"}')
    assert reply.status_code == 400 and "surrogate" in _detail(reply)
    reply = _post_raw(f"{base_url}/ask", b'{"question": "benzene", "id": "\\udfff"}')
    assert reply.status_code == 400 and "surrogate" in _detail(reply)
    reply = _post_raw(f"{base_url}/ask", b'{"question": "\xff\xfe benzene"}')
    assert reply.status_code == 400 and "not valid UTF-8" in _detail(reply)
    reply = _post_raw(f"{base_url}/retrieve", b'{"question": "benzene", ')
    assert reply.status_code == 400 and "not valid JSON" in _detail(reply)


def test_validation_errors_do_not_echo_huge_inputs(base_url):
    reply = httpx.post(
        f"{base_url}/ask", json={"question": "benzene", "k": "9" * 10_000}, timeout=30
    )
    assert reply.status_code == 422 and len(reply.content) < 2000
    reply = httpx.post(f"{base_url}/ask", json=["x" * 10_000], timeout=30)
    assert reply.status_code == 422 and len(reply.content) < 2000
    reply = _post_raw(f"{base_url}/ask", b'{"question": "benzene", "k": 1e400}')
    assert reply.status_code == 422 and reply.json()["detail"][0]["loc"] == ["body", "k"]


def test_error_messages_are_cut_short(base_url, app, monkeypatch):
    def echoing_ask(question, **kwargs):
        raise ChemgroundError(
            f"could not read {question!r}; {question!r} is {question!r} or {question!r}"
        )

    monkeypatch.setattr(app.state.service.qa, "ask", echoing_ask)
    reply = httpx.post(f"{base_url}/ask", json={"question": "Q" * 3900}, timeout=30)
    assert reply.status_code == 400 and "could not read" in _detail(reply)
    assert len(_detail(reply)) < 800 and "3,900 characters" in _detail(reply)


def test_an_unexpected_error_is_a_json_500_without_the_input(base_url, app, monkeypatch):
    def broken_ask(question, **kwargs):
        raise RuntimeError("internal state " + question)

    monkeypatch.setattr(app.state.service.qa, "ask", broken_ask)
    reply = httpx.post(f"{base_url}/ask", json={"question": "secret " * 100}, timeout=30)
    assert (
        reply.status_code == 500 and "RuntimeError" in _detail(reply) and "secret" not in reply.text
    )
    assert reply.headers["x-content-type-options"] == "nosniff"


def test_other_errors_are_json(base_url):
    assert httpx.get(f"{base_url}/nowhere", timeout=30).json() == {"detail": "Not Found"}
    assert httpx.get(f"{base_url}/ask", timeout=30).status_code == 405
    reply = httpx.post(f"{base_url}/ask", json={"question": "x", "method": "nope"}, timeout=30)
    assert reply.status_code == 400 and "unknown method" in _detail(reply)


# -- security headers
# --------------------------------------------------------------------------------
def _csp(reply: httpx.Response) -> dict[str, str]:
    policy = reply.headers["content-security-policy"]
    return {part.split()[0]: part.strip() for part in policy.split(";") if part.strip()}


def test_every_response_has_the_security_headers(base_url):
    replies = [
        httpx.get(f"{base_url}/", timeout=30),
        httpx.get(f"{base_url}/health", timeout=30),
        httpx.post(f"{base_url}/ask", json={"question": "smiles for aspirin"}, timeout=30),
        httpx.get(f"{base_url}/nowhere", timeout=30),
        httpx.post(f"{base_url}/ask", json={"question": "benzene " * 5000}, timeout=30),
        httpx.get(f"{base_url}/health", headers={"host": "evil.example"}, timeout=30),
    ]
    for reply in replies:
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert reply.headers["x-frame-options"] == "DENY"
        assert reply.headers["referrer-policy"] == "no-referrer"
        assert _csp(reply)["frame-ancestors"] == "frame-ancestors 'none'"
    assert _csp(replies[1])["default-src"] == "default-src 'none'"


def test_the_page_csp_allows_only_this_servers_scripts_and_styles(base_url):
    page = httpx.get(f"{base_url}/", timeout=30)
    csp = _csp(page)
    assert csp["default-src"] == "default-src 'none'" and csp["connect-src"] == "connect-src 'self'"
    # the page has no inline script or style (issue 18 moved them to /static/): 'self' only
    for tag in ("script", "style"):
        assert not re.findall(rf"<{tag}>(.*?)</{tag}>", page.text, re.S)
        assert csp[f"{tag}-src"] == f"{tag}-src 'self'"
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    assert "http" not in page.headers["content-security-policy"]  # no external source
    # the policy forbids inline handlers and style attributes: the page has none
    assert not re.search(r"\son[a-z]+\s*=", page.text) and "style=" not in page.text
    script = httpx.get(f"{base_url}/static/app.js", timeout=30).text
    assert "Authorization" in script  # the page can send the optional token


# -- Host check
# ----------------------------------------------------------------------------------------
def test_host_header_check(base_url):
    port = base_url.rsplit(":", 1)[1]
    ok = [
        "localhost",
        f"localhost:{port}",
        "127.0.0.1",
        f"[::1]:{port}",
        "chem.example.org",
        "a.lab.example",
    ]
    for host in ok:
        assert (
            httpx.get(f"{base_url}/health", headers={"host": host}, timeout=30).status_code == 200
        ), host
    for host in [
        "evil.example",
        "localhost.evil.example",
        "chem.example.org.evil",
        "lab.example",
        "[::2]",
    ]:
        reply = httpx.get(f"{base_url}/health", headers={"host": host}, timeout=30)
        assert reply.status_code == 400 and "--allow-host" in _detail(reply), host


def test_host_name_parsing():
    assert host_name("LocalHost:8000") == "localhost"
    assert host_name("[::1]:8000") == "::1" and host_name("[::1]") == "::1"
    assert host_name("example.org.") == "example.org"
    assert host_name("[::1") is None and host_name("[zz]:80") is None and host_name("a:b") is None
    assert host_name("") is None


# -- the optional token
# ----------------------------------------------------------------------------------
def test_with_a_token_only_the_page_health_and_docs_are_public(token_url):
    for path in ("/", "/health", "/docs", "/openapi.json"):
        assert httpx.get(f"{token_url}{path}", timeout=30).status_code == 200, path
    calls = [
        ("POST", "/ask", {"json": {"question": "smiles for aspirin"}}),
        ("POST", "/retrieve", {"json": {"question": "smiles for aspirin"}}),
        ("GET", "/compound", {"params": {"q": "aspirin"}}),
    ]
    for method, path, kwargs in calls:
        for headers in (
            {},
            {"authorization": "Bearer wrong"},
            {"authorization": "s3cret-token"},
            {"authorization": "Basic s3cret-token"},
        ):
            reply = httpx.request(
                method, f"{token_url}{path}", headers=headers, timeout=30, **kwargs
            )
            assert reply.status_code == 401 and "token" in _detail(reply), (path, headers)
            assert reply.headers["www-authenticate"].startswith("Bearer")
        for scheme in ("Bearer", "bearer"):
            reply = httpx.request(
                method,
                f"{token_url}{path}",
                headers={"authorization": f"{scheme} s3cret-token"},
                timeout=30,
                **kwargs,
            )
            assert reply.status_code == 200, (path, reply.text[:200])


# -- the command line
# ------------------------------------------------------------------------------------
def test_serve_has_the_new_options():
    from chemground.cli import app as cli

    out = CliRunner().invoke(cli, ["serve", "--help"], env={"COLUMNS": "200"}).output
    for option in ("--workers", "--threads", "--token", "--allow-host"):
        assert option in out


@pytest.mark.parametrize("port", ["-1", "0", "99999"])
def test_serve_refuses_a_port_out_of_range_before_starting(port, capsys, monkeypatch):
    """--port 99999 raised OverflowError from bind(); now a usage error, and no server starts."""
    import chemground.api.server
    from chemground.cli import main

    def no_server(*args, **kwargs):
        raise AssertionError(f"a server was started for --port {port}")

    monkeypatch.setattr(chemground.api.server, "run_server", no_server)
    assert main(["serve", "--port", port]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--port'" in err and "Traceback" not in err


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                out.append(int(entry))
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_serve_with_two_workers_and_a_token(small_kb_path, tmp_path):
    """The settings (token included) reach worker processes; both serve; they end with their
    parent."""
    port = free_port()
    env = {
        **os.environ,
        "CHEMGROUND_API_TOKEN": "tok-123",
        "CHEMGROUND_CACHE_DIR": str(tmp_path / "cache"),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chemground",
            "--kb",
            str(small_kb_path),
            "serve",
            "--port",
            str(port),
            "--workers",
            "2",
            "--allow-host",
            "chem.example.org",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                assert process.poll() is None, process.stderr.read().decode()[-2000:]
                time.sleep(0.1)
        assert httpx.get(f"{url}/health", timeout=30).json()["reactions"] == 274
        assert httpx.get(f"{url}/compound", params={"q": "aspirin"}, timeout=30).status_code == 401
        good = {"authorization": "Bearer tok-123"}
        for _ in range(6):  # new connections: both workers answer
            reply = httpx.get(f"{url}/compound", params={"q": "aspirin"}, headers=good, timeout=30)
            assert reply.status_code == 200 and reply.json()["formula"] == "C9H8O4"
        assert (
            httpx.get(f"{url}/health", headers={"host": "chem.example.org"}, timeout=30).status_code
            == 200
        )
        if sys.platform.startswith("linux"):  # workers do not outlive a killed parent
            workers = _children(process.pid)
            assert workers
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            for _ in range(600):
                if not any(_running(pid) for pid in workers):
                    break
                time.sleep(0.1)
            assert not any(_running(pid) for pid in workers)
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        except ProcessLookupError:  # the group is gone already
            pass
