"""CallRecord.http: where an HTTP call's time went (pool wait, connect, TLS, send, time to first
byte, body), from httpx's trace extension, against real servers on 127.0.0.1: a server that
delays its answer shows the delay in the ttfb layer, not connect; a stream that delays its answer
event shows it in the body; a pool of one connection shows the second caller's wait; a TLS server
shows its handshake; a task-backed call sums its polls."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import tempfile
from pathlib import Path

import httpx
import pytest

import mcpclient
from mcpclient import _timings

from .servers.scripted_http import (
    Reply,
    Request,
    ScriptedServer,
    json_reply,
    scripted_server,
)
from .test_tasks import tasks_url  # noqa: F401 - the module's server fixture
from .test_transport_streamable_http import event, handshake_server, ok

pytestmark = pytest.mark.anyio

DELAY = 0.3


async def _calls(
    server: mcpclient.HttpServer, *names: str
) -> list[mcpclient.CallRecord]:
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(server, observer=records.append) as client:
        await client.list_tools()
        await asyncio.gather(*(client.call_tool(name, {}, timeout=5) for name in names))
    return [record for record in records if record.method == "tools/call"]


async def _slow_json(request: Request) -> Reply:
    await asyncio.sleep(DELAY)  # the server thinks before its first byte
    return json_reply(ok(request, "slow"))


@pytest.mark.parametrize(
    "own_client", [False, True], ids=["our-client", "given-client"]
)
async def test_a_delay_before_the_first_byte_is_in_ttfb_not_connect(own_client):
    async with scripted_server(handshake_server(_slow_json)) as srv:
        http = httpx.AsyncClient() if own_client else None
        server = mcpclient.HttpServer(url=srv.url, http_client=http)
        try:
            (record,) = await _calls(server, "read")
        finally:
            if http is not None:
                await http.aclose()
    timings = record.http
    assert timings is not None and timings.requests == 1
    assert timings.ttfb_ms >= DELAY * 1000 * 0.9
    assert timings.slowest == "ttfb"
    # The session's connection was already open: no connect, no TLS, no waiting for the pool.
    small = DELAY * 1000 / 2  # well under the delay, with room for a loaded machine
    assert timings.connect_ms < small and timings.tls_ms == 0
    assert timings.pool_wait_ms < small and timings.body_ms < small
    assert set(timings.layers()) == set(mcpclient.HttpTimings.LAYERS)


async def test_an_answer_event_that_comes_late_is_in_the_body():
    async def late_event(request: Request) -> Reply:
        async def chunks():
            yield b": priming\n\n"  # headers and a first byte at once
            await asyncio.sleep(DELAY)
            yield event(ok(request, "late"))

        return Reply(200, {"content-type": "text/event-stream"}, chunks())

    async with scripted_server(handshake_server(late_event)) as srv:
        (record,) = await _calls(mcpclient.HttpServer(url=srv.url), "read")
    assert record.http is not None
    assert record.http.body_ms >= DELAY * 1000 * 0.9
    assert record.http.ttfb_ms < DELAY * 1000 / 2
    assert record.http.slowest == "body"


async def test_a_caller_waiting_for_the_only_pooled_connection_shows_pool_wait():
    http = httpx.AsyncClient(limits=httpx.Limits(max_connections=1))
    async with http, scripted_server(handshake_server(_slow_json)) as srv:
        first, second = sorted(
            await _calls(mcpclient.HttpServer(url=srv.url, http_client=http), "a", "b"),
            key=lambda record: record.http.pool_wait_ms if record.http else 0,
        )
    assert first.http is not None and second.http is not None
    assert first.http.pool_wait_ms < DELAY * 1000 / 2
    assert second.http.pool_wait_ms >= DELAY * 1000 * 0.8
    assert second.http.ttfb_ms >= DELAY * 1000 * 0.9


def _self_signed(directory: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_a_tls_server_shows_its_connect_and_handshake_on_the_first_request():
    pytest.importorskip("cryptography")
    with tempfile.TemporaryDirectory() as directory:
        cert, key = _self_signed(Path(directory))
        server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_ctx.load_cert_chain(cert, key)
        client_ctx = ssl.create_default_context(cafile=str(cert))
    srv = ScriptedServer(handshake_server(_slow_json))
    srv._server = await asyncio.start_server(srv._serve, "127.0.0.1", 0, ssl=server_ctx)
    port = srv._server.sockets[0].getsockname()[1]
    records: list[mcpclient.CallRecord] = []
    # No keep-alive: the call opens a connection of its own, TCP connect and TLS handshake.
    limits = httpx.Limits(max_keepalive_connections=0)
    try:
        async with httpx.AsyncClient(verify=client_ctx, limits=limits) as http:
            server = mcpclient.HttpServer(
                url=f"https://127.0.0.1:{port}/mcp", http_client=http
            )
            async with mcpclient.connect(server, observer=records.append) as client:
                await client.call_tool("read", {}, timeout=5)
    finally:
        await srv.stop()
    (call,) = [record for record in records if record.method == "tools/call"]
    assert call.http is not None
    assert call.http.connect_ms > 0 and call.http.tls_ms > 0
    assert call.http.slowest == "ttfb"


async def test_a_server_gone_mid_session_is_recorded_with_its_layers():
    records: list[mcpclient.CallRecord] = []
    srv = ScriptedServer(handshake_server(_slow_json))
    await srv.start()
    async with mcpclient.connect(
        mcpclient.HttpServer(url=srv.url), observer=records.append, timeout=2
    ) as client:
        await srv.stop()
        with pytest.raises(mcpclient.McpError):
            await client.call_tool("read", {}, timeout=2, idempotent=False)
    (call,) = [record for record in records if record.method == "tools/call"]
    assert call.outcome == "error"
    assert call.http is not None and call.http.requests >= 1
    assert call.http.body_ms == 0  # no answer came


async def test_a_task_backed_call_sums_its_requests(tasks_url):  # noqa: F811
    (record,) = [
        record
        for record in await _task_calls(f"{tasks_url}/mcp")
        if record.method == "tools/call"
    ]
    assert record.task_states == ["working", "completed"]
    assert record.http is not None
    assert record.http.requests >= 3  # tools/call, then at least two tasks/get


async def _task_calls(url: str) -> list[mcpclient.CallRecord]:
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.HttpServer(url=url), observer=records.append
    ) as client:
        await client.call_tool("slow_compute", {"seconds": 0.1}, timeout=5)
    return records


async def test_legacy_http_sse_times_the_post(sdk_sse_url):
    records: list[mcpclient.CallRecord] = []
    async with mcpclient.connect(
        mcpclient.LegacySseServer(url=sdk_sse_url), observer=records.append
    ) as client:
        await client.call_tool("echo", {"text": "x"}, timeout=5)
    (call,) = [record for record in records if record.method == "tools/call"]
    assert call.http is not None and call.http.requests == 1


async def test_nothing_is_traced_outside_an_observed_call():
    assert _timings.request_trace() is None
    collector, token = _timings.begin(join=True)
    try:
        trace = _timings.request_trace()
        assert trace is not None
        # Steps outside the layers, and an end without its start, change nothing.
        await trace("http11.response_closed.started", {})
        await trace("connection.connect_tcp.complete", {})
        trace.finish()
        assert _timings.begin(join=True) == (collector, None)
    finally:
        _timings.end(token)
    timings = collector.timings()
    assert timings is not None and timings.connect_ms == 0 and timings.ttfb_ms == 0
    assert _timings.Collector().timings() is None
