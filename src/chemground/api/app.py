"""HTTP API (FastAPI) over the same Python API the CLI uses.

``POST /ask`` and ``POST /retrieve`` take a question, ``GET /compound`` a name or SMILES;
errors a user can act on come back as HTTP 400 with the message, and every error is JSON
(``{"detail": ...}``). ``GET /`` serves the web app (evidence drawn, compound pages, review),
``GET /health`` answers from memory, ``GET /docs`` is the interactive API documentation
(served offline). The web app's endpoints (depictions, compound pages, review mode) are in
:mod:`chemground.api.web`.
Bind to loopback by default.

Requests are answered on a pool of threads (see :mod:`chemground.api.service`), so one slow
question does not hold up the others; ``chemground serve --workers N`` runs N such processes.
Limits (body size, question and query length), the optional API token, the Host check and
the security headers are in :mod:`chemground.api.guards` and below; all come from settings
(``api_*``, env ``CHEMGROUND_API_*``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import re
import signal
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware

from chemground import __version__, errors
from chemground.api.guards import BodyLimit, HostCheck, SecurityHeaders, TokenCheck, clip, json_body
from chemground.api.service import Service, encode_json
from chemground.api.web import add_web_routes, static_text
from chemground.errors import ChemgroundError
from chemground.settings import Settings, get_settings

# `chemground serve --workers N` hands its settings, and its process id, to the worker processes.
SETTINGS_ENV = "CHEMGROUND_API_SETTINGS_JSON"
PARENT_ENV = "CHEMGROUND_API_SUPERVISOR_PID"
MAX_WORKERS_DEFAULT = 4
# The core's own size limits (question length, SMILES atoms, name length) answer 422, as the
# API's do.
_LIMIT_ERRORS = tuple(c for c in (getattr(errors, "InputLimitError", None),) if c is not None)


class AskRequest(BaseModel):
    question: str = Field(
        ...,
        min_length=1,
        examples=["What forms when benzaldehyde reacts with benzohydrazide?"],
        description="At most max_question_chars characters (2,000 by default).",
    )
    method: str = Field("auto", max_length=64)
    reasoner: str = Field("extractive", max_length=64)
    k: int = Field(5, ge=1, le=50)
    id: str | None = Field(None, max_length=200)


def default_workers() -> int:
    """Worker processes when none are configured: one per core, at most four."""
    return max(1, min(MAX_WORKERS_DEFAULT, os.cpu_count() or 1))


# -- input checks and error bodies ---------------------------------------------------------
def _check_unicode(value: str, what: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise HTTPException(
            400,
            (
                f"the {what} is not valid Unicode: it holds a lone surrogate "
                f"(U+{ord(value[error.start]):04X}) at character {error.start}; "
                "send text whose \\ud800-\\udfff escapes come in pairs"
            ),
        ) from None


def _check_text(value: str, what: str, limit: int, setting: str) -> None:
    if len(value) > limit:
        raise HTTPException(
            422,
            (
                f"the {what} is {len(value):,} characters long; the limit is {limit:,} characters "
                f"(setting {setting}, env CHEMGROUND_{setting.upper().replace('.', '_')})"
            ),
        )
    _check_unicode(value, what)


def _detail(message: str, echoed: str) -> str:
    """An error message without a long input repeated in it."""
    if len(echoed) > 100:
        message = message.replace(echoed, clip(echoed, 60))
    return clip(message)


def _clip_value(value: Any) -> Any:
    if isinstance(value, str):
        return clip(value, 200)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value if not isinstance(value, int) or abs(value) < 10**30 else clip(str(value), 40)
    text = json.dumps(value, default=str, ensure_ascii=True)
    return (
        value
        if len(text) <= 200 and "Infinity" not in text and "NaN" not in text
        else clip(text, 200)
    )


def _validation_errors(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """FastAPI's validation errors with the offending inputs cut short (they can be the whole
    body)."""
    out = []
    for error in items[:20]:
        item: dict[str, Any] = {
            "type": error.get("type"),
            "loc": [clip(str(p), 100) for p in error.get("loc", ())],
            "msg": clip(str(error.get("msg", "")), 300),
        }
        if "input" in error:
            item["input"] = _clip_value(error["input"])
        if error.get("ctx"):
            item["ctx"] = {str(k): clip(str(v), 200) for k, v in error["ctx"].items()}
        out.append(item)
    return out


def _call_json(work: Callable[[], Any], echoed: str) -> tuple[int, bytes]:
    """Run ``work`` (on a worker thread) and encode its reply, or its ChemgroundError as a 400
    (422 for an input over one of the core's size limits)."""
    try:
        return 200, encode_json(work())
    except ChemgroundError as error:
        return 422 if isinstance(error, _LIMIT_ERRORS) else 400, json_body(
            _detail(str(error), echoed)
        )


def _inline_hashes(html: str, tag: str) -> list[str]:
    """CSP source expressions for the page's inline <script> or <style> blocks."""
    out = []
    for match in re.finditer(rf"<{tag}(\s[^>]*)?>(.*?)</{tag}>", html, re.DOTALL | re.IGNORECASE):
        if "src=" in (match.group(1) or ""):
            continue
        digest = hashlib.sha256(match.group(2).encode("utf-8")).digest()
        out.append(f"'sha256-{base64.b64encode(digest).decode()}'")
    return out


def page_csp(html: str) -> str:
    """Content-Security-Policy of the web pages: scripts, styles and images from this server only
    (plus the page's own inline blocks, if any), fetches to this server, nothing else."""
    scripts = " ".join(["'self'", *_inline_hashes(html, "script")])
    styles = " ".join(["'self'", *_inline_hashes(html, "style")])
    # blob: images are depictions fetched with the API token (an <img> cannot send one)
    return (
        f"default-src 'none'; script-src {scripts}; style-src {styles}; connect-src 'self'; "
        "img-src 'self' blob:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def docs_csp(html: str) -> str:
    """The API docs page: Swagger UI's script and styles served from this server (no CDN); it
    sets inline styles and uses data: images, and fetches /openapi.json."""
    scripts = " ".join(["'self'", *_inline_hashes(html, "script")])
    return (
        f"default-src 'none'; script-src {scripts}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


# -- the app ---------------------------------------------------------------------------------
def create_app(settings: Settings | None = None) -> FastAPI:
    from chemground.kb.lookup import lookup_compound

    settings = settings or get_settings()
    service = Service(settings)
    service.start()
    workspace, qa = service.workspace, service.qa
    page_html = static_text("index.html")
    page_headers = {"content-security-policy": page_csp(page_html), "cache-control": "no-cache"}
    allowed_hosts = [h for h in settings.api.allowed_hosts.split(",") if h.strip()]

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        service.close()

    app = FastAPI(
        title="chemground",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="Grounded chemistry question answering: answers with their evidence.",
        middleware=[  # outermost first
            Middleware(SecurityHeaders),
            Middleware(HostCheck, allowed=allowed_hosts),
            Middleware(TokenCheck, token=settings.api.token),
            Middleware(BodyLimit, max_bytes=settings.api.max_body_bytes),
        ],
    )
    app.state.service = service

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request, error: RequestValidationError) -> Response:
        problems = list(error.errors())
        for item in problems:  # a body that is not JSON, or not Unicode, is a bad request (400)
            where = ".".join(str(p) for p in item.get("loc", ())[1:]) or "body"
            if item.get("type") == "json_invalid":
                reason = clip(str((item.get("ctx") or {}).get("error", "")), 200)
                return Response(
                    json_body(
                        f"the request body is not valid JSON: {reason} (at character {where})"
                    ),
                    status_code=400,
                    media_type="application/json",
                )
            if item.get("type") == "string_unicode":
                return Response(
                    json_body(
                        f"{clip(where, 100)} is not valid Unicode: it holds a lone surrogate "
                        "(\\ud800-\\udfff escapes must come in pairs)"
                    ),
                    status_code=400,
                    media_type="application/json",
                )
        return Response(
            json_body(_validation_errors(problems)), status_code=422, media_type="application/json"
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request, error: StarletteHTTPException) -> Response:
        detail = clip(error.detail) if isinstance(error.detail, str) else error.detail
        return Response(
            json_body(detail),
            status_code=error.status_code,
            media_type="application/json",
            headers=getattr(error, "headers", None),
        )

    async def answer(work: Callable[[], Any], echoed: str) -> Response:
        status, body = await service.run(_call_json, work, echoed)
        return Response(body, status_code=status, media_type="application/json")

    def check_request(request: AskRequest) -> None:
        _check_text(request.question, "question", settings.max_question_chars, "max_question_chars")
        for what, value in (
            ("method", request.method),
            ("reasoner", request.reasoner),
            ("id", request.id),
        ):
            if value is not None:
                _check_unicode(value, what)

    add_web_routes(
        app,
        service,
        _check_text,
        page_headers,
        lambda html: {"content-security-policy": docs_csp(html)},
    )

    @app.get("/health")
    async def health() -> Response:
        """Liveness and the KB's size, from memory (never waits for a question in progress)."""
        return Response(service.health_body, media_type="application/json")

    @app.post("/ask")
    async def ask(request: AskRequest) -> Response:
        """Answer a question with the evidence it stands on."""
        check_request(request)

        def work() -> dict[str, Any]:
            service.ensure_components(request.method, request.reasoner)
            return qa.ask(
                request.question,
                method=request.method,
                reasoner=request.reasoner,
                k=request.k,
                id=request.id,
            ).to_json()

        return await answer(work, request.question)

    @app.post("/retrieve")
    async def retrieve(request: AskRequest) -> Response:
        """The parsed question and the evidence found for it, without an answer."""
        check_request(request)

        def work() -> dict[str, Any]:
            service.ensure_components(request.method, "extractive")
            query, evidence = qa.retrieve(request.question, method=request.method, k=request.k)
            return {"query": query.to_json(), "hits": [e.to_json() for e in evidence]}

        return await answer(work, request.question)

    @app.get("/compound")
    async def compound(
        q: str = Query(
            ...,
            description="A name, SMILES, InChI or CAS number "
            "(at most api_max_query_chars characters).",
        ),
    ) -> Response:
        """A compound's record and the reactions it takes part in."""
        _check_text(q, "query", settings.api.max_query_chars, "api.max_query_chars")
        return await answer(
            lambda: lookup_compound(workspace.kb, workspace.resolver, q).to_dict(), q
        )

    return app


def _end_with_parent() -> None:
    """Have this worker process stopped (SIGTERM) when the process that started it ends, even
    by SIGKILL: an orphaned worker would go on serving and holding the port (Linux only)."""
    parent = os.environ.get(PARENT_ENV)
    if not parent or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != int(parent):  # it ended before the call above
        os.kill(os.getpid(), signal.SIGTERM)


def app_from_environment() -> FastAPI:
    """The app of one ``chemground serve --workers N`` worker process (uvicorn calls this factory).

    The parent process passes its settings (CLI flags included) in :data:`SETTINGS_ENV`;
    without it, the settings come from the environment and config file as usual.
    """
    _end_with_parent()
    raw = os.environ.get(SETTINGS_ENV)
    return create_app(Settings.model_validate_json(raw) if raw else None)
