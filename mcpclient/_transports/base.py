"""The Transport protocol every transport implements; the session owns ids, futures and timeouts.

Transports push incoming messages to the session with ``deliver`` instead of offering a pull-style
``receive()``: on HTTP the answer to a POST arrives inside the caller's own task, and a queue plus a
reader task in between would double the per-call cost. Each transport has at most one reader task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

Deliver = Callable[[dict[str, Any]], None]
Closed = Callable[[BaseException], None]


class Transport(Protocol):
    """What ClientSession needs from a transport."""

    kind: str  # "stdio" | "streamable_http" | "legacy_sse" | "memory"
    name: str  # server display name, for records and errors
    #: True when abandoning a request's response stream is the cancellation (2026-07-28 HTTP);
    #: otherwise the session sends notifications/cancelled.
    cancels_by_closing: bool

    async def start(self, deliver: Deliver, closed: Closed) -> None:
        """Open the connection; later incoming messages go to ``deliver``; ``closed`` once, on death.

        Raises:
            ConnectError: the connection could not be opened.
        """

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message; an HTTP transport delivers the answer before returning.

        Raises:
            TransportError: the message could not be sent or its answer could not be read.
        """

    def configure(self, *, protocol_version: str, modern: bool) -> None:
        """Tell the transport which protocol version (and era) the session settled on."""

    async def aclose(self) -> None:
        """Release every resource; idempotent."""


# Optional extras the session uses when present:
#   send_nowait(message) -> bool    queue without awaiting (stdio); False under backpressure
#   send(message, headers=...)      extra HTTP headers per request (Mcp-Param-* in 2026-07-28,
#                                   a caller's call_tool(headers=...))
#   reset_session()                 forget the Mcp-Session-Id after a 404 (Streamable HTTP)
#   stderr                          the bounded stderr log (stdio)
