"""Request metrics: every answer Django gives, by URL pattern (never the raw path), method and
status, with its latency. First in MIDDLEWARE, so the time covers the whole stack.

The SSE stream is answered in front of Django (agentops/asgi.py) and counted by the stream's
own counters instead (agentops_sse_*).
"""

import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from diagnosis.observability import metrics

UNMATCHED = "(unmatched)"
STATIC = "(static)"


def route_of(request: HttpRequest) -> str:
    """The URL pattern that served the request ("/api/tasks/<uuid:task_id>"); bounded."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + str(match.route)
    static = getattr(settings, "STATIC_URL", None) or ""
    if static and request.path.startswith("/" + static.lstrip("/")):
        return STATIC
    return UNMATCHED


class RequestMetricsMiddleware:
    """Sync and async capable, so it adds no thread hop under Daphne."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(
        self, request: HttpRequest
    ) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self.is_async:
            return self._acall(request)
        started = time.perf_counter()
        response: HttpResponseBase = self.get_response(request)
        self._record(request, response, started)
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response: HttpResponseBase = await self.get_response(request)
        self._record(request, response, started)
        return response

    @staticmethod
    def _record(
        request: HttpRequest, response: HttpResponseBase, started: float
    ) -> None:
        metrics.http_request_finished(
            route=route_of(request),
            method=request.method or "",
            status=response.status_code,
            seconds=time.perf_counter() - started,
        )
