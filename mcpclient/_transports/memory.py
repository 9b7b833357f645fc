"""In-memory transport pair for unit tests of framing and session logic (no subprocess, no sockets).

Messages still go through ``encode``/``decode`` so the test sees exactly what would be on the wire.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from mcpclient import _jsonrpc
from mcpclient._exceptions import ConnectionLost, McpError

if TYPE_CHECKING:
    from .base import Closed, Deliver


class MemoryServerEnd:
    """The server side: ``await receive()`` what the client sent, ``send()`` messages back."""

    def __init__(self) -> None:
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._client: MemoryTransport | None = None

    async def receive(self) -> dict[str, Any]:
        """The next message the client sent.

        Raises:
            ConnectionLost: the client closed the transport.
        """
        message = await self._inbox.get()
        if message is None:
            raise ConnectionLost("client closed")
        return message

    def send(self, message: dict[str, Any]) -> None:
        """Deliver one message to the client (encoded and decoded, as on a wire)."""
        assert self._client is not None
        self._client._incoming(_jsonrpc.encode(message))

    def send_raw(self, data: bytes) -> None:
        """Deliver raw bytes to the client, for malformed-input tests."""
        assert self._client is not None
        self._client._incoming(data)

    def close(self, exc: McpError | None = None) -> None:
        """Simulate the server dying."""
        assert self._client is not None
        self._client._die(exc or ConnectionLost("memory server closed"))


class MemoryTransport:
    """Client end of an in-memory pair."""

    kind = "memory"
    cancels_by_closing = False

    def __init__(self, server_end: MemoryServerEnd, *, name: str = "memory") -> None:
        self.name = name
        self._server = server_end
        server_end._client = self
        self._deliver: Deliver | None = None
        self._closed: Closed | None = None
        self._dead: McpError | None = None
        self.protocol_version: str | None = None
        self.modern = False

    async def start(self, deliver: Deliver, closed: Closed) -> None:
        self._deliver = deliver
        self._closed = closed

    def configure(self, *, protocol_version: str, modern: bool) -> None:
        self.protocol_version = protocol_version
        self.modern = modern

    async def send(self, message: dict[str, Any]) -> None:
        if self._dead is not None:
            raise ConnectionLost(f"memory transport closed ({self._dead})")
        self._server._inbox.put_nowait(_jsonrpc.decode(_jsonrpc.encode(message)))

    def _incoming(self, data: bytes) -> None:
        if self._dead is not None:
            return
        try:
            message = _jsonrpc.decode(data)
        except McpError as exc:
            self._die(exc)
            return
        assert self._deliver is not None
        self._deliver(message)

    def _die(self, exc: McpError) -> None:
        if self._dead is None:
            self._dead = exc
            if self._closed is not None:
                self._closed(exc)

    async def aclose(self) -> None:
        if self._dead is None:
            self._dead = ConnectionLost("closed by the client")
        self._server._inbox.put_nowait(None)


def memory_pair(*, name: str = "memory") -> tuple[MemoryTransport, MemoryServerEnd]:
    """A connected (client transport, server end) pair."""
    end = MemoryServerEnd()
    return MemoryTransport(end, name=name), end
