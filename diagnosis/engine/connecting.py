"""The connecting phase (issue 19 item 5): each server of the environment is connected before the
first round, and the page is told as each one starts and ends (`server_state` events).

It drives the session pool through its public `get`, one server at a time concurrently, so
`tool_catalog` afterwards only reads what is already connected or known to have failed.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from diagnosis.engine.sessions import ServerUnavailable
from diagnosis.events import EventKind
from diagnosis.payloads import Emit
from diagnosis.registry import Environment

ERROR_CHARS = 300


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
