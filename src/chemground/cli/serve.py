"""``chemground serve``: the HTTP API and web page."""

from __future__ import annotations

import typer

from chemground.cli.common import err_console, state


def serve(
    ctx: typer.Context,
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Interface to bind (loopback by default)."
    ),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port (1-65535)."),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        show_default=False,
        help="Worker processes (default: setting api_workers, else one per CPU core, at most 4).",
    ),
    threads: int | None = typer.Option(
        None,
        "--threads",
        min=1,
        show_default=False,
        help="Threads answering requests in each worker (default: setting api_threads, 8).",
    ),
    token: str | None = typer.Option(
        None,
        "--token",
        show_default=False,
        help="Require 'Authorization: Bearer TOKEN' on every endpoint but the web pages, /health "
        "and /docs (the page asks for the token and sends it). "
        "Prefer env CHEMGROUND_API_TOKEN: other users can see a command line.",
    ),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        show_default=False,
        help="A Host name to answer to besides localhost and the bound address (repeatable; "
        "'*.example.org' for a domain).",
    ),
) -> None:
    """Serve the HTTP API (POST /ask, POST /retrieve, GET /compound, GET /depict...), the web app
    at / (answers with drawn evidence, compound pages, dataset review) and offline docs at /docs."""
    from chemground.api.app import default_workers
    from chemground.api.server import run_server
    from chemground.cli.common import build_progress
    from chemground.workspace import ensure_kb

    settings = state(ctx).settings.with_overrides(api={"token": token, "threads": threads})
    hosts = [h.strip() for h in settings.api.allowed_hosts.split(",") if h.strip()]
    hosts += [*allow_host, host]
    if host in ("0.0.0.0", "::", ""):  # every interface: also answer to this machine's own names
        import socket

        hosts += [socket.gethostname(), socket.getfqdn()]
    settings = settings.with_overrides(api={"allowed_hosts": ",".join(dict.fromkeys(hosts))})
    workers = workers or settings.api.workers or default_workers()
    ensure_kb(
        settings.kb.path, build_progress()
    )  # once, here: not by every worker at the same time
    err_console.print(
        f"chemground at http://{host}:{port}/  (review: /review; API docs: /docs; {workers} worker"
        f"{'s' if workers > 1 else ''} x {settings.api.threads} threads"
        f"{'; token required' if settings.api.token else ''})"
    )
    run_server(settings, host, port, workers)
