"""What the web page needs besides ``/ask``: depictions, compound pages, options, static files.

The page (``static/index.html`` + ``app.js`` + ``app.css``) is one small static app with no
build step; it reads the same ``Answer`` JSON as every other client and draws structures
with ``GET /depict`` (RDKit SVG, :mod:`chemground.api.depict`). Everything it loads comes
from this server: the Content-Security-Policy allows same-origin scripts, styles, images and
fetches only, and ``/docs`` serves Swagger UI from the ``swagger-ui-py`` package's files.

Endpoints added here:

- ``GET /depict?smiles=...`` a structure (or, with ``>`` in it, a reaction scheme) as SVG;
  ``GET /depict/reaction/{id}`` the scheme of a KB reaction.
- ``GET /reaction/{id}`` a KB reaction record (JSON).
- ``GET /profile?id=...`` or ``?q=...`` everything the compound page shows (JSON).
- ``GET /options`` the methods, reasoners and example questions this server can offer.
- pages: ``/``, ``/compound/{id}``, ``/review``; assets under ``/static/``.
"""

from __future__ import annotations

import mimetypes
from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import HTMLResponse, Response

from chemground.api.depict import depict_reaction, depict_reaction_smiles, depict_smiles
from chemground.api.guards import clip, json_body
from chemground.api.service import Service, encode_json
from chemground.errors import ChemgroundError, InputLimitError, NotFoundError
from chemground.kb.records import Role
from chemground.settings import Settings

if TYPE_CHECKING:
    from chemground.qa import QA

STATIC_FILES = ("index.html", "app.js", "app.css", "favicon.svg")
SVG_TYPE = "image/svg+xml"
# Drawings of a SMILES never change; a KB reaction's may when the KB is rebuilt.
SMILES_CACHE = "public, max-age=86400"
REACTION_CACHE = "public, max-age=300"
ROLE_ORDER = (Role.PRODUCT, Role.REACTANT, Role.REAGENT, Role.CATALYST, Role.SOLVENT)
MAX_REACTIONS_PER_ROLE = 12
MAX_SIMILAR = 8
SWAGGER_ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css")
# Questions the default KB answers, one per channel; the page shows those that fit this server.
EXAMPLES = (
    ("table", "What forms when benzaldehyde reacts with benzohydrazide?"),
    (
        "table",
        "Which solvent is used for the Suzuki coupling of bromobenzene with phenylboronic acid?",
    ),
    ("table", "What is the molecular weight of aspirin?"),
    ("table", "compounds similar to aspirin"),
    ("routes", "route from nitrobenzene to acetanilide"),
    ("tools", "What is the logP of caffeine?"),
    ("tools", "which is heavier, benzene or toluene?"),
)


def static_text(name: str) -> str:
    """One of the page's files, from the package.

    Args:
        name: a name in ``STATIC_FILES``.

    Returns:
        The file's text.

    Raises:
        KeyError: not one of the page's files (nothing else is ever read from disk here).
    """
    if name not in STATIC_FILES:
        raise KeyError(name)
    return (resources.files("chemground.api") / "static" / name).read_text(encoding="utf-8")


def swagger_dir() -> Path | None:
    """The folder of Swagger UI's files inside the ``swagger-ui-py`` package, or None without it."""
    try:
        import swagger_ui
    except ImportError:
        return None
    folder = Path(swagger_ui.__file__).parent / "static"
    return folder if all((folder / name).is_file() for name in SWAGGER_ASSETS) else None


def computed_properties(smiles: str | None) -> dict[str, Any]:
    """Properties RDKit computes from a structure, as PubChem's "Computed Properties" lists them.

    Args:
        smiles: the compound's SMILES (None: nothing to compute).

    Returns:
        Label -> value (an empty dict without a structure or when RDKit cannot read it).
    """
    if not smiles:
        return {}
    from rdkit.Chem import Crippen, Descriptors, Lipinski, rdMolDescriptors

    from chemground.chem.structure import mol_from_smiles, stereocentres

    try:
        mol = mol_from_smiles(smiles)
    except ChemgroundError:
        return {}
    return {
        "logP (Crippen)": round(Crippen.MolLogP(mol), 2),
        "Topological polar surface area (Å²)": round(rdMolDescriptors.CalcTPSA(mol), 1),
        "Hydrogen bond donors": Lipinski.NumHDonors(mol),
        "Hydrogen bond acceptors": Lipinski.NumHAcceptors(mol),
        "Rotatable bonds": Lipinski.NumRotatableBonds(mol),
        "Heavy atoms": mol.GetNumHeavyAtoms(),
        "Rings": rdMolDescriptors.CalcNumRings(mol),
        "Aromatic rings": rdMolDescriptors.CalcNumAromaticRings(mol),
        "Stereocentres": len(stereocentres(mol)),
        "Formal charge": sum(a.GetFormalCharge() for a in mol.GetAtoms()),
        "Fraction sp3 carbons": round(rdMolDescriptors.CalcFractionCSP3(mol), 2),
        "Molar refractivity": round(Descriptors.MolMR(mol), 2),
    }


def compound_profile(
    service: Service, compound_id: int | None = None, query: str | None = None
) -> dict[str, Any]:
    """Everything the compound page shows: the record, computed properties, the reactions the
    compound takes part in by role, and structurally similar compounds.

    Args:
        service: the server's service (KB, resolver, QA).
        compound_id: a KB compound id, or
        query: a name, SMILES, InChI or CAS number (resolved as ``GET /compound`` does).

    Returns:
        ``{"compound", "properties", "reactions": {role: {"count", "reactions"}}, "similar",
        "notes"}``.

    Raises:
        NotFoundError: no compound with that id.
        ChemgroundError: the query does not resolve.
    """
    from chemground.kb.lookup import lookup_compound
    from chemground.retrieval.records import compound_record, reaction_record

    kb = service.workspace.kb
    if compound_id is not None:
        compound = kb.get_compound(compound_id, with_reactions=0)
        record = {
            **compound_record(compound),
            "in_knowledge_base": True,
            "inchi": compound.inchi,
            "synonyms": compound.synonyms,
        }
    else:
        lookup = lookup_compound(kb, service.workspace.resolver, query or "", max_reactions=0)
        record = lookup.to_dict()
        compound_id = lookup.compound.id if lookup.in_kb else None
    reactions: dict[str, dict[str, Any]] = {}
    if compound_id is not None:
        by_role: dict[str, list[str]] = defaultdict(list)
        for link in kb.reaction_links([compound_id]):
            if link.reaction_id not in by_role[link.role.value]:
                by_role[link.role.value].append(link.reaction_id)
        wanted = [rid for ids in by_role.values() for rid in ids[:MAX_REACTIONS_PER_ROLE]]
        found = kb.get_reactions(wanted)
        for role in [*ROLE_ORDER, *(r for r in Role if r not in ROLE_ORDER)]:
            ids = by_role.get(role.value)
            if ids:
                reactions[role.value] = {
                    "count": len(ids),
                    "reactions": [
                        reaction_record(found[rid])
                        for rid in ids[:MAX_REACTIONS_PER_ROLE]
                        if rid in found
                    ],
                }
    similar: list[dict[str, Any]] = []
    notes: list[str] = []
    evidence = []
    if record.get("smiles"):
        # the table retriever's similarity search (Tanimoto on Morgan fingerprints, same parent...)
        try:
            _, evidence = service.qa.retrieve(
                f"compounds similar to {record['smiles']}", method="table", k=MAX_SIMILAR + 1
            )
        except ChemgroundError as error:  # the page still shows everything else
            notes.append(f"no similarity search for this structure: {clip(str(error), 200)}")
        similar = [
            {
                "id": e.record.get("id"),
                "name": e.record.get("name"),
                "smiles": e.record.get("smiles"),
                "formula": e.record.get("formula"),
                "score": e.score,
                "why": e.why,
            }
            for e in evidence
            if e.match == "similar" and e.kind == "compound" and e.record.get("id") != compound_id
        ][:MAX_SIMILAR]
    return {
        "compound": record,
        "properties": computed_properties(record.get("smiles")),
        "reactions": reactions,
        "similar": similar,
        "notes": notes,
    }


def available_options(settings: Settings, qa: QA) -> dict[str, Any]:
    """The retrieval methods, reasoners and example questions this server can offer now.

    LLM reasoners (and Text2Cypher) only with an LLM configured; the papers channel only with
    papers in the KB; dense retrieval only with the offline model installed.

    Args:
        settings: the server's settings (is an LLM configured?).
        qa: the server's QA (are there papers?).

    Returns:
        ``{"methods", "reasoners", "examples", "llm", "papers"}``.
    """
    from chemground.llm.config import llm_configured
    from chemground.qa_factory import REASONERS

    llm = llm_configured(settings)
    papers = False
    try:
        papers = bool(qa.retriever("lit").has_papers())
    except (ChemgroundError, AttributeError):
        papers = False
    methods = ["auto", "table", "tools", "routes", "bm25"]
    if papers:
        methods.append("lit")
    if dense_installed():
        methods.append("dense")
    if llm:
        methods.append("graph")
    reasoners = list(REASONERS) if llm else ["extractive"]
    examples = [q for _, q in EXAMPLES]
    return {
        "methods": methods,
        "reasoners": reasoners,
        "examples": examples,
        "llm": llm,
        "papers": papers,
    }


def error_status(error: ChemgroundError) -> int:
    """The HTTP status of an error a user can act on: 404 for a record that is not there, 422
    for an input over a limit, 400 for anything else wrong with the input."""
    if isinstance(error, NotFoundError):
        return 404
    if isinstance(error, InputLimitError):
        return 422
    return 400


@lru_cache(maxsize=1)
def dense_installed() -> bool:
    """Whether dense retrieval can run here (the offline model and its packages: fixed for the
    life of a process, so looked up once)."""
    try:
        from chemground.lit.library import dense_available
    except ImportError:
        return False
    return bool(dense_available()[0])


def add_web_routes(
    app: FastAPI,
    service: Service,
    check_text: Callable[[str, str, int, str], None],
    page_headers: dict[str, str],
    docs_headers: Callable[[str], dict[str, str]],
) -> None:
    """Register the page's endpoints on ``app``.

    Args:
        app: the FastAPI app.
        service: the server's service (runs the work on its threads).
        check_text: the API's text check (length limit and Unicode),
            ``(value, what, limit, setting)``.
        page_headers: headers of the HTML pages (their Content-Security-Policy).
        docs_headers: headers for the ``/docs`` HTML, from that HTML.
    """
    settings = service.settings
    page_html = static_text("index.html")
    assets = {
        name: static_text(name).encode("utf-8") for name in STATIC_FILES if name != "index.html"
    }
    swagger = swagger_dir()

    def svg_or_error(work: Callable[[], str], cache: str) -> tuple[int, bytes, str, dict[str, str]]:
        try:
            return 200, work().encode("utf-8"), SVG_TYPE, {"cache-control": cache}
        except ChemgroundError as error:
            return error_status(error), json_body(clip(str(error))), "application/json", {}

    async def svg(work: Callable[[], str], cache: str) -> Response:
        status, body, media, headers = await service.run(svg_or_error, work, cache)
        return Response(body, status_code=status, media_type=media, headers=headers)

    def json_or_error(work: Callable[[], Any]) -> tuple[int, bytes]:
        try:
            return 200, encode_json(work())
        except ChemgroundError as error:
            return error_status(error), json_body(clip(str(error)))

    async def json_reply(work: Callable[[], Any]) -> Response:
        status, body = await service.run(json_or_error, work)
        return Response(body, status_code=status, media_type="application/json")

    def check_query(value: str, what: str) -> None:
        check_text(value, what, settings.api.max_query_chars, "api.max_query_chars")

    # -- pages and assets ---------------------------------------------------------------------
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html, headers=page_headers)

    app.add_api_route(
        "/", page, methods=["GET"], include_in_schema=False, response_class=HTMLResponse
    )
    app.add_api_route(
        "/review", page, methods=["GET"], include_in_schema=False, response_class=HTMLResponse
    )

    @app.get("/compound/{compound_id}", include_in_schema=False, response_class=HTMLResponse)
    async def compound_page(compound_id: int) -> HTMLResponse:
        return HTMLResponse(page_html, headers=page_headers)

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        if name not in assets:
            raise HTTPException(404, f"no static file {clip(name, 60)!r}")
        media = mimetypes.guess_type(name)[0] or "application/octet-stream"
        return Response(assets[name], media_type=media, headers={"cache-control": "no-cache"})

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        from fastapi.openapi.docs import get_swagger_ui_html

        if swagger is None:
            raise HTTPException(
                503,
                "the API docs need the swagger-ui-py package (pip install 'chemground[serve]'); "
                "the schema itself is at /openapi.json",
            )
        html = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="chemground API",
            swagger_js_url="/docs/assets/swagger-ui-bundle.js",
            swagger_css_url="/docs/assets/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
            swagger_ui_parameters={"validatorUrl": None},
        )  # no badge from swagger.io
        text = bytes(html.body).decode()
        return HTMLResponse(text, headers=docs_headers(text))

    @app.get("/docs/assets/{name}", include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        if swagger is None or name not in SWAGGER_ASSETS:
            raise HTTPException(404, f"no docs asset {clip(name, 60)!r}")
        body = (swagger / name).read_bytes()
        return Response(
            body,
            media_type=mimetypes.guess_type(name)[0] or "application/octet-stream",
            headers={"cache-control": "public, max-age=86400"},
        )

    # -- data for the page ----------------------------------------------------------------------
    @app.get("/depict", responses={200: {"content": {SVG_TYPE: {}}}})
    async def depict(
        smiles: str = Query(
            ...,
            description="A SMILES, or a reaction SMILES 'A.B>agents>C' for "
            "a scheme (at most api_max_query_chars characters).",
        ),
        w: int = Query(240, description="Width in pixels (40..1200; a scheme sizes itself)."),
        h: int = Query(180, description="Height in pixels (40..1200)."),
    ) -> Response:
        """A structure or reaction drawn by RDKit, as SVG (cached)."""
        check_query(smiles, "SMILES")
        if ">" in smiles:
            return await svg(lambda: depict_reaction_smiles(smiles.strip(), h), SMILES_CACHE)
        return await svg(lambda: depict_smiles(smiles.strip(), w, h), SMILES_CACHE)

    @app.get("/depict/reaction/{reaction_id:path}", responses={200: {"content": {SVG_TYPE: {}}}})
    async def depict_kb_reaction(
        reaction_id: str,
        h: int = Query(180, description="Height in pixels."),
        agents: bool = Query(
            True, description="Draw reagents, catalysts and solvents above the arrow."
        ),
    ) -> Response:
        """The scheme of a KB reaction (from its reaction SMILES, else its participants), as SVG."""
        check_query(reaction_id, "reaction id")
        return await svg(
            lambda: depict_reaction(service.workspace.kb.get_reaction(reaction_id), h, agents),
            REACTION_CACHE,
        )

    @app.get("/reaction/{reaction_id:path}")
    async def reaction(reaction_id: str) -> Response:
        """A KB reaction: participants by role, conditions, yield, source and its paragraph."""
        from chemground.retrieval.records import reaction_record

        check_query(reaction_id, "reaction id")

        def work() -> dict[str, Any]:
            found = service.workspace.kb.get_reaction(reaction_id)
            return {**reaction_record(found), "provenance": found.provenance}

        return await json_reply(work)

    @app.get("/profile")
    async def profile(
        id: int | None = Query(None, description="A KB compound id."),
        q: str | None = Query(None, description="Or a name, SMILES, InChI or CAS number."),
    ) -> Response:
        """A compound page's data: record, properties, reactions by role, similar compounds."""
        if (id is None) == (q is None):
            raise HTTPException(
                400, "give either id (a KB compound id) or q (a name, SMILES, InChI or CAS number)"
            )
        if q is not None:
            check_query(q, "query")
        return await json_reply(lambda: compound_profile(service, compound_id=id, query=q))

    @app.get("/options")
    async def options() -> Response:
        """Methods, reasoners and example questions this server offers (LLM ones with an LLM)."""
        return await json_reply(lambda: available_options(settings, service.qa))
