"""ClientSession: the lifecycle, one Future per request id, the call policy, the typed calls.

The hot path of a call is: build the message, register a Future under a fresh id, hand the message to
the transport, await the Future (the transport's reader or the POST itself resolves it). No task is
created per call; cancellation and timeouts free the id and tell the server. The session composes
the other concerns, each in its own module: what handshake answers mean (_negotiation), the tool
listing and its schemas (_tools), untrusted results into typed values (_catalog), what the server
sends unasked (_incoming), the observer's record (_records), retries (_retry), the breaker (_breaker).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import logging
import math
import time
from typing import TYPE_CHECKING, Any

from . import _catalog, _jsonrpc, _schema, _timings
from ._breaker import CircuitBreaker
from ._elicit import input_responses
from ._exceptions import (
    HEADER_MISMATCH,
    UNSUPPORTED_PROTOCOL_VERSION,
    CapabilityError,
    ConnectionLost,
    HttpStatusError,
    JsonRpcError,
    Layer,
    MalformedResult,
    McpError,
    ResponseTimeout,
    SessionExpired,
    TaskFailed,
    ToolValidationError,
    UsageError,
    VersionMismatch,
)
from ._incoming import ServerRequests, progress_arguments
from ._negotiation import (
    ServerHello,
    client_capabilities,
    hello_from_discover,
    hello_from_initialize,
    modern_meta,
    supported_versions,
)
from ._records import call_record, notify
from ._retry import RetryPolicy
from ._tools import ToolCatalog
from ._types import (
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_VERSION,
    CallToolResult,
    ElicitHandler,
    GetPromptResult,
    Observer,
    ProgressCallback,
    Prompt,
    ReadResourceResult,
    Resource,
    TaskCallback,
    Tool,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from ._transports.base import Transport

logger = logging.getLogger("mcpclient")

CLIENT_INFO = {"name": "mcpclient", "version": "0.1.0"}
_MAX_PAGES = 1000
_NEW, _OPENING, _OPEN, _CLOSED = range(4)
_MAX_INPUT_ROUNDS = (
    16  # MRTR rounds of one call before we call the server's loop malformed
)
# Tasks extension: tasks/get every pollIntervalMs the server hints, within these bounds (seconds).
_POLL_DEFAULT, _POLL_MIN, _POLL_MAX = 0.5, 0.01, 30.0
_TERMINAL = frozenset({"completed", "failed", "cancelled"})


def _poll_interval(answer: dict[str, Any], previous: float) -> float:
    hint = answer.get("pollIntervalMs")
    if not isinstance(hint, int | float) or isinstance(hint, bool):
        return previous
    if not math.isfinite(hint):
        return previous
    return min(_POLL_MAX, max(_POLL_MIN, hint / 1000.0))


def _task_id(answer: dict[str, Any]) -> Any:
    task = answer.get("task")
    if "taskId" not in answer and isinstance(task, dict):
        return task.get("taskId")  # a nested {task: {taskId, ...}} form
    return answer.get("taskId")


def _task_status(answer: dict[str, Any]) -> str:
    status = answer.get("status")
    task = answer.get("task")
    if status is None and isinstance(task, dict):
        status = task.get("status")
    return status if isinstance(status, str) else "unknown"


# Headers the protocol and the transport own; a caller's per-call header may not replace them.
_OWN_HEADERS = frozenset({"accept", "content-type", "content-length"})


def _caller_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A caller's per-call headers, names lower-cased (HTTP names are case-insensitive).

    Raises:
        UsageError: a name the protocol owns (``mcp-*``, or one of ``_OWN_HEADERS``).
    """
    out: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        if key.startswith("mcp-") or key in _OWN_HEADERS:
            raise UsageError(
                f"call_tool(headers=...) cannot set {name!r}: the protocol sets it"
            )
        out[key] = value
    return out


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class ClientSession:
    """A connection to one MCP server; use :func:`mcpclient.connect` to get an open one."""

    def __init__(
        self,
        transport: Transport,
        *,
        timeout: float | None = 10.0,
        probe_timeout: float = 3.0,
        observer: Observer | None = None,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        max_concurrency: int = 64,
        max_notifications: int = 1000,
        max_server_requests: int = 32,
        client_info: dict[str, Any] | None = None,
        validate: bool = True,
        elicit: ElicitHandler | None = None,
    ) -> None:
        self.transport = transport
        self.elicit = elicit
        self.timeout = math.inf if timeout is None else timeout  # None: no limit
        self.probe_timeout = probe_timeout
        self.observer = observer
        self.retry = retry or RetryPolicy()
        self.breaker = breaker or CircuitBreaker()
        self.validate = validate
        self.client_info = client_info or CLIENT_INFO
        #: Notifications nobody asked for (log messages, list_changed …), newest last, bounded.
        self.notifications: collections.deque[dict[str, Any]] = collections.deque(
            maxlen=max_notifications
        )
        #: Answers to ids we no longer wait for (late), or whose id is not one we could have sent.
        self.unknown_responses = 0
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self._state = _NEW
        self._modern = False
        self._meta: dict[str, Any] = {}
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._progress: dict[int, ProgressCallback] = {}
        self._next_id = 1
        self._dead: McpError | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._server_requests = ServerRequests(
            transport, self._spawn, limit=max_server_requests, elicit=elicit
        )
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._tools = ToolCatalog(transport.name)
        #: How many notifications/tools/list_changed arrived: a cached listing older than the
        #: last one is stale (a pool compares the count it listed at).
        self.tools_changed = 0
        self._session_generation = 0
        self._reinit_lock = asyncio.Lock()
        self._pinned: str | None = None
        self._probe_supported: list[
            str
        ] = []  # versions a -32022 answer to the probe listed
        # HTTP transports take per-request headers (Mcp-Param-*, the caller's); stdio has none.
        self._supports_headers = (
            "headers" in inspect.signature(transport.send).parameters
        )
        # Transports that can queue a message synchronously (stdio) skip the send coroutine.
        self._send_nowait: Callable[[dict[str, Any]], bool] | None = getattr(
            transport, "send_nowait", None
        )

    # -- lifecycle ---------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """True while the session is open and its connection has not died."""
        return self._state == _OPEN and self._dead is None

    async def ping(self, *, timeout: float) -> None:
        """A cheap request that proves the server answers: ``ping`` (handshake era) or
        ``server/discover`` (2026-07-28, which has no ping); never retried.

        Raises:
            McpError: no answer within ``timeout``, or the connection is dead.
        """
        self._check_open()
        method = "server/discover" if self._modern else "ping"
        await self._call(method, self._params({}), timeout=timeout, idempotent=False)

    @property
    def is_modern(self) -> bool:
        """True on 2026-07-28 (stateless, per-request ``_meta``)."""
        return self._modern

    @property
    def refused_server_requests(self) -> int:
        """Server-to-client requests left unanswered: over the bound, or forbidden by the version."""
        return self._server_requests.refused

    @property
    def stderr(self) -> list[str]:
        """The bounded stderr log of a stdio server (empty for other transports)."""
        return list(getattr(self.transport, "stderr", ()))

    async def open(self, *, protocol_version: str | None = None) -> None:
        """Start the transport and settle the protocol version.

        Raises:
            ConnectError: the transport could not be opened.
            VersionMismatch: the pinned version is not spoken by the server.
        """
        if self._state != _NEW:
            raise UsageError("ClientSession.open() called twice")
        if (
            protocol_version is not None
            and protocol_version != MODERN_VERSION
            and protocol_version not in HANDSHAKE_VERSIONS
        ):
            raise UsageError(
                f"unknown protocol version {protocol_version!r}; known: {MODERN_VERSION}, {', '.join(HANDSHAKE_VERSIONS)}"
            )
        self._state = _OPENING
        self._pinned = protocol_version
        await self.transport.start(self._deliver, self._on_closed)
        legacy_sse = self.transport.kind == "legacy_sse"
        if protocol_version == MODERN_VERSION:
            if legacy_sse:
                raise VersionMismatch(
                    "the 2024-11-05 HTTP+SSE transport cannot carry 2026-07-28",
                    requested=MODERN_VERSION,
                )
            await self._discover(pinned=True)
        elif protocol_version is not None:
            await self._initialize(protocol_version, pinned=True)
        elif legacy_sse or not await self._discover(pinned=False):
            mutual = [v for v in HANDSHAKE_VERSIONS if v in self._probe_supported]
            try:
                await self._initialize(
                    mutual[0] if mutual else LATEST_HANDSHAKE_VERSION, pinned=False
                )
            except JsonRpcError as exc:
                # The probe's answer came after its timeout (a slow-starting server) and the server
                # now serves 2026-07-28 on this connection: it says so with -32022 to initialize.
                supported = (
                    exc.data.get("supported") if isinstance(exc.data, dict) else None
                )
                if (
                    legacy_sse
                    or exc.code != UNSUPPORTED_PROTOCOL_VERSION
                    or not isinstance(supported, list)
                    or MODERN_VERSION not in supported
                ):
                    raise
                await self._discover(pinned=True)
        self._state = _OPEN

    async def _discover(self, *, pinned: bool) -> bool:
        """Probe with server/discover (2026-07-28); False means "fall back to initialize"."""
        self._set_version(MODERN_VERSION, modern=True)
        timeout = self.timeout if pinned else min(self.probe_timeout, self.timeout)
        try:
            try:
                result = await self._request(
                    self._new_id(),
                    "server/discover",
                    {"_meta": self._meta},
                    timeout,
                    notify_cancel=False,
                )
            except JsonRpcError as exc:
                # -32022 lists what the server speaks; if that includes our version, retry once
                # (2026-07-28 basic/versioning: the client SHOULD retry with a mutual version).
                if not (
                    exc.code == UNSUPPORTED_PROTOCOL_VERSION
                    and MODERN_VERSION in supported_versions(exc)
                ):
                    raise
                result = await self._request(
                    self._new_id(),
                    "server/discover",
                    {"_meta": self._meta},
                    timeout,
                    notify_cancel=False,
                )
        except (JsonRpcError, HttpStatusError, ResponseTimeout) as exc:
            if isinstance(exc, SessionExpired):
                raise
            if pinned:
                supported = (
                    exc.data.get("supported")
                    if isinstance(exc, JsonRpcError) and isinstance(exc.data, dict)
                    else None
                )
                raise VersionMismatch(
                    f"{self.transport.name} does not speak {MODERN_VERSION}: {exc}",
                    requested=MODERN_VERSION,
                    supported=supported,
                ) from exc
            logger.debug("server/discover failed (%s); falling back to initialize", exc)
            if isinstance(exc, JsonRpcError):
                self._probe_supported = supported_versions(exc)
            self._set_version(None, modern=False)
            return False
        supported = result.get("supportedVersions")
        if isinstance(supported, list) and MODERN_VERSION not in supported:
            if pinned:
                raise VersionMismatch(
                    f"{self.transport.name} supports {supported}, not {MODERN_VERSION}",
                    requested=MODERN_VERSION,
                    supported=supported,
                )
            self._set_version(None, modern=False)
            return False
        self._hello(hello_from_discover(result))
        return True

    async def _initialize(
        self, version: str, *, pinned: bool, timeout: float | None = None
    ) -> None:
        self._set_version(None, modern=False)
        params = {
            "protocolVersion": version,
            "capabilities": client_capabilities(
                elicit=self.elicit is not None, modern=False
            ),
            "clientInfo": self.client_info,
        }
        result = await self._request(
            self._new_id(),
            "initialize",
            params,
            self.timeout if timeout is None else timeout,
            notify_cancel=False,
        )
        answered = result.get("protocolVersion")
        if answered not in HANDSHAKE_VERSIONS or (pinned and answered != version):
            raise VersionMismatch(
                f"{self.transport.name} answered protocol version {answered!r} to {version!r}",
                requested=version,
                supported=[answered] if isinstance(answered, str) else [],
            )
        self._hello(hello_from_initialize(result))
        self._set_version(answered, modern=False)
        await self.transport.send(_jsonrpc.notification("notifications/initialized"))
        listen = getattr(self.transport, "listen", None)
        if self.elicit is not None and listen is not None:
            await listen()  # elicitations may come on the GET stream

    def _hello(self, hello: ServerHello) -> None:
        self.server_capabilities = hello.capabilities
        self.server_info = hello.server_info
        self.instructions = hello.instructions

    def _set_version(self, version: str | None, *, modern: bool) -> None:
        self.protocol_version = version
        self._modern = modern
        self._meta = (
            modern_meta(self.client_info, elicit=self.elicit is not None)
            if modern
            else {}
        )
        self.transport.configure(protocol_version=version, modern=modern)  # type: ignore[arg-type]

    async def _reinitialize(self, generation: int, *, timeout: float) -> None:
        """After a 404 on our session: a new initialize, once, however many calls saw the 404."""
        async with self._reinit_lock:
            if generation != self._session_generation:
                return
            self.transport.reset_session()  # type: ignore[attr-defined]
            assert self.protocol_version is not None
            await self._initialize(self.protocol_version, pinned=True, timeout=timeout)
            self._session_generation += 1

    async def aclose(self) -> None:
        """Fail what is still pending, stop background work, close the transport; idempotent."""
        if self._state == _CLOSED:
            return
        self._state = _CLOSED
        self._on_closed(
            ConnectionLost(f"{self.transport.name}: connection closed by the client")
        )
        if self._background:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await asyncio.gather(*self._background, return_exceptions=True)
            for task in list(self._background):
                task.cancel()
        await self.transport.aclose()

    def _on_closed(self, exc: BaseException) -> None:
        """The connection died: every pending call fails now, none waits for its timeout (#1401)."""
        if self._dead is None:
            self._dead = exc if isinstance(exc, McpError) else ConnectionLost(str(exc))
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(self._dead)

    # -- incoming ----------------------------------------------------------------------------------

    def _deliver(self, message: dict[str, Any]) -> None:
        """Route one decoded message; never raises, whatever the server put in its fields."""
        method = message.get("method")
        if method is None:
            request_id = message.get("id")
            # Only an int can answer one of our requests: 4.0 or true must not answer 4 or 1.
            future = (
                self._pending.pop(request_id, None) if type(request_id) is int else None
            )
            if future is None:
                self.unknown_responses += 1
            elif not future.done():
                future.set_result(message)
            return
        if "id" in message:
            self._server_requests.answer(message, modern=self._modern)
        elif method == "notifications/progress":
            self._on_progress(message.get("params"))
        else:
            if method == "notifications/tools/list_changed":
                self._tools.forget()
                self.tools_changed += 1
            self.notifications.append(message)

    def _on_progress(self, params: Any) -> None:
        arguments = progress_arguments(params)
        callback = self._progress.get(arguments[0]) if arguments is not None else None
        if arguments is None or callback is None:
            return
        try:
            outcome = callback(*arguments[1:])
            if inspect.isawaitable(outcome):
                self._spawn(outcome)
        except Exception:
            logger.exception("progress callback failed")

    def _spawn(self, awaitable: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(awaitable)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.debug("background send failed: %s", task.exception())

    # -- requests ----------------------------------------------------------------------------------

    def _new_id(self) -> int:
        request_id = self._next_id
        self._next_id = request_id + 1
        return request_id

    async def _request(
        self,
        request_id: int,
        method: str,
        params: dict[str, Any],
        timeout: float,
        *,
        on_progress: ProgressCallback | None = None,
        headers: dict[str, str] | None = None,
        notify_cancel: bool = True,
    ) -> dict[str, Any]:
        """Send one request and return its ``result``; the id is freed however this ends."""
        if self._dead is not None:
            raise self._dead
        if on_progress is not None:
            meta = params.get("_meta")
            params = {
                **params,
                "_meta": {**meta, "progressToken": request_id}
                if meta
                else {"progressToken": request_id},
            }
            self._progress[request_id] = on_progress
        future: asyncio.Future[dict[str, Any]] = (
            asyncio.get_running_loop().create_future()
        )
        self._pending[request_id] = future
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": params,
        }
        send_nowait = self._send_nowait
        try:
            if send_nowait is not None and send_nowait(message):
                # Fast path (stdio): queued without waiting, so one timer handle is the deadline.
                loop = future.get_loop()
                timer = loop.call_at(loop.time() + timeout, _expire, future)
                try:
                    response = await future
                finally:
                    timer.cancel()
            else:
                async with asyncio.timeout(timeout):
                    if headers is None:
                        await self.transport.send(message)
                    else:
                        await self.transport.send(message, headers=headers)  # type: ignore[call-arg]
                    response = await future
        except TimeoutError:
            self._cancel(request_id, "timeout", notify=notify_cancel)
            raise ResponseTimeout(
                f"{self.transport.name}: no answer to {method} (id {request_id}) within {timeout:.3g}s"
            ) from None
        except asyncio.CancelledError:
            self._cancel(request_id, "cancelled by the caller", notify=notify_cancel)
            raise
        finally:
            self._pending.pop(request_id, None)
            if on_progress is not None:
                self._progress.pop(request_id, None)
        result = response.get("result")
        if type(result) is dict:
            return result
        if "error" in response:
            raise _jsonrpc.error_from(response)
        raise MalformedResult(
            f"{self.transport.name}: answer to {method} has no result object"
        )

    def _cancel(self, request_id: int, reason: str, *, notify: bool) -> None:
        if (
            self._pending.pop(request_id, None) is None
            or not notify
            or self._dead is not None
        ):
            return  # already answered (a race the spec tolerates) or nobody left to tell
        if self.transport.cancels_by_closing:
            return  # 2026-07-28 HTTP: dropping the response stream is the cancellation
        note = _jsonrpc.notification(
            "notifications/cancelled", {"requestId": request_id, "reason": reason}
        )
        self._spawn(self.transport.send(note))

    def _check_open(self) -> None:
        if self._state != _OPEN:
            state = (
                "before the handshake"
                if self._state in (_NEW, _OPENING)
                else "after close"
            )
            raise UsageError(f"ClientSession used {state}")

    def _require(self, capability: str) -> None:
        if capability not in self.server_capabilities:
            raise CapabilityError(
                f"{self.transport.name} did not declare the {capability!r} capability"
            )

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._modern:
            params["_meta"] = self._meta
        return params

    async def _call(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None,
        idempotent: bool,
        deadline: float | None = None,
        on_progress: ProgressCallback | None = None,
        headers: dict[str, str] | None = None,
        tool: str | None = None,
        schema_hash: str | None = None,
        arguments: Any = None,
        deferred: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """One logical call: breaker, bulkhead, retries within the deadline, the observer record.

        With ``deferred`` the record's fields are appended there instead (a call of several
        requests, such as a task-backed tools/call, makes one record of its own).

        ``deadline`` (the loop's clock) bounds an operation of several calls (pages, a re-list and
        retry); without it the call gets ``timeout`` (the session's by default) of its own.
        """
        self._check_open()
        loop = asyncio.get_running_loop()
        if deadline is None:
            budget = self.timeout if timeout is None else timeout
            deadline = loop.time() + budget
        else:
            budget = max(0.0, deadline - loop.time())
        observer = self.observer
        started = time.time() if observer is not None else 0.0
        attempt = 0
        request_id: int | None = None
        result: dict[str, Any] | None = None
        failure: BaseException | None = None
        timings = token = None
        if observer is not None:
            timings, token = _timings.begin(join=deferred is not None)
        try:
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise ResponseTimeout(
                        f"{self.transport.name}: {method} ran out of its {budget:.3g}s budget"
                    )
                if self._dead is not None:
                    raise self._dead  # a dead connection says so, not the breaker
                probe = self.breaker.before_call()
                generation = self._session_generation
                request_id = self._new_id()
                try:
                    async with self._semaphore:
                        result = await self._request(
                            request_id,
                            method,
                            params,
                            remaining,
                            on_progress=on_progress,
                            headers=headers,
                        )
                except SessionExpired:
                    self.breaker.record_success()  # the server answered: it is alive
                    await self._reinitialize(
                        generation, timeout=max(0.0, deadline - loop.time())
                    )
                    if not idempotent or attempt > 0:
                        raise
                    attempt += 1
                    continue
                except McpError as exc:
                    if exc.layer is Layer.TRANSPORT and not exc.local:
                        self.breaker.record_failure()
                    else:
                        self.breaker.record_success()
                    if (
                        not (idempotent and exc.retryable)
                        or attempt + 1 >= self.retry.max_attempts
                        or self._dead is not None
                    ):
                        raise
                    delay = self.retry.delay(attempt, getattr(exc, "retry_after", None))
                    if loop.time() + delay >= deadline:
                        raise
                    await asyncio.sleep(delay)
                    attempt += 1
                    continue
                except BaseException:
                    if probe:
                        self.breaker.release_probe()
                    raise
                self.breaker.record_success()
                return result
        except BaseException as exc:
            failure = exc
            raise
        finally:
            _timings.end(token)
            if observer is not None and timings is not None:
                fields = {
                    "method": method,
                    "tool": tool,
                    "schema_hash": schema_hash,
                    "request_id": request_id,
                    "arguments": arguments,
                    "started": started,
                    "budget": budget,
                    "retries": attempt,
                    "result": result,
                    "failure": failure,
                }
                if deferred is None:
                    self._observe(observer, **fields, http=timings.timings())
                else:
                    deferred.append(fields)

    def _observe(self, observer: Observer, **fields: Any) -> None:
        """One CallRecord of this server's call to ``observer`` (fields as ``call_record`` takes)."""
        notify(
            observer,
            call_record(
                server=self.transport.name,
                transport=self.transport.kind,
                protocol_version=self.protocol_version,
                **fields,
            ),
        )

    # -- tools -------------------------------------------------------------------------------------

    async def list_tools(self, *, timeout: float | None = None) -> list[Tool]:
        """Every tool, following nextCursor; caches schemas for argument and output validation.

        Raises:
            CapabilityError: the server did not declare ``tools``.
        """
        self._check_open()
        self._require("tools")
        raw = await self._paginate("tools/list", "tools", timeout)
        return self._tools.replace(raw, modern=self._modern)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: Callable[[float, float | None, str | None], Any] | None = None,
        idempotent: bool | None = None,
        headers: Mapping[str, str] | None = None,
        on_task: TaskCallback | None = None,
    ) -> CallToolResult:
        """Call a tool; an ``isError`` answer is returned, not raised (see ``raise_for_error``).

        ``on_progress(progress, total, message)`` receives the server's progress notifications;
        ``on_task(task_id, status, status_message)`` each new status or status message of the task
        a task-backed call is answered with (the first is the CreateTaskResult's), as the call
        follows it.
        Retries happen only when the tool is read-only or idempotent (or ``idempotent=True``).
        ``headers`` go on this call's HTTP requests (a W3C ``traceparent``, say); over stdio there
        are none to send them on, so they are ignored there.

        Raises:
            UsageError: ``headers`` names one the protocol owns (``Mcp-*``, ``Accept``,
                ``Content-Type``, ``Content-Length``); nothing is sent.
            ToolValidationError: the arguments do not match the cached inputSchema (nothing sent).
            OutputSchemaMismatch: structuredContent does not match the cached outputSchema.
            McpError: any other failure, with its layer.
        """
        self._check_open()
        self._require("tools")
        extra = _caller_headers(headers) if headers else None
        if not self._supports_headers:
            extra = None
        arguments = {} if arguments is None else arguments
        tool = self._tools.get(name)
        if (
            tool is not None
            and self.validate
            and (errors := self._tools.argument_errors(tool, arguments))
        ):
            error = ToolValidationError(
                f"arguments for {name!r} do not match its inputSchema: {'; '.join(errors)}",
                tool=name,
                errors=errors,
            )
            if self.observer is not None:
                self._observe(
                    self.observer,
                    method="tools/call",
                    tool=name,
                    schema_hash=tool.schema_hash,
                    request_id=None,
                    arguments=arguments,
                    started=time.time(),
                    budget=0,
                    retries=0,
                    result=None,
                    failure=error,
                )
            raise error
        if idempotent is None:
            idempotent = tool is not None and tool.is_idempotent
        params = self._params({"name": name, "arguments": arguments})
        deadline = self._deadline(timeout)
        observer = self.observer
        deferred: list[dict[str, Any]] = []
        task: dict[str, Any] = {"id": None, "states": [], "on_task": on_task}
        raw: dict[str, Any] | None = None
        failure: BaseException | None = None
        # The record's layers: every HTTP request of the call (its polls, a re-list excepted).
        timings = token = None
        if observer is not None:
            timings, token = _timings.begin(join=False)
        try:
            for attempt in range(2):
                call_headers = extra
                if (
                    self._modern
                    and self._supports_headers
                    and (header_map := self._tools.header_map(name))
                ):
                    param_headers = _schema.param_headers(header_map, arguments)
                    call_headers = (
                        {**extra, **param_headers} if extra else param_headers
                    )
                try:
                    raw = await self._call(
                        "tools/call",
                        params,
                        timeout=timeout,
                        deadline=deadline,
                        idempotent=idempotent,
                        on_progress=on_progress,
                        headers=call_headers,
                        tool=name,
                        schema_hash=tool.schema_hash if tool is not None else None,
                        arguments=arguments if observer is not None else None,
                        deferred=deferred,
                    )
                    break
                except JsonRpcError as exc:
                    # 2026-07-28: on HeaderMismatch the client SHOULD re-list tools (their
                    # x-mcp-header annotations may have changed) and retry; the server rejected it
                    # before running it.
                    if exc.code != HEADER_MISMATCH or attempt or not self._modern:
                        raise
                    remaining = deadline - asyncio.get_running_loop().time()
                    if remaining <= 0:
                        raise
                    await self.list_tools(timeout=remaining)
            assert raw is not None
            raw = await self._follow(
                raw, name, params, call_headers, deadline, task, deferred
            )
        except BaseException as exc:
            failure = exc
            raise
        finally:
            _timings.end(token)
            if observer is not None and timings is not None and deferred:
                fields = {
                    **deferred[0],
                    "request_id": deferred[-1]["request_id"],
                    "result": raw if failure is None else None,
                    "failure": failure,
                }
                self._observe(
                    observer,
                    **fields,
                    task_id=task["id"],
                    task_states=task["states"],
                    http=timings.timings(),
                )
        result = _catalog.tool_result(raw, name, server=self.transport.name)
        if tool is not None and self.validate:
            self._tools.check_output(tool, result)
        return result

    async def _follow(
        self,
        raw: dict[str, Any],
        name: str,
        params: dict[str, Any],
        headers: dict[str, str] | None,
        deadline: float,
        task: dict[str, Any],
        deferred: list[dict[str, Any]],
    ) -> dict[str, Any]:
        """The final answer of a tools/call: MRTR rounds answered (SEP-2322; the retry is a new
        request with ``inputResponses`` and ``requestState`` echoed as given), a task followed."""
        for _ in range(_MAX_INPUT_ROUNDS):
            kind = raw.get("resultType")
            if kind == "task":
                return await self._await_task(raw, name, deadline, task, deferred)
            if kind != "input_required" or self.elicit is None:
                return raw  # "complete" (the default), or refused by tool_result
            answers = await input_responses(
                self.elicit, raw.get("inputRequests"), server=self.transport.name
            )
            retry = {**params, "inputResponses": answers}
            if "requestState" in raw:
                retry["requestState"] = raw["requestState"]
            raw = await self._call(
                "tools/call",
                retry,
                timeout=None,
                deadline=deadline,
                idempotent=False,
                headers=headers,
                tool=name,
                deferred=deferred,
            )
        raise MalformedResult(
            f"{self.transport.name}: tools/call {name!r} asked for input more than {_MAX_INPUT_ROUNDS} times"
        )

    async def _await_task(
        self,
        created: dict[str, Any],
        name: str,
        deadline: float,
        task: dict[str, Any],
        deferred: list[dict[str, Any]],
    ) -> dict[str, Any]:
        """Follow a task (Tasks extension) to its end with tasks/get, at the server's poll interval
        and within ``deadline``; answer its input requests with tasks/update; tasks/cancel it when
        the caller cancels or the deadline passes. Returns the task's tool result.

        Raises:
            TaskFailed: the task ended ``failed`` or ``cancelled``.
            ResponseTimeout: the deadline passed first (the task is cancelled).
        """
        task_id = _task_id(created)
        if not isinstance(task_id, str) or not task_id:
            raise MalformedResult(
                f"{self.transport.name}: tools/call {name!r} answered a task without a taskId"
            )
        task["id"] = task_id
        loop = asyncio.get_running_loop()
        answer = created
        interval = _poll_interval(created, _POLL_DEFAULT)
        terminal = False
        try:
            while True:
                status = _task_status(answer)
                if not task["states"] or task["states"][-1] != status:
                    task["states"].append(status)
                    self._task_seen(task, task_id, status, answer, changed=True)
                else:
                    self._task_seen(task, task_id, status, answer, changed=False)
                if status in _TERMINAL and (
                    answer is not created or "result" in answer or "error" in answer
                ):
                    terminal = True
                    return self._task_outcome(answer, name, task_id, status)
                if answer is created and (
                    status in _TERMINAL or status == "input_required"
                ):
                    pass  # a CreateTaskResult inlines neither: tasks/get has them
                elif status == "input_required":
                    answers = await input_responses(
                        self.elicit,
                        answer.get("inputRequests"),
                        server=self.transport.name,
                    )
                    await self._call(
                        "tasks/update",
                        self._params({"taskId": task_id, "inputResponses": answers}),
                        timeout=None,
                        deadline=deadline,
                        idempotent=False,
                        deferred=[],
                    )
                else:
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        raise ResponseTimeout(
                            f"{self.transport.name}: task {task_id} of {name!r} did not end within the call's deadline"
                        )
                    await asyncio.sleep(min(interval, remaining))
                answer = await self._call(
                    "tasks/get",
                    self._params({"taskId": task_id}),
                    timeout=None,
                    deadline=deadline,
                    idempotent=True,
                    deferred=[],
                )
                interval = _poll_interval(answer, interval)
        except BaseException:
            if (
                not terminal
            ):  # the caller cancelled, the deadline passed, or we cannot go on
                await asyncio.shield(self._cancel_task(task_id))
            raise

    def _task_seen(
        self,
        task: dict[str, Any],
        task_id: str,
        status: str,
        answer: dict[str, Any],
        *,
        changed: bool,
    ) -> None:
        """Tell the caller's ``on_task`` of a new status or status message; its failure is
        logged, never the call's."""
        callback = task["on_task"]
        if callback is None:
            return
        message = answer.get("statusMessage")
        message = message if isinstance(message, str) else None
        if not changed and message == task.get("message"):
            return
        task["message"] = message
        try:
            outcome = callback(task_id, status, message)
            if inspect.isawaitable(outcome):
                self._spawn(outcome)
        except Exception:
            logger.exception("task callback failed")

    def _task_outcome(
        self, answer: dict[str, Any], name: str, task_id: str, status: str
    ) -> dict[str, Any]:
        if status == "completed":
            result = answer.get("result")
            if isinstance(result, dict):
                return result
            raise MalformedResult(
                f"{self.transport.name}: task {task_id} of {name!r} completed without a result"
            )
        error = answer.get("error")
        detail = (error.get("message") if isinstance(error, dict) else None) or status
        raise TaskFailed(
            f"{self.transport.name}: task {task_id} of {name!r} ended {status}: {str(detail)[:200]}",
            tool=name,
            task_id=task_id,
            status=status,
            error=error,
        )

    async def _cancel_task(self, task_id: str) -> None:
        """tasks/cancel, best effort: the call has already failed or been cancelled."""
        with contextlib.suppress(McpError, UsageError):
            await self._call(
                "tasks/cancel",
                self._params({"taskId": task_id}),
                timeout=self.probe_timeout,
                idempotent=False,
                deferred=[],
            )

    # -- resources and prompts -------------------------------------------------------------------

    def _deadline(self, timeout: float | None) -> float:
        """The loop-clock deadline of an operation that may take several requests."""
        budget = self.timeout if timeout is None else timeout
        return asyncio.get_running_loop().time() + budget

    async def _paginate(
        self, method: str, key: str, timeout: float | None
    ) -> list[Any]:
        """Every page of a list; ``timeout`` bounds them all together, not each page."""
        items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        deadline = self._deadline(timeout)
        for _ in range(_MAX_PAGES):
            params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            page = await self._call(
                method,
                self._params(params),
                timeout=timeout,
                deadline=deadline,
                idempotent=True,
            )
            batch = page.get(key)
            if not isinstance(batch, list):
                raise MalformedResult(
                    f"{self.transport.name}: {method} answer has no {key!r} list"
                )
            items.extend(batch)
            cursor = page.get("nextCursor")
            if cursor is None:
                return items
            if not isinstance(cursor, str) or cursor in seen:
                raise MalformedResult(
                    f"{self.transport.name}: {method} returned a bad or repeated cursor {cursor!r}"
                )
            seen.add(cursor)
        raise MalformedResult(
            f"{self.transport.name}: {method} has more than {_MAX_PAGES} pages"
        )

    async def list_resources(self, *, timeout: float | None = None) -> list[Resource]:
        """Every resource, following nextCursor.

        Raises:
            CapabilityError: the server did not declare ``resources``.
        """
        self._check_open()
        self._require("resources")
        raw = await self._paginate("resources/list", "resources", timeout)
        return _catalog.resources(raw, server=self.transport.name)

    async def list_resource_templates(
        self, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Every resource template (raw dicts), following nextCursor."""
        self._check_open()
        self._require("resources")
        return await self._paginate(
            "resources/templates/list", "resourceTemplates", timeout
        )

    async def read_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> ReadResourceResult:
        """Read one resource; a missing one raises JsonRpcError (-32002 or -32602, by version).

        Raises:
            CapabilityError: the server did not declare ``resources``.
            JsonRpcError: the server refused, e.g. resource not found.
        """
        self._check_open()
        self._require("resources")
        raw = await self._call(
            "resources/read",
            self._params({"uri": uri}),
            timeout=timeout,
            idempotent=True,
        )
        return _catalog.read_result(raw, uri, server=self.transport.name)

    async def list_prompts(self, *, timeout: float | None = None) -> list[Prompt]:
        """Every prompt, following nextCursor.

        Raises:
            CapabilityError: the server did not declare ``prompts``.
        """
        self._check_open()
        self._require("prompts")
        raw = await self._paginate("prompts/list", "prompts", timeout)
        return _catalog.prompts(raw, server=self.transport.name)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> GetPromptResult:
        """Render one prompt with its (string) arguments.

        Raises:
            CapabilityError: the server did not declare ``prompts``.
        """
        self._check_open()
        self._require("prompts")
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        raw = await self._call(
            "prompts/get", self._params(params), timeout=timeout, idempotent=True
        )
        return _catalog.prompt_result(raw, name, server=self.transport.name)

    async def send_request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        idempotent: bool = False,
    ) -> dict[str, Any]:
        """Any other request (``resources/subscribe``, ``completion/complete`` …); returns the raw result."""
        self._check_open()
        return await self._call(
            method,
            self._params(dict(params or {})),
            timeout=timeout,
            idempotent=idempotent,
        )
