"""The SSE hub's channel-layer receive loop ends on cancel even when the layer swallows it."""

import asyncio

import pytest

from diagnosis.streaming.hub import Hub

pytestmark = pytest.mark.anyio


class SwallowingLayer:
    """Turns a cancel into a closed connection, as redis-py can under channels-redis."""

    def __init__(self) -> None:
        self.receives = 0

    async def receive(self, channel: str) -> dict[str, str]:
        self.receives += 1
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise ConnectionError("Connection closed by server.") from None
        return {}


async def test_receive_loop_stops_when_the_layer_swallows_the_cancel():
    layer = SwallowingLayer()
    task = asyncio.create_task(Hub()._receive_loop(layer, "sse.test"))
    await asyncio.sleep(0.05)

    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)

    assert task in done and task.cancelled()
    assert layer.receives == 1  # no retry after the cancel
