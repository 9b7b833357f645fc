"""Helpers shared by the streaming tests (no tests here): in-process clients and event writers."""

import asyncio
from typing import Any

import httpx
from asgiref.testing import ApplicationCommunicator
from httpx_sse import EventSource, ServerSentEvent

from diagnosis import lifecycle
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask
from diagnosis.states import TaskState
from tests import factories

WAIT = 5.0


def parse_sse(body: bytes) -> list[ServerSentEvent]:
    """Parse a wire capture with httpx-sse (an independent parser); partial events are dropped."""
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=body
    )
    # WHATWG §9.2.6: a block whose data buffer is empty dispatches nothing (our `retry:`-only
    # opening block); httpx-sse yields it anyway, so drop it as a browser would.
    return [e for e in EventSource(response).iter_sse() if e.data != ""]


def make_task(tenant: Any, *, progress: int = 0) -> DiagnosisTask:
    """A queued task with task_created (seq 1) and `progress` tool_progress events after it."""
    _, task = factories.make_incident(tenant)
    append(task, progress)
    return task


def append(task: DiagnosisTask, count: int = 1, **data: Any) -> None:
    for _ in range(count):
        lifecycle.diagnosis_event_append(
            task_id=task.pk, kind=EventKind.TOOL_PROGRESS, data=dict(data) or {"p": 1}
        )


def finish(task: DiagnosisTask) -> None:
    """queued → running → succeeded: appends task_started and the terminal task_completed."""
    task.refresh_from_db()
    task = lifecycle.diagnosis_transition(task=task, to=TaskState.RUNNING)
    lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)


def bearer(token: str) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Bearer {token}".encode())]


class StreamClient:
    """One GET of the stream through the real ASGI app, read as it arrives."""

    def __init__(
        self,
        app: Any,
        task_id: Any,
        *,
        headers: list[tuple[bytes, bytes]] | None = None,
        query: str = "",
        method: str = "GET",
    ) -> None:
        path = f"/api/tasks/{task_id}/events"
        self.communicator = ApplicationCommunicator(
            app,
            {
                "type": "http",
                "asgi": {"version": "3.0"},
                "http_version": "1.1",
                "method": method,
                "scheme": "http",
                "path": path,
                "raw_path": path.encode(),
                "root_path": "",
                "query_string": query.encode(),
                "headers": [(b"host", b"testserver"), *(headers or [])],
                "client": ("127.0.0.1", 50000),
                "server": ("testserver", 80),
            },
        )
        self.status: int | None = None
        self.headers: dict[bytes, bytes] = {}
        self.body = bytearray()
        self.ended = False

    async def start(self) -> int:
        await self.communicator.send_input({"type": "http.request", "body": b""})
        message = await self.communicator.receive_output(WAIT)
        assert message["type"] == "http.response.start", message
        self.status = message["status"]
        self.headers = dict(message.get("headers", []))
        return self.status

    async def _one(self, timeout: float) -> None:
        message = await self.communicator.receive_output(timeout)
        assert message["type"] == "http.response.body", message
        self.body += message.get("body", b"")
        if not message.get("more_body", False):
            self.ended = True

    async def read_until(self, predicate: Any, timeout: float = WAIT) -> None:
        """Read chunks until predicate(self) holds; fails after `timeout` seconds."""
        async with asyncio.timeout(timeout):
            while not predicate(self):
                assert not self.ended, f"stream ended early: {bytes(self.body)!r}"
                await self._one(timeout)

    async def read_to_end(self, timeout: float = WAIT) -> None:
        async with asyncio.timeout(timeout):
            while not self.ended:
                await self._one(timeout)

    def events(self) -> list[ServerSentEvent]:
        return parse_sse(bytes(self.body))

    def seqs(self) -> list[int]:
        return [int(e.id) for e in self.events() if e.event not in {"resync_required"}]

    async def disconnect(self) -> None:
        await self.communicator.send_input({"type": "http.disconnect"})
        async with asyncio.timeout(WAIT):
            await self.communicator.future

    async def json(self) -> Any:
        import json

        await self.read_to_end()
        return json.loads(bytes(self.body))


def has_events(count: int) -> Any:
    return lambda client: len(client.events()) >= count


# --- real Daphne -------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    """The URL of the test database this process set up (TCP or a socket directory)."""
    from tests.livestack import child_database_url

    return child_database_url()


class Process:
    """A child process whose merged output is collected by a thread; waits are on lines, bounded."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None) -> None:
        import os
        import subprocess
        import threading

        self.lines: list[str] = []
        self._changed = threading.Condition()
        self.proc = subprocess.Popen(
            argv,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for_line(self, needle: str, timeout: float = 20.0) -> str:
        with self._changed:
            found = self._changed.wait_for(
                lambda: (
                    any(needle in line for line in self.lines)
                    or self.proc.poll() is not None
                ),
                timeout,
            )
            match = [line for line in self.lines if needle in line]
        assert found and match, f"{needle!r} not seen; output:\n" + "\n".join(
            self.lines
        )
        return match[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self._reader.join(5)


def start_daphne(*, ready_timeout: float = 20.0, **env: str) -> tuple[Process, str]:
    """Daphne on a free loopback port serving agentops.asgi against this process's test DB;
    returns once it listens (after up to `ready_timeout` s; 0: at once, the caller waits)."""
    import sys
    from pathlib import Path

    from django.conf import settings

    port = free_port()
    daphne = str(Path(sys.executable).with_name("daphne"))
    values = {
        "DJANGO_SETTINGS_MODULE": "agentops.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONPATH": str(settings.BASE_DIR),
        "LOG_LEVEL": "INFO",
        **env,
    }
    proc = Process(
        [daphne, "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
        env=values,
    )
    if ready_timeout:
        proc.wait_for_line("Listening on TCP address", ready_timeout)
    return proc, f"http://127.0.0.1:{port}"


def start_redis() -> tuple[Process, int]:
    port = free_port()
    proc = Process(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
    )
    proc.wait_for_line("Ready to accept connections")
    return proc, port
