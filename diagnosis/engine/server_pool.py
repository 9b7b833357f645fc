"""MCP sessions shared by the diagnoses of one worker process (issue 19 item 1).

The rule: a server is connected once per worker process and key, and every diagnosis of the
process that needs it borrows that one session (MCP multiplexes requests by id), the way a
database driver lends pooled connections. The key is what makes a server the same server:
the environment, the server entry as resolved (command with its live listener arguments, URL,
pins, timeouts, allowlist) and a digest of the credentials it is given (the values of its
`env` names and of `auth_env`). A server that is given credentials is moreover keyed by
tenant, so two tenants never share a session that carries secrets, whatever the values are;
a server without credentials (the bundled demo servers) is shared by every tenant that may use
its environment.

Borrowing and giving back: `lend()` counts a borrower (a diagnosis borrows each server once, on
first use, and gives it back at its end); the last one to give back starts the idle time, and a
session idle for `idle_seconds` is closed by the reaper. A session is checked before it is lent
again after an idle spell (a `ping`, bounded by PING_TIMEOUT): a dead one (its stdio child
exited, its HTTP stream failed) or one that does not answer is closed and replaced by a new
connection; a call that finds its session dead gets a new one first. Concurrent first
borrowers wait for one connection. A start that fails is not kept: the next borrower tries
again (the diagnosis remembers the failure for its own run, diagnosis.engine.sessions).

Bounds: the session's concurrency bound (`max_concurrency` of the entry) and its circuit breaker
are pool-wide, since every diagnosis of the process calls through the one session; the breaker
object is kept per key across replaced sessions and also guards starts, so twenty diagnoses
cannot flood a broken server with starts either. At most STDIO_STARTS stdio servers start at
once per process (a start costs about a second of CPU).

Catalogs: the tool listing is cached with the session and listed again when the server sends
notifications/tools/list_changed (mcpclient counts them: `ClientSession.tools_changed`). The last
listing of a key is also remembered after its session closes, so a diagnosis can plan with it
while the session comes up again (`known_tools`, issue 19 item 2).

Why one event loop thread: a threads-pool Celery worker runs each diagnosis in its own thread
with its own asyncio loop (`asyncio.run`), and an mcpclient session is bound to the loop that
opened it (its futures, its subprocess pipes, its httpx client). Sessions shared across
diagnoses therefore live on a loop of their own: one long-lived daemon thread per process
("mcp-pool") owns every pooled session. A diagnosis submits each operation to it with
`asyncio.run_coroutine_threadsafe` and awaits the answer on its own loop
(`asyncio.wrap_future`). Cancelling that await cancels the submitted task on the pool loop, so
a stopped diagnosis cancels its own request only: mcpclient frees that request id and sends
notifications/cancelled for it, and the other diagnoses' requests on the same session go on.
Progress notifications are handed back to the diagnosis's loop (`call_soon_threadsafe`).
The alternatives were rejected: a session per loop is what we had (no sharing); moving a
session between loops is not supported by asyncio; a pool per prefork child works unchanged
(each child has its own pool thread).

Shutdown: `close()` refuses new borrowers, waits up to DRAIN_SECONDS for the borrowers to give
their sessions back (a warm shutdown lets running diagnoses finish first), then closes every
session at once (a stdio child gets stdin closed, then SIGTERM, then SIGKILL) and stops the
thread. The worker calls `close_process_pool` on worker_shutdown / worker_process_shutdown
(agentops/celery.py), and atexit does too.

No Django here: the idle time and the status publisher come from the caller (the runtime,
from settings; diagnosis.observability.pool_status publishes to Redis for the operations page).
"""

import asyncio
import atexit
import contextlib
import contextvars
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import mcpclient
from diagnosis.engine.forkserver import ForkServer
from diagnosis.oauth_grants import GrantUnavailable, StoredGrantAuth
from diagnosis.observability import metrics as obs_metrics
from diagnosis.registry import (
    CHILD_ENV,
    FORKSERVER_ENV,
    MissingSecret,
    ServerEntry,
    connect_server,
    launched,
)

if TYPE_CHECKING:
    import concurrent.futures

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Starting a stdio server costs about a second of CPU (the child imports the MCP SDK): twenty
# diagnoses starting five each at once starved every handshake past its timeout (bench/engine.py).
# The pool starts this many at once; the others wait their turn, outside the connect timeout.
STDIO_STARTS = max(2, os.cpu_count() or 2)
# A bundled server forked by the fork server costs tens of milliseconds of CPU: more at once.
FORKED_STARTS = 4 * STDIO_STARTS
PING_TIMEOUT = 2.0  # the check before reuse: at most this long (or the connect timeout)
PING_AFTER_IDLE = 1.0  # a session unused this long is pinged before it is lent again
DRAIN_SECONDS = 30.0  # close(): how long borrowers get to give their sessions back
MAX_CATALOGS = 2000  # listings kept after their sessions closed
STATUS_EVERY = 5.0  # the reaper's tick at most: expiry, gauges, the status publisher

# The CallRecord of the call running in this asyncio task (mcpclient's observer runs in the
# caller's task, at the end of the call), so the executor can put it on the span.
current_record: contextvars.ContextVar[list[mcpclient.CallRecord] | None] = (
    contextvars.ContextVar("current_record", default=None)
)


def _stored_grant(environment: str, entry: ServerEntry) -> StoredGrantAuth | None:
    """The admin-connected grant's auth for an `auth = {grant = "connected"}` entry: the worker
    sends the stored grant's token (renewed under its row lock), never a user's own."""
    if entry.oauth is None or entry.oauth.grant != "connected":
        return None
    return StoredGrantAuth(environment, entry.name)


def _observe(record: mcpclient.CallRecord) -> None:
    sink = current_record.get()
    if sink is not None and record.method == "tools/call":
        sink.append(record)


class ServerUnavailable(Exception):
    """The server could not be started, reached or listed; `.error` is mcpclient's."""

    def __init__(self, server: str, error: BaseException) -> None:
        super().__init__(f"server {server}: {error}")
        self.server, self.error = server, error


@dataclass(frozen=True)
class PoolKey:
    """What makes a server the same server (see the module docstring)."""

    environment: str
    entry: ServerEntry
    credentials: str  # sha256 of the credential values; "" without credentials
    tenant: str  # "" for a server without credentials: shared by every tenant

    @property
    def server(self) -> str:
        return self.entry.name


def credential_names(entry: ServerEntry) -> tuple[str, ...]:
    """The worker variables whose values are the server's credentials."""
    names = set(entry.env)
    if entry.auth_env is not None:
        names.add(entry.auth_env)
    oauth = entry.oauth
    if oauth is not None:  # a service account's id, secret or key: tenants may differ
        names.update(
            name
            for name in (
                oauth.client_id_env,
                oauth.client_secret_env,
                oauth.private_key_env,
            )
            if name is not None
        )
    return tuple(sorted(names))


def pool_key(
    environment: str,
    entry: ServerEntry,
    *,
    tenant: str,
    environ: Mapping[str, str] | None = None,
) -> PoolKey:
    environ = os.environ if environ is None else environ
    names = credential_names(entry)
    if not names:
        return PoolKey(environment, entry, "", "")
    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0{environ.get(name, '')}\0".encode())
    return PoolKey(environment, entry, digest.hexdigest(), tenant)


@dataclass(frozen=True)
class Lent:
    """A borrowed session as a diagnosis sees it (the session itself stays on the pool loop)."""

    key: PoolKey
    tools: Mapping[str, mcpclient.Tool]
    pid: int | None  # a stdio server's process
    reused: bool  # the session was up before this borrower came

    @property
    def entry(self) -> ServerEntry:
        return self.key.entry


@dataclass(eq=False)
class _Server:
    key: PoolKey
    environ: dict[str, str]
    breaker: mcpclient.CircuitBreaker = field(default_factory=mcpclient.CircuitBreaker)
    session: mcpclient.ClientSession | None = None
    stack: AsyncExitStack | None = None
    tools: dict[str, mcpclient.Tool] = field(default_factory=dict)
    tools_seen: int = 0
    readying: "asyncio.Task[bool] | None" = None
    users: int = 0
    in_flight: int = 0
    idle_since: float | None = None
    last_ok: float = 0.0
    started_at: float | None = None  # wall clock
    start_seconds: float | None = None
    starts: int = 0
    hits: int = 0
    misses: int = 0

    @property
    def pid(self) -> int | None:
        if self.session is None:
            return None
        pid = getattr(self.session.transport, "pid", None)
        return pid if isinstance(pid, int) else None

    @property
    def state(self) -> str:
        if self.session is None:
            return "starting" if self.readying is not None else "closed"
        if not self.session.is_open:
            return "dead"
        return "in_use" if self.users else "idle"


def _session_environ(entry: ServerEntry, environ: Mapping[str, str]) -> dict[str, str]:
    names = (*CHILD_ENV, *credential_names(entry))
    return {name: environ[name] for name in names if name in environ}


def session_attributes(
    entry: ServerEntry, session: mcpclient.ClientSession
) -> dict[str, Any]:
    """The OTel attributes of a server connection (network.transport, server.address …)."""
    attrs: dict[str, Any] = {
        "mcp.protocol.version": session.protocol_version,
        "network.transport": "pipe" if entry.transport == "stdio" else "tcp",
    }
    pid = getattr(session.transport, "pid", None)
    if isinstance(pid, int):
        attrs["agentops.server.pid"] = (
            pid  # the stdio child: diagnoses sharing it name the same
        )
    if entry.url is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(entry.url)
        attrs["server.address"] = parts.hostname
        attrs["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)
        session_id = getattr(session.transport, "session_id", None)
        if session_id:  # only the versions with sessions have one
            attrs["mcp.session.id"] = session_id
    return attrs


class ServerPool:
    """The pooled sessions of one process, on their own event loop thread; thread-safe."""

    def __init__(
        self,
        *,
        idle_seconds: float,
        publish: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.idle_seconds = idle_seconds
        self._publish = publish
        self._servers: dict[PoolKey, _Server] = {}
        self._catalogs: dict[PoolKey, dict[str, mcpclient.Tool]] = {}
        self._closed = False
        self._starts = asyncio.Semaphore(STDIO_STARTS)
        self._forked_starts = asyncio.Semaphore(FORKED_STARTS)
        self.forkserver = ForkServer()
        self._gauges: set[tuple[str, str]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="mcp-pool", daemon=True)
        self._thread.start()
        self._reaper = asyncio.run_coroutine_threadsafe(self._reap(), self._loop)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    def _submit(self, coro: Coroutine[Any, Any, T]) -> "concurrent.futures.Future[T]":
        if self._closed:
            coro.close()
            raise RuntimeError("the MCP session pool is closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    # --- what a diagnosis calls (from any thread's loop) ------------------------------------

    async def lend(
        self, key: PoolKey, *, environ: Mapping[str, str] | None = None
    ) -> Lent:
        """Borrow `key`'s session (connected now if none is up); `give_back(key)` when done.

        Raises:
            ServerUnavailable: it could not be started, reached or listed, or the pool closes.
        """
        try:
            future = self._submit(
                self._lend(key, os.environ if environ is None else environ)
            )
        except RuntimeError as exc:
            raise ServerUnavailable(
                key.server, mcpclient.ConnectError(str(exc))
            ) from None
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            # Lent after all (the answer crossed the cancel): give it back once it is known.
            future.add_done_callback(
                lambda done: (
                    None
                    if done.cancelled() or done.exception() is not None
                    else self.give_back(key)
                )
            )
            raise

    def give_back(self, key: PoolKey) -> None:
        """The borrower is done with `key`'s session (thread-safe, never blocks)."""
        with contextlib.suppress(
            RuntimeError
        ):  # the loop is gone: close() ended it all
            self._loop.call_soon_threadsafe(self._give_back, key)

    async def call_tool(
        self,
        key: PoolKey,
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
        """Call a tool on `key`'s session (replaced first if it died): the result, the span
        attributes of the session it went through, and the tool as listed. `on_progress` and
        `on_task` (a task-backed call's status) run on the caller's loop.

        Cancelling the await cancels this call only (notifications/cancelled for its id).

        Raises:
            ServerUnavailable: the session was dead and could not be replaced.
            mcpclient.McpError: the call failed.
        """
        relay = None
        if on_progress is not None:
            caller = asyncio.get_running_loop()

            def relay(
                progress: float, total: float | None, message: str | None
            ) -> None:
                with contextlib.suppress(RuntimeError):  # the caller's loop has ended
                    caller.call_soon_threadsafe(on_progress, progress, total, message)

        task_relay = None
        if on_task is not None:
            task_caller = asyncio.get_running_loop()

            def task_relay(task_id: str, status: str, message: str | None) -> None:
                with contextlib.suppress(RuntimeError):  # the caller's loop has ended
                    task_caller.call_soon_threadsafe(on_task, task_id, status, message)

        try:
            future = self._submit(
                self._call(
                    key,
                    name,
                    arguments,
                    timeout=timeout,
                    on_progress=relay,
                    idempotent=idempotent,
                    headers=headers,
                    records=records,
                    on_task=task_relay,
                )
            )
        except RuntimeError as exc:
            raise ServerUnavailable(
                key.server, mcpclient.ConnectError(str(exc))
            ) from None
        return await asyncio.wrap_future(future)

    async def check(self, key: PoolKey) -> None:
        """Ping `key`'s session now; replace it if it is dead or does not answer.

        For a caller that suspects the server died under a call (a write's lost answer).
        """
        with contextlib.suppress(RuntimeError):
            await asyncio.wrap_future(self._submit(self._check(key)))

    def known_tools(self, key: PoolKey) -> dict[str, mcpclient.Tool] | None:
        """The last listing of `key` in this process (its session may be down), or None."""
        return self._catalogs.get(key)

    def snapshot(self) -> list[dict[str, Any]]:
        """Every pooled server: environment, server, state, borrowers, pid, start figures."""
        rows = []
        for server in list(self._servers.values()):
            rows.append(
                {
                    "environment": server.key.environment,
                    "server": server.key.server,
                    "transport": server.key.entry.transport,
                    "tenant": server.key.tenant,
                    "state": server.state,
                    "borrowers": server.users,
                    "in_flight": server.in_flight,
                    "pid": server.pid,
                    "started_at": server.started_at,
                    "start_ms": None
                    if server.start_seconds is None
                    else round(server.start_seconds * 1000, 1),
                    "starts": server.starts,
                    "hits": server.hits,
                    "misses": server.misses,
                    "breaker": server.breaker.state,
                }
            )
        return sorted(rows, key=lambda r: (r["environment"], r["server"], r["tenant"]))

    def close(self, *, drain_seconds: float = DRAIN_SECONDS) -> None:
        """Refuse new borrowers, wait for the borrowers (at most `drain_seconds`), close every
        session and stop the pool's thread. Idempotent; call from any thread but the pool's."""
        if self._closed:
            return
        self._closed = True
        try:
            future = asyncio.run_coroutine_threadsafe(
                self._drain_and_close(drain_seconds), self._loop
            )
            future.result(timeout=drain_seconds + 60)
        except Exception:
            logger.warning("closing the MCP session pool failed", exc_info=True)
        finally:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    # --- on the pool's loop -------------------------------------------------------------------

    def _server(self, key: PoolKey, environ: Mapping[str, str]) -> _Server:
        server = self._servers.get(key)
        if server is None:
            server = self._servers[key] = _Server(
                key, _session_environ(key.entry, environ)
            )
        return server

    def _fresh(self, server: _Server, *, lending: bool) -> bool:
        """The session can be used as it is (no start, re-list or ping needed)."""
        session = server.session
        if session is None or not session.is_open:
            return False
        if session.tools_changed != server.tools_seen:
            return False
        if lending and not server.users:
            return time.monotonic() - server.last_ok < PING_AFTER_IDLE
        return True

    async def _ready(self, server: _Server, *, ping: bool = False) -> bool:
        """Make the session usable; True when it was up already. One at a time per server:
        concurrent callers share the work, and a cancelled caller leaves it running.
        `ping`: check the session even if it is in use."""
        task = server.readying
        if task is None:
            task = server.readying = self._loop.create_task(
                self._make_ready(server, ping=ping)
            )

            def done(finished: "asyncio.Task[bool]") -> None:
                if server.readying is finished:
                    server.readying = None
                if not finished.cancelled():
                    finished.exception()  # retrieved: a failure is every waiter's to see

            task.add_done_callback(done)
        return await asyncio.shield(task)

    async def _make_ready(self, server: _Server, *, ping: bool) -> bool:
        session = server.session
        entry = server.key.entry
        if session is not None and session.is_open:
            try:
                if session.tools_changed != server.tools_seen:
                    await self._list(server, session)
                idle = time.monotonic() - server.last_ok >= PING_AFTER_IDLE
                if ping or (not server.users and idle):
                    await session.ping(timeout=min(PING_TIMEOUT, entry.connect_timeout))
                    server.last_ok = time.monotonic()
                return True
            except mcpclient.McpError as exc:
                logger.warning(
                    "server %s failed its check, replaced: %s", entry.name, exc
                )
        await self._close_session(server)
        await self._connect(server)
        return False

    async def _list(self, server: _Server, session: mcpclient.ClientSession) -> None:
        entry = server.key.entry
        seen = (
            session.tools_changed
        )  # a change during the listing lists again next time
        listed = await session.list_tools(timeout=entry.connect_timeout)
        server.tools = {t.name: t for t in listed if entry.is_tool_allowed(t.name)}
        server.tools_seen = seen
        self._catalogs.pop(server.key, None)  # newest last: the oldest go first
        self._catalogs[server.key] = server.tools
        while len(self._catalogs) > MAX_CATALOGS:
            del self._catalogs[next(iter(self._catalogs))]

    @contextlib.asynccontextmanager
    async def _start_slot(self, entry: ServerEntry, *, forked: bool) -> Any:
        if entry.transport != "stdio":
            yield
            return
        async with self._forked_starts if forked else self._starts:
            yield

    async def _connect(self, server: _Server) -> None:
        entry = server.key.entry
        try:
            server.breaker.before_call()  # a server failing its starts is not started again
        except mcpclient.CircuitOpen as exc:
            raise ServerUnavailable(entry.name, exc) from exc
        stack = AsyncExitStack()
        environ: Mapping[str, str] = server.environ
        if launched(entry):  # a bundled server: forked by the fork server when it runs
            environ = await self.forkserver.environ(environ)
        try:
            async with self._start_slot(entry, forked=FORKSERVER_ENV in environ):
                began = time.monotonic()
                session = await stack.enter_async_context(
                    connect_server(
                        entry,
                        environ=environ,
                        observer=_observe,
                        breaker=server.breaker,
                        auth=_stored_grant(server.key.environment, entry),
                    )
                )
                await self._list(server, session)
                seconds = time.monotonic() - began
        except (
            mcpclient.McpError,
            MissingSecret,
            GrantUnavailable,
            OSError,
            ValueError,
        ) as exc:
            server.breaker.record_failure()
            await _close_quietly(entry.name, stack)
            logger.warning("server %s unavailable: %s", entry.name, exc)
            raise ServerUnavailable(entry.name, exc) from exc
        except BaseException:
            server.breaker.release_probe()
            await asyncio.shield(_close_quietly(entry.name, stack))
            raise
        server.breaker.record_success()
        server.session, server.stack = session, stack
        server.last_ok = time.monotonic()
        server.started_at = time.time()
        server.start_seconds = seconds
        server.starts += 1
        obs_metrics.mcp_server_started(
            server=entry.name, transport=entry.transport, seconds=seconds
        )

    async def _close_session(self, server: _Server) -> None:
        stack, server.stack, server.session = server.stack, None, None
        if stack is not None:
            await _close_quietly(server.key.server, stack)

    async def _lend(self, key: PoolKey, environ: Mapping[str, str]) -> Lent:
        server = self._server(key, environ)
        reused = True
        if not self._fresh(server, lending=True):
            reused = await self._ready(server)
        server.users += 1
        server.idle_since = None
        if reused:
            server.hits += 1
        else:
            server.misses += 1
        obs_metrics.mcp_pool_lent(server=key.server, hit=reused)
        self._gauge()
        return Lent(key, server.tools, server.pid, reused)

    def _give_back(self, key: PoolKey) -> None:
        server = self._servers.get(key)
        if server is None or server.users <= 0:
            return
        server.users -= 1
        if not server.users:
            server.idle_since = time.monotonic()
        self._gauge()

    async def _call(
        self,
        key: PoolKey,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float,
        on_progress: Callable[[float, float | None, str | None], Any] | None,
        idempotent: bool | None,
        headers: Mapping[str, str] | None,
        records: list[mcpclient.CallRecord] | None,
        on_task: Callable[[str, str, str | None], Any] | None = None,
    ) -> tuple[mcpclient.CallToolResult, dict[str, Any], mcpclient.Tool | None]:
        server = self._servers.get(key)
        if server is None:  # never lent (or closed): a borrower always lends first
            raise ServerUnavailable(key.server, mcpclient.ConnectError("not borrowed"))
        if not self._fresh(server, lending=False):
            await self._ready(server)
        session = server.session
        assert session is not None
        token = current_record.set(records)
        server.in_flight += 1
        try:
            result = await session.call_tool(
                name,
                arguments,
                timeout=timeout,
                on_progress=on_progress,
                idempotent=idempotent,
                headers=headers,
                on_task=on_task,
            )
        finally:
            server.in_flight -= 1
            current_record.reset(token)
        server.last_ok = time.monotonic()
        obs_metrics.circuit_breaker_seen(server=key.server, state=server.breaker.state)
        return result, session_attributes(key.entry, session), server.tools.get(name)

    async def _check(self, key: PoolKey) -> None:
        server = self._servers.get(key)
        if server is None:
            return
        with contextlib.suppress(ServerUnavailable):  # the next call says so
            await self._ready(server, ping=True)

    async def _reap(self) -> None:
        tick = max(0.2, min(self.idle_seconds / 4, STATUS_EVERY))
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            expired = [
                s
                for s in self._servers.values()
                if not s.users
                and s.readying is None
                and (
                    s.session is None
                    or (
                        s.idle_since is not None
                        and now - s.idle_since >= self.idle_seconds
                    )
                )
            ]
            for server in expired:
                del self._servers[server.key]
            if expired:
                await asyncio.gather(*(self._close_session(s) for s in expired))
            self._gauge()
            if self._publish is not None:
                rows = self.snapshot()
                await self._loop.run_in_executor(
                    None, _publish_quietly, self._publish, rows
                )

    async def _drain_and_close(self, drain_seconds: float) -> None:
        deadline = time.monotonic() + drain_seconds
        while (
            any(s.users for s in self._servers.values()) and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.05)
        self._reaper.cancel()
        servers = list(self._servers.values())
        self._servers.clear()
        for server in servers:
            if server.readying is not None:
                server.readying.cancel()
        await asyncio.gather(
            *(self._close_session(s) for s in servers), return_exceptions=True
        )
        await (
            self.forkserver.close()
        )  # after the sessions: their servers are its children
        self._gauge()
        if self._publish is not None:
            await self._loop.run_in_executor(None, _publish_quietly, self._publish, [])

    def _gauge(self) -> None:
        counts: dict[tuple[str, str], int] = {}
        for server in self._servers.values():
            pair = (server.key.server, server.state)
            counts[pair] = counts.get(pair, 0) + 1
        for pair in self._gauges - counts.keys():
            counts[pair] = 0
        self._gauges = {pair for pair, n in counts.items() if n}
        obs_metrics.mcp_pool_sessions(counts)


async def _close_quietly(server: str, stack: AsyncExitStack) -> None:
    try:
        await stack.aclose()
    except Exception as exc:  # a dead server's shutdown may fail: it is gone either way
        logger.warning("closing server %s failed: %s", server, exc)


def _publish_quietly(
    publish: Callable[[list[dict[str, Any]]], None], rows: list[dict[str, Any]]
) -> None:
    try:
        publish(rows)
    except Exception:
        logger.debug("the MCP session pool's status was not published", exc_info=True)


# --- the process's pool ---------------------------------------------------------------------

_process_lock = threading.Lock()
_process_pool: ServerPool | None = None


def process_pool(
    *,
    idle_seconds: float,
    publish: Callable[[list[dict[str, Any]]], None] | None = None,
) -> ServerPool:
    """This process's pool, made on first use (the arguments count then only)."""
    global _process_pool
    with _process_lock:
        if _process_pool is None:
            _process_pool = ServerPool(idle_seconds=idle_seconds, publish=publish)
            atexit.register(close_process_pool)
        return _process_pool


def current_pool() -> ServerPool | None:
    """This process's pool if one was made (for status pages), else None."""
    return _process_pool


def close_process_pool(**_: Any) -> None:
    """Close this process's pool (the worker's shutdown signals, atexit, tests); idempotent."""
    global _process_pool
    with _process_lock:
        pool, _process_pool = _process_pool, None
    if pool is not None:
        atexit.unregister(close_process_pool)
        pool.close()


def install() -> None:
    """Close the pool when a Celery worker shuts down (idempotent: keyed by dispatch_uid).

    worker_shutdown fires in the worker's main process once the pool of diagnoses has stopped
    (a warm shutdown lets running diagnoses finish first); worker_process_shutdown in each
    prefork child.
    """
    from celery import signals

    signals.worker_shutdown.connect(
        close_process_pool, dispatch_uid="agentops.mcp_pool", weak=False
    )
    signals.worker_process_shutdown.connect(
        close_process_pool, dispatch_uid="agentops.mcp_pool", weak=False
    )
