"""Wake-ups reach the task's group and reuse one Redis connection per process."""

import asyncio
import uuid

import redis
from channels.layers import get_channel_layer
from django.conf import settings

from diagnosis.wakeups import WAKEUP_TYPE, group_name, publish_wakeup

TASK = f"wakeup-test-{uuid.uuid4()}"


def connections_received(client: redis.Redis) -> int:
    return int(client.info("stats")["total_connections_received"])


def test_wakeups_reach_the_group_over_one_kept_connection():
    layer = get_channel_layer()
    channel = asyncio.run(layer.new_channel("test."))
    asyncio.run(layer.group_add(group_name(TASK), channel))
    publish_wakeup(TASK, 1)  # opens the publisher's connection
    client = redis.Redis.from_url(
        settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]
    )
    try:
        before = connections_received(client)
        for seq in range(2, 22):
            publish_wakeup(TASK, seq)
        # a new connection per wake-up would add 20
        assert (
            connections_received(client) - before <= 3
        )  # others may connect meanwhile

        async def receive_all():
            return [await layer.receive(channel) for _ in range(21)]

        messages = asyncio.run(receive_all())
    finally:
        client.close()
        asyncio.run(layer.group_discard(group_name(TASK), channel))
    assert [m["seq"] for m in messages] == list(range(1, 22))
    assert {m["type"] for m in messages} == {WAKEUP_TYPE}
