"""``chemground serve``: the HTTP API and web page."""

from __future__ import annotations

import typer

from chemground.cli.common import err_console, state


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind (loopback by default)."),
    port: int = typer.Option(8000, "--port", help="Port."),
) -> None:
    """Serve the HTTP API (POST /ask, POST /retrieve, GET /compound) and a web page at /."""
    import uvicorn

    from chemground.api.app import create_app

    app = create_app(state(ctx).settings)
    err_console.print(f"chemground at http://{host}:{port}/  (API docs: /docs)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
