"""GET /healthz (the process serves) and /readyz (PostgreSQL and Redis answer), no credentials.

Both dependencies are checked in parallel, each on its own fresh connection with its own
timeouts, so a wedged pooled connection or a black-holed host cannot hold the probe: Redis and
the query get ~1 s, the PostgreSQL connect the 2 s minimum libpq allows.
"""

import logging
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import psycopg
import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse

from diagnosis.api.errors import json_response
from diagnosis.api.views import public_get

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 1.0
# Past every inner timeout: the connect (2 s minimum) plus the query.
OUTER_TIMEOUT_SECONDS = 4.0


@public_get
def healthz(request: HttpRequest) -> HttpResponse:
    """The process is up and serving; says nothing about its dependencies."""
    return json_response(200, {"status": "ok"})


def _check_database(params: dict[str, Any]) -> None:
    params = {
        **params,
        "connect_timeout": 2,
        "options": f"-c statement_timeout={int(TIMEOUT_SECONDS * 1000)}",
    }
    with psycopg.connect(**params) as conn:
        conn.execute("SELECT 1")


def _check_redis(url: str) -> None:
    client = redis.Redis.from_url(
        url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS
    )
    try:
        client.ping()
    finally:
        client.close()


@public_get
def readyz(request: HttpRequest) -> HttpResponse:
    """200 when PostgreSQL and Redis both answer in time, else 503 naming what failed."""
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="readyz")
    futures = {
        "database": pool.submit(_check_database, connection.get_connection_params()),
        "redis": pool.submit(_check_redis, settings.REDIS_URL),
    }
    checks: dict[str, str] = {}
    try:
        for name, future in futures.items():
            try:
                future.result(timeout=OUTER_TIMEOUT_SECONDS)
            except FutureTimeout:
                logger.warning("readiness check %s timed out", name)
                checks[name] = "error: timeout"
            except Exception as exc:
                # The answer stays terse (it needs no credentials); the log has the detail.
                logger.warning("readiness check %s failed: %s", name, exc)
                checks[name] = f"error: {type(exc).__name__}"
            else:
                checks[name] = "ok"
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    ready = all(value == "ok" for value in checks.values())
    return json_response(
        200 if ready else 503,
        {"status": "ok" if ready else "unavailable", "checks": checks},
    )
