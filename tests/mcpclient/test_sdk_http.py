"""Against the official SDK server (mcp 2.3.0) over real Streamable HTTP on 127.0.0.1 (uvicorn)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import mcpclient

from .test_sdk_stdio import wait_observed

pytestmark = pytest.mark.anyio

HTTP_VERSIONS = [None, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]


@pytest.mark.parametrize("flavour", ["sse", "json"])
@pytest.mark.parametrize("version", HTTP_VERSIONS)
async def test_every_call_works_at_each_version(
    sdk_http_url, sdk_http_json_url, flavour, version
):
    url = sdk_http_url if flavour == "sse" else sdk_http_json_url
    async with mcpclient.connect(
        mcpclient.HttpServer(url=url), protocol_version=version
    ) as client:
        assert client.protocol_version == (version or "2026-07-28")
        transport = client.transport
        if flavour == "sse" and not client.is_modern:
            assert transport.session_id  # taken from the initialize answer
        else:
            assert transport.session_id is None
        tools = await client.list_tools()
        assert len(tools) == 7
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {
            "result": 3
        }
        progress = []
        slow = await client.call_tool(
            "slow", {"steps": 2}, on_progress=lambda p, t, m: progress.append(p)
        )
        assert slow.text == "done"
        # JSON answers cannot carry notifications; SSE answers carry them before the result.
        assert progress == ([1, 2] if flavour == "sse" else [])
        assert (await client.call_tool("fail")).is_error
        assert (await client.read_resource("note://hello")).contents[
            0
        ].text == "hello note"
        assert [r.uri for r in await client.list_resources()] == ["note://hello"]
        assert (await client.get_prompt("triage", {"service": "db"})).messages[
            0
        ].content["text"] == "Triage the db service."
        assert [p.name for p in await client.list_prompts()] == ["triage"]


async def test_modern_requests_carry_the_2026_headers_and_meta(sdk_http_json_url):
    seen: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        seen.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        server = mcpclient.HttpServer(
            url=sdk_http_json_url, http_client=http, headers={"X-Trace": "abc"}
        )
        async with mcpclient.connect(server) as client:
            await client.call_tool("echo", {"text": "héllo"})
            await client.read_resource("note://hello")
        assert not http.is_closed  # an injected client belongs to the caller
    call = next(r for r in seen if r.headers.get("mcp-method") == "tools/call")
    assert call.headers["mcp-name"] == "echo"
    assert call.headers["mcp-protocol-version"] == "2026-07-28"
    assert call.headers["accept"] == "application/json, text/event-stream"
    assert call.headers["x-trace"] == "abc"
    assert "mcp-session-id" not in call.headers
    body = httpx.Response(200, content=call.content).json()
    assert (
        body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
        == "2026-07-28"
    )
    # The Tasks extension is declared (call_tool follows a task); no elicitation without a handler.
    assert body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }
    assert (
        body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"]
        == "mcpclient"
    )
    read = next(r for r in seen if r.headers.get("mcp-method") == "resources/read")
    assert read.headers["mcp-name"] == "note://hello"


async def test_handshake_requests_carry_session_and_version_and_close_deletes_the_session(
    sdk_http_url,
):
    seen: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        seen.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        server = mcpclient.HttpServer(url=sdk_http_url, http_client=http)
        async with mcpclient.connect(server, protocol_version="2025-11-25") as client:
            session_id = client.transport.session_id
            await client.call_tool("echo", {"text": "x"})
        initialize = next(r for r in seen if b'"initialize"' in r.content)
        assert "mcp-session-id" not in initialize.headers
        call = next(r for r in seen if b'"tools/call"' in r.content)
        assert call.headers["mcp-session-id"] == session_id
        assert call.headers["mcp-protocol-version"] == "2025-11-25"
        assert seen[-1].method == "DELETE"
        assert seen[-1].headers["mcp-session-id"] == session_id
        # The server really forgot it: the old session id now gets 404.
        stale = await http.post(
            sdk_http_url, headers={**call.headers}, content=call.content
        )
        assert stale.status_code == 404


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_cancelling_the_caller_cancels_the_call_on_the_server(
    sdk_http_url, version
):
    tag = f"http-{version}"
    async with mcpclient.connect(
        mcpclient.HttpServer(url=sdk_http_url), protocol_version=version
    ) as client:
        task = asyncio.create_task(client.call_tool("hang", {"tag": tag}))
        await wait_observed(client, "started", tag)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_observed(client, "cancelled", tag)


async def test_a_lost_session_is_reinitialized_and_an_idempotent_call_retried(
    sdk_http_url,
):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=sdk_http_url), protocol_version="2025-11-25"
    ) as client:
        await client.list_tools()
        old = client.transport.session_id
        async with (
            httpx.AsyncClient() as http
        ):  # end the session behind the client's back
            response = await http.delete(
                sdk_http_url,
                headers={"mcp-session-id": old, "mcp-protocol-version": "2025-11-25"},
            )
            assert response.status_code == 200
        assert (
            await client.call_tool("echo", {"text": "again"})
        ).text == "again"  # readOnlyHint: retried
        assert client.transport.session_id not in (None, old)
        new = client.transport.session_id
        async with httpx.AsyncClient() as http:
            await http.delete(
                sdk_http_url,
                headers={"mcp-session-id": new, "mcp-protocol-version": "2025-11-25"},
            )
        with pytest.raises(mcpclient.SessionExpired):
            await client.call_tool(
                "add", {"a": 1, "b": 1}
            )  # not idempotent: re-initialized, not retried
        assert client.transport.session_id not in (None, new)
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {
            "result": 2
        }


async def test_nothing_listening_is_a_connect_error():
    with pytest.raises(mcpclient.ConnectError) as info:
        async with mcpclient.connect(
            mcpclient.HttpServer(url="http://127.0.0.1:9/mcp"), timeout=5
        ):
            pass
    assert not info.value.outcome_unknown
