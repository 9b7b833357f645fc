"""The channel layer's Redis goes away: streams fall back to reading the table on a short tick.

Each test points the channel layer (the hub's subscription and the publisher's wake-ups) at a
redis-server of its own, stops or pauses it, and checks by seq that every stream gets every event
once, while Redis is down and after it is back. The catch-up at the heartbeat (30 s here) cannot
explain any of it.
"""

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async as sync_to_async

from agentops.asgi import application
from diagnosis.streaming.hub import get_hub
from diagnosis.streaming.metrics import METRICS
from tests.diagnosis.test_streaming_support import (
    StreamClient,
    append,
    bearer,
    has_events,
    make_task,
)
from tests.redisproc import RedisProcess

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]

a_append = sync_to_async(append)
a_make_task = sync_to_async(make_task)

# The fallback tick is at most 2 s; an event appended during the outage must arrive well within
# this (outage detection plus one tick plus a loaded test machine).
OUTAGE_WAIT = 6.0


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


@pytest.fixture
async def broker(settings: Any, tmp_path: Any) -> AsyncIterator[RedisProcess]:
    """A private Redis as the channel layer; the heartbeat's catch-up read is out of reach."""
    redis_server = RedisProcess(tmp_path / "redis")
    await asyncio.to_thread(redis_server.start)
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_server.url], "expiry": 30},
        }
    }
    settings.SSE_HEARTBEAT_SECONDS = 30
    METRICS.reset()
    try:
        yield redis_server
    finally:
        await asyncio.to_thread(redis_server.stop)


async def _until(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)


def _assert_exactly(client: StreamClient, last: int) -> None:
    """Every seq 1..last once, in order: nothing lost, nothing duplicated."""
    assert client.seqs() == list(range(1, last + 1))


@pytest.mark.fault("Redis (channel layer) stopped under an open SSE stream")
async def test_event_appended_during_an_outage_reaches_an_open_stream(
    broker: RedisProcess, tenant: Any, token: str, reliability_record: Any
) -> None:
    task = await a_make_task(tenant)  # seq 1
    client = StreamClient(application, task.pk, headers=bearer(token))
    assert await client.start() == 200
    await client.read_until(has_events(1))
    await a_append(task)  # seq 2, by wake-up
    await client.read_until(has_events(2))
    assert METRICS.wakeups_received >= 1

    await asyncio.to_thread(broker.stop)
    delays = []
    for seq in (3, 4):
        appended = time.monotonic()
        await a_append(task)
        await client.read_until(has_events(seq), timeout=OUTAGE_WAIT)
        delays.append(time.monotonic() - appended)
    _assert_exactly(client, 4)

    await asyncio.to_thread(broker.start)
    hub = get_hub()
    await _until(lambda: hub.wakeups_ok)  # back on wake-ups once a probe gets through
    wakeups = METRICS.wakeups_received
    await a_append(task, 2)  # seqs 5, 6
    await client.read_until(has_events(6))
    assert METRICS.wakeups_received > wakeups
    _assert_exactly(client, 6)
    await client.disconnect()
    reliability_record(
        observed="events appended while Redis was down reached the open stream by the table "
        "fallback; wake-ups resumed once Redis was back; seqs 1..6 once each, in order",
        figures={
            "events_during_outage": 2,
            "max_outage_delivery_s": round(max(delays), 2),
            "events_lost": 0,
            "events_duplicated": 0,
        },
    )


@pytest.mark.fault("SSE stream opened while Redis is stopped or hung (SIGSTOP)")
@pytest.mark.parametrize("outage", ["stopped", "paused"])
async def test_stream_opened_during_an_outage_replays_then_goes_live(
    broker: RedisProcess, tenant: Any, token: str, outage: str, reliability_record: Any
) -> None:
    task = await a_make_task(tenant, progress=2)  # seqs 1..3
    if outage == "stopped":
        await asyncio.to_thread(broker.stop)
    else:
        broker.pause()  # connects succeed, nothing answers
    client = StreamClient(application, task.pk, headers=bearer(token))
    opened = time.monotonic()
    assert await client.start() == 200
    await client.read_until(has_events(3), timeout=OUTAGE_WAIT)
    replay_s = time.monotonic() - opened
    await a_append(task)  # seq 4, with Redis still away
    await client.read_until(has_events(4), timeout=OUTAGE_WAIT)
    _assert_exactly(client, 4)

    if outage == "stopped":
        await asyncio.to_thread(broker.start)
    else:
        broker.resume()
    hub = get_hub()
    await _until(lambda: hub.wakeups_ok)
    await a_append(task, 2)  # seqs 5, 6
    await client.read_until(has_events(6))
    _assert_exactly(client, 6)
    await client.disconnect()
    reliability_record(
        observed=f"Redis {outage}: the stream opened (200), replayed seqs 1..3 from the table, "
        "got seq 4 by the fallback tick and 5..6 after Redis was back, each once",
        figures={
            "open_and_replay_s": round(replay_s, 2),
            "events_lost": 0,
            "events_duplicated": 0,
        },
    )
