"""The status of the workers' MCP session pools, for the operations page.

Every few seconds a worker's pool (diagnosis.engine.server_pool) publishes what it holds (servers, states,
borrowers, pids, start times, hits and misses) to Redis under one key per worker process,
expiring unless renewed, so the web process's operations page can show every live worker's
sessions (`pool_status()`); the worker's own /metrics has the same as series
(agentops_mcp_pool_sessions, agentops_mcp_pool_borrows_total, agentops_mcp_server_start_seconds).
"""

import json
import logging
import os
import socket
from typing import Any

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

KEY_PREFIX = "agentops:mcp-pool:"
# A worker's key outlives a few missed ticks of its pool (STATUS_EVERY, 5 s), not a dead worker.
KEY_TTL_SECONDS = 15
_MAX_WORKERS = 200


def _client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0
    )


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def publish(rows: list[dict[str, Any]]) -> None:
    """Store this process's pool rows (the pool calls this from a helper thread)."""
    key = KEY_PREFIX + _worker()
    client = _client()
    try:
        if rows:
            client.set(key, json.dumps(rows), ex=KEY_TTL_SECONDS)
        else:
            client.delete(key)
    finally:
        client.close()


def pool_status(*, environments: set[str] | None = None) -> list[dict[str, Any]]:
    """Every live worker's pooled servers (a `worker` field added), optionally only those of
    `environments`; empty when Redis does not answer (the page says so by having none)."""
    rows: list[dict[str, Any]] = []
    client = _client()
    try:
        keys = sorted(client.scan_iter(match=KEY_PREFIX + "*", count=100))[
            :_MAX_WORKERS
        ]
        values = client.mget(keys) if keys else []
    except redis.RedisError:
        logger.warning("the MCP pool status could not be read", exc_info=True)
        return []
    finally:
        client.close()
    for key, value in zip(keys, values, strict=True):
        if value is None:
            continue
        worker = key.decode()[len(KEY_PREFIX) :]
        try:
            items = json.loads(value)
        except ValueError:
            continue
        for row in items if isinstance(items, list) else []:
            if not isinstance(row, dict):
                continue
            if environments is not None and row.get("environment") not in environments:
                continue
            rows.append({**row, "worker": worker})
    return rows
