"""The per-user limit on open SSE streams, counted in Redis so it holds across every Daphne.

Each user has a sorted set in Redis: one member per open stream, scored with the time (Redis'
clock, in ms) at which it stops counting. A stream is admitted by one Lua script (drop the
expired members, count, add), so two Daphnes cannot both take the last slot. Every hub renews
its own streams' scores at each heartbeat tick, and a stream's end removes it; the streams of a
Daphne that died stop counting SSE_STREAM_SLOT_TTL_SECONDS after its last renewal.

When Redis is away (an error or SSE_LAYER_TIMEOUT_SECONDS without an answer), the limit falls
back to this process's own count, as before Redis counted: a Redis outage must not refuse every
stream. Streams admitted meanwhile are added to Redis by the first renewal that gets through.
"""

import asyncio
import contextlib
import logging
import uuid
from typing import Any

import redis.asyncio
from django.conf import settings

logger = logging.getLogger(__name__)

# KEYS[1]: the user's set. ARGV: the stream's id, the limit, the slot's lifetime in ms.
# 1 admitted, 0 refused.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS[1]: the user's set. ARGV[1]: the slot's lifetime in ms; ARGV[2..]: this process's
# streams of the user (added again when Redis lost them: a restart, or opened while it was away).
_RENEW = """
local t = redis.call('TIME')
local ttl = tonumber(ARGV[1])
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ttl
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], expiry, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return #ARGV - 1
"""

# After a failed call, how long opens use the local count without asking Redis, so an outage
# does not make every open wait out the timeout.
_BACKOFF_SECONDS = 5.0


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


class StreamQuota:
    """One per hub (so per event loop): its Redis client and the slots its streams hold."""

    def __init__(self) -> None:
        self.held: dict[
            str, set[str]
        ] = {}  # user key -> slot ids of this process's streams
        self._client: Any = None
        self._scripts: dict[str, Any] = {}
        self._down_until = 0.0
        self._lock = asyncio.Lock()  # a release never overtakes a renewal in flight

    # --- the limit --------------------------------------------------------------------------

    async def acquire(self, user_key: str, limit: int, *, local: int) -> str | None:
        """A slot id when `user_key` has fewer than `limit` open streams, else None.

        Counted in Redis across every process; `local` (this process's open streams of the
        user) decides instead while Redis is away.
        """
        slot = uuid.uuid4().hex
        admitted = await self._call(
            "acquire", _ACQUIRE, user_key, slot, limit, self._ttl_ms()
        )
        if admitted is None:
            admitted = local < limit
        if not admitted:
            return None
        self.held.setdefault(user_key, set()).add(slot)
        return slot

    async def release(self, user_key: str, slot: str) -> None:
        """The stream has ended: its slot is free at once (in Redis when it answers)."""
        slots = self.held.get(user_key)
        if slots is None or slot not in slots:
            return
        slots.discard(slot)
        if not slots:
            del self.held[user_key]
        if asyncio.get_running_loop().time() < self._down_until:
            # Redis was away a moment ago: the slot expires on its own (no renewal names it
            # now). Waiting out the timeout here, under the lock, once per ending stream, held
            # the heartbeat tick's renewal for tens of seconds during an outage.
            return
        async with self._lock:
            client = await self._connect()
            if client is None:
                return  # the slot expires on its own
            try:
                async with asyncio.timeout(self._timeout()):
                    await client.zrem(self._key(user_key), slot)
            except Exception:
                self._failed("release")

    async def renew(self) -> None:
        """Push back the expiry of every slot this process holds; at each heartbeat tick."""
        async with self._lock:
            for user_key, slots in list(self.held.items()):
                if not slots:
                    continue
                done = await self._call(
                    "renew",
                    _RENEW,
                    user_key,
                    self._ttl_ms(),
                    *sorted(slots),
                    force=True,
                )
                if done is None:
                    return

    async def aclose(self) -> None:
        client, self._client = self._client, None
        self._scripts = {}
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()

    # --- Redis -------------------------------------------------------------------------------

    def _key(self, user_key: str) -> str:
        # User ids are per database: two deployments (or test databases) on one Redis differ.
        database = settings.DATABASES["default"]["NAME"]
        return f"agentops:sse-streams:{database}:{user_key}"

    def _ttl_ms(self) -> int:
        heartbeat = _setting("SSE_HEARTBEAT_SECONDS", 15.0)
        ttl = max(_setting("SSE_STREAM_SLOT_TTL_SECONDS", 60.0), 2 * heartbeat + 1)
        return int(ttl * 1000)

    def _timeout(self) -> float:
        return float(_setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0))

    async def _connect(self) -> Any:
        if self._client is None:
            url = _setting("REDIS_URL", "")
            if not url.startswith(("redis://", "rediss://", "unix://")):
                return None
            timeout = self._timeout()
            self._client = redis.asyncio.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout
            )
        return self._client

    async def _call(
        self, name: str, source: str, user_key: str, *args: Any, force: bool = False
    ) -> int | None:
        """Run a script; None when Redis is away (or was a moment ago and `force` is off)."""
        loop = asyncio.get_running_loop()
        if not force and loop.time() < self._down_until:
            return None
        client = await self._connect()
        if client is None:
            return None
        script = self._scripts.get(name)
        if script is None:
            script = self._scripts[name] = client.register_script(source)
        try:
            async with asyncio.timeout(self._timeout()):
                result = await script(keys=[self._key(user_key)], args=list(args))
        except Exception:
            self._failed(name)
            return None
        self._down_until = 0.0
        return int(result)

    def _failed(self, what: str) -> None:
        if not self._down_until:
            logger.warning(
                "sse: Redis did not answer the stream-limit %s; counting this process's "
                "streams only until it does",
                what,
                exc_info=True,
            )
        self._down_until = asyncio.get_running_loop().time() + _BACKOFF_SECONDS
