"""Legacy HTTP+SSE (2024-11-05) against the SDK's sse_app and against hand-written servers."""

from __future__ import annotations

import asyncio
import json

import pytest

import mcpclient

from .servers.scripted_http import Reply, Request, scripted_server
from .test_sdk_stdio import wait_observed

pytestmark = pytest.mark.anyio


async def test_every_call_works_over_the_sdk_sse_app(sdk_sse_url):
    async with mcpclient.connect(mcpclient.LegacySseServer(url=sdk_sse_url)) as client:
        assert (
            client.protocol_version == "2025-11-25"
        )  # the SDK answers our offer; the transport is the old one
        assert client.transport.endpoint.startswith(
            sdk_sse_url.removesuffix("/sse") + "/messages/"
        )
        assert len(await client.list_tools()) == 7
        progress = []
        assert (
            await client.call_tool(
                "slow", {"steps": 2}, on_progress=lambda p, t, m: progress.append(p)
            )
        ).text == "done"
        assert progress == [1, 2]
        assert (await client.read_resource("note://hello")).contents[
            0
        ].text == "hello note"
        assert (await client.get_prompt("triage", {"service": "x"})).messages
        task = asyncio.create_task(client.call_tool("hang", {"tag": "sse"}))
        await wait_observed(client, "started", "sse")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_observed(client, "cancelled", "sse")


async def test_pinned_2024_11_05_over_the_sdk_sse_app(sdk_sse_url):
    async with mcpclient.connect(
        mcpclient.LegacySseServer(url=sdk_sse_url), protocol_version="2024-11-05"
    ) as client:
        assert client.protocol_version == "2024-11-05"
        assert (await client.call_tool("echo", {"text": "old"})).text == "old"


async def test_2026_cannot_be_pinned_on_the_legacy_transport(sdk_sse_url):
    with pytest.raises(mcpclient.VersionMismatch):
        async with mcpclient.connect(
            mcpclient.LegacySseServer(url=sdk_sse_url), protocol_version="2026-07-28"
        ):
            pass


def legacy_handler(
    *, endpoint: bytes = b"/messages?sid=1", stream_after: list[bytes] | None = None
):
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def handler(request: Request) -> Reply:
        if request.method == "GET":

            async def body():
                yield b"event: endpoint\ndata: " + endpoint + b"\n\n"
                while True:
                    item = await queue.get()
                    if item == b"END":
                        return
                    yield item

            return Reply(200, {"content-type": "text/event-stream"}, body())  # type: ignore[arg-type]
        message = request.json()
        if message.get("method") == "initialize":
            answer = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "old"},
                },
            }
            queue.put_nowait(
                b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n"
            )
        elif message.get("method") == "tools/call":
            for item in stream_after or []:
                queue.put_nowait(item)
        return Reply(202, {}, [])

    return handler


async def test_an_endpoint_on_another_origin_is_refused():
    async with scripted_server(
        legacy_handler(endpoint=b"http://evil.example/messages")
    ) as srv:
        with pytest.raises(mcpclient.ConnectError, match="another origin"):
            async with mcpclient.connect(mcpclient.LegacySseServer(url=srv.url)):
                pass


async def test_the_stream_ending_fails_pending_calls_at_once():
    async with (
        scripted_server(legacy_handler(stream_after=[b"END"])) as srv,
        mcpclient.connect(mcpclient.LegacySseServer(url=srv.url), timeout=30) as client,
    ):
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("work", timeout=30)


async def test_a_stream_that_cannot_be_opened_is_a_connect_error():
    async def handler(request: Request) -> Reply:
        return Reply(503, {}, [b"down"])

    async with scripted_server(handler) as srv:
        with pytest.raises(mcpclient.ConnectError, match="503"):
            async with mcpclient.connect(mcpclient.LegacySseServer(url=srv.url)):
                pass


async def test_a_refused_post_is_mapped_by_status():
    async def handler(request: Request) -> Reply:
        if request.method == "GET":

            async def held_open():
                yield b"event: endpoint\ndata: /m\n\n: ping\n\n"
                await asyncio.Event().wait()

            return Reply(200, {"content-type": "text/event-stream"}, held_open())  # type: ignore[arg-type]
        return Reply(401, {"www-authenticate": "Bearer"}, [b"no"])

    async with scripted_server(handler) as srv:
        with pytest.raises(mcpclient.AuthorizationError):
            async with mcpclient.connect(mcpclient.LegacySseServer(url=srv.url)):
                pass


async def test_an_http_server_url_of_an_old_sse_server_falls_back_to_the_legacy_transport(
    sdk_sse_url,
):
    async with mcpclient.connect(mcpclient.HttpServer(url=sdk_sse_url)) as client:
        assert client.transport.kind == "legacy_sse"
        assert (
            await client.call_tool("echo", {"text": "fell back"})
        ).text == "fell back"


async def test_a_404_that_is_no_sse_server_either_reports_the_first_answer():
    async def handler(request: Request) -> Reply:
        return Reply(404, {}, [b"nothing here"])

    async with scripted_server(handler) as srv:
        with pytest.raises(mcpclient.HttpStatusError) as info:
            async with mcpclient.connect(mcpclient.HttpServer(url=srv.url)):
                pass
    assert info.value.status == 404
    assert isinstance(info.value.__cause__, mcpclient.ConnectError)
    assert [r.method for r in srv.requests] == [
        "POST",
        "POST",
        "GET",
    ]  # discover, initialize, SSE probe
