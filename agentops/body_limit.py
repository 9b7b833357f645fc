"""A request body over its limit is refused with 413 and the API's JSON error before it is read.

The limit of a path: the API's MAX_BODY_BYTES under /api/ (ALERT_MAX_BODY_BYTES under /api/alerts/),
DATA_UPLOAD_MAX_MEMORY_SIZE elsewhere.
Two layers enforce it, because Daphne reads a request's whole body (Twisted's Request.content, a
temporary file past 100 kB) before it calls the ASGI application, so an ASGI middleware alone
would see a 100 MiB upload only once it had all arrived:

- install(): under Daphne, a Content-Length over the limit is refused as soon as the headers are
  in (Twisted's Request.gotLength), a chunked body as soon as it passes the limit
  (handleContentChunk); the answer is written and the connection closed, the rest never read.
  tests/diagnosis/test_body_limit.py fails when Twisted or Daphne change that shape.
- BodyLimitMiddleware: the same rule at the ASGI layer, for servers that hand the app the
  headers first: no receive() at all for a declared length over the limit, and a chunked body
  counted as it arrives and cut off at the limit.
"""

import functools
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

from diagnosis.api.validation import ALERT_MAX_BODY_BYTES, MAX_BODY_BYTES
from diagnosis.http_headers import security_headers

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_INSTALLED = "_agentops_body_limit_installed"
_REFUSED = "_agentops_body_refused"


def limit_for(path: str) -> int | None:
    """The most bytes a request body to `path` may have; None for no limit."""
    if path.startswith("/api/alerts/"):
        return ALERT_MAX_BODY_BYTES
    if path.startswith("/api/"):
        return MAX_BODY_BYTES
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit


def _refusal(limit: int) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = json.dumps(
        {
            "error": f"request body over {limit} bytes",
            "code": "too_large",
            "limit": limit,
        }
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        # The unread body is still on its way: this connection cannot carry another request.
        (b"connection", b"close"),
        *security_headers(),
    ]
    return headers, body


def _content_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name.lower() == b"content-length":
            return int(value) if value.isdigit() else None
    return None


class BodyLimitMiddleware:
    """ASGI middleware: 413 for a body over limit_for(path), without reading it."""

    def __init__(
        self, app: ASGIApp, *, limit: Callable[[str], int | None] = limit_for
    ) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit(scope["path"]) if scope["type"] == "http" else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        declared = _content_length(headers)
        if declared is not None and declared > limit:
            await _send_refusal(send, limit)
            return
        if declared is not None or not any(
            name.lower() == b"transfer-encoding" for name, _ in headers
        ):
            # The server stops at the declared length. `send` is passed on untouched: the SSE
            # app finds Daphne's request behind it (diagnosis.streaming.daphne_compat).
            await self.app(scope, receive, send)
            return
        await self._counted(scope, receive, send, limit)

    async def _counted(
        self, scope: Scope, receive: Receive, send: Send, limit: int
    ) -> None:
        received = 0
        refused = started = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    if not started:
                        await _send_refusal(send, limit)
                    # Django's handler takes this as the client gone and answers nothing.
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # answered already
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counting_receive, guarded_send)


async def _send_refusal(send: Send, limit: int) -> None:
    headers, body = _refusal(limit)
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# --- Daphne: refuse in Twisted, before the body is read ------------------------------------


def _request_path(request: Any) -> str:
    # Twisted's HTTPChannel keeps the request target of the request being read in `_path`
    # until the body is complete (Request.path is set only then). This and the three hooks
    # below are checked against the installed Twisted by tests/test_daphne_patches.py.
    target = getattr(request.channel, "_path", b"")
    target = target if isinstance(target, bytes) else b""
    return target.split(b"?", 1)[0].decode("latin-1")


def _refuse_in_twisted(request: Any, limit: int) -> None:
    setattr(request, _REFUSED, True)
    headers, body = _refusal(limit)
    head = b"HTTP/1.1 413 Request Entity Too Large\r\n" + b"".join(
        name + b": " + value + b"\r\n" for name, value in headers
    )
    request.channel.transport.write(head + b"\r\n" + body)
    # As Twisted's own _respondToBadRequestAndDisconnect: write what is pending, then close.
    request.channel.loseConnection()


def install() -> None:
    """Refuse over-limit bodies in Daphne's requests as their headers arrive; a no-op outside Daphne."""
    # Only when Daphne is what loaded us (as agentops.daphne_forms).
    module = sys.modules.get("daphne.http_protocol")
    if module is None or getattr(module.WebRequest, _INSTALLED, False):
        return
    web_request = module.WebRequest
    got_length = web_request.gotLength
    handle_chunk = web_request.handleContentChunk
    process = web_request.process

    @functools.wraps(got_length)
    def gotLength(self: Any, length: int | None) -> None:
        limit = limit_for(_request_path(self))
        self._agentops_body_limit_bytes = limit
        self._agentops_body_received = 0
        if limit is not None and length is not None and length > limit:
            got_length(
                self, 0
            )  # an empty in-memory file, not a temporary file of `length`
            _refuse_in_twisted(self, limit)
            return
        got_length(self, length)

    @functools.wraps(handle_chunk)
    def handleContentChunk(self: Any, data: bytes) -> None:
        if getattr(self, _REFUSED, False):
            return  # refused: what still arrives before the close is dropped
        limit = getattr(self, "_agentops_body_limit_bytes", None)
        self._agentops_body_received = getattr(
            self, "_agentops_body_received", 0
        ) + len(data)
        if limit is not None and self._agentops_body_received > limit:
            _refuse_in_twisted(self, limit)
            return
        handle_chunk(self, data)

    @functools.wraps(process)
    def process_(self: Any) -> Any:
        if getattr(self, _REFUSED, False):
            return (
                None  # the whole (refused) request arrived in one read: do not run it
            )
        return process(self)

    web_request.gotLength = gotLength
    web_request.handleContentChunk = handleContentChunk
    web_request.process = process_
    setattr(web_request, _INSTALLED, True)
