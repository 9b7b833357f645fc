"""`Cache-Control: private, no-store` on every answer Django gives, but the public probes.

Pages and API answers carry incident data (titles, symptoms, reports, traces) for one caller: no
shared cache or browser history may keep them. One middleware, after WhiteNoise in MIDDLEWARE,
so static files keep their long-lived caching; an answer that declared itself `public` keeps
its own policy. The SSE stream, answered in front of Django, sends `no-cache` and carries no
body a cache could keep.
"""

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control

# Answers with no caller's data: liveness and readiness (/metrics sets its own no-store). The
# API description is not among them: fetched with credentials, it names the caller's
# environments.
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def protect(request: HttpRequest, response: HttpResponseBase) -> None:
    """Add `private, no-store` unless the path is public or the answer chose `public`."""
    if request.path in PUBLIC_PATHS:
        return
    if "public" in response.get("Cache-Control", "").lower():
        return
    patch_cache_control(response, private=True, no_store=True)


class PrivateNoStoreMiddleware:
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
        response: HttpResponseBase = self.get_response(request)
        protect(request, response)
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = await self.get_response(request)
        protect(request, response)
        return response
