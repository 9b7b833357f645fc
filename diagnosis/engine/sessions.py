"""The servers of one diagnosis: each connected once, on first use, and closed at the end.

A server that cannot be reached is remembered as failed for the rest of the diagnosis, so
its tools fail fast (layer mcp) instead of each call waiting out a connect timeout.
"""

import asyncio
import contextvars
import logging
import os
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import mcpclient
from diagnosis.registry import Environment, MissingSecret, ServerEntry, connect_server
from reasoning.observations import ToolInfo

logger = logging.getLogger(__name__)

# The CallRecord of the call running in this asyncio task (mcpclient's observer runs in the
# caller's task, at the end of the call), so the executor can put it on the span.
current_record: contextvars.ContextVar[list[mcpclient.CallRecord] | None] = (
    contextvars.ContextVar("current_record", default=None)
)


# Starting a stdio server costs about a second of CPU (the child imports the MCP SDK): twenty
# diagnoses starting five each at once starved every handshake past its timeout (bench/engine.py).
# A worker process starts this many at once; the others wait their turn, and the wait is not
# part of the connect timeout (the diagnosis's budget still bounds it). Threads-pool workers
# run one event loop per diagnosis, hence a thread semaphore polled from each loop.
STDIO_STARTS = max(2, os.cpu_count() or 2)
_stdio_starts = threading.BoundedSemaphore(STDIO_STARTS)


@asynccontextmanager
async def _start_slot(entry: ServerEntry) -> AsyncIterator[None]:
    if entry.transport != "stdio":
        yield
        return
    while not _stdio_starts.acquire(
        blocking=False
    ):  # cancel-safe: never blocks a thread
        await asyncio.sleep(0.05)
    try:
        yield
    finally:
        _stdio_starts.release()


def _observe(record: mcpclient.CallRecord) -> None:
    sink = current_record.get()
    if sink is not None and record.method == "tools/call":
        sink.append(record)


@dataclass
class Connected:
    entry: ServerEntry
    session: mcpclient.ClientSession
    tools: dict[str, mcpclient.Tool]


class ServerUnavailable(Exception):
    """The server could not be started, reached or listed; `.error` is mcpclient's."""

    def __init__(self, server: str, error: BaseException) -> None:
        super().__init__(f"server {server}: {error}")
        self.server, self.error = server, error


class SessionPool:
    def __init__(
        self, environment: Environment, *, environ: Mapping[str, str] | None = None
    ) -> None:
        self.environment = environment
        self._environ = environ
        self._stacks: dict[
            str, AsyncExitStack
        ] = {}  # one per server, closed side by side
        self._locks: dict[str, asyncio.Lock] = {}
        self._connected: dict[str, Connected] = {}
        self._failed: dict[str, BaseException] = {}

    async def __aenter__(self) -> "SessionPool":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every session at once (a stdio server's shutdown waits for the child to exit).

        Shielded: a cancelled diagnosis still shuts its servers down.
        """
        stacks, self._stacks = list(self._stacks.values()), {}
        results = await asyncio.shield(
            asyncio.gather(*(s.aclose() for s in stacks), return_exceptions=True)
        )
        for result in results:
            if isinstance(result, Exception):
                logger.warning("closing a server failed: %s", result)

    async def drop(self, server: str) -> None:
        """Forget `server`'s session and any failure, so the next `get` connects it again.

        For a server that may have died under a call (a stdio child is started again).
        """
        self._connected.pop(server, None)
        self._failed.pop(server, None)
        stack = self._stacks.pop(server, None)
        if stack is None:
            return
        try:
            await stack.aclose()
        except (
            Exception
        ) as exc:  # a dead server's shutdown may fail: it is gone either way
            logger.warning("closing server %s failed: %s", server, exc)

    def entry(self, server: str) -> ServerEntry | None:
        try:
            return self.environment.server(server)
        except KeyError:
            return None

    async def get(self, server: str) -> Connected:
        """The open session of `server`, connecting it on first use.

        Raises:
            ServerUnavailable: it failed to connect (now or earlier in this diagnosis).
            KeyError: no such server in the environment.
        """
        if server in self._connected:
            return self._connected[server]
        if server in self._failed:
            raise ServerUnavailable(server, self._failed[server])
        lock = self._locks.setdefault(server, asyncio.Lock())
        async with lock:
            if server in self._connected:
                return self._connected[server]
            if server in self._failed:
                raise ServerUnavailable(server, self._failed[server])
            entry = self.environment.server(server)
            stack = self._stacks[server] = AsyncExitStack()
            try:
                async with _start_slot(entry):
                    session = await stack.enter_async_context(
                        connect_server(entry, environ=self._environ, observer=_observe)
                    )
                    listed = await session.list_tools(timeout=entry.connect_timeout)
            except (mcpclient.McpError, MissingSecret, OSError, ValueError) as exc:
                logger.warning("server %s unavailable: %s", server, exc)
                self._failed[server] = exc
                raise ServerUnavailable(server, exc) from exc
            tools = {t.name: t for t in listed if entry.is_tool_allowed(t.name)}
            self._connected[server] = Connected(entry, session, tools)
            return self._connected[server]

    async def tool_catalog(self) -> tuple[list[ToolInfo], dict[str, str]]:
        """Every allowed tool of every server (connected concurrently), and why servers failed."""
        names = [s.name for s in self.environment.servers]
        results = await asyncio.gather(
            *(self.get(name) for name in names), return_exceptions=True
        )
        infos: list[ToolInfo] = []
        failures: dict[str, str] = {}
        for name, result in zip(names, results, strict=True):
            if isinstance(result, ServerUnavailable):
                failures[name] = str(result.error) or type(result.error).__name__
                continue
            if isinstance(result, BaseException):
                raise result
            infos.extend(tool_info(name, t) for t in result.tools.values())
        return infos, failures


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


def session_attributes(connected: Connected) -> dict[str, Any]:
    """The OTel attributes of a server connection (network.transport, server.address …)."""
    entry, session = connected.entry, connected.session
    attrs: dict[str, Any] = {
        "mcp.protocol.version": session.protocol_version,
        "network.transport": "pipe" if entry.transport == "stdio" else "tcp",
    }
    if entry.url is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(entry.url)
        attrs["server.address"] = parts.hostname
        attrs["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)
        session_id = getattr(session.transport, "session_id", None)
        if session_id:  # only the versions with sessions have one
            attrs["mcp.session.id"] = session_id
    return attrs
