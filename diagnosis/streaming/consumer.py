"""GET /api/tasks/<id>/events: a plain ASGI app, routed in front of Django's handler.

Django's ASGI handler pins one executor thread per open request for the life of a stream; this app
holds a stream with two asyncio tasks and no thread. Everything that can refuse the request
(405, 401, 403, 404, 204, 429) happens before the 200 is sent; after it, problems go in-band.
No 503: when the database or the hub is away, a 200 opens an empty stream that asks the
client to reconnect later (`_reply_unavailable`), since EventSource gives up for good on a 503.

Resume (seed 000 §4.4): subscribe through the hub, take the watermark it hands back, replay
(cursor, watermark] from the table in seq order, then send what the feed pushes, skipping
seq <= last sent and reading any gap from the table.
"""

import asyncio
import contextlib
import functools
import logging
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from importlib import import_module
from typing import Any
from urllib.parse import parse_qs

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.http import HttpRequest

from diagnosis.events import RESYNC_REQUIRED, SERVER_DRAINING, TERMINAL_EVENTS
from diagnosis.http_headers import security_headers
from diagnosis.principals import (
    bearer_secret,
    principal_from_token,
    principal_from_user,
)
from diagnosis.selectors import task_get
from diagnosis.states import is_terminal
from diagnosis.streaming import daphne_compat, twisted_compat, wire
from diagnosis.streaming.hub import (
    DirectWrite,
    Frame,
    Hub,
    Subscriber,
    encode,
    get_hub,
    setting,
)
from diagnosis.streaming.metrics import METRICS

logger = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]
# Given the server's send callable, a function returning the bytes written but not yet flushed
# to the socket, or None when the server does not let us see them.
UnflushedProbe = Callable[[Send], Callable[[], int] | None]
# Given the server's send callable, a function writing bytes to the client at once (see
# DirectWrite), or None when the server offers no such path.
DirectProbe = Callable[[Send], DirectWrite | None]

_CURSOR = re.compile(r"[0-9]{1,18}")
_TASK_PATH = re.compile(r"/api/tasks/([^/]+)/events/?$")

STREAM_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def _stream_headers() -> list[tuple[bytes, bytes]]:
    # This app answers outside Django's middleware: the CSP and the other security headers
    # every response carries are added here.
    return [*STREAM_HEADERS, *security_headers()]


def snapshot_url(task_id: str) -> str:
    return f"/api/tasks/{task_id}"


def parse_cursor(raw: str | None) -> int | None:
    """0 when absent; None when malformed (the stream then opens with resync_required)."""
    if raw is None or raw == "":
        return 0
    raw = raw.strip()
    return int(raw) if _CURSOR.fullmatch(raw) else None


def daphne_unflushed(send: Send) -> Callable[[], int] | None:
    """Daphne's send never blocks (no producer), so the only measure of a client that does not
    read is the Twisted transport's write buffer."""
    request = daphne_compat.twisted_request(send)
    transport = None if request is None else twisted_compat.tcp_transport(request)
    if transport is None:
        return None
    return functools.partial(twisted_compat.unflushed_bytes, transport)


def daphne_direct_write(send: Send) -> DirectWrite | None:
    """Write to Daphne's socket at once (twisted_compat.DirectWrite): with a thousand streams of
    one task, Twisted's buffered write made the first client wait for the last stream's turn.
    Plain TCP only: under TLS (or any other server) this returns None."""
    request = daphne_compat.twisted_request(send)
    return None if request is None else twisted_compat.direct_write(request)


@dataclass(frozen=True)
class Access:
    status: int
    code: str = ""
    task_id: str = ""
    user_key: str = ""
    is_finished: bool = False
    last_seq: int = 0
    # The seq of the task's terminal event (None while it runs): events after it (incident
    # coordination, feedback) are not the diagnosis's, so a plain stream ends there.
    terminal_seq: int | None = None


def authorize(
    *, authorization: str | None, cookies: str | None, task_id: str
) -> Access:
    """Who is asking and may they watch this task; the same principals as the JSON API."""
    from django.contrib.auth import get_user

    principal = None
    if authorization:
        secret = bearer_secret(authorization)
        principal = principal_from_token(secret) if secret else None
    elif cookies:
        jar = SimpleCookie()
        with contextlib.suppress(Exception):
            jar.load(cookies)
        morsel = jar.get(settings.SESSION_COOKIE_NAME)
        if morsel is not None and morsel.value:
            # get_user needs only the request's session.
            request = HttpRequest()
            request.session = import_module(settings.SESSION_ENGINE).SessionStore(
                morsel.value
            )
            principal = principal_from_user(get_user(request), session=request.session)
    if principal is None:
        return Access(401, "not_authenticated")
    if not principal.has_scope("tasks:read"):
        return Access(403, "permission_denied")
    task = task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        return Access(404, "not_found")
    is_finished = is_terminal(task.state)
    terminal_seq = None
    if is_finished:
        terminal_seq = (
            task.events.filter(type__in=TERMINAL_EVENTS)
            .order_by("-seq")
            .values_list("seq", flat=True)
            .first()
        )
    return Access(
        200,
        task_id=str(task.pk),
        user_key=principal.scope_key,
        is_finished=is_finished,
        last_seq=task.last_seq,
        terminal_seq=terminal_seq,
    )


_MESSAGES = {
    "not_authenticated": "Authentication credentials were not provided or are invalid.",
    "permission_denied": "The token lacks the tasks:read scope.",
    "not_found": "No such task.",
    "method_not_allowed": "Only GET is allowed.",
    "too_many_streams": "Too many open streams for this user.",
}


async def _reply_json(
    send: Send, status: int, code: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = wire.json_line({"error": code, "detail": _MESSAGES.get(code, code)}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
        *security_headers(),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _reply_unavailable(send: Send) -> None:
    """The database is away: a 503 would make EventSource give up for good, so open an empty
    stream that asks for a later reconnect with the same Last-Event-ID and ends."""
    await send(
        {"type": "http.response.start", "status": 200, "headers": _stream_headers()}
    )
    body = wire.retry(setting("SSE_RETRY_MS", 2000) * 2) + b": unavailable\n\n"
    await send({"type": "http.response.body", "body": body})


class EventStreamApp:
    """The ASGI app. `unflushed_probe` is how the app sees unsent bytes and `direct_probe` how
    it writes without a round trip through the server (Daphne's by default)."""

    def __init__(
        self,
        *,
        unflushed_probe: UnflushedProbe = daphne_unflushed,
        direct_probe: DirectProbe = daphne_direct_write,
    ) -> None:
        self.unflushed_probe = unflushed_probe
        self.direct_probe = direct_probe

    async def __call__(
        self, scope: dict[str, Any], receive: Receive, send: Send
    ) -> None:
        if scope["type"] != "http":
            raise ValueError("EventStreamApp serves HTTP only")
        if scope["method"] != "GET":
            await _reply_json(send, 405, "method_not_allowed", [(b"allow", b"GET")])
            return
        task_id = str(
            scope.get("url_route", {}).get("kwargs", {}).get("task_id")
            or _path_task_id(scope["path"])
        )
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", []):
            headers[name.lower()] = value  # a repeated header: the last wins
        raw_cursor = _header(headers, b"last-event-id")
        if raw_cursor is None:
            values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(
                "last_event_id"
            )
            raw_cursor = values[-1] if values else None
        # ?follow=1: the incident page's stream, which stays open after the terminal event
        # for what comes after it (coordination, feedback, alerts), and gets no 204.
        follow = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(
            "follow"
        ) == ["1"]
        try:
            # Not thread-sensitive: opens authorise in parallel on the executor's threads
            # (each with its own connection) instead of queueing behind one thread.
            access = await database_sync_to_async(authorize, thread_sensitive=False)(
                authorization=_header(headers, b"authorization"),
                cookies=_header(headers, b"cookie"),
                task_id=task_id,
            )
        except Exception:
            logger.exception("sse: authorisation of task %s failed", task_id)
            await _reply_unavailable(send)
            return
        if access.status != 200:
            extra = [(b"www-authenticate", b"Bearer")] if access.status == 401 else []
            await _reply_json(send, access.status, access.code, extra)
            return

        cursor = parse_cursor(raw_cursor)
        if raw_cursor:
            METRICS.reconnects_with_cursor += 1
        ended = (
            access.terminal_seq if access.terminal_seq is not None else access.last_seq
        )
        if (
            access.is_finished
            and not follow
            and cursor is not None
            and ended <= cursor <= access.last_seq
        ):
            # The client has the terminal event: 204 makes EventSource stop for good.
            METRICS.no_content += 1
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": security_headers(),
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        hub = get_hub()
        slot = await hub.admit(access.user_key, setting("SSE_MAX_STREAMS_PER_USER", 20))
        if slot is None:
            METRICS.rejected_limit += 1
            await _reply_json(send, 429, "too_many_streams", [(b"retry-after", b"5")])
            return
        try:
            sub = await hub.subscribe(access.task_id, access.user_key, slot)
        except Exception:
            logger.warning("sse: subscribe to task %s failed", task_id, exc_info=True)
            await _reply_unavailable(send)
            return
        stream = _Stream(
            hub=hub,
            sub=sub,
            send=send,
            receive=receive,
            cursor=cursor,
            unflushed=self.unflushed_probe(send),
            direct=self.direct_probe(send),
            follow=follow,
            terminal_seq=access.terminal_seq,
        )
        try:
            await stream.run()
        finally:
            await hub.unsubscribe(sub)


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def _path_task_id(path: str) -> str:
    match = _TASK_PATH.search(path)
    return match.group(1) if match else ""


class _Cut(Exception):
    """The stream must end now (slow client); the client resumes from its cursor."""


class _Stream:
    def __init__(
        self,
        *,
        hub: Hub,
        sub: Subscriber,
        send: Send,
        receive: Receive,
        cursor: int | None,
        unflushed: Callable[[], int] | None,
        direct: DirectWrite | None,
        follow: bool = False,
        terminal_seq: int | None = None,
    ) -> None:
        self.follow = follow
        self.terminal_seq = terminal_seq
        self.hub = hub
        self.sub = sub
        self.send = send
        self.receive = receive
        self.cursor = cursor
        self.unflushed = unflushed
        request = daphne_compat.twisted_request(send)
        # Read now: Twisted unlinks it at finish().
        self.transport = (
            None if request is None else twisted_compat.connection_transport(request)
        )
        if self.transport is not None and hasattr(self.transport, "setTcpNoDelay"):
            # As asyncio's transports do for every TCP socket. An SSE client never sends, so
            # over a real network its ACKs are delayed (up to 40 ms on Linux), and with Nagle an
            # event written while the previous one is unacknowledged waits for that ACK. (Not
            # visible on loopback, where ACKs are immediate.)
            self.transport.setTcpNoDelay(True)
        self.max_unflushed = setting("SSE_MAX_UNFLUSHED_BYTES", 1 << 20)
        self.direct = direct
        sub.direct = direct
        sub.unflushed = unflushed
        sub.max_unflushed = self.max_unflushed
        self.ended = False
        self.task_id = sub.task_id

    # The last seq written lives on the subscriber: the hub's direct writes advance it too.
    @property
    def last(self) -> int:
        return self.sub.last

    @last.setter
    def last(self, seq: int) -> None:
        self.sub.last = seq

    async def run(self) -> None:
        listener = asyncio.get_running_loop().create_task(self._listen())
        try:
            await self._run()
        except asyncio.CancelledError:
            # Daphne cancels every application on shutdown, right after our own
            # before-shutdown trigger asked for a drain: finish it instead of dropping the socket.
            if not self.hub.draining or self.ended:
                raise
            await self._drain()
        except psycopg.Error:
            # The events table went away under a read (a PostgreSQL restart ends every
            # connection). End the response cleanly: the client reconnects after `retry:` with
            # Last-Event-ID and resumes exactly. Raised on, Daphne logs it and never finishes
            # the response, so the client waits on a silent stream (issue 23's soak: a stall).
            logger.warning(
                "sse: reading the events of task %s failed at seq %s; ending the stream",
                self.task_id,
                self.last,
                exc_info=True,
            )
            await self._end_unavailable()
        except _Cut:
            METRICS.slow_client_cutoffs += 1
            logger.warning(
                "sse: slow client cut off (task %s, seq %s)", self.task_id, self.last
            )
            # Drop the connection and what Daphne still buffers for it: a clean end would
            # queue behind the very bytes the client is not reading.
            abort = getattr(self.transport, "abortConnection", None)
            if abort is None:
                await self._end()
            else:
                self.ended = True
                abort()
        finally:
            listener.cancel()
            with contextlib.suppress(BaseException):
                await listener

    async def _listen(self) -> None:
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                self.sub.close("disconnect")
                return

    async def _write(self, body: bytes) -> None:
        if self.direct is None or not self.direct(body, wire.http_chunk(body)):
            await self.send(
                {"type": "http.response.body", "body": body, "more_body": True}
            )
        if self.unflushed is not None and self.unflushed() > self.max_unflushed:
            raise _Cut

    async def _end(self) -> None:
        if not self.ended:
            self.ended = True
            await self.send(
                {"type": "http.response.body", "body": b"", "more_body": False}
            )

    async def _end_unavailable(self) -> None:
        if self.ended:
            return
        with contextlib.suppress(Exception):  # the client may be gone too
            await self.send(
                {
                    "type": "http.response.body",
                    "body": b": unavailable\n\n",
                    "more_body": True,
                }
            )
            await self._end()

    async def _drain(self) -> None:
        if self.ended:
            return
        advice = setting("SSE_RETRY_MS", 2000) + int(
            setting("SSE_DRAIN_RETRY_JITTER_MS", 3000) * random.random()
        )
        data = wire.json_line({"reason": "server_draining", "retry_ms": advice})
        METRICS.drained += 1
        await self.send(
            {
                "type": "http.response.body",
                "body": wire.frame(
                    event=SERVER_DRAINING, data_json=data, retry_ms=advice
                ),
                "more_body": True,
            }
        )
        await self._end()

    async def _resync(self, reason: str, watermark: int) -> bytes:
        """An in-band resync_required whose id: is where the stream continues (the watermark)."""
        METRICS.resyncs += 1
        data = wire.json_line(
            {
                "reason": reason,
                "task_id": self.task_id,
                "snapshot_url": snapshot_url(self.task_id),
                "continue_from": watermark,
            }
        )
        self.last = watermark
        return wire.frame(event=RESYNC_REQUIRED, data_json=data, event_id=watermark)

    async def _run(self) -> None:
        await self.send(
            {"type": "http.response.start", "status": 200, "headers": _stream_headers()}
        )
        METRICS.streams_opened += 1
        # Daphne writes the headers with the first body chunk: send it now.
        opening = wire.retry(setting("SSE_RETRY_MS", 2000))
        if self.hub.draining:
            await self.send(
                {"type": "http.response.body", "body": opening, "more_body": True}
            )
            await self._drain()
            return
        watermark = self.sub.watermark
        if self.cursor is None or self.cursor > watermark:
            reason = "malformed_cursor" if self.cursor is None else "cursor_beyond_end"
            opening += await self._resync(reason, watermark)
            await self._write(opening)
            if await self._ended_at(watermark):
                await self._finish()
                return
        else:
            self.last = self.cursor
            await self._write(opening)
            if await self._replay(watermark):
                return
        await self._live()

    def _ends(self, frame: Frame) -> bool:
        """Whether the stream ends after `frame`: a terminal event, unless it follows on."""
        return frame.is_terminal and not self.follow

    async def _ended_at(self, seq: int) -> bool:
        if self.follow:
            return False
        if self.terminal_seq is not None and seq >= self.terminal_seq:
            return True
        return await self._is_terminal_at(seq)

    async def _is_terminal_at(self, seq: int) -> bool:
        if seq <= 0:
            return False
        rows = await self.hub.reader.events(
            self.task_id, after=seq - 1, upto=seq, limit=1
        )
        return bool(rows) and rows[0].type in TERMINAL_EVENTS

    async def _finish(self) -> None:
        METRICS.terminal_closes += 1
        await self._end()

    async def _replay(self, upto: int) -> bool:
        """Send (last, upto] from the table in pages; True if the stream has ended.

        The next page is fetched while the current one is encoded and written.
        """
        page = self.hub.page
        reader = self.hub.reader
        loop = asyncio.get_running_loop()
        fetch = loop.create_task(
            reader.events(self.task_id, after=self.last, upto=upto, limit=page)
        )
        try:
            while self.last < upto:
                rows = await fetch
                METRICS.replay_reads += 1
                if len(rows) == page and rows[-1].seq < upto:
                    fetch = loop.create_task(
                        reader.events(
                            self.task_id, after=rows[-1].seq, upto=upto, limit=page
                        )
                    )
                out = bytearray()
                sent = 0
                for row in rows:
                    if row.seq != self.last + 1:
                        break
                    frame = encode(row)
                    out += frame.data
                    sent += 1
                    self.last = row.seq
                    if self._ends(frame):
                        METRICS.events_sent += sent
                        await self._write(bytes(out))
                        await self._finish()
                        return True
                METRICS.events_sent += sent
                if sent < len(rows) or not rows:
                    # A hole: progress events compacted by retention. Never a silent jump.
                    out += await self._resync("compacted", upto)
                    await self._write(bytes(out))
                    if await self._ended_at(upto):
                        await self._finish()
                        return True
                    return False
                await self._write(bytes(out))
                if self.sub.closing is not None:
                    return await self._closing()
            return False
        finally:
            if not fetch.done():
                fetch.cancel()
                with contextlib.suppress(BaseException):
                    await fetch

    async def _closing(self) -> bool:
        reason = self.sub.closing
        if reason == "disconnect":
            self.ended = True
            return True
        if reason == "draining":
            await self._drain()
            return True
        if reason == "slow":
            raise _Cut
        if reason == "lifetime":
            METRICS.lifetime_expired += 1
            await self._end()  # the client reconnects with Last-Event-ID
            return True
        return False

    async def _live(self) -> None:
        sub = self.sub
        while True:
            sub.is_live = True  # the hub may now write batches itself (Subscriber.push)
            try:
                await sub.wait()
            finally:
                sub.is_live = False
            if sub.closing is not None and await self._closing():
                return
            out = bytearray()
            sent = 0
            finished = False
            while sub.frames and not finished:
                frame = sub.frames.popleft()
                if frame.seq <= self.last:
                    continue
                if frame.seq > self.last + 1:
                    # A wake-up batch this stream missed: read the gap from the table.
                    for gap in await self._gap(frame.seq - 1):
                        out += gap.data
                        sent += 1
                        self.last = gap.seq
                        if self._ends(gap):
                            finished = True
                            break
                    if finished:
                        break
                out += frame.data
                sent += 1
                self.last = frame.seq
                finished = self._ends(frame)
            if sub.heartbeat_due:
                sub.heartbeat_due = False
                if not out:
                    out += wire.HEARTBEAT
            if out:
                METRICS.events_sent += sent
                await self._write(bytes(out))
            if finished:
                await self._finish()
                return

    async def _gap(self, upto: int) -> list[Frame]:
        frames: list[Frame] = []
        after = self.last
        while after < upto:
            rows = await self.hub.reader.events(
                self.task_id, after=after, upto=upto, limit=self.hub.page
            )
            METRICS.replay_reads += 1
            if not rows:
                break
            frames.extend(encode(row) for row in rows)
            after = rows[-1].seq
        return frames
