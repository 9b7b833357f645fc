"""The servers of one diagnosis: borrowed from the process's pool on first use, given back at the end.

The sessions themselves are the worker process's (diagnosis.engine.server_pool): a diagnosis
borrows each server it needs once and calls through the pool, whose loop owns the session.
A server that cannot be reached is remembered as failed for the rest of the diagnosis, so its
tools fail fast (layer mcp) instead of each call waiting out a connect timeout.

The tool catalog (`tool_catalog`): a server whose listing this process already has (an earlier
diagnosis listed it) is not waited for; its session comes up meanwhile and its calls wait for
it alone. Only servers never listed in the process are waited for before planning.
"""

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

import mcpclient
from diagnosis.engine.server_pool import (
    Lent,
    PoolKey,
    ServerPool,
    ServerUnavailable,
    current_record,
    pool_key,
)
from diagnosis.registry import Environment, ServerEntry
from reasoning.observations import ToolInfo

__all__ = [
    "DiagnosisSessions",
    "ServerUnavailable",
    "current_record",
    "tool_info",
]

logger = logging.getLogger(__name__)


class DiagnosisSessions:
    """The servers one diagnosis borrowed from `pool`, by name."""

    def __init__(
        self,
        environment: Environment,
        *,
        pool: ServerPool,
        tenant: str,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.environment = environment
        self._pool = pool
        self._tenant = tenant
        self._environ = os.environ if environ is None else environ
        self._locks: dict[str, asyncio.Lock] = {}
        self._lent: dict[str, Lent] = {}
        self._failed: dict[str, BaseException] = {}
        self._background: set[asyncio.Task[Any]] = set()

    async def __aenter__(self) -> "DiagnosisSessions":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Give every borrowed session back (never blocks: the pool keeps them)."""
        for task in list(self._background):
            task.cancel()
        for task in list(self._background):
            with contextlib.suppress(BaseException):
                await asyncio.shield(task)
        lent, self._lent = list(self._lent.values()), {}
        for item in lent:
            self._pool.give_back(item.key)

    def entry(self, server: str) -> ServerEntry | None:
        try:
            return self.environment.server(server)
        except KeyError:
            return None

    def key(self, server: str) -> PoolKey:
        """The pool key of `server` for this diagnosis.

        Raises:
            KeyError: no such server in the environment.
        """
        entry = self.environment.server(server)
        return pool_key(
            self.environment.name, entry, tenant=self._tenant, environ=self._environ
        )

    async def get(self, server: str) -> Lent:
        """`server`'s session as borrowed by this diagnosis, borrowing it on first use.

        Raises:
            ServerUnavailable: it failed to connect (now or earlier in this diagnosis).
            KeyError: no such server in the environment.
        """
        if server in self._lent:
            return self._lent[server]
        if server in self._failed:
            raise ServerUnavailable(server, self._failed[server])
        lock = self._locks.setdefault(server, asyncio.Lock())
        async with lock:
            if server in self._lent:
                return self._lent[server]
            if server in self._failed:
                raise ServerUnavailable(server, self._failed[server])
            key = self.key(server)
            try:
                lent = await self._pool.lend(key, environ=self._environ)
            except ServerUnavailable as exc:
                self._failed[server] = exc.error
                raise
            self._lent[server] = lent
            return lent

    async def call_tool(
        self,
        server: str,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float,
        on_progress: Callable[[float, float | None, str | None], Any] | None = None,
        idempotent: bool | None = None,
        headers: Mapping[str, str] | None = None,
        records: list[mcpclient.CallRecord] | None = None,
        on_task: Callable[[str, str, str | None], Any] | None = None,
    ) -> tuple[mcpclient.CallToolResult, dict[str, Any], mcpclient.Tool | None]:
        """Call `name` on `server` through the pool (see ServerPool.call_tool).

        Raises:
            ServerUnavailable: the server could not be reached.
            mcpclient.McpError: the call failed.
        """
        lent = await self.get(server)
        return await self._pool.call_tool(
            lent.key,
            name,
            arguments,
            timeout=timeout,
            on_progress=on_progress,
            idempotent=idempotent,
            headers=headers,
            records=records,
            on_task=on_task,
        )

    async def drop(self, server: str) -> None:
        """`server` may have died under a call: check it now, so the next call gets a live
        session (a stdio child that died is started again); a failure is forgotten too."""
        self._failed.pop(server, None)
        lent = self._lent.get(server)
        if lent is not None:
            await self._pool.check(lent.key)

    async def tool_catalog(self) -> tuple[list[ToolInfo], dict[str, str]]:
        """Every allowed tool of every server, and why servers failed.

        Servers this process has listed before are borrowed in the background (their calls
        wait for them); the others are connected concurrently and waited for.
        """
        names = [s.name for s in self.environment.servers]
        known: dict[str, Mapping[str, mcpclient.Tool]] = {}
        waited: list[str] = []
        for name in names:
            tools = self._pool.known_tools(self.key(name))
            if tools is None:
                waited.append(name)
            else:
                known[name] = tools
                task = asyncio.create_task(self._borrow_quietly(name))
                self._background.add(task)
                task.add_done_callback(self._background.discard)
        results = await asyncio.gather(
            *(self.get(name) for name in waited), return_exceptions=True
        )
        failures: dict[str, str] = {}
        for name, result in zip(waited, results, strict=True):
            if isinstance(result, ServerUnavailable):
                failures[name] = str(result.error) or type(result.error).__name__
                continue
            if isinstance(result, BaseException):
                raise result
            known[name] = result.tools
        infos = [
            tool_info(name, tool)
            for name in names
            if name in known
            for tool in known[name].values()
        ]
        return infos, failures

    async def _borrow_quietly(self, server: str) -> None:
        with contextlib.suppress(ServerUnavailable):  # its calls say so
            await self.get(server)


def tool_info(server: str, tool: mcpclient.Tool) -> ToolInfo:
    hints = tool.annotations
    return ToolInfo(
        server=server,
        name=tool.name,
        description=(tool.description or "")[:2000],
        input_schema=tool.input_schema,
        is_read_only=hints.read_only_hint,
        # The spec's defaults: a tool that says nothing is destructive (destructiveHint true).
        is_destructive=not hints.read_only_hint and hints.destructive_hint,
        is_idempotent=hints.idempotent_hint,
    )
