"""What every request passes before it reaches an endpoint (plain ASGI middleware).

From the outside in: :class:`SecurityHeaders` adds the security headers to every response and
turns any exception an endpoint lets through into a JSON 500; :class:`HostCheck` refuses Host
headers the server was not told about (DNS rebinding); :class:`TokenCheck` asks for the
optional API token; :class:`BodyLimit` refuses bodies over the size limit and bodies that are
not UTF-8. Every refusal is a JSON ``{"detail": ...}`` with a message saying what to change.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("chemground.api")

# JSON and anything else without a page of its own: nothing may load, nothing may frame it.
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
SECURITY_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-resource-policy", "same-origin"),
)
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")
MAX_DETAIL_CHARS = 500


def clip(text: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """``text``, or its start and length when longer than ``limit`` (never echo a huge input)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut: {len(text):,} characters in all]"


def json_body(detail: Any) -> bytes:
    # ensure_ascii: a lone surrogate echoed in a message still encodes (as \\ud800)
    return json.dumps({"detail": detail}, ensure_ascii=True).encode("ascii")


async def send_json_error(
    send: Send, status: int, detail: Any, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    body = json_body(detail)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Security headers on every response; an uncaught exception becomes a JSON 500.

    A response that sets its own Content-Security-Policy (the web page, the API docs) keeps it;
    every other response gets :data:`API_CSP`.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers.setdefault("content-security-policy", API_CSP)
                for name, value in SECURITY_HEADERS:
                    headers.setdefault(name, value)
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as error:
            log.exception("unhandled error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise  # the response is half sent; the server closes the connection
            await send_json_error(
                send_with_headers,
                500,
                f"internal error ({type(error).__name__}); the server log has the details",
            )


def host_name(header: str) -> str | None:
    """The host part of a Host header, lower-case, IPv6 without brackets; None if malformed."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None
        host, rest = header[1:end], header[end + 1 :]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
    else:
        host, colon, port = header.partition(":")
        rest = colon + port
        host = host.rstrip(".")
    if rest and not (rest.startswith(":") and rest[1:].isdigit()):
        return None
    return host or None


def normalise_host(pattern: str) -> str:
    pattern = pattern.strip().lower()
    if pattern.startswith("[") and pattern.endswith("]"):
        pattern = pattern[1:-1]
    return pattern.rstrip(".")


class HostCheck:
    """Answer only requests whose Host header names this server (defeats DNS rebinding).

    Allowed: localhost, 127.0.0.1, [::1], and the ``allowed`` names (the bound address and
    ``api_allowed_hosts``): exact names, ``*.example.org`` for a domain, ``*`` for any.
    """

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        patterns = {normalise_host(p) for p in (*LOOPBACK_HOSTS, *allowed)} - set(
            WILDCARD_ADDRESSES
        )
        self.allow_any = "*" in patterns
        self.exact = {p for p in patterns if not p.startswith("*")}
        self.suffixes = tuple(p[1:] for p in patterns if p.startswith("*."))

    def allows(self, host: str) -> bool:
        return self.allow_any or host in self.exact or host.endswith(self.suffixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allow_any:
            await self.app(scope, receive, send)
            return
        header = next((v for k, v in scope["headers"] if k == b"host"), None)
        host = host_name(header.decode("latin-1")) if header is not None else None
        if host is None or not self.allows(host):
            shown = clip(header.decode("latin-1"), 100) if header is not None else "(none)"
            await send_json_error(
                send,
                400,
                (
                    f"Host header {shown!r} is not one this server answers to; start it with "
                    "`chemground serve --allow-host NAME` (or set CHEMGROUND_API_ALLOWED_HOSTS) "
                    "to add a name"
                ),
            )
            return
        await self.app(scope, receive, send)


class TokenCheck:
    """With a token set, every path but the public ones needs ``Authorization: Bearer <token>``.

    Public: the web app's pages and static files (they hold no data; the page asks for the
    token and sends it with every request), ``/health``, and the API docs.
    """

    PUBLIC = frozenset({"/", "/review", "/health", "/docs", "/openapi.json"})
    PUBLIC_PREFIXES = ("/static/", "/docs/assets/")
    PAGE = re.compile(r"/compound/[0-9]{1,18}")  # a compound page (its data comes from /profile)

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        # compare digests: constant time, and the token's length does not show either
        self.digest = hashlib.sha256(token.encode("utf-8")).digest() if token else None

    def public(self, path: str) -> bool:
        return (
            path in self.PUBLIC
            or path.startswith(self.PUBLIC_PREFIXES)
            or self.PAGE.fullmatch(path) is not None
        )

    def authorised(self, scope: Scope) -> bool:
        header = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        scheme, _, credential = header.decode("latin-1").strip().partition(" ")
        if scheme.lower() != "bearer" or self.digest is None:
            return False
        digest = hashlib.sha256(credential.strip().encode("latin-1")).digest()
        return hmac.compare_digest(digest, self.digest)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or self.digest is None
            or self.public(scope["path"])
            or self.authorised(scope)
        ):
            await self.app(scope, receive, send)
            return
        await send_json_error(
            send,
            401,
            "this server needs an API token: send 'Authorization: Bearer <token>'",
            [(b"www-authenticate", b'Bearer realm="chemground"')],
        )


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` (413) and bodies that are not UTF-8 (400).

    The body is read here (at most ``max_bytes``) and handed on whole, so nothing behind this
    ever buffers more than the limit; a declared Content-Length over the limit is refused
    before reading anything.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def too_large(self, size: str) -> str:
        return (
            f"the request body is {size}; the limit is {self.max_bytes:,} bytes "
            "(setting api.max_body_bytes, env CHEMGROUND_API_MAX_BODY_BYTES)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await send_json_error(send, 413, self.too_large(f"{int(declared):,} bytes"))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_json_error(send, 413, self.too_large(f"over {self.max_bytes:,} bytes"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as error:
            await send_json_error(
                send,
                400,
                (
                    f"the request body is not valid UTF-8 (byte 0x{body[error.start]:02x} at "
                    f"offset {error.start}); send JSON encoded as UTF-8"
                ),
            )
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
