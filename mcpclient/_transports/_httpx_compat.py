"""The one place mcpclient relies on an httpx internal: ``AsyncHTTPTransport._pool``.

httpx 0.28 has no public way to run its transport (request/response conversion, error mapping)
over a custom httpcore network backend; setting ``_pool`` to an ``httpcore.AsyncConnectionPool``
with ours is the whole trick. ``plain_http_transport()`` checks, once, that the installed httpx
still keeps its pool there and answers None otherwise, so the caller falls back to httpx's default
client (slower, never broken). tests/mcpclient/test_httpx_compat.py fails loudly when a release
changes this, naming the version.
"""

from __future__ import annotations

import functools
import logging

import httpcore
import httpx

from ._asyncio_backend import AsyncioBackend

logger = logging.getLogger("mcpclient")


class PlainHttpTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport (httpcore pool, error mapping) over the asyncio backend; http:// only."""

    def __init__(self) -> None:
        # Not super().__init__(): that builds an SSL context this plain-http transport never uses.
        # handle_async_request and aclose only need ``_pool`` (checked by keeps_pool_in_private_attribute).
        self._pool = httpcore.AsyncConnectionPool(
            max_connections=100,  # httpx's defaults
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=AsyncioBackend(),
        )


@functools.cache
def keeps_pool_in_private_attribute() -> bool:
    """True when httpx's AsyncHTTPTransport holds an httpcore pool in ``_pool`` and uses only it."""
    transport = httpx.AsyncHTTPTransport()
    pool = getattr(transport, "_pool", None)
    ok = isinstance(pool, httpcore.AsyncConnectionPool) and set(vars(transport)) == {
        "_pool"
    }
    if not ok:
        logger.warning(
            "httpx %s: AsyncHTTPTransport no longer keeps just an httpcore pool in _pool (%s);"
            " using httpx's default transport",
            httpx.__version__,
            sorted(vars(transport)),
        )
    return ok


def plain_http_transport() -> PlainHttpTransport | None:
    """Our fast transport for http:// URLs, or None when this httpx cannot take it."""
    return PlainHttpTransport() if keeps_pool_in_private_attribute() else None
