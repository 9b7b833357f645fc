"""Streamable HTTP transport (2025-03-26+): one endpoint, POST per message, JSON or SSE answers.

Handshake era: Mcp-Session-Id from the initialize answer, MCP-Protocol-Version after it, DELETE on
close, resumption of a broken SSE answer with GET + Last-Event-ID. 2026-07-28: no session, and the
Mcp-Method / Mcp-Name / Mcp-Param-* headers on every POST; abandoning the answer is the cancellation.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import email.utils
import logging
import re
import socket
import ssl
import time
from typing import TYPE_CHECKING, Any
from urllib.request import getproxies

import httpx

from mcpclient import _jsonrpc, _timings
from mcpclient._exceptions import (
    AuthorizationError,
    ConnectError,
    ConnectionLost,
    HttpStatusError,
    MalformedMessage,
    McpError,
    MessageTooLarge,
    RateLimited,
    ResponseTimeout,
    SessionExpired,
)
from mcpclient._sse import SseParser

from ._httpx_compat import plain_http_transport

logger = logging.getLogger("mcpclient")

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from mcpclient._types import HttpServer

    from .base import Closed, Deliver

_ERROR_BODY_LIMIT = 64 * 1024
_DRAIN_TIMEOUT = 0.05  # seconds an answered SSE stream gets to end by itself
# Answered streams drained off the callers' path at once, at most: each holds a pooled connection
# (and httpcore's pool scans all of them per request), so under many callers the rest drain inline.
_MAX_DRAINING = 4
# Patterns are applied with fullmatch: "$" would also match before a final newline.
_HEADER_SAFE = re.compile(r"[\x20-\x7E]*")
# Mcp-Session-Id: visible ASCII (Streamable HTTP, "Session Management"), bounded by us.
_SESSION_ID = re.compile(r"[\x21-\x7E]+")
_MAX_SESSION_ID = 1024
# An SSE id we would echo in Last-Event-ID: visible ASCII and space, bounded.
_EVENT_ID = re.compile(r"[\x20-\x7E]{0,1024}")
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


@contextlib.contextmanager
def map_httpx_errors(*, name: str = "server") -> Iterator[None]:
    """Translate httpx exceptions into the mcpclient tree, keeping "never sent" vs "outcome unknown".

    Raises:
        ConnectError: connect failures, pool timeouts, local protocol errors (nothing was sent).
        ResponseTimeout: read/write timeouts (the request may have been sent).
        ConnectionLost: any other transport failure after the request started.
    """
    try:
        yield
    except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as exc:
        # Our own request could not be written (a header value h11 refuses, a bad scheme): nothing
        # reached the server, so this says nothing about it, and a retry would fail the same way.
        error = ConnectError(f"{name}: {type(exc).__name__}: {exc}")
        error.local = True
        error.retryable = False
        raise error from exc
    except (
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
        httpx.ProxyError,
    ) as exc:
        error = ConnectError(f"{name}: {type(exc).__name__}: {exc}")
        if _is_permanent_connect_failure(exc):
            error.retryable = False
        raise error from exc
    except httpx.TimeoutException as exc:
        raise ResponseTimeout(f"{name}: {type(exc).__name__}: {exc}") from exc
    except httpx.DecodingError as exc:
        raise MalformedMessage(
            f"{name}: cannot decode the response body: {exc}"
        ) from exc
    except httpx.RequestError as exc:
        # NetworkError (read/write/close), RemoteProtocolError, TooManyRedirects, future subclasses.
        raise ConnectionLost(f"{name}: {type(exc).__name__}: {exc}") from exc


def _is_permanent_connect_failure(exc: BaseException) -> bool:
    """A certificate that fails verification or a name that does not exist: retrying cannot help.

    httpx keeps the original error in the cause chain (ssl.SSLCertVerificationError, or
    socket.gaierror with EAI_NONAME for NXDOMAIN; EAI_AGAIN, a SERVFAIL or timeout, stays retryable).
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ssl.SSLCertVerificationError):
            return True
        if isinstance(cause, socket.gaierror) and cause.errno in _NXDOMAIN_ERRNOS:
            return True
        cause = cause.__cause__ or cause.__context__
    return False


_NXDOMAIN_ERRNOS = frozenset(
    code
    for code in (
        getattr(socket, "EAI_NONAME", None),
        getattr(socket, "EAI_NODATA", None),
    )
    if code is not None
)


def encode_header_value(value: str) -> str:
    """Pass printable ASCII through; wrap anything else as ``=?base64?…?=`` (2026-07-28 transports)."""
    if (
        _HEADER_SAFE.fullmatch(value)
        and value == value.strip()
        and not (value.startswith("=?base64?") and value.endswith("?="))
    ):
        return value
    return "=?base64?" + base64.b64encode(value.encode()).decode("ascii") + "?="


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


async def read_prefix(response: httpx.Response, limit: int) -> bytes:
    """At most the first ``limit`` bytes of the (decoded) body; the rest is never read.

    For error answers: a 502 with a 10 MiB HTML page is still a 502 (retryable), a 401 still an
    AuthorizationError; only the head of the body goes into the message.
    """
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


async def read_capped(response: httpx.Response, limit: int) -> bytes:
    """The (decoded) body, refusing more than ``limit`` bytes without buffering them.

    Raises:
        MessageTooLarge: the body is over the limit.
    """
    length = response.headers.get("content-length")
    if length is not None and length.isdigit():
        if int(length) > limit:
            raise MessageTooLarge(
                f"response body of {length} bytes over the limit of {limit}",
                limit=limit,
                size=int(length),
            )
        if "content-encoding" not in response.headers:
            return (
                await response.aread()
            )  # the common case: small, declared, not compressed
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise MessageTooLarge(
                f"response body over the limit of {limit} bytes", limit=limit
            )
        chunks.append(chunk)
    return b"".join(chunks)


def status_error(
    response: httpx.Response,
    body: bytes,
    *,
    name: str,
    had_session: bool,
    request_id: Any = None,
) -> McpError:
    """Map a non-2xx answer to the tree; a JSON-RPC error body wins over the bare status."""
    status = response.status_code
    headers = dict(response.headers)
    text = body[:200].decode("utf-8", "replace")
    if status in (401, 403):
        return AuthorizationError(
            f"{name}: HTTP {status}: {text}",
            status=status,
            body=body,
            www_authenticate=response.headers.get("www-authenticate"),
        )
    if status == 429:
        return RateLimited(
            f"{name}: HTTP 429: {text}",
            body=body,
            headers=headers,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )
    if status == 404 and had_session:
        return SessionExpired(
            f"{name}: HTTP 404: session expired: {text}", body=body, headers=headers
        )
    if body[:1] == b"{":
        try:
            message = _jsonrpc.decode(body)
        except McpError:
            message = None
        if (
            message is not None
            and "error" in message
            and message.get("id") in (None, request_id)
        ):
            return _jsonrpc.error_from(message, http_status=status)
    return HttpStatusError(
        f"{name}: HTTP {status}: {text}", status=status, body=body, headers=headers
    )


def _answers(message: dict[str, Any], request_id: Any) -> bool:
    """True when ``message`` is the response to our (int) ``request_id``; 4.0 or true never are."""
    answer_id = message.get("id")
    return (
        type(answer_id) is int and answer_id == request_id and "method" not in message
    )


class StreamableHttpTransport:
    """POST each message to ``server.url``; answers come back inside the POST."""

    kind = "streamable_http"

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.name = server.display_name
        self.url = server.url
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.modern = False
        self.cancels_by_closing = False
        self._client = server.http_client
        self._owns_client = server.http_client is None
        self._max = server.max_message_size
        self._user_headers = dict(server.headers or {})
        # OAuth (mcpclient.ClientCredentials, AuthorizationCode): every request goes through httpx's
        # auth flow, which answers 401/403 challenges and retries.
        self._auth: dict[str, Any] = (
            {"auth": server.auth} if server.auth is not None else {}
        )
        self._deliver: Deliver | None = None
        self._headers: dict[str, str] = {}
        self._post_headers: httpx.Headers | None = None
        self._post_url = httpx.URL(server.url)
        self._extensions: dict[str, Any] = {}
        self._direct: httpx.AsyncHTTPTransport | None = None
        self._drain_streams = True
        self._draining: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._rebuild_headers()

    def _rebuild_headers(self) -> None:
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            **self._user_headers,
        }
        version = self.protocol_version
        if version is not None and (self.modern or version >= "2025-06-18"):
            headers["mcp-protocol-version"] = version
        if self.session_id is not None and not self.modern:
            headers["mcp-session-id"] = self.session_id
        self._headers = headers
        # Merged with the client's default headers again on the next POST.
        self._post_headers = None

    async def start(self, deliver: Deliver, closed: Closed) -> None:
        self._deliver = deliver
        client = self._client
        if client is None:
            # Our plain-http transport only where httpx would add nothing per request: no proxy
            # from the environment (a custom transport turns httpx's env proxies off) and no
            # credentials in the URL (httpx turns those into basic auth). POSTs then go straight
            # to it (see send); otherwise this is httpx's default client, as before.
            url = httpx.URL(self.url)
            if url.scheme == "http" and not url.userinfo and not getproxies():
                self._direct = plain_http_transport()  # None if httpx changed under us
            # Deadlines are the session's job; httpx only bounds connecting (so "never sent" stays exact).
            client = self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(None, connect=10.0), transport=self._direct
            )
        # What build_request would work out on every POST, worked out once: the URL merged with the
        # client's base_url and params, and its timeouts. Headers are merged in _post_headers_for.
        self._post_url = client.build_request("POST", self.url).url
        self._extensions = {"timeout": client.timeout.as_dict()}

    def configure(self, *, protocol_version: str, modern: bool) -> None:
        self.protocol_version = protocol_version
        self.modern = modern
        self.cancels_by_closing = modern
        self._rebuild_headers()

    def reset_session(self) -> None:
        """Forget the session id (after a 404) so the next initialize starts a new one."""
        self.session_id = None
        self._rebuild_headers()

    # -- sending --------------------------------------------------------------------------------

    def _extra_headers(
        self, message: dict[str, Any], extra: dict[str, str] | None
    ) -> dict[str, str] | None:
        """Per-message headers on top of ``_headers``: 2026-07-28 Mcp-Method/Mcp-Name, the caller's."""
        if not self.modern:
            return extra
        headers: dict[str, str] = {}
        method = message.get("method")
        if method is not None:
            headers["mcp-method"] = method
            key = NAME_BEARING.get(method)
            if key is not None:
                value = (message.get("params") or {}).get(key)
                if isinstance(value, str):
                    headers["mcp-name"] = encode_header_value(value)
        if extra:
            headers.update(extra)
        return headers

    def _post_headers_for(
        self, client: httpx.AsyncClient, extra: dict[str, str] | None
    ) -> httpx.Headers:
        merged = self._post_headers
        if merged is None:
            merged = self._post_headers = client.headers.copy()
            merged.update(self._headers)
        if extra:
            merged = merged.copy()
            merged.update(extra)
        return merged

    async def send(
        self, message: dict[str, Any], *, headers: dict[str, str] | None = None
    ) -> None:
        client = self._client
        assert client is not None
        extra = self._extra_headers(message, headers)
        had_session = "mcp-session-id" in self._headers
        data = _jsonrpc.encode(message)
        # A request of a call whose observer wants its layers (not a notification or response).
        trace = (
            _timings.request_trace()
            if "id" in message and "method" in message
            else None
        )
        try:
            with map_httpx_errors(name=self.name):
                response = await self._post(client, data, extra, trace)
                handed_off = False
                try:
                    handed_off = await self._consume(
                        message, response, had_session=had_session
                    )
                finally:
                    if not handed_off:
                        await response.aclose()
        finally:
            if trace is not None:
                trace.finish()

    async def _post(
        self,
        client: httpx.AsyncClient,
        data: bytes,
        extra: dict[str, str] | None,
        trace: _timings.RequestTrace | None,
    ) -> httpx.Response:
        """POST ``data``; the streamed response (status unchecked)."""
        if client.cookies or self._auth:
            # A Cookie header, an auth flow: let httpx do it all.
            request = client.build_request(
                "POST",
                self.url,
                content=data,
                headers={**self._headers, **extra} if extra else self._headers,
                extensions=None if trace is None else {"trace": trace},
            )
            return await client.send(request, stream=True, **self._auth)
        # build_request re-parses the URL and re-merges headers on every call; this is the
        # same request from what start() and _post_headers_for worked out once.
        request = httpx.Request(
            "POST",
            self._post_url,
            content=data,
            headers=self._post_headers_for(client, extra),
            extensions=self._extensions
            if trace is None
            else {**self._extensions, "trace": trace},
        )
        direct = self._direct
        if direct is None:
            return await client.send(request, stream=True)
        # Our own client has no auth, event hooks or redirects to run, and the
        # cookie jar needs a look only when the server sets one.
        response = await direct.handle_async_request(request)
        response.request = request
        if "set-cookie" in response.headers:
            client.cookies.extract_cookies(response)
        return response

    async def _consume(
        self, message: dict[str, Any], response: httpx.Response, *, had_session: bool
    ) -> bool:
        """Deliver what the answer holds; True when the rest of the response was left to a drain."""
        request_id = message.get("id") if "method" in message else None
        status = response.status_code
        if status >= 300:
            body = await read_prefix(response, _ERROR_BODY_LIMIT)
            raise status_error(
                response,
                body,
                name=self.name,
                had_session=had_session,
                request_id=request_id,
            )
        if request_id is None:
            return False  # notification or response: 202 Accepted, nothing to read
        if message.get("method") == "initialize":
            session_id = response.headers.get("mcp-session-id")
            if session_id is not None:
                if len(session_id) > _MAX_SESSION_ID or not _SESSION_ID.fullmatch(
                    session_id
                ):
                    raise MalformedMessage(
                        f"{self.name}: invalid Mcp-Session-Id ({len(session_id)} characters,"
                        f" visible ASCII of at most {_MAX_SESSION_ID} required): {session_id[:40]!r}"
                    )
                self.session_id = session_id
                self._rebuild_headers()
        ctype = response.headers.get("content-type", "")
        if ctype.startswith("text/event-stream"):
            return await self._consume_sse(response, request_id)
        body = await read_capped(response, self._max)
        if not ctype.startswith("application/json"):
            raise MalformedMessage(
                f"{self.name}: unexpected content-type {ctype!r} (HTTP {status})"
            )
        deliver = self._deliver
        assert deliver is not None
        # 2025-03-26 servers may answer with a batch.
        items = (
            _jsonrpc.decode_batch(body) if body[:1] == b"[" else [_jsonrpc.decode(body)]
        )
        answered = False
        for item in items:
            deliver(item)
            answered = answered or _answers(item, request_id)
        if not answered:
            # This POST carried one request; a JSON answer without its response will not be
            # followed by another, so fail now instead of waiting out the deadline.
            ids = [item.get("id") for item in items if "method" not in item]
            raise MalformedMessage(
                f"{self.name}: the JSON answer to request {request_id} carries "
                f"{'the id(s) ' + repr(ids)[:100] if ids else 'no response'}"
            )
        return False

    async def _consume_sse(self, response: httpx.Response, request_id: Any) -> bool:
        parser = SseParser(self._max)
        chunks = response.aiter_bytes()
        if await self._read_events(chunks, parser, request_id):
            if not self._drain_streams:
                return False
            drain = self._drain(chunks, parser, response)
            if len(self._draining) >= _MAX_DRAINING:
                await drain
                return True
            # The caller has its answer now; the end of the stream (and the connection's return to
            # the pool) comes off its path, in a task that close() waits for.
            task = asyncio.ensure_future(drain)
            self._draining.add(task)
            task.add_done_callback(self._draining.discard)
            return True
        retry_ms = parser.retry_ms
        if self.modern or parser.last_event_id is None:
            raise ConnectionLost(
                f"{self.name}: the response stream ended before the answer to request {request_id}"
            )
        # Handshake era with event ids: resume with GET + Last-Event-ID (2025-11-25 transports).
        # The POST was delivered, so from here on every failure leaves the outcome unknown: a
        # "never sent" ConnectError or a 503 of the GET must not read as "safe to send again".
        try:
            return await self._resume(parser, request_id, retry_ms)
        except (httpx.HTTPError, McpError) as exc:
            if isinstance(exc, McpError) and exc.outcome_unknown:
                raise
            raise ConnectionLost(
                f"{self.name}: lost the answer to request {request_id}: resuming failed: {exc}"
            ) from exc

    async def _resume(
        self, parser: SseParser, request_id: Any, retry_ms: int | None
    ) -> bool:
        """GET + Last-Event-ID until the answer arrives, then False (nothing left to drain).

        Raises:
            ConnectionLost: every attempt ended without the answer.
        """
        for _ in range(self.server.resume_attempts):
            last_event_id = parser.last_event_id
            if last_event_id is None or not _EVENT_ID.fullmatch(last_event_id):
                raise ConnectionLost(
                    f"{self.name}: the response stream to request {request_id} broke and its last"
                    " event id is not a header-safe value; not resuming with it"
                )
            if retry_ms:
                await asyncio.sleep(min(retry_ms, 10_000) / 1000)
            headers = {k: v for k, v in self._headers.items() if k != "content-type"}
            headers["accept"] = "text/event-stream"
            headers["last-event-id"] = last_event_id
            client = self._client
            assert client is not None
            request = client.build_request("GET", self.url, headers=headers)
            resumed = await client.send(request, stream=True, **self._auth)
            try:
                if resumed.status_code != 200:
                    body = await read_prefix(resumed, _ERROR_BODY_LIMIT)
                    raise status_error(
                        resumed,
                        body,
                        name=self.name,
                        had_session=self.session_id is not None,
                    )
                if await self._read_events(resumed.aiter_bytes(), parser, request_id):
                    return False  # answered; the resumed stream is closed here, not drained
            finally:
                await resumed.aclose()
            retry_ms = parser.retry_ms or retry_ms
        raise ConnectionLost(
            f"{self.name}: lost the answer to request {request_id} after resuming"
        )

    async def _drain(
        self, chunks: AsyncIterator[bytes], parser: SseParser, response: httpx.Response
    ) -> None:
        """Read the rest of an answered stream briefly: servers end it right after the answer, and a
        stream read to its end lets the connection go back to the pool instead of being closed."""
        deliver = self._deliver
        assert deliver is not None
        try:
            async with asyncio.timeout(_DRAIN_TIMEOUT):
                async for chunk in chunks:
                    for event in parser.feed(chunk):
                        if event.event == "message" and event.data:
                            deliver(_jsonrpc.decode(event.data))
        except TimeoutError:
            self._drain_streams = (
                False  # this server keeps answered streams open: stop waiting
            )
        except (httpx.HTTPError, McpError):
            pass
        finally:
            with contextlib.suppress(httpx.HTTPError):
                await response.aclose()

    async def _read_events(
        self, chunks: AsyncIterator[bytes], parser: SseParser, request_id: Any
    ) -> bool:
        """Deliver every event; True once the answer to ``request_id`` arrived. A cut stream is False."""
        deliver = self._deliver
        assert deliver is not None
        try:
            async for chunk in chunks:
                for event in parser.feed(chunk):
                    if event.event != "message" or not event.data:
                        continue  # priming events carry an id and no data
                    message = _jsonrpc.decode(event.data)
                    deliver(message)
                    if _answers(message, request_id):
                        return True
        except (httpx.ReadError, httpx.RemoteProtocolError):
            return False
        return False

    # -- the standalone GET stream -----------------------------------------------------------------

    async def listen(self) -> None:
        """Open the GET stream (handshake era) on which a server sends requests unrelated to a POST,
        such as an elicitation; a server without one (405) is left alone. Returns once the server
        answered the GET (so the stream exists before the next request); read until close."""
        client = self._client
        if self.modern or self._listener is not None or client is None:
            return
        headers = {k: v for k, v in self._headers.items() if k != "content-type"}
        headers["accept"] = "text/event-stream"
        try:
            request = client.build_request("GET", self.url, headers=headers)
            response = await client.send(request, stream=True, **self._auth)
        except httpx.HTTPError as exc:
            logger.debug("%s: no GET stream: %s", self.name, exc)
            return
        if response.status_code != 200 or not response.headers.get(
            "content-type", ""
        ).startswith("text/event-stream"):
            await response.aclose()
            return
        self._listener = asyncio.ensure_future(self._listen(response))

    async def _listen(self, response: httpx.Response) -> None:
        try:
            await self._read_events(
                response.aiter_bytes(), SseParser(self._max), object()
            )
        except McpError as exc:
            logger.debug("%s: the GET stream ended: %s", self.name, exc)
        finally:
            await response.aclose()

    # -- closing --------------------------------------------------------------------------------

    async def aclose(self) -> None:
        client = self._client
        if client is None:
            return
        self._client = None
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        if self._draining:  # each is bounded by _DRAIN_TIMEOUT
            await asyncio.gather(*self._draining, return_exceptions=True)
        if self.session_id is not None and not self.modern:
            # End the session; servers MAY answer 405, and a dead server must not block close.
            with contextlib.suppress(httpx.HTTPError, TimeoutError):
                async with asyncio.timeout(2.0):
                    await client.request(
                        "DELETE",
                        self.url,
                        headers={
                            k: v
                            for k, v in self._headers.items()
                            if k != "content-type"
                        },
                        **self._auth,
                    )
            self.session_id = None
        if self._owns_client:
            await client.aclose()
