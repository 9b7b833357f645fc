"""Real listeners on 127.0.0.1 that fail the way production upstreams do.

Each listener owns real sockets: a closed port answers RST, a full backlog drops SYNs, a TLS
server presents whatever certificate it was given, a gateway really dials its upstream and turns
the failure into a 502, a proxy really cuts idle connections. `Listeners` starts them on free
ports and stops every one of them on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import ipaddress
import json
import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpservers.netcheck import dns

if TYPE_CHECKING:
    from pathlib import Path

HOST = "127.0.0.1"
_REQUEST_HEAD_TIMEOUT_S = 10.0
_MAX_BODY_BYTES = 1 << 20


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""


@dataclass
class Response:
    status: int = 200
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        body = self.body.encode("utf-8")
        head = [f"HTTP/1.1 {self.status} {_phrase(self.status)}"]
        headers = {"Content-Type": "text/plain; charset=utf-8", **self.headers}
        headers["Content-Length"] = str(len(body))
        headers["Connection"] = "close"
        head += [f"{k}: {v}" for k, v in headers.items()]
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


Handler = Callable[[Request, asyncio.StreamWriter], Awaitable[Response | None]]


def json_response(status: int, payload: Any, *, server: str = "demo") -> Response:
    return Response(
        status,
        json.dumps(payload),
        {"Content-Type": "application/json", "Server": server},
    )


class NotHttp(Exception):
    """The client spoke something other than HTTP/1.x (a TLS ClientHello on a plain port, say)."""


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """Read one request head; None if the client went away.

    Raises:
        NotHttp: the first bytes are not an HTTP request line (a real server answers 400 then).
    """
    try:
        first = await asyncio.wait_for(reader.readexactly(1), _REQUEST_HEAD_TIMEOUT_S)
        if not first.isalpha():
            raise NotHttp(first.hex())
        head = first + await asyncio.wait_for(
            reader.readuntil(b"\r\n\r\n"), _REQUEST_HEAD_TIMEOUT_S
        )
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
        return None
    except asyncio.LimitOverrunError:
        raise NotHttp("header too large") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise NotHttp(lines[0][:40])
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return Request(method=parts[0], path=parts[1], headers=headers)


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.wait_closed(), 1.0)


def server_ssl_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


class Listeners:
    """Start listeners on free 127.0.0.1 ports; `aclose()` (or leaving the context) stops them all."""

    def __init__(self) -> None:
        self._servers: list[asyncio.Server] = []
        self._sockets: list[socket.socket] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._datagrams: list[asyncio.BaseTransport] = []
        # Sockets a handler deliberately never closes (the CLOSE_WAIT leak); closed on aclose().
        self.leaked: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Listeners:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        for writer in list(self._writers) + self.leaked:
            writer.transport.abort()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=2.0)
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2.0)
        for datagram in self._datagrams:
            datagram.close()
        for sock in self._sockets:
            sock.close()
        self._servers.clear()
        self._sockets.clear()
        self._datagrams.clear()
        self.leaked.clear()

    async def _serve(
        self,
        on_connect: Callable[
            [asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]
        ],
        *,
        ssl_context: ssl.SSLContext | None = None,
    ) -> int:
        async def connected(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            task = asyncio.current_task()
            assert task is not None
            self._tasks.add(task)
            self._writers.add(writer)
            try:
                await on_connect(reader, writer)
            except (
                ConnectionError,
                ssl.SSLError,
                OSError,
                asyncio.IncompleteReadError,
            ):
                pass
            except asyncio.CancelledError:
                # aclose() cancels handlers still sleeping or streaming; the connection just ends.
                pass
            finally:
                self._tasks.discard(task)
                self._writers.discard(writer)
                if writer not in self.leaked:
                    await _close(writer)

        server = await asyncio.start_server(
            connected,
            HOST,
            0,
            ssl=ssl_context,
            ssl_handshake_timeout=5.0 if ssl_context else None,
        )
        self._servers.append(server)
        return int(server.sockets[0].getsockname()[1])

    async def http(
        self, handler: Handler, *, ssl_context: ssl.SSLContext | None = None
    ) -> int:
        """An HTTP/1.1 server (HTTPS with `ssl_context`); `handler` returns a Response or writes itself."""

        async def on_connect(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            try:
                request = await read_request(reader)
            except NotHttp:
                writer.write(Response(400, "Bad Request: not HTTP/1.1\n").encode())
                await writer.drain()
                return
            if request is None:
                return
            length = request.headers.get("content-length", "")
            if length.isdigit():
                request.body = await asyncio.wait_for(
                    reader.readexactly(min(int(length), _MAX_BODY_BYTES)),
                    _REQUEST_HEAD_TIMEOUT_S,
                )
            response = await handler(request, writer)
            if response is not None:
                writer.write(response.encode())
                await writer.drain()

        return await self._serve(on_connect, ssl_context=ssl_context)

    async def silent(self) -> int:
        """Accepts TCP and reads, never answers: a stuck upstream, or a TLS port that never says hello."""

        async def on_connect(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            while await reader.read(4096):
                pass

        return await self._serve(on_connect)

    def closed_port(self) -> int:
        """A port nothing listens on: bound (so no one else takes it) but not listening, so SYN → RST."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((HOST, 0))
        self._sockets.append(sock)
        return int(sock.getsockname()[1])

    def backlog_full(self) -> int:
        """A listener whose accept queue is full and never drained: new SYNs are dropped, connects time out."""
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind((HOST, 0))
        server.listen(0)
        self._sockets.append(server)
        port = int(server.getsockname()[1])
        for _ in range(3):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.settimeout(0)  # non-blocking: the SYN is sent, never accepted
            with contextlib.suppress(BlockingIOError):
                filler.connect((HOST, port))
            self._sockets.append(filler)
        return port

    async def dns_server(
        self,
        records: dict[str, list[str] | int],
        *,
        delays: dict[str, float] | None = None,
    ) -> int:
        """A UDP DNS server: each name maps to its addresses or to an rcode (3 = NXDOMAIN, 2 = SERVFAIL);
        names not listed get NXDOMAIN, as from a resolver that does not know the zone. A name in
        `delays` is answered only after that many seconds (a slow upstream resolver). Both tables
        are read at query time, so entries added after the start count."""
        loop = asyncio.get_running_loop()
        slow = {} if delays is None else delays

        def lookup(name: str) -> list[str] | int:
            for key, value in records.items():
                if key.lower().rstrip(".") == name:
                    return value
            return 3

        def delay_of(name: str) -> float:
            return next(
                (v for k, v in slow.items() if k.lower().rstrip(".") == name), 0.0
            )

        class Protocol(asyncio.DatagramProtocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self.transport = transport

            def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
                try:
                    _id, name, _qtype = dns.parse_query(data)
                except dns.DnsFormatError:
                    return
                value = lookup(name)
                if isinstance(value, int):
                    reply = dns.build_response(data, value, [])
                else:
                    reply = dns.build_response(
                        data, 0, [ipaddress.ip_address(v) for v in value]
                    )
                send = self.transport.sendto  # type: ignore[attr-defined]
                if wait := delay_of(name):
                    loop.call_later(wait, self._send_late, send, reply, addr)
                else:
                    send(reply, addr)

            def _send_late(
                self, send: Callable[..., None], reply: bytes, addr: tuple[str, int]
            ) -> None:
                if not self.transport.is_closing():
                    send(reply, addr)

        transport, _ = await loop.create_datagram_endpoint(
            Protocol, local_addr=(HOST, 0)
        )
        self._datagrams.append(transport)
        return int(transport.get_extra_info("sockname")[1])

    def silent_udp(self) -> int:
        """A UDP port that receives and never answers: a resolver that times out."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((HOST, 0))
        self._sockets.append(sock)
        return int(sock.getsockname()[1])

    async def idle_cut_proxy(self, upstream_port: int, *, idle_timeout_s: float) -> int:
        """A TCP proxy to `upstream_port` that closes both sides after `idle_timeout_s` without traffic."""
        loop = asyncio.get_running_loop()

        async def on_connect(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            up_reader, up_writer = await asyncio.open_connection(HOST, upstream_port)
            self._writers.add(up_writer)
            last = [loop.time()]

            async def pump(
                src: asyncio.StreamReader, dst: asyncio.StreamWriter
            ) -> None:
                while data := await src.read(65536):
                    last[0] = loop.time()
                    dst.write(data)
                    await dst.drain()

            pumps = [
                asyncio.ensure_future(pump(reader, up_writer)),
                asyncio.ensure_future(pump(up_reader, writer)),
            ]
            try:
                while True:
                    remaining = idle_timeout_s - (loop.time() - last[0])
                    if remaining <= 0:
                        break  # idle: cut both sides, as the proxy's idle timeout does
                    done, _ = await asyncio.wait(
                        pumps, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                    )
                    if done:
                        break
            finally:
                for task in pumps:
                    task.cancel()
                await asyncio.gather(*pumps, return_exceptions=True)
                self._writers.discard(up_writer)
                await _close(up_writer)

        return await self._serve(on_connect)


async def fetch_status(
    host: str,
    port: int,
    *,
    path: str = "/",
    ssl_context: ssl.SSLContext | None = None,
    server_hostname: str | None = None,
    timeout: float = 3.0,
) -> tuple[int, str]:
    """A tiny HTTP/1.1 GET used by the demo gateway to reach its upstream; returns (status, body)."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(
            host,
            port,
            ssl=ssl_context,
            server_hostname=server_hostname if ssl_context else None,
        ),
        timeout,
    )
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {server_hostname or host}\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(65536), timeout)
    finally:
        await _close(writer)
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body.decode("utf-8", errors="replace")
