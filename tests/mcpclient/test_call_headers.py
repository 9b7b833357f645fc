"""call_tool(headers=...): a caller's per-call headers (a W3C traceparent) on that call's HTTP request.

Against the official SDK server over Streamable HTTP and the 2024-11-05 HTTP+SSE transport, a
modern-era scripted server (the caller's headers beside Mcp-Param-*), and stdio, which has no
headers to carry them and ignores them.
"""

from __future__ import annotations

import json

import httpx
import pytest

import mcpclient

from .servers.scripted_http import Reply, Request, json_reply, scripted_server
from .test_transport_streamable_http import answer, ok

pytestmark = pytest.mark.anyio

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _recorder() -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        seen.append(request)

    return seen, httpx.AsyncClient(event_hooks={"request": [record]})


def _calls(seen: list[httpx.Request]) -> list[httpx.Request]:
    return [r for r in seen if r.method == "POST" and b'"tools/call"' in r.content]


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25", "2025-03-26"])
async def test_streamable_http_sends_the_headers_on_that_call_only(
    sdk_http_url, version
):
    seen, http = _recorder()
    async with http:
        server = mcpclient.HttpServer(
            url=sdk_http_url, http_client=http, headers={"X-Team": "ops"}
        )
        async with mcpclient.connect(server, protocol_version=version) as client:
            traced = await client.call_tool(
                "add", {"a": 1, "b": 2}, headers={"Traceparent": TRACEPARENT}
            )
            plain = await client.call_tool("add", {"a": 2, "b": 2})
    assert traced.structured_content == {"result": 3}
    assert plain.structured_content == {"result": 4}
    first, second = _calls(seen)
    assert first.headers["traceparent"] == TRACEPARENT
    # The connection's own headers are still there, and the protocol's.
    assert first.headers["x-team"] == "ops"
    # 2025-03-26 had no MCP-Protocol-Version header yet.
    assert first.headers.get("mcp-protocol-version") == (
        None if version == "2025-03-26" else version
    )
    assert first.headers["content-type"] == "application/json"
    # Per call: the next call, and the handshake, carry none.
    assert "traceparent" not in second.headers
    assert all("traceparent" not in r.headers for r in seen if r not in (first,))


async def test_legacy_http_sse_sends_the_headers_on_the_post(sdk_sse_url):
    seen, http = _recorder()
    async with http:
        server = mcpclient.LegacySseServer(url=sdk_sse_url, http_client=http)
        async with mcpclient.connect(server) as client:
            result = await client.call_tool(
                "echo", {"text": "x"}, headers={"traceparent": TRACEPARENT}
            )
            await client.call_tool("echo", {"text": "y"})
    assert result.text == "x"
    first, second = _calls(seen)
    assert first.headers["traceparent"] == TRACEPARENT
    assert first.headers["content-type"] == "application/json"
    assert "traceparent" not in second.headers


async def test_stdio_ignores_the_headers(sdk_stdio):
    async with mcpclient.connect(sdk_stdio) as client:
        result = await client.call_tool(
            "echo", {"text": "x"}, headers={"traceparent": TRACEPARENT}
        )
    assert result.text == "x"


async def test_modern_era_caller_headers_go_beside_the_mcp_param_headers():
    tools = [
        {
            "name": "lookup",
            "inputSchema": {
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            },
        }
    ]

    async def handler(request: Request) -> Reply:
        body = request.json()
        if body["method"] == "server/discover":
            return json_reply(
                answer(
                    request,
                    {
                        "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}},
                        "_meta": {
                            "io.modelcontextprotocol/serverInfo": {"name": "modern"}
                        },
                    },
                )
            )
        if body["method"] == "tools/list":
            return json_reply(
                answer(request, {"tools": tools, "resultType": "complete"})
            )
        return json_reply(ok(request, request.headers.get("traceparent", "none")))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        await client.list_tools()
        result = await client.call_tool(
            "lookup",
            {"region": "eu"},
            headers={"traceparent": TRACEPARENT, "tracestate": "a=1"},
        )
        plain = await client.call_tool("lookup", {"region": "us"})
    assert result.text == TRACEPARENT
    assert plain.text == "none"
    call = next(
        r
        for r in srv.requests
        if r.headers.get("mcp-method") == "tools/call"
        and json.loads(r.body)["params"]["arguments"] == {"region": "eu"}
    )
    assert call.headers["mcp-param-region"] == "eu"
    assert call.headers["mcp-name"] == "lookup"
    assert call.headers["tracestate"] == "a=1"


@pytest.mark.parametrize(
    "name", ["Mcp-Session-Id", "mcp-param-region", "Accept", "content-type"]
)
async def test_a_header_the_protocol_owns_is_refused_and_nothing_is_sent(
    sdk_http_json_url, name
):
    seen, http = _recorder()
    async with http:
        server = mcpclient.HttpServer(url=sdk_http_json_url, http_client=http)
        async with mcpclient.connect(server) as client:
            with pytest.raises(mcpclient.UsageError, match=name):
                await client.call_tool("echo", {"text": "x"}, headers={name: "forged"})
    assert _calls(seen) == []


async def test_a_reserved_header_is_refused_over_stdio_too(sdk_stdio):
    # The same call is the same mistake whatever the transport: refused, not silently dropped.
    async with mcpclient.connect(sdk_stdio) as client:
        with pytest.raises(mcpclient.UsageError):
            await client.call_tool("echo", {"text": "x"}, headers={"MCP-Name": "x"})
