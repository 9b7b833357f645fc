"""The plain-http network layer under our own httpx client, and the precomputed POST request.

Edges only: real sockets on 127.0.0.1, a raw asyncio server per test for the socket-level cases.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct

import httpcore
import httpx
import pytest

import mcpclient
from mcpclient._transports._asyncio_backend import AsyncioBackend as _AsyncioBackend
from mcpclient._transports._httpx_compat import (
    PlainHttpTransport as _PlainHttpTransport,
)
from mcpclient._transports.streamable_http import StreamableHttpTransport

from .servers.scripted_http import Reply, Request, json_reply, scripted_server
from .test_transport_streamable_http import handshake_server, ok

pytestmark = pytest.mark.anyio


@contextlib.asynccontextmanager
async def raw_server(handler):
    """A TCP server on 127.0.0.1 running ``handler(reader, writer)``; yields its port."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


async def connect(port: int, **kwargs) -> httpcore.AsyncNetworkStream:
    return await _AsyncioBackend().connect_tcp("127.0.0.1", port, **kwargs)


async def read_all(stream: httpcore.AsyncNetworkStream) -> bytes:
    chunks = []
    while chunk := await stream.read(65536):
        chunks.append(chunk)
    return b"".join(chunks)


# -- through the public API ----------------------------------------------------------------------


async def test_our_own_client_for_an_http_url_uses_the_asyncio_backend():
    async with (
        scripted_server(handshake_server(lambda r: _ok(r))) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        assert (await client.call_tool("read")).text == "ok"
        assert isinstance(client.transport._client._transport, _PlainHttpTransport)
        assert client.transport._direct is client.transport._client._transport
    call = srv.requests[-2]  # the last is the DELETE on close
    assert call.headers["accept"] == "application/json, text/event-stream"
    assert call.headers["content-length"] == str(len(call.body))
    assert call.headers["mcp-session-id"] == "s1"


async def _ok(request: Request) -> Reply:
    return json_reply(ok(request))


async def test_an_https_url_keeps_httpx_s_default_transport():
    transport = StreamableHttpTransport(
        mcpclient.HttpServer(url="https://127.0.0.1:1/mcp")
    )
    await transport.start(lambda message: None, lambda exc: None)
    try:
        assert not isinstance(transport._client._transport, _PlainHttpTransport)
        assert transport._post_url == httpx.URL("https://127.0.0.1:1/mcp")
    finally:
        await transport.aclose()


@pytest.mark.parametrize(
    ("url", "env"),
    [
        ("http://mcp.example.invalid/mcp", {"HTTP_PROXY": "http://127.0.0.1:9"}),
        ("http://user:secret@mcp.example.invalid/mcp", {}),
    ],
)
async def test_a_proxy_or_url_credentials_keep_httpx_s_default_client(
    url, env, monkeypatch
):
    for name in (
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    transport = StreamableHttpTransport(mcpclient.HttpServer(url=url))
    await transport.start(lambda message: None, lambda exc: None)
    try:
        assert transport._direct is None
        assert not isinstance(transport._client._transport, _PlainHttpTransport)
        if env:  # httpx mounted the proxy from the environment, as it always did
            assert transport._client._mounts
    finally:
        await transport.aclose()


async def test_a_cookie_the_server_sets_is_sent_back_on_later_posts():
    inner = handshake_server(_ok)

    async def handler(request: Request) -> Reply:
        reply = await inner(request)
        if request.method == "POST" and request.json().get("method") == "initialize":
            reply.headers["set-cookie"] = "lb=node-2; Path=/"
        return reply

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        await client.call_tool("read")
    call = next(r for r in srv.requests if r.body and b"tools/call" in r.body)
    assert call.headers["cookie"] == "lb=node-2"
    assert call.headers["mcp-session-id"] == "s1"


async def test_an_injected_client_s_default_headers_and_params_are_merged_once():
    async with scripted_server(handshake_server(_ok)) as srv:
        http = httpx.AsyncClient(headers={"X-Team": "ops"}, params={"tenant": "t1"})
        async with (
            http,
            mcpclient.connect(
                mcpclient.HttpServer(
                    url=srv.url, http_client=http, headers={"X-Trace": "abc"}
                )
            ) as client,
        ):
            await client.call_tool("read")
            await client.call_tool("read")
            assert not isinstance(http._transport, _PlainHttpTransport)
    calls = [r for r in srv.requests if r.body and b"tools/call" in r.body]
    for call in calls:
        assert call.path == "/mcp?tenant=t1"
        assert call.headers["x-team"] == "ops" and call.headers["x-trace"] == "abc"
        assert call.headers["accept"] == "application/json, text/event-stream"


async def test_modern_per_request_headers_do_not_stick_to_the_merged_headers():
    async def handler(request: Request) -> Reply:
        body = request.json()
        if body["method"] == "server/discover":
            return json_reply(
                {
                    "jsonrpc": "2.0",
                    "id": body["id"],
                    "result": {
                        "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "modern"},
                    },
                }
            )
        return json_reply(ok(request))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        assert client.is_modern
        await client.call_tool("first")
        await client.call_tool("second")
        await client.send_request("ping", {})
    first, second, ping = srv.requests[-3:]
    assert first.headers["mcp-name"] == "first"
    assert second.headers["mcp-name"] == "second"
    assert ping.headers["mcp-method"] == "ping" and "mcp-name" not in ping.headers


# -- the network stream, socket by socket ----------------------------------------------------


async def test_written_bytes_go_out_when_the_answer_is_awaited():
    received = asyncio.get_running_loop().create_future()

    async def handler(reader, writer):
        received.set_result(await reader.readexactly(10))
        writer.write(b"pong")
        await writer.drain()
        writer.close()

    async with raw_server(handler) as port:
        stream = await connect(port, local_address="127.0.0.1")
        await stream.write(b"")
        await stream.write(b"head:")
        await stream.write(b"body!")
        assert not stream.get_extra_info("is_readable")
        async with asyncio.timeout(5):
            assert await read_all(stream) == b"pong"
        assert received.result() == b"head:body!"
        assert stream.get_extra_info("is_readable")  # the server closed: not reusable
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", port)
        assert stream.get_extra_info("ssl_object") is None
        await stream.aclose()


async def test_a_read_timeout_is_httpcore_s_read_timeout():
    async def handler(reader, writer):
        await reader.read()  # silent until the client goes

    async with raw_server(handler) as port:
        stream = await connect(port)
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(100, timeout=0.01)
        await stream.aclose()


async def test_connect_failures_are_httpcore_connect_errors():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nobody listens here once it is closed
    with pytest.raises(httpcore.ConnectError):
        await connect(port)
    async with raw_server(lambda r, w: w.close()) as port:
        with pytest.raises(httpcore.ConnectTimeout):
            await connect(port, timeout=0)
    await _AsyncioBackend().sleep(0)


async def test_a_reset_connection_is_a_read_error():
    async def handler(reader, writer):
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        await reader.readexactly(3)
        writer.transport.abort()  # RST, not FIN

    async with raw_server(handler) as port:
        stream = await connect(port)
        await stream.write(b"abc")
        with pytest.raises(httpcore.ReadError):
            async with asyncio.timeout(5):
                await read_all(stream)
        await stream.aclose()


async def test_a_write_after_the_server_closed_is_dropped_and_the_read_sees_the_end():
    async def handler(reader, writer):
        writer.close()

    async with raw_server(handler) as port:
        stream = await connect(port)
        async with asyncio.timeout(5):
            assert await stream.read(10) == b""
            await stream.write(b"too late")
            assert await stream.read(10) == b""
        await stream.aclose()


async def test_a_large_answer_pauses_reading_until_the_reader_catches_up():
    size = 4 * 1024 * 1024

    async def handler(reader, writer):
        writer.write(b"x" * size)
        await writer.drain()
        writer.close()

    async with raw_server(handler) as port:
        stream = await connect(port)
        async with asyncio.timeout(5):
            while not stream._protocol.reading_paused:
                await asyncio.sleep(0)  # let data arrive without reading it
            assert len(await read_all(stream)) == size
        await stream.aclose()


async def test_a_large_request_is_written_in_pieces_and_waits_for_the_reader():
    size = 16 * 1024 * 1024  # more than loopback socket buffers hold
    go = asyncio.Event()
    got = asyncio.get_running_loop().create_future()

    async def handler(reader, writer):
        await go.wait()
        total = 0
        while chunk := await reader.read(1 << 20):
            total += len(chunk)
        got.set_result(total)
        writer.close()

    async with raw_server(handler) as port:
        stream = await connect(port)
        with pytest.raises(httpcore.WriteTimeout):
            await stream.write(b"x" * size, timeout=0.05)  # the server is not reading
        go.set()
        async with asyncio.timeout(5):
            await stream.write(b"y" * 70_000)  # waits until the server drained the rest
            stream._transport.write_eof()
            assert await got == size + 70_000
        await stream.aclose()
