"""HTTP guard for the Streamable HTTP transport: Origin and Host checks, bearer token, request size limit.

`GuardMiddleware` wraps the SDK's Starlette app, so every request is checked before the SDK sees it:

    Origin not allowed    → 403   (browsers send Origin; a page on another site must not drive our tools)
    Host not allowed      → 421   (DNS rebinding, only when bound to a loopback address)
    token missing/wrong   → 401 + WWW-Authenticate: Bearer
    body over the limit   → 413
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
REALM = "mcpservers"


def is_loopback_host(host: str) -> bool:
    """True for localhost names and loopback IPs (127.0.0.0/8, ::1)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(authority: str) -> str:
    """Host part of a Host header value ("127.0.0.1:8000", "[::1]:80", "example.com")."""
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


class GuardMiddleware:
    """ASGI middleware applying the checks in the module docstring, in that order."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None = None,
        allowed_origins: Iterable[str] = (),
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        check_host: bool = False,
    ) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.allowed_origins = {
            origin.rstrip("/").lower() for origin in allowed_origins
        }
        self.max_request_bytes = max_request_bytes
        self.check_host = check_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            # lifespan must reach the SDK app: it starts the session manager's task group.
            await self.app(scope, receive, send)
            return
        headers = {
            key.decode("latin-1").lower(): value.decode("latin-1")
            for key, value in scope["headers"]
        }
        origin = headers.get("origin")
        if origin is not None and not self.is_origin_allowed(origin):
            await _reply(
                send,
                403,
                f"Origin {origin!r} is not allowed; start the server with --allow-origin {origin}",
            )
            return
        if self.check_host and not is_loopback_host(_host_of(headers.get("host", ""))):
            await _reply(
                send,
                421,
                "Host header must name a loopback address for a server bound to loopback",
            )
            return
        if self.token is not None:
            problem = self._auth_problem(headers.get("authorization"))
            if problem is not None:
                await _reply(
                    send,
                    401,
                    problem,
                    www_authenticate=self._challenge(headers.get("authorization")),
                )
                return
        await self._call_with_body_limit(
            scope, receive, send, headers.get("content-length")
        )

    def is_origin_allowed(self, origin: str) -> bool:
        origin = origin.rstrip("/").lower()
        if origin in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and is_loopback_host(
            parts.hostname or ""
        )

    def _auth_problem(self, authorization: str | None) -> str | None:
        if not authorization:
            return "missing bearer token; send Authorization: Bearer <token>"
        scheme, _, credentials = authorization.partition(" ")
        assert self.token is not None
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credentials.strip().encode(), self.token
        ):
            return "invalid bearer token"
        return None

    def _challenge(self, authorization: str | None) -> str:
        # RFC 6750 §3: no error code when the request carried no credentials at all.
        if not authorization:
            return f'Bearer realm="{REALM}"'
        return f'Bearer realm="{REALM}", error="invalid_token"'

    async def _call_with_body_limit(
        self, scope: Scope, receive: Receive, send: Send, length: str | None
    ) -> None:
        too_large = f"request body is larger than {self.max_request_bytes} bytes"
        if (
            length is not None
            and length.isdigit()
            and int(length) > self.max_request_bytes
        ):
            await _reply(send, 413, too_large)
            return
        # Content-Length can be absent (chunked) or lie, so count what arrives; buffering is fine at this size.
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away before sending the body
            body.extend(message.get("body", b""))
            if len(body) > self.max_request_bytes:
                await _reply(send, 413, too_large)
                return
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _reply(
    send: Send, status: int, message: str, *, www_authenticate: str | None = None
) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if www_authenticate:
        headers.append((b"www-authenticate", www_authenticate.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
