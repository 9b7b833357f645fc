"""``connect()``: pick the transport for a server spec, open a ClientSession, always close it."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ._exceptions import ConnectError, HttpStatusError, UsageError
from ._session import ClientSession
from ._transports import (
    LegacySseTransport,
    StdioTransport,
    StreamableHttpTransport,
    Transport,
)
from ._types import ElicitHandler, HttpServer, LegacySseServer, Observer, StdioServer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from ._breaker import CircuitBreaker
    from ._retry import RetryPolicy

ServerSpec = StdioServer | HttpServer | LegacySseServer


def make_transport(server: ServerSpec | Transport) -> Transport:
    """The transport for a server spec (a ready Transport is returned as is)."""
    if isinstance(server, StdioServer):
        return StdioTransport(server)
    if isinstance(server, HttpServer):
        return StreamableHttpTransport(server)
    if isinstance(server, LegacySseServer):
        return LegacySseTransport(server)
    if hasattr(server, "send") and hasattr(server, "start") and hasattr(server, "kind"):
        return server
    raise UsageError(f"not a server spec: {server!r}")


@asynccontextmanager
async def connect(
    server: ServerSpec | Transport,
    *,
    protocol_version: str | None = None,
    timeout: float | None = 10.0,
    probe_timeout: float = 3.0,
    observer: Observer | None = None,
    retry: RetryPolicy | None = None,
    breaker: CircuitBreaker | None = None,
    max_concurrency: int = 64,
    max_notifications: int = 1000,
    max_server_requests: int = 32,
    client_info: dict[str, Any] | None = None,
    validate: bool = True,
    elicit: ElicitHandler | None = None,
) -> AsyncIterator[ClientSession]:
    """Connect to an MCP server and settle the protocol version; the session closes on exit.

    ``protocol_version=None`` speaks 2026-07-28 where the server does (probe: ``server/discover``),
    else the initialize handshake at 2025-11-25, accepting 2025-06-18, 2025-03-26 or 2024-11-05.
    A pinned version is used as given. ``timeout`` bounds the handshake and is the default per call.
    ``elicit(message, requested_schema)`` answers the server's elicitations (the content to accept
    with, or None to decline; schema defaults fill what it omits); without it none are accepted.

    Raises:
        ConnectError: the server could not be reached or started.
        VersionMismatch: no protocol version both sides speak (or the pinned one is refused).
        McpError: any other failure during the handshake, with its layer.
    """
    options: dict[str, Any] = {
        "timeout": timeout,
        "probe_timeout": probe_timeout,
        "observer": observer,
        "retry": retry,
        "breaker": breaker,
        "max_concurrency": max_concurrency,
        "max_notifications": max_notifications,
        "max_server_requests": max_server_requests,
        "client_info": client_info,
        "validate": validate,
        "elicit": elicit,
    }
    session = ClientSession(make_transport(server), **options)
    try:
        try:
            async with asyncio.timeout(timeout):
                try:
                    await session.open(protocol_version=protocol_version)
                except HttpStatusError as exc:
                    # Streamable HTTP back-compat rule: a 400/404/405 to initialize may mean an old
                    # 2024-11-05 HTTP+SSE server; GET the same URL and look for its endpoint event.
                    if not (
                        isinstance(server, HttpServer)
                        and exc.status in (400, 404, 405)
                        and protocol_version in (None, "2024-11-05")
                    ):
                        raise
                    await session.aclose()
                    legacy = LegacySseServer(
                        url=server.url,
                        headers=server.headers,
                        name=server.name,
                        http_client=server.http_client,
                        max_message_size=server.max_message_size,
                    )
                    session = ClientSession(LegacySseTransport(legacy), **options)
                    try:
                        await session.open(protocol_version=protocol_version)
                    except ConnectError as legacy_exc:
                        raise exc from legacy_exc  # not an old server either: report the first answer
        except TimeoutError:
            raise ConnectError(
                f"{session.transport.name}: no connection within {timeout}s"
            ) from None
        yield session
    finally:
        await session.aclose()
