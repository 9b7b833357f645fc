"""The connecting phase (issue 19 item 5): the page is told as each server of the environment
starts and ends (`server_state` events).

It drives the session pool through its public `get`, every server concurrently, in the
background of the run (`announced`): the announcements never hold the first round back. The
planner waits only for the catalogs this worker process does not know yet
(DiagnosisSessions.tool_catalog), and a call waits only for its own server (issue 19 item 2).
"""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol

from diagnosis.engine.sessions import ServerUnavailable
from diagnosis.events import EventKind
from diagnosis.payloads import Emit
from diagnosis.registry import Environment

ERROR_CHARS = 300

logger = logging.getLogger(__name__)


class _Connected(Protocol):
    @property
    def tools(self) -> Mapping[str, Any]: ...


class _Pool(Protocol):
    def get(self, server: str) -> Awaitable[_Connected]: ...


async def connect_servers(
    environment: Environment,
    pool: _Pool,
    emit: Emit[Awaitable[None]],
    *,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Connect every server of `environment` through `pool`, announcing each start and end.

    A server that fails is announced `failed` and left to the pool (which remembers it);
    anything else is raised.
    """

    async def one(entry_name: str, transport: str) -> None:
        await emit(
            EventKind.SERVER_STATE,
            {"server": entry_name, "transport": transport, "state": "connecting"},
        )
        started = clock()
        try:
            connected = await pool.get(entry_name)
        except ServerUnavailable as exc:
            why = str(exc.error) or type(exc.error).__name__
            await emit(
                EventKind.SERVER_STATE,
                {
                    "server": entry_name,
                    "transport": transport,
                    "state": "failed",
                    "elapsed_ms": round((clock() - started) * 1000, 1),
                    "error": why[:ERROR_CHARS],
                },
            )
            return
        await emit(
            EventKind.SERVER_STATE,
            {
                "server": entry_name,
                "transport": transport,
                "state": "ready",
                "elapsed_ms": round((clock() - started) * 1000, 1),
                "tools": len(connected.tools),
            },
        )

    async with asyncio.TaskGroup() as group:
        for entry in environment.servers:
            group.create_task(one(entry.name, entry.transport))


@contextlib.asynccontextmanager
async def announced(
    environment: Environment, pool: _Pool, emit: Emit[Awaitable[None]]
) -> AsyncIterator[None]:
    """Run `connect_servers` in the background of the block; stopped when the block ends.

    An announcement that fails (its event could not be written) is logged, not raised: the
    run's own writes say what went wrong with the database.
    """
    task = asyncio.create_task(connect_servers(environment, pool, emit))
    try:
        yield
    finally:
        task.cancel()  # no-op when it is over
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.warning("announcing the servers' states failed", exc_info=True)
