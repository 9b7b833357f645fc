"""What a server sends unasked: progress notifications and server-to-client requests.

Both are untrusted: progress is passed to the caller's callback only when every field has the
type the spec gives it, and answers to server requests go out in order, from one task, with at
most ``limit`` waiting (a burst beyond that is refused, not one send each).
"""

from __future__ import annotations

import collections
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from . import _jsonrpc
from ._elicit import ELICIT, elicit
from ._exceptions import INTERNAL_ERROR, METHOD_NOT_FOUND, McpError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ._transports.base import Transport
    from ._types import ElicitHandler

logger = logging.getLogger("mcpclient")


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def progress_arguments(
    params: Any,
) -> tuple[int, float, float | None, str | None] | None:
    """``(token, progress, total, message)`` of a notifications/progress, or None if malformed.

    Our progress tokens are the request ids, so a token that is not an int is never ours.
    """
    if type(params) is not dict:
        return None
    token = params.get("progressToken")
    progress = params.get("progress", 0)
    total = params.get("total")
    message = params.get("message")
    if (
        type(token) is not int
        or not _is_number(progress)
        or not (total is None or _is_number(total))
        or not (message is None or type(message) is str)
    ):
        return None
    return token, progress, total, message


def reply_to(message: dict[str, Any], *, modern: bool) -> dict[str, Any]:
    """Our answer to a server request: we declare no client capabilities, so sampling, elicitation
    and roots get "method not found" at once rather than a server waiting forever; ping (handshake
    era) MUST be answered."""
    method = message["method"]
    if method == "ping" and not modern:
        return {"jsonrpc": "2.0", "id": message["id"], "result": {}}
    return _jsonrpc.error_response(
        message["id"],
        METHOD_NOT_FOUND,
        f"client does not support {str(method)[:100]!r}",
    )


class ServerRequests:
    """Answers server-to-client requests in order, with at most ``limit`` waiting to be sent."""

    def __init__(
        self,
        transport: Transport,
        spawn: Callable[[Awaitable[Any]], None],
        *,
        limit: int,
        elicit: ElicitHandler | None = None,
    ) -> None:
        self._transport = transport
        self._elicit = elicit
        self._spawn = spawn
        self._send_nowait: Callable[[dict[str, Any]], bool] | None = getattr(
            transport, "send_nowait", None
        )
        self._queue: collections.deque[dict[str, Any]] = collections.deque()
        self._limit = limit
        self._sending = False
        #: Requests left unanswered: over the bound, or forbidden by the protocol version.
        self.refused = 0

    def answer(self, message: dict[str, Any], *, modern: bool) -> None:
        if modern and self._transport.kind == "streamable_http":
            # 2026-07-28 HTTP: servers send no requests and clients MUST NOT POST responses.
            self.refused += 1
            return
        if self._elicit is not None and message["method"] == ELICIT:
            self._spawn(self._elicited(message, self._elicit))
            return
        self._enqueue(reply_to(message, modern=modern))

    async def _elicited(self, message: dict[str, Any], handler: ElicitHandler) -> None:
        """Ask the caller's handler, then queue the answer (an error answer if the handler failed)."""
        try:
            result = await elicit(handler, message.get("params"))
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        except Exception:
            logger.exception("elicitation handler failed")
            reply = _jsonrpc.error_response(
                message["id"], INTERNAL_ERROR, "elicitation failed"
            )
        self._enqueue(reply)

    def _enqueue(self, reply: dict[str, Any]) -> None:
        send_nowait = self._send_nowait
        if not self._queue and send_nowait is not None:
            with contextlib.suppress(McpError):
                if send_nowait(reply):
                    return  # stdio: written in this loop iteration, in order
        if len(self._queue) >= self._limit:
            self.refused += 1
            logger.warning(
                "%s: more than %d server requests waiting for an answer; dropping one",
                self._transport.name,
                self._limit,
            )
            return
        self._queue.append(reply)
        if not self._sending:
            self._sending = True
            self._spawn(self._drain())

    async def _drain(self) -> None:
        try:
            while self._queue:
                reply = self._queue.popleft()
                try:
                    await self._transport.send(reply)
                except McpError as exc:
                    logger.debug("answer to a server request failed: %s", exc)
        finally:
            self._sending = False
