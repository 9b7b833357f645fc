"""netcheck's mcp layer (protocol="mcp"): a real MCP initialize against real servers on 127.0.0.1."""

import asyncio
import json

import pytest
from mcp import Client

from mcpservers.netcheck import Policy, Prober, Timeouts
from mcpservers.netcheck.__main__ import build_parser, prober_from_args
from mcpservers.netcheck.server import build_server
from mcpservers.scenarios._listeners import Listeners, Response
from mcpservers.scenarios.targets import _jsonrpc_handler
from tests.mcpservers._support import DEMO, start_http_server

pytestmark = pytest.mark.anyio

SHORT = Timeouts.uniform(0.5)


@pytest.fixture
async def listeners():
    async with Listeners() as group:
        yield group


@pytest.fixture(scope="module")
def runbooks_url():
    """The bundled runbooks server over Streamable HTTP (the SDK's stateful app: SSE answers, sessions)."""
    server = start_http_server("mcpservers.runbooks", "--scenario", str(DEMO))
    try:
        yield server.wait_ready()
    finally:
        server.stop()


def prober_for(*urls, timeouts=SHORT):
    return Prober(
        policy=Policy.from_values(list(urls)), mcp_endpoints=urls, timeouts=timeouts
    )


async def probe(prober, url, **kwargs):
    async with asyncio.timeout(10):
        return await prober.probe(url, **kwargs)


def replying(status, body, headers=None, seen=None):
    async def handler(request, writer):
        if seen is not None:
            seen.append(request)
        return Response(status, body, headers or {"Content-Type": "application/json"})

    return handler


async def test_endpoint_answering_a_jsonrpc_error_in_http_200_fails_at_mcp(listeners):
    port = await listeners.http(_jsonrpc_handler(-32603, "tool registry failed"))
    url = f"http://127.0.0.1:{port}/mcp"

    result = await probe(prober_for(url), url, protocol="mcp")
    plain = await probe(prober_for(url), url)

    assert (result["failed_layer"], result["reason"]) == ("mcp", "jsonrpc_error")
    assert result["status"] == 200
    assert result["mcp"] == {
        "error_code": -32603,
        "error_message": "tool registry failed",
    }
    assert "JSON-RPC error -32603: 'tool registry failed'" in result["evidence"][0]
    # The GET netcheck sends without protocol="mcp" sees only the endpoint refusing GET.
    assert (plain["failed_layer"], plain["reason"]) == ("http", "http_405")


async def test_initialize_is_posted_as_streamable_http_says(listeners):
    seen = []
    port = await listeners.http(replying(200, "{}", seen=seen))
    url = f"http://127.0.0.1:{port}/mcp"

    await probe(prober_for(url), url, protocol="mcp")

    request = seen[0]
    body = json.loads(request.body)
    assert (request.method, request.path) == ("POST", "/mcp")
    assert request.headers["accept"] == "application/json, text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["mcp-protocol-version"] == body["params"]["protocolVersion"]
    assert (body["jsonrpc"], body["id"], body["method"]) == ("2.0", 1, "initialize")
    assert body["params"]["capabilities"] == {}
    assert body["params"]["clientInfo"]["name"] == "agentops-netcheck"


async def test_real_mcp_server_over_streamable_http_probes_ok_and_the_session_is_deleted(
    runbooks_url,
):
    prober = prober_for(runbooks_url, timeouts=Timeouts.uniform(5))

    result = await probe(prober, runbooks_url, protocol="mcp")

    assert (result["failed_layer"], result["reason"]) == ("none", None)
    assert result["http"]["headers"]["content-type"] == "text/event-stream"
    assert result["mcp"]["server_info"]["name"] == "mcpservers-runbooks"
    assert result["mcp"]["protocol_version"] == "2025-11-25"
    assert "tools" in result["mcp"]["capabilities"]
    assert result["mcp"]["session_deleted"] == 200
    assert "MCP initialize ok: mcpservers-runbooks" in result["evidence"][0]


async def test_http_error_from_an_mcp_endpoint_stays_at_http_with_the_jsonrpc_error(
    listeners,
):
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no"}}
    port = await listeners.http(replying(401, json.dumps(error)))
    url = f"http://127.0.0.1:{port}/mcp"

    result = await probe(prober_for(url), url, protocol="mcp")

    assert (result["failed_layer"], result["reason"]) == ("http", "http_401")
    assert result["mcp"] == {"error_code": -32600, "error_message": "no"}


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        ('{"status": "ok"}', "application/json", "not a JSON-RPC 2.0 message"),
        ("<html>hi</html>", "text/html", "Content-Type text/html, not JSON-RPC"),
        ("not json", "application/json", "is not JSON"),
        (
            '{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}',
            "application/json",
            "no protocolVersion, capabilities, serverInfo",
        ),
        ("", "application/json", "no JSON-RPC response to initialize"),
    ],
)
async def test_an_answer_that_is_not_an_initialize_result_is_malformed_at_mcp(
    listeners, body, content_type, says
):
    port = await listeners.http(replying(200, body, {"Content-Type": content_type}))
    url = f"http://127.0.0.1:{port}/mcp"

    result = await probe(prober_for(url), url, protocol="mcp")

    assert (result["failed_layer"], result["reason"]) == ("mcp", "malformed_response")
    assert says in " ".join(result["evidence"])


def sse(*events, hold=False):
    async def handler(request, writer):
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Mcp-Session-Id: abc123\r\n\r\n"
        )
        for event in events:
            writer.write(event.encode())
            await writer.drain()
        if hold:
            await asyncio.sleep(30)

    return handler


async def test_event_stream_answer_is_read_past_notifications_to_the_response(
    listeners,
):
    result_msg = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "orders-mcp", "version": "1.8.2"},
        },
    }
    deletes = []

    async def handler(request, writer):
        if request.method == "DELETE":
            deletes.append(request.headers.get("mcp-session-id"))
            return Response(204, "")
        return await sse(
            "id: 1\ndata:\n\n",  # priming event, no data
            ": keep-alive\n\n",
            'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}\n\n',
            f"event: message\r\ndata: {json.dumps(result_msg)}\r\n\r\n",
            hold=True,
        )(request, writer)

    port = await listeners.http(handler)
    url = f"http://127.0.0.1:{port}/mcp"

    result = await probe(prober_for(url), url, protocol="mcp")

    assert (result["failed_layer"], result["reason"]) == ("none", None)
    assert result["mcp"]["server_info"] == {"name": "orders-mcp", "version": "1.8.2"}
    assert result["mcp"]["session_deleted"] == 204
    assert deletes == ["abc123"]
    assert "abc123" not in json.dumps(result)  # the session id is not in the result


async def test_event_stream_without_a_response_times_out_at_mcp(listeners):
    port = await listeners.http(sse(": keep-alive\n\n", hold=True))
    url = f"http://127.0.0.1:{port}/mcp"

    result = await probe(prober_for(url), url, protocol="mcp")

    assert (result["failed_layer"], result["reason"]) == ("mcp", "timeout")


async def test_unknown_protocol_is_a_bad_argument():
    prober = prober_for("http://127.0.0.1:1/mcp")

    with pytest.raises(ValueError, match="protocol must be one of http, mcp"):
        await prober.probe("http://127.0.0.1:1/mcp", protocol="grpc")


async def test_list_targets_names_the_mcp_endpoints_and_probe_url_takes_protocol(
    listeners,
):
    port = await listeners.http(_jsonrpc_handler(-32603, "registry failed"))
    mcp_url = f"http://orders-mcp.tools.internal:{port}/mcp"
    args = build_parser().parse_args(
        [
            "--allow",
            "catalog.internal",
            "--allow-mcp",
            mcp_url,
            "--resolve",
            "orders-mcp.tools.internal=127.0.0.1",
        ]
    )
    server = build_server(prober_from_args(args))

    async with Client(server) as client, asyncio.timeout(10):
        targets = (await client.call_tool("list_targets", {})).structured_content
        result = await client.call_tool(
            "probe_url", {"url": mcp_url, "protocol": "mcp"}
        )
        tools = {t.name: t for t in (await client.list_tools()).tools}

    assert targets["allow"] == ["catalog.internal", mcp_url]
    assert targets["mcp_endpoints"] == [mcp_url]
    probed = result.structured_content
    assert (probed["failed_layer"], probed["reason"]) == ("mcp", "jsonrpc_error")
    assert probed["mcp"]["error_code"] == -32603
    protocol = tools["probe_url"].input_schema["properties"]["protocol"]
    assert protocol["enum"] == ["http", "mcp"]
    assert protocol["default"] == "http"


async def test_a_url_given_its_own_timeout_gets_it_unless_the_caller_gives_one(
    listeners,
):
    async def late(request, writer):
        await asyncio.sleep(0.6)
        return Response(200, "late")

    port = await listeners.http(late)
    url = f"http://slow.internal:{port}/report"
    args = build_parser().parse_args(
        [
            "--allow",
            f"slow.internal:{port}",
            "--resolve",
            "slow.internal=127.0.0.1",
            "--timeout-for",
            f"{url}=0.2",
        ]
    )
    server = build_server(prober_from_args(args))

    async with Client(server) as client, asyncio.timeout(10):
        targets = (await client.call_tool("list_targets", {})).structured_content
        own = (await client.call_tool("probe_url", {"url": url})).structured_content
        given = (
            await client.call_tool("probe_url", {"url": url, "timeout_s": 2})
        ).structured_content

    assert targets["target_timeouts_s"] == {url: 0.2}
    assert (own["failed_layer"], own["reason"]) == ("http", "timeout")
    assert given["failed_layer"] == "none"


async def test_a_target_timeout_also_holds_for_a_probe_of_its_bare_origin(listeners):
    async def late(request, writer):
        await asyncio.sleep(0.6)
        return Response(200, "late")

    port = await listeners.http(late)
    args = build_parser().parse_args(
        [
            "--allow",
            f"slow.internal:{port}",
            "--resolve",
            "slow.internal=127.0.0.1",
            "--timeout-for",
            f"http://slow.internal:{port}/report=0.2",
        ]
    )
    server = build_server(prober_from_args(args))

    async with Client(server) as client, asyncio.timeout(10):
        origin = (
            await client.call_tool("probe_url", {"url": f"http://slow.internal:{port}"})
        ).structured_content
        other_path = (
            await client.call_tool(
                "probe_url", {"url": f"http://slow.internal:{port}/other"}
            )
        ).structured_content

    assert (origin["failed_layer"], origin["reason"]) == ("http", "timeout")
    assert other_path["failed_layer"] == "none"  # another URL keeps the default


@pytest.mark.parametrize("spec", ["http://a.internal/x", "http://a.internal/=0", "x=1"])
def test_a_bad_timeout_for_is_refused_by_name(spec):
    args = build_parser().parse_args(["--allow", "a.internal", "--timeout-for", spec])
    with pytest.raises(ValueError, match="--timeout-for"):
        prober_from_args(args)
