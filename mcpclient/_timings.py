"""Per-layer HTTP timings from httpx's ``trace`` request extension (httpcore's trace events).

httpcore calls ``extensions["trace"](name, info)`` around each step of a request, ``name`` being
``<module>.<step>.<started|complete|failed>``: ``connection.connect_tcp``,
``connection.start_tls`` (also ``http_proxy.start_tls``), ``http11.send_request_headers``,
``http11.send_request_body``, ``http11.receive_response_headers``,
``http11.receive_response_body`` (``http2.*`` the same). The session opens a ``Collector`` for a
logical call (``begin``/``end``); each HTTP request the transports send inside it gets a
``RequestTrace`` (``request_trace``), whose ``finish`` adds its layers to the collector.
Nothing is traced outside a collected call (no observer): httpcore then skips its trace calls.
"""

from __future__ import annotations

import contextvars
import time
from typing import Any

from ._types import HttpTimings

# The step names (after the module prefix) in each layer.
_LAYER_OF = {
    "connect_tcp": "connect",
    "connect_unix_socket": "connect",
    "start_tls": "tls",
    "send_request_headers": "send",
    "send_request_body": "send",
    "receive_response_headers": "ttfb",
}

_current: contextvars.ContextVar[Collector | None] = contextvars.ContextVar(
    "mcpclient_http_timings", default=None
)


class Collector:
    """The layers of every HTTP request of one logical call, summed (seconds)."""

    __slots__ = ("requests", "seconds")

    def __init__(self) -> None:
        self.requests = 0
        self.seconds = dict.fromkeys(HttpTimings.LAYERS, 0.0)

    def timings(self) -> HttpTimings | None:
        """The call's HttpTimings in milliseconds, or None when it sent no HTTP request."""
        if not self.requests:
            return None
        ms = {
            f"{name}_ms": round(value * 1000.0, 3)
            for name, value in self.seconds.items()
        }
        return HttpTimings(requests=self.requests, **ms)


def begin(
    *, join: bool
) -> tuple[Collector, contextvars.Token[Collector | None] | None]:
    """Collect the HTTP requests this task sends from now on; ``end(token)`` stops.

    ``join``: into the enclosing call's collector when one is open (a task-backed tools/call,
    its polls and its cancel are one call), else a collector of its own.
    """
    current = _current.get()
    if join and current is not None:
        return current, None
    collector = Collector()
    return collector, _current.set(collector)


def end(token: contextvars.Token[Collector | None] | None) -> None:
    if token is not None:
        _current.reset(token)


class RequestTrace:
    """The ``trace`` extension of one HTTP request; ``finish()`` once its answer is read."""

    __slots__ = ("_collector", "_first", "_headers_at", "_open", "_seconds", "_start")

    def __init__(self, collector: Collector) -> None:
        self._collector = collector
        self._start = time.perf_counter()
        self._first: float | None = None  # the first step httpcore took on a connection
        self._headers_at: float | None = None
        self._open: dict[str, float] = {}
        self._seconds = dict.fromkeys(HttpTimings.LAYERS, 0.0)

    async def __call__(self, name: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        step, _, edge = name.partition(".")[2].rpartition(".")
        layer = _LAYER_OF.get(step)
        if layer is None:
            return  # the body (measured up to finish), response_closed, retry, close
        if edge == "started":
            if self._first is None:
                self._first = now
            self._open[step] = now
            return
        began = self._open.pop(step, None)
        if began is not None:  # "complete" or "failed": the time went there either way
            self._seconds[layer] += now - began
        if step == "receive_response_headers":
            self._headers_at = now

    def finish(self) -> None:
        """Add this request's layers to the call's collector (once, when its answer was read)."""
        collector = self._collector
        now = time.perf_counter()
        seconds = self._seconds
        # Until httpcore started on a connection the request waited (for the pool, mostly);
        # a request that never got one waited all along.
        seconds["pool_wait"] = (
            self._first if self._first is not None else now
        ) - self._start
        if self._headers_at is not None:
            seconds["body"] = now - self._headers_at
        for layer, value in seconds.items():
            collector.seconds[layer] += value
        collector.requests += 1


def request_trace() -> RequestTrace | None:
    """A trace for the next HTTP request of the collected call, or None outside one."""
    collector = _current.get()
    return None if collector is None else RequestTrace(collector)
