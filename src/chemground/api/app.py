"""HTTP API (FastAPI) over the same Python API the CLI uses.

``POST /ask`` and ``POST /retrieve`` take a question, ``GET /compound`` a name or SMILES;
errors a user can act on come back as HTTP 400 with the message. ``GET /`` serves a one-page
form for trying questions in a browser. Bind to loopback by default.
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from chemground import __version__
from chemground.errors import ChemgroundError
from chemground.settings import Settings, get_settings


class AskRequest(BaseModel):
    question: str = Field(..., min_length=1, examples=["What forms when benzaldehyde reacts with benzohydrazide?"])
    method: str = "table"
    reasoner: str = "extractive"
    k: int = Field(5, ge=1, le=50)
    id: str | None = None


def create_app(settings: Settings | None = None) -> FastAPI:
    from chemground.kb.lookup import lookup_compound
    from chemground.qa_factory import build_qa
    from chemground.workspace import Workspace

    settings = settings or get_settings()
    workspace = Workspace(settings, readonly=True)
    qa = build_qa(workspace)
    lock = threading.Lock()  # one question at a time per process: the KB connection and caches are shared
    app = FastAPI(title="chemground", version=__version__,
                  description="Grounded chemistry question answering: answers with the evidence they stand on.")

    def guarded(fn, *args, **kwargs) -> Any:
        try:
            with lock:
                return fn(*args, **kwargs)
        except ChemgroundError as error:
            raise HTTPException(status_code=400, detail=str(error)) from error

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return (resources.files("chemground.api") / "index.html").read_text(encoding="utf-8")

    @app.get("/health")
    def health() -> dict[str, Any]:
        stats = guarded(workspace.kb.stats)
        return {"status": "ok", "version": __version__, "compounds": stats.compounds, "reactions": stats.reactions}

    @app.post("/ask")
    def ask(request: AskRequest) -> dict[str, Any]:
        answer = guarded(qa.ask, request.question, method=request.method, reasoner=request.reasoner, k=request.k,
                         id=request.id)
        return answer.to_json()

    @app.post("/retrieve")
    def retrieve(request: AskRequest) -> dict[str, Any]:
        query, evidence = guarded(qa.retrieve, request.question, method=request.method, k=request.k)
        return {"query": query.to_json(), "hits": [e.to_json() for e in evidence]}

    @app.get("/compound")
    def compound(q: str) -> dict[str, Any]:
        return guarded(lookup_compound, workspace.kb, workspace.resolver, q).to_dict()

    return app
