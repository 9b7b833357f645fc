"""stdio transport: a subprocess speaking newline-delimited JSON-RPC; stderr kept in a bounded log.

No reader task: the event loop's pipe protocol splits stdout into lines and hands each decoded
message to the session directly, which is the cheapest path asyncio offers.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
import subprocess
from typing import TYPE_CHECKING, Any

from mcpclient import _jsonrpc
from mcpclient._exceptions import (
    ConnectError,
    ConnectionLost,
    McpError,
    MessageTooLarge,
    UsageError,
)
from mcpclient._types import child_environment

if TYPE_CHECKING:
    from mcpclient._types import StdioServer

    from .base import Closed, Deliver

_STDERR_LINE_LIMIT = 4096


class _PipeProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioTransport) -> None:
        self._owner = owner

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._owner._on_stdout(data)
        else:
            self._owner._on_stderr(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._owner._on_exit("closed its stdout")

    def process_exited(self) -> None:
        self._owner._on_exit("exited")

    def pause_writing(self) -> None:
        self._owner._writable.clear()

    def resume_writing(self) -> None:
        self._owner._writable.set()


class StdioTransport:
    """Spawn ``server.command`` and exchange JSON-RPC lines with it."""

    kind = "stdio"
    cancels_by_closing = False

    def __init__(self, server: StdioServer) -> None:
        if not server.command or isinstance(server.command, str):
            raise UsageError(
                "StdioServer.command must be a non-empty list: [program, *args]"
            )
        self.server = server
        self.name = server.display_name
        self.stderr: collections.deque[str] = collections.deque(
            maxlen=server.stderr_max_lines
        )
        self.returncode: int | None = None
        self._max = server.max_message_size
        self._parts: list[bytes] = []
        self._size = 0
        self._err_partial = b""
        self._deliver: Deliver | None = None
        self._closed_cb: Closed | None = None
        self._closed_exc: McpError | None = None
        self._exited = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()
        self._proc: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._closing = False
        self._out: list[bytes] = []
        self._pass_open = False  # a message was written during this loop iteration

    @property
    def pid(self) -> int | None:
        return self._proc.get_pid() if self._proc is not None else None

    async def start(self, deliver: Deliver, closed: Closed) -> None:
        self._deliver = deliver
        self._closed_cb = closed
        env = child_environment(self.server, os.environ)
        loop = asyncio.get_running_loop()
        try:
            proc, _ = await loop.subprocess_exec(
                lambda: _PipeProtocol(self),
                *self.server.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self.server.cwd,
                start_new_session=True,  # so SIGTERM/SIGKILL reach the server's own children too
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            raise ConnectError(f"cannot start {self.name!r}: {exc}") from exc
        self._proc = proc
        self._stdin = proc.get_pipe_transport(0)  # type: ignore[assignment]

    def configure(self, *, protocol_version: str, modern: bool) -> None:
        """stdio frames every version the same way."""

    # -- sending ---------------------------------------------------------------------------------

    def send_nowait(self, message: dict[str, Any]) -> bool:
        """Queue ``message`` for this loop iteration's write; False (nothing queued) under backpressure.

        Raises:
            ConnectionLost: the connection is closed (the message was never sent).
            MessageTooLarge: the encoded message is over max_message_size.
        """
        stdin = self._stdin
        if self._closed_exc is not None or stdin is None or stdin.is_closing():
            exc = ConnectionLost(
                f"{self.name}: connection closed ({self._closed_exc or 'not open'})"
            )
            exc.outcome_unknown = False
            raise exc
        if not self._writable.is_set():
            return False
        data = _jsonrpc.encode(message)
        if len(data) >= self._max:
            raise MessageTooLarge(
                f"outgoing message of {len(data)} bytes over the limit",
                limit=self._max,
                size=len(data),
            )
        if not self._pass_open:
            # The first message of a loop iteration is written at once (a lone caller's request
            # reaches the server now, not one loop pass later) ...
            self._pass_open = True
            stdin.write(data + b"\n")
            asyncio.get_running_loop().call_soon(self._end_pass)
            return True
        # ... and the rest of that iteration's messages go out together in one write(), so 16
        # concurrent callers cost two syscalls (and wake-ups of the server), not sixteen.
        self._out.append(data)
        self._out.append(b"\n")
        return True

    def _end_pass(self) -> None:
        self._pass_open = False
        if self._out:
            self._flush()

    async def send(self, message: dict[str, Any]) -> None:
        while not self.send_nowait(message):
            await (
                self._writable.wait()
            )  # the server is not reading: wait until it drains the pipe

    def _flush(self) -> None:
        out, self._out = self._out, []
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(b"".join(out))

    # -- receiving ------------------------------------------------------------------------------

    def _on_stdout(self, data: bytes) -> None:
        if self._closed_exc is not None:
            return
        if b"\n" not in data:
            self._parts.append(data)
            self._size += len(data)
            if self._size > self._max:
                self._fail(
                    MessageTooLarge(
                        f"{self.name}: stdout line over {self._max} bytes",
                        limit=self._max,
                    )
                )
            return
        if self._parts:
            self._parts.append(data)
            data = b"".join(self._parts)
            self._parts = []
            self._size = 0
        deliver = self._deliver
        assert deliver is not None
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            if nl - start > self._max:
                self._fail(
                    MessageTooLarge(
                        f"{self.name}: stdout line of {nl - start} bytes over {self._max}",
                        limit=self._max,
                        size=nl - start,
                    )
                )
                return
            line = data[start:nl]
            start = nl + 1
            if not line.strip():
                continue
            try:
                message = _jsonrpc.decode(line)
            except McpError as exc:
                self._fail(exc)
                return
            deliver(message)
        if start < len(data):
            rest = data[start:]
            if len(rest) > self._max:
                self._fail(
                    MessageTooLarge(
                        f"{self.name}: stdout line over {self._max} bytes",
                        limit=self._max,
                    )
                )
                return
            self._parts.append(rest)
            self._size = len(rest)

    def _on_stderr(self, data: bytes) -> None:
        data = self._err_partial + data
        *lines, partial = data.split(b"\n")
        for line in lines:
            self.stderr.append(
                line[:_STDERR_LINE_LIMIT].decode("utf-8", "replace").rstrip("\r")
            )
        self._err_partial = partial[:_STDERR_LINE_LIMIT]  # a line keeps its head

    def _on_exit(self, how: str) -> None:
        if self._proc is not None and self._proc.get_returncode() is not None:
            self.returncode = self._proc.get_returncode()
            self._exited.set()
        tail = " | ".join(list(self.stderr)[-3:])
        rc = "" if self.returncode is None else f", rc={self.returncode}"
        self._fail(
            ConnectionLost(
                f"{self.name}: server {how}{rc}" + (f"; stderr: {tail}" if tail else "")
            )
        )

    def _fail(self, exc: McpError) -> None:
        if self._closed_exc is not None:
            return
        self._closed_exc = exc
        self._parts = []
        self._writable.set()  # wake senders waiting on backpressure: they will see the error
        if self._closed_cb is not None:
            self._closed_cb(exc)
        if not isinstance(exc, ConnectionLost) and self._proc is not None:
            # The stream is out of sync (garbage or an over-long line): nothing more can be trusted.
            self._signal(signal.SIGKILL)

    # -- closing --------------------------------------------------------------------------------

    def _signal(self, sig: int) -> None:
        pid = self.pid
        if pid is None or self.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)

    async def _wait_exit(self, timeout: float) -> bool:
        try:
            async with asyncio.timeout(timeout):
                await self._exited.wait()
        except TimeoutError:
            return False
        return True

    async def aclose(self) -> None:
        """Close stdin, wait; then SIGTERM, wait; then SIGKILL (MCP lifecycle "Shutdown")."""
        proc = self._proc
        if proc is None or self._closing:
            return
        self._closing = True
        if self._closed_exc is None:
            self._closed_exc = ConnectionLost(
                f"{self.name}: connection closed by the client"
            )
        if self._stdin is not None:
            if self._out:
                self._flush()
            self._stdin.close()
        if not self._exited.is_set() and not await self._wait_exit(
            self.server.close_timeout
        ):
            self._signal(signal.SIGTERM)
            if not await self._wait_exit(self.server.terminate_timeout):
                self._signal(signal.SIGKILL)
                await self._wait_exit(self.server.terminate_timeout)
        self.returncode = proc.get_returncode()
        proc.close()
