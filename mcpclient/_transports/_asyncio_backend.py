"""A plain-http network backend for httpcore: one asyncio Protocol per connection, writes coalesced.

httpcore's default backend (anyio) writes the request head and body in two send() calls, so the
server wakes twice per request, and wraps every read and write in cancel scopes. With the request
built once (see StreamableHttpTransport.send) this backend halved our client's CPU time per call on
the benchmark's SDK server. It implements httpcore's public ``AsyncNetworkBackend`` interface and
keeps httpx and httpcore (HTTP/1.1 framing, pool, keep-alive): it only changes the socket layer,
sending everything written for a request in one go once the reader starts waiting for the answer.
Used only for http:// URLs on a client we create.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import httpcore

if TYPE_CHECKING:
    from collections.abc import Iterable

_READ_HIGH_WATER = 256 * 1024  # bytes buffered before we stop reading the socket
_WRITE_COALESCE = 64 * 1024  # bytes held back at most before writing anyway


class _StreamProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.reading_paused = False
        self._waiter: asyncio.Future[None] | None = None
        self._drain: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _READ_HIGH_WATER and not self.reading_paused:
            assert self.transport is not None
            self.transport.pause_reading()
            self.reading_paused = True
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # let the transport close itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        self.resume_writing()

    def pause_writing(self) -> None:
        self._drain = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        drain, self._drain = self._drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait_readable(self) -> None:
        self._waiter = asyncio.get_running_loop().create_future()
        await self._waiter

    async def wait_writable(self) -> None:
        drain = self._drain
        if drain is not None:
            if drain.cancelled():  # an earlier writer gave up waiting (a write timeout)
                drain = self._drain = asyncio.get_running_loop().create_future()
            await drain


class _AsyncioStream(httpcore.AsyncNetworkStream):
    """One TCP connection; writes are held until the first read (or 64 KiB) and sent together."""

    def __init__(self, transport: asyncio.Transport, protocol: _StreamProtocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._pending: list[bytes] = []
        self._pending_size = 0

    def _flush(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        # A connection the server already closed gets nothing; the read that follows sees the EOF
        # and httpcore reports it as it would a failed write (the server may still have answered).
        if not self._transport.is_closing():
            self._transport.write(data)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._pending:
            self._flush()
        protocol = self._protocol
        if not protocol.buffer and not protocol.eof:
            if timeout is None:  # our own client: deadlines are the session's job
                await protocol.wait_readable()
            else:
                try:
                    async with asyncio.timeout(timeout):
                        await protocol.wait_readable()
                except TimeoutError as exc:
                    raise httpcore.ReadTimeout(str(exc)) from exc
        buffer = protocol.buffer
        if buffer:
            data = bytes(buffer[:max_bytes])
            del buffer[:max_bytes]
            if protocol.reading_paused and len(buffer) <= _READ_HIGH_WATER // 2:
                protocol.reading_paused = False
                self._transport.resume_reading()
            return data
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error)) from protocol.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._pending.append(buffer)
        self._pending_size += len(buffer)
        if self._pending_size >= _WRITE_COALESCE:
            self._flush()
            try:
                async with asyncio.timeout(timeout):
                    await self._protocol.wait_writable()
            except TimeoutError as exc:
                raise httpcore.WriteTimeout(str(exc)) from exc

    async def aclose(self) -> None:
        self._pending.clear()
        self._transport.close()

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # httpcore asks before reusing an idle connection
            return bool(self._protocol.buffer) or self._protocol.eof
        names = {"client_addr": "sockname", "server_addr": "peername"}
        return self._transport.get_extra_info(names.get(info, info))


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    _StreamProtocol,
                    host,
                    port,
                    local_addr=None if local_address is None else (local_address, 0),
                )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return _AsyncioStream(transport, protocol)  # asyncio sets TCP_NODELAY itself

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
