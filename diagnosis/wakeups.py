"""Wake-ups on the channel layer: a hint that a task has new events, never the data itself.

channels-redis is at-most-once (it drops at capacity and when Redis is away), so a listener
must treat a wake-up as "look at the table", and look anyway on a timer.
"""

import asyncio
import logging

from asgiref.sync import async_to_sync
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


def publish_wakeup(task_id: object, seq: int) -> None:
    """Tell listeners of the task that seq exists. A failure is logged, never raised."""
    try:
        async_to_sync(_send)(task_id, seq)
    except Exception:
        logger.warning(
            "wake-up for task %s seq %s not sent", task_id, seq, exc_info=True
        )
