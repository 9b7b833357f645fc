"""A hand-written HTTP/1.1 server on 127.0.0.1 whose answers a test scripts, byte by byte.

``handler(request)`` returns a ``Reply``: status, headers and a list of body chunks, each written and
flushed separately with chunked transfer encoding (so an SSE event can be split across TCP writes).
A chunk may be ``DROP`` to cut the connection mid-answer. Used for the misbehaving-HTTP tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

DROP = b"\x00DROP"
HOLD = b"\x00HOLD"  # keep the connection open, sending nothing more, until the server stops


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)


Handler = Callable[[Request], Awaitable[Reply]]


def json_reply(
    message: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status,
        {"content-type": "application/json", **(headers or {})},
        [json.dumps(message).encode()],
    )


def sse_reply(*events: bytes, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        200, {"content-type": "text/event-stream", **(headers or {})}, list(events)
    )


async def _iterate(chunks: Any) -> AsyncIterator[bytes]:
    if hasattr(chunks, "__aiter__"):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


class ScriptedServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = asyncio.Event()
        self.url = ""

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                request = Request(method, path, headers, body)
                self.requests.append(request)
                reply = await self.handler(request)
                status_line = f"HTTP/1.1 {reply.status} X\r\n"
                chunked = "content-length" not in reply.headers
                hdrs = (
                    {"transfer-encoding": "chunked", **reply.headers}
                    if chunked
                    else reply.headers
                )
                writer.write(
                    (
                        status_line
                        + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
                        + "\r\n"
                    ).encode("latin-1")
                )
                async for chunk in _iterate(reply.chunks):
                    if chunk == DROP:
                        writer.close()
                        return
                    if chunk == HOLD:
                        await self._stopping.wait()
                        return
                    if chunk:
                        writer.write(
                            b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk
                        )
                        await writer.drain()
                if not chunked:
                    writer.close()
                    return
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        self._stopping.set()
        for task in list(self._tasks):  # handlers stuck in held-open streams
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2):
                await self._server.wait_closed()


@contextlib.asynccontextmanager
async def scripted_server(handler: Handler) -> AsyncIterator[ScriptedServer]:
    server = ScriptedServer(handler)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
