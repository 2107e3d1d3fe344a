"""The web app's endpoints over HTTP (issue 18): depictions, reactions, compound profiles, options,
the pages and their policy, the offline API docs, and what the API token covers."""

from __future__ import annotations

import re

import httpx
import pytest

from chemground.api.app import create_app
from chemground.api.depict import depict_smiles
from chemground.api.web import EXAMPLES, available_options
from chemground.settings import Settings
from tests.support.uvicorn_server import serving

LIMITS = dict(api={"max_query_chars": 3000})


@pytest.fixture(scope="module")
def app(small_kb_path, tmp_path_factory):
    return create_app(
        Settings(kb={"path": small_kb_path}, cache_dir=tmp_path_factory.mktemp("cache"), **LIMITS)
    )


@pytest.fixture(scope="module")
def base_url(app):
    with serving(app) as url:
        yield url


def get(url: str, **kwargs) -> httpx.Response:
    return httpx.get(url, timeout=60, **kwargs)


def _detail(reply: httpx.Response) -> str:
    assert reply.headers["content-type"].startswith("application/json"), reply.text[:200]
    return reply.json()["detail"]


# -- depictions ------------------------------------------------------------------------------------
def test_a_structure_is_drawn_as_svg_and_cached(base_url):
    before = depict_smiles.cache_info()
    reply = get(
        f"{base_url}/depict", params={"smiles": "CC(=O)Oc1ccccc1C(=O)O", "w": 300, "h": 200}
    )
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/svg+xml"
    assert (
        reply.text.lstrip().startswith("<?xml")
        and "<svg" in reply.text
        and "width='300px'" in reply.text
    )
    assert "max-age" in reply.headers["cache-control"]
    again = get(
        f"{base_url}/depict", params={"smiles": "CC(=O)Oc1ccccc1C(=O)O", "w": 300, "h": 200}
    )
    assert again.text == reply.text
    after = depict_smiles.cache_info()
    assert after.hits >= before.hits + 1  # the second drawing came from the cache
    assert (
        reply.headers["x-content-type-options"] == "nosniff"
    )  # an SVG opened directly runs nothing
    assert reply.headers["content-security-policy"].startswith("default-src 'none'")


def test_a_reaction_smiles_is_drawn_as_a_scheme(base_url):
    reply = get(f"{base_url}/depict", params={"smiles": "O=Cc1ccccc1>[BH4-].[Na+].CCO>OCc1ccccc1"})
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/svg+xml"
    single = get(f"{base_url}/depict", params={"smiles": "OCc1ccccc1"})
    assert reply.text.count("<path") > single.text.count(
        "<path"
    )  # two molecules, an arrow and the agents


def test_a_kb_reaction_is_drawn_from_its_record(base_url):
    reply = get(f"{base_url}/depict/reaction/starter:imine_formation-01")
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/svg+xml"
    without = get(
        f"{base_url}/depict/reaction/starter:imine_formation-01", params={"agents": "false"}
    )
    assert without.status_code == 200 and without.text != reply.text
    missing = get(f"{base_url}/depict/reaction/no-such-reaction")
    assert missing.status_code == 404 and "no reaction with id 'no-such-reaction'" in _detail(
        missing
    )


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"smiles": "C1CC"}, 400, "unclosed ring"),
        ({"smiles": "not a smiles"}, 400, "invalid SMILES"),
        ({"smiles": "C" * 1500}, 422, "the limit is 1,000 heavy atoms"),
        ({"smiles": "C" * 3001}, 422, "api.max_query_chars"),
        ({"smiles": "CCO", "w": 5}, 422, "width 5 is outside 40..1200"),
        ({"smiles": "CCO", "h": 99999}, 422, "height 99999 is outside"),
        ({"smiles": ".".join(["C"] * 30) + ">>CC"}, 422, "a scheme draws at most 24"),
        ({"smiles": "CC>>C1CC"}, 400, "unclosed ring"),
        ({"smiles": "C>C>C>C"}, 400, "reactants>agents>products"),
    ],
)
def test_bad_depiction_input_is_a_json_error_naming_the_problem(base_url, params, status, message):
    reply = get(f"{base_url}/depict", params=params)
    assert reply.status_code == status and message in _detail(reply), reply.text[:300]


# -- reactions and compound profiles ---------------------------------------------------------------
def test_a_reaction_record(base_url):
    record = get(f"{base_url}/reaction/starter:imine_formation-01").json()
    assert record["yield_percent"] == 90.0 and record["solvents"][0]["name"] == "ethanol"
    assert get(f"{base_url}/reaction/nope").status_code == 404


def test_the_compound_profile_has_reactions_by_role_properties_and_similar_compounds(base_url):
    by_name = get(f"{base_url}/profile", params={"q": "aspirin"}).json()
    compound = by_name["compound"]
    assert compound["name"] == "aspirin" and compound["inchikey"] == "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
    assert by_name["properties"]["Topological polar surface area (Å²)"] == 63.6
    assert by_name["properties"]["Hydrogen bond donors"] == 1
    roles = by_name["reactions"]
    assert "starter:alcohol_acylation-01" in [r["id"] for r in roles["product"]["reactions"]]
    assert roles["reactant"]["count"] == len(roles["reactant"]["reactions"]) >= 1
    similar = by_name["similar"]
    assert similar and all(s["id"] != compound["id"] for s in similar)
    assert "salicylic acid" in [s["name"] for s in similar]
    assert [s["score"] for s in similar] == sorted((s["score"] for s in similar), reverse=True)
    by_id = get(f"{base_url}/profile", params={"id": compound["id"]}).json()
    assert by_id["compound"]["inchikey"] == compound["inchikey"] and by_id["reactions"] == roles


def test_profile_errors(base_url):
    assert get(f"{base_url}/profile", params={"id": 987654321}).status_code == 404
    reply = get(f"{base_url}/profile")
    assert reply.status_code == 400 and "either id" in _detail(reply)
    assert get(f"{base_url}/profile", params={"id": 1, "q": "x"}).status_code == 400
    reply = get(f"{base_url}/profile", params={"q": "zzzqqq-notachem"})
    assert reply.status_code == 400 and "could not resolve" in _detail(reply)
    assert get(f"{base_url}/profile", params={"q": "x" * 3001}).status_code == 422


# -- options and examples --------------------------------------------------------------------------
def test_llm_options_appear_only_with_an_llm_configured(app, base_url):
    options = get(f"{base_url}/options").json()
    assert options["reasoners"] == ["extractive"] and options["llm"] is False
    assert "graph" not in options["methods"] and {"auto", "table", "tools", "routes"} <= set(
        options["methods"]
    )
    service = app.state.service
    configured = service.settings.with_overrides(
        llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    )
    with_llm = available_options(configured, service.qa)
    assert {"extractive", "cot", "adaptive"} <= set(with_llm["reasoners"]) and "graph" in with_llm[
        "methods"
    ]


def test_every_example_question_is_answered(base_url):
    for _, question in EXAMPLES:
        answer = httpx.post(f"{base_url}/ask", json={"question": question}, timeout=120).json()
        assert answer["status"] == "answered" and answer["evidence"], (question, answer["answer"])


# -- pages, assets, docs ---------------------------------------------------------------------------
def _csp(reply: httpx.Response) -> dict[str, str]:
    parts = [p.strip() for p in reply.headers["content-security-policy"].split(";")]
    return {p.split()[0]: p for p in parts if p}


def test_the_pages_load_only_from_this_server(base_url):
    for path in ("/", "/review", "/compound/1859", "/?q=aspirin"):
        reply = get(f"{base_url}{path}")
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html"), (
            path
        )
        csp = _csp(reply)
        assert csp["script-src"] == "script-src 'self'" and csp["style-src"] == "style-src 'self'"
        assert (
            csp["img-src"] == "img-src 'self' blob:" and csp["connect-src"] == "connect-src 'self'"
        )
        assert "http" not in reply.headers["content-security-policy"]
    page = get(f"{base_url}/").text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing from elsewhere
    for name, kind in (
        ("app.js", "javascript"),
        ("app.css", "text/css"),
        ("favicon.svg", "image/svg+xml"),
    ):
        reply = get(f"{base_url}/static/{name}")
        assert reply.status_code == 200 and kind in reply.headers["content-type"], name
    script = get(f"{base_url}/static/app.js").text
    # the page builds its DOM from text nodes, never from markup strings
    assert not re.search(r"\.(inner|outer)HTML\s*=|insertAdjacentHTML|document\.write", script)
    assert get(f"{base_url}/static/../app.py").status_code == 404
    assert get(f"{base_url}/static/nothing.js").status_code == 404
    assert get(f"{base_url}/compound/not-a-number").status_code == 422


def test_the_api_docs_are_served_without_a_cdn(base_url):
    docs = get(f"{base_url}/docs")
    assert docs.status_code == 200 and "/docs/assets/swagger-ui-bundle.js" in docs.text
    assert "cdn." not in docs.text and "http" not in docs.headers["content-security-policy"]
    for name in ("swagger-ui-bundle.js", "swagger-ui.css"):
        asset = get(f"{base_url}/docs/assets/{name}")
        assert asset.status_code == 200 and len(asset.content) > 10_000
    assert get(f"{base_url}/docs/assets/index.html").status_code == 404
    schema = get(f"{base_url}/openapi.json").json()
    assert {"/depict", "/depict/reaction/{reaction_id}", "/profile", "/options"} <= set(
        schema["paths"]
    )


def test_with_a_token_the_pages_are_public_and_the_data_is_not(small_kb_path, tmp_path):
    app = create_app(
        Settings(kb={"path": small_kb_path}, api={"token": "s3cret"}, cache_dir=tmp_path / "cache")
    )
    with serving(app) as url:
        for path in (
            "/",
            "/review",
            "/compound/1859",
            "/static/app.js",
            "/docs/assets/swagger-ui.css",
        ):
            assert get(f"{url}{path}").status_code == 200, path
        for path in (
            "/depict?smiles=CCO",
            "/depict/reaction/starter:imine_formation-01",
            "/profile?q=aspirin",
            "/options",
            "/reaction/starter:imine_formation-01",
            "/compound/1859/x",
            "/static",
        ):
            assert get(f"{url}{path}").status_code == 401, path
        ok = get(
            f"{url}/depict", params={"smiles": "CCO"}, headers={"authorization": "Bearer s3cret"}
        )
        assert ok.status_code == 200
