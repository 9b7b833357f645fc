"""Helpers shared by the streaming tests (no tests here): in-process clients and event writers."""

import asyncio
from typing import Any

import httpx
from asgiref.testing import ApplicationCommunicator
from httpx_sse import EventSource, ServerSentEvent

from diagnosis import services
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
        services.diagnosis_event_append(
            task_id=task.pk, kind=EventKind.TOOL_PROGRESS, data=dict(data) or {"p": 1}
        )


def finish(task: DiagnosisTask) -> None:
    """queued → running → succeeded: appends task_started and the terminal task_completed."""
    task.refresh_from_db()
    task = services.diagnosis_transition(task=task, to=TaskState.RUNNING)
    services.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)


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
