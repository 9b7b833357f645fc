"""Wake-ups on the channel layer: a hint that a task has new events, never the data itself.

channels-redis is at-most-once (it drops at capacity and when Redis is away), so a listener
must treat a wake-up as "look at the table", and look anyway on a timer.
"""

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any

from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

WAKEUP_TYPE = "task.wakeup"
SEND_TIMEOUT_SECONDS = 2.0


def group_name(task_id: object) -> str:
    return f"task.{task_id}"


async def _send(task_id: object, seq: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    async with asyncio.timeout(SEND_TIMEOUT_SECONDS):
        await layer.group_send(
            group_name(task_id),
            {"type": WAKEUP_TYPE, "task_id": str(task_id), "seq": seq},
        )


class _PublishLoop:
    """One event loop thread per process for publishing, so the layer's Redis connection is
    kept between wake-ups. (async_to_sync from a worker made a new loop, hence a new
    connection, for every event: most of the time from commit to the stream's read.)
    Started lazily and again in a forked child, where the parent's thread does not exist."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def run(self, coro: Coroutine[Any, Any, object], timeout: float) -> None:
        future = asyncio.run_coroutine_threadsafe(coro, self._running_loop())
        try:
            future.result(timeout)
        except BaseException:
            future.cancel()
            raise

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="agentops-wakeups", daemon=True
                ).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_PUBLISHER = _PublishLoop()


def publish_wakeup(task_id: object, seq: int) -> None:
    """Tell listeners of the task that seq exists. A failure is logged, never raised."""
    try:
        _PUBLISHER.run(_send(task_id, seq), timeout=SEND_TIMEOUT_SECONDS + 1.0)
    except Exception:
        logger.warning(
            "wake-up for task %s seq %s not sent", task_id, seq, exc_info=True
        )
