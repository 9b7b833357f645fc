"""Streamable HTTP against a hand-written HTTP server on 127.0.0.1: statuses, SSE framing, sessions."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

import mcpclient
from mcpclient._transports import streamable_http

from .servers.scripted_http import (
    DROP,
    HOLD,
    Reply,
    Request,
    json_reply,
    scripted_server,
    sse_reply,
)

pytestmark = pytest.mark.anyio

FAST_RETRY = mcpclient.RetryPolicy(max_attempts=3, base=0.001, cap=0.01)
TOOLS = [
    {
        "name": "read",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    },
    {"name": "write", "inputSchema": {"type": "object"}},
]


def answer(request: Request, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request.json()["id"], "result": result}


def event(message: dict, *, event_id: str | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id else ""
    return (head + "event: message\ndata: " + json.dumps(message) + "\n\n").encode()


def handshake_server(
    on_call, *, session: str | None = "s1", version: str = "2025-11-25"
):
    """A legacy-era server: discover → 400, initialize → session, tools/list; tools/call → on_call."""

    async def handler(request: Request) -> Reply:
        if request.method == "DELETE":
            return Reply(200)
        body = request.json()
        method = body.get("method")
        if method == "server/discover":
            return Reply(
                400,
                {"content-type": "text/plain"},
                [b"Bad Request: Missing session ID"],
            )
        if method == "initialize":
            headers = {"mcp-session-id": session} if session else {}
            return json_reply(
                answer(
                    request,
                    {
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "scripted"},
                    },
                ),
                headers=headers,
            )
        if "id" not in body or method is None:
            return Reply(202)  # a notification, or our answer to a server request
        if method == "tools/list":
            return json_reply(answer(request, {"tools": TOOLS}))
        return await on_call(request)

    return handler


async def run_call(
    on_call, *, tool: str = "read", server_kwargs: dict | None = None, **connect_kwargs
):
    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url, **(server_kwargs or {})),
            retry=FAST_RETRY,
            **connect_kwargs,
        ) as client,
    ):
        await client.list_tools()
        return await client.call_tool(tool, {}, timeout=5), srv


def ok(request: Request, text: str = "ok") -> dict:
    return answer(request, {"content": [{"type": "text", "text": text}]})


async def test_an_sse_answer_split_across_chunks_with_comments_and_multiline_data():
    async def on_call(request: Request) -> Reply:
        payload = json.dumps(ok(request, "split"), indent=1).encode()  # multi-line JSON
        lines = b"".join(b"data: " + line + b"\r\n" for line in payload.split(b"\n"))
        stream = (
            b": keep-alive comment\r\n\r\nid: e1\r\ndata:\r\n\r\n"
            + b"event: message\r\n"
            + lines
            + b"\r\n"
        )
        progress = event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "x"},
            }
        )
        return sse_reply(
            progress, *[stream[i : i + 5] for i in range(0, len(stream), 5)]
        )

    result, _ = await run_call(on_call)
    assert result.text == "split"


async def test_several_messages_in_one_stream_are_all_delivered():
    async def on_call(request: Request) -> Reply:
        token = request.json()["params"]["_meta"]["progressToken"]
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": 1, "total": 2},
        }
        ping = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
        return sse_reply(event(note) + event(ping) + event(ok(request)) + event(note))

    async with scripted_server(handshake_server(on_call)) as srv:
        async with mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client:
            seen = []
            result = await client.call_tool(
                "read", {}, on_progress=lambda p, t, m: seen.append((p, t))
            )
            assert result.text == "ok"
            assert seen == [(1, 2)]
        # the server's ping was answered with a POST of an empty result
        assert any(
            r.method == "POST"
            and r.json().get("id") == 99
            and r.json().get("result") == {}
            for r in srv.requests
        )


async def test_the_session_id_comes_only_from_the_initialize_answer():
    async def on_call(request: Request) -> Reply:
        return json_reply(ok(request), headers={"mcp-session-id": "sneaky"})

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        await client.call_tool("read")
        await client.call_tool("read")
        assert client.transport.session_id == "s1"
    posts = [r for r in srv.requests if r.method == "POST"]
    assert "mcp-session-id" not in posts[1].headers  # the initialize itself
    assert all(r.headers["mcp-session-id"] == "s1" for r in posts[2:])
    assert srv.requests[-1].method == "DELETE"


@pytest.mark.parametrize("status", [401, 403])
async def test_401_and_403_are_authorization_errors_with_the_challenge(status):
    challenge = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="tools:read", error="insufficient_scope"'

    async def on_call(request: Request) -> Reply:
        return Reply(
            status,
            {"www-authenticate": challenge, "content-type": "text/plain"},
            [b"nope"],
        )

    with pytest.raises(mcpclient.AuthorizationError) as info:
        await run_call(on_call)
    assert info.value.status == status
    assert info.value.layer is mcpclient.Layer.AUTHORIZATION
    assert not info.value.retryable
    assert info.value.challenge["scheme"] == "Bearer"
    assert info.value.challenge["scope"] == "tools:read"
    assert info.value.challenge["resource_metadata"].endswith(
        "oauth-protected-resource"
    )


async def test_429_is_rate_limited_with_retry_after_and_retried_for_idempotent_tools():
    calls = []

    async def on_call(request: Request) -> Reply:
        calls.append(request)
        if len(calls) == 1:
            return Reply(429, {"retry-after": "0"}, [b"slow down"])
        return json_reply(ok(request))

    result, _ = await run_call(on_call)
    assert result.text == "ok" and len(calls) == 2
    assert (
        calls[0].json()["id"] != calls[1].json()["id"]
    )  # a re-issued request gets a new id


async def test_429_on_a_non_idempotent_tool_is_raised_with_retry_after():
    async def on_call(request: Request) -> Reply:
        return Reply(429, {"retry-after": "7"}, [b"slow down"])

    with pytest.raises(mcpclient.RateLimited) as info:
        await run_call(on_call, tool="write")
    assert info.value.retry_after == 7.0
    assert info.value.retryable and info.value.status == 429


async def test_a_retry_after_beyond_the_deadline_is_not_waited_for():
    async def on_call(request: Request) -> Reply:
        return Reply(429, {"retry-after": "60"}, [b"slow down"])

    with pytest.raises(mcpclient.RateLimited):
        await run_call(on_call)


async def test_502_is_retryable_and_gives_up_after_max_attempts():
    calls = []

    async def on_call(request: Request) -> Reply:
        calls.append(request)
        return Reply(502, {"content-type": "text/html"}, [b"<h1>Bad gateway</h1>"])

    with pytest.raises(mcpclient.HttpStatusError) as info:
        await run_call(on_call)
    assert (
        info.value.status == 502 and info.value.retryable and info.value.outcome_unknown
    )
    assert b"Bad gateway" in info.value.body
    assert len(calls) == 3


async def test_500_is_not_retried():
    calls = []

    async def on_call(request: Request) -> Reply:
        calls.append(request)
        return Reply(500, {}, [b"oops"])

    with pytest.raises(mcpclient.HttpStatusError) as info:
        await run_call(on_call)
    assert not info.value.retryable and len(calls) == 1


async def test_404_without_a_session_is_a_plain_status_error():
    async def handler(request: Request) -> Reply:
        return Reply(404, {}, [b"no such endpoint"])

    async with scripted_server(handler) as srv:
        with pytest.raises(mcpclient.HttpStatusError) as info:
            async with mcpclient.connect(mcpclient.HttpServer(url=srv.url)):
                pass
    assert info.value.status == 404 and not isinstance(
        info.value, mcpclient.SessionExpired
    )


async def test_404_on_the_session_reinitializes_once_then_retries():
    state = {"session_dead": True}

    async def on_call(request: Request) -> Reply:
        if state["session_dead"]:
            state["session_dead"] = False
            return Reply(404, {}, [b"session not found"])
        return json_reply(ok(request))

    result, srv = await run_call(on_call)
    assert result.text == "ok"
    assert (
        sum(
            1
            for r in srv.requests
            if r.method == "POST" and r.json().get("method") == "initialize"
        )
        == 2
    )


async def test_a_jsonrpc_error_body_on_a_400_is_a_jsonrpc_error():
    async def on_call(request: Request) -> Reply:
        return json_reply(
            {
                "jsonrpc": "2.0",
                "id": request.json()["id"],
                "error": {"code": -32602, "message": "bad params"},
            },
            status=400,
        )

    with pytest.raises(mcpclient.JsonRpcError) as info:
        await run_call(on_call)
    assert info.value.code == -32602 and info.value.http_status == 400


async def test_a_50_mib_json_result_is_refused_without_buffering_it():
    async def on_call(request: Request) -> Reply:
        chunk = b"x" * (1024 * 1024)
        head = json.dumps(ok(request, ""))[:-4].encode()
        return Reply(
            200, {"content-type": "application/json"}, [head, *([chunk] * 50), b'"}]}}']
        )

    with pytest.raises(mcpclient.MessageTooLarge) as info:
        await run_call(on_call)
    assert info.value.limit == 4 * 1024 * 1024


async def test_a_huge_sse_event_is_refused():
    async def on_call(request: Request) -> Reply:
        return sse_reply(b"event: message\ndata: " + b"x" * 100_000 + b"\n\n")

    with pytest.raises(mcpclient.MessageTooLarge):
        await run_call(on_call, server_kwargs={"max_message_size": 50_000})


async def test_a_declared_content_length_over_the_limit_is_refused_before_reading():
    async def on_call(request: Request) -> Reply:
        return Reply(
            200,
            {"content-type": "application/json", "content-length": str(10**9)},
            [b"{"],
        )

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        with pytest.raises(mcpclient.MessageTooLarge):
            await client.call_tool("write")


async def test_an_unexpected_content_type_is_malformed():
    async def on_call(request: Request) -> Reply:
        return Reply(200, {"content-type": "text/html"}, [b"<html></html>"])

    with pytest.raises(mcpclient.MalformedMessage):
        await run_call(on_call, tool="write")


async def test_a_batch_answer_of_a_2025_03_26_server_is_unpacked():
    async def on_call(request: Request) -> Reply:
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
        return Reply(
            200,
            {"content-type": "application/json"},
            [json.dumps([note, ok(request, "batch")]).encode()],
        )

    result, _ = await run_call(on_call)
    assert result.text == "batch"


async def test_a_cut_sse_stream_without_event_ids_loses_the_call():
    async def on_call(request: Request) -> Reply:
        return sse_reply(b'event: message\ndata: {"jsonrpc"', DROP)

    with pytest.raises(mcpclient.ConnectionLost) as info:
        await run_call(on_call, tool="write")
    assert info.value.outcome_unknown


async def test_a_cut_sse_stream_with_event_ids_is_resumed_with_last_event_id():
    async def handler(request: Request) -> Reply:
        if request.method == "GET":
            assert request.headers["last-event-id"] == "ev-1"
            assert request.headers["mcp-session-id"] == "s1"
            return sse_reply(
                event(
                    ok({"id": 3} and request_for_resume[0], "resumed"), event_id="ev-2"
                )
            )
        return await inner(request)

    request_for_resume: list = []

    async def on_call(request: Request) -> Reply:
        request_for_resume.append(request)
        return sse_reply(b"id: ev-1\nretry: 1\ndata:\n\n", DROP)

    inner = handshake_server(on_call)
    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        assert (await client.call_tool("write")).text == "resumed"


async def test_modern_era_headers_for_tools_with_x_mcp_header_and_non_ascii_names():
    tools = [
        {
            "name": "région",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "n": {"type": "integer", "x-mcp-header": "N"},
                },
            },
        },
        {
            "name": "bad",
            "inputSchema": {
                "type": "object",
                "properties": {"x": {"type": "number", "x-mcp-header": "X"}},
            },
        },
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
        return json_reply(ok(request))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        assert client.is_modern and client.server_info == {"name": "modern"}
        assert [t.name for t in await client.list_tools()] == [
            "région"
        ]  # "bad" is dropped (MUST)
        await client.call_tool("région", {"region": "eu west", "n": 3})
        await client.call_tool("région", {"region": " padded"})
    call = srv.requests[-2]
    assert call.headers["mcp-method"] == "tools/call"
    assert call.headers["mcp-name"] == "=?base64?csOpZ2lvbg==?="
    assert call.headers["mcp-param-region"] == "eu west"
    assert call.headers["mcp-param-n"] == "3"
    assert srv.requests[-1].headers["mcp-param-region"].startswith("=?base64?")
    assert "mcp-param-n" not in srv.requests[-1].headers
    assert all(
        r.method == "POST" for r in srv.requests
    )  # no GET stream, no DELETE in 2026-07-28


async def test_every_httpx_transport_error_is_mapped_with_the_right_sent_semantics():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    never_sent = (
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
        httpx.UnsupportedProtocol,
        httpx.ProxyError,
        httpx.LocalProtocolError,
    )
    seen = set()
    for cls in [
        httpx.TransportError,
        *subclasses(httpx.TransportError),
        httpx.DecodingError,
        httpx.TooManyRedirects,
    ]:
        seen.add(cls)
        with (
            pytest.raises(mcpclient.McpError) as info,
            mcpclient.map_httpx_errors(name="srv"),
        ):
            raise cls("boom")
        assert isinstance(info.value.__cause__, cls)
        if issubclass(cls, never_sent):
            assert isinstance(info.value, mcpclient.ConnectError), cls
            assert not info.value.outcome_unknown
        elif issubclass(cls, httpx.TimeoutException):
            assert isinstance(info.value, mcpclient.ResponseTimeout), cls
        elif cls is httpx.DecodingError:
            assert isinstance(info.value, mcpclient.MalformedMessage)
        else:
            assert isinstance(info.value, mcpclient.ConnectionLost), cls
            assert info.value.outcome_unknown
    assert {
        httpx.ReadError,
        httpx.WriteError,
        httpx.RemoteProtocolError,
        httpx.ReadTimeout,
    } <= seen


def test_retry_after_parses_seconds_and_http_dates():
    import email.utils
    import time

    from mcpclient._transports.streamable_http import parse_retry_after

    assert parse_retry_after(None) is None
    assert parse_retry_after(" 12 ") == 12.0
    assert parse_retry_after("soon") is None
    future = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 95 <= parse_retry_after(future) <= 101
    assert parse_retry_after(email.utils.formatdate(0, usegmt=True)) == 0.0


async def test_a_resumption_that_is_refused_or_also_cut_loses_the_call():
    calls = {"get": 0}

    async def on_call(request: Request) -> Reply:
        return sse_reply(b"id: ev-1\ndata:\n\n", DROP)

    inner = handshake_server(on_call)

    async def handler(request: Request) -> Reply:
        if request.method == "GET":
            calls["get"] += 1
            if calls["get"] == 1:
                return sse_reply(b"id: ev-2\nretry: 1\ndata:\n\n", DROP)  # cut again
            return Reply(405, {}, [b"no GET here"])
        return await inner(request)

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        with pytest.raises(mcpclient.ConnectionLost) as info:
            await client.call_tool("write")
        # The POST was delivered: a refused resumption leaves the outcome unknown, whatever the GET got.
        assert info.value.outcome_unknown
        assert isinstance(info.value.__cause__, mcpclient.HttpStatusError)
        assert info.value.__cause__.status == 405
    assert calls["get"] == 2


async def test_resumption_gives_up_after_the_configured_attempts():
    async def on_call(request: Request) -> Reply:
        return sse_reply(b"id: ev-1\ndata:\n\n", DROP)

    inner = handshake_server(on_call)

    async def handler(request: Request) -> Reply:
        if request.method == "GET":
            return sse_reply(b": nothing\n\n")  # ends cleanly without the answer
        return await inner(request)

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url, resume_attempts=2)
        ) as client,
    ):
        with pytest.raises(mcpclient.ConnectionLost, match="after resuming"):
            await client.call_tool("write")


async def test_a_jsonrpc_error_body_for_another_request_is_a_status_error():
    async def on_call(request: Request) -> Reply:
        return json_reply(
            {"jsonrpc": "2.0", "id": 12345, "error": {"code": -32600, "message": "x"}},
            status=400,
        )

    with pytest.raises(mcpclient.HttpStatusError) as info:
        await run_call(on_call, tool="write")
    assert info.value.status == 400 and not isinstance(
        info.value, mcpclient.JsonRpcError
    )


async def test_a_broken_json_error_body_is_a_status_error():
    async def on_call(request: Request) -> Reply:
        return Reply(400, {"content-type": "application/json"}, [b"{broken"])

    with pytest.raises(mcpclient.HttpStatusError):
        await run_call(on_call, tool="write")


async def test_close_survives_a_server_that_is_gone():
    async def on_call(request: Request) -> Reply:
        return json_reply(ok(request))

    srv_cm = scripted_server(handshake_server(on_call))
    srv = await srv_cm.__aenter__()
    async with mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client:
        await client.call_tool("read")
        await srv_cm.__aexit__(
            None, None, None
        )  # the DELETE on close now fails to connect
    assert client.transport.session_id is None


async def test_a_header_mismatch_relists_the_tools_and_retries_once():
    versions = {"schema": {"type": "object", "properties": {}}}
    rejected = []

    async def handler(request: Request) -> Reply:
        body = request.json()
        if body["method"] == "server/discover":
            return json_reply(
                answer(
                    request,
                    {
                        "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}},
                    },
                )
            )
        if body["method"] == "tools/list":
            return json_reply(
                answer(
                    request,
                    {"tools": [{"name": "t", "inputSchema": versions["schema"]}]},
                )
            )
        if "mcp-param-region" not in request.headers:
            rejected.append(request)
            if versions.get("learn", True):
                versions["schema"] = {
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"}
                    },
                }
            error = {"code": -32020, "message": "Mcp-Param-Region missing"}
            return json_reply(
                {"jsonrpc": "2.0", "id": body["id"], "error": error}, status=400
            )
        return json_reply(ok(request, request.headers["mcp-param-region"]))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        await client.list_tools()
        assert (await client.call_tool("t", {"region": "eu"})).text == "eu"
        assert len(rejected) == 1
        versions.update(schema={"type": "object"}, learn=False)
        await (
            client.list_tools()
        )  # the annotation is gone: no Mcp-Param header any more
        rejected.clear()
        with pytest.raises(mcpclient.JsonRpcError) as info:
            await client.call_tool(
                "t", {"region": "eu"}
            )  # still rejected after one re-list: raised
        assert info.value.code == -32020 and len(rejected) == 2


async def test_concurrent_calls_that_all_see_404_reinitialize_only_once():
    sessions = iter(["s1", "s2", "s3"])

    async def handler(request: Request) -> Reply:
        if request.method == "DELETE":
            return Reply(200)
        body = request.json()
        if body.get("method") == "server/discover":
            return Reply(400, {}, [b"legacy only"])
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {},
            }
            return json_reply(
                answer(request, result), headers={"mcp-session-id": next(sessions)}
            )
        if "id" not in body or "method" not in body:
            return Reply(202)
        if request.headers.get("mcp-session-id") == "s1":
            return Reply(404, {}, [b"session not found"])
        if body["method"] == "tools/list":
            return json_reply(answer(request, {"tools": TOOLS}))
        return json_reply(ok(request))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        first = asyncio.create_task(client.call_tool("read", idempotent=True))
        second = asyncio.create_task(client.call_tool("read", idempotent=True))
        assert [r.text for r in await asyncio.gather(first, second)] == ["ok", "ok"]
        assert client.transport.session_id == "s2"
    initializes = [
        r
        for r in srv.requests
        if r.method == "POST" and r.json().get("method") == "initialize"
    ]
    assert len(initializes) == 2  # the first handshake and exactly one re-initialize


async def test_an_answered_stream_is_read_to_its_end_so_the_connection_is_reused():
    async def on_call(request: Request) -> Reply:
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"after": True},
        }
        return sse_reply(event(ok(request)), event(note))

    connections = []

    async def record(request):
        connections.append(request)

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        for _ in range(5):
            await client.call_tool("read")
        # The end of each answered stream is read after the call returned, off the caller's path.
        await asyncio.gather(*client.transport._draining)
        assert client.notifications[-1]["params"] == {
            "after": True
        }  # delivered while draining
        pool = client.transport._client._transport._pool
        # Reused, not one per call: a sequential caller alternates between (at most) two, since
        # its next call starts while the last stream is still being drained.
        assert len(pool.connections) <= 2 and client.transport._drain_streams
        assert all(c.is_idle() for c in pool.connections)


async def test_past_the_drain_limit_an_answered_stream_is_drained_before_the_call_returns(
    monkeypatch,
):
    monkeypatch.setattr(streamable_http, "_MAX_DRAINING", 0)

    async def on_call(request: Request) -> Reply:
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
        return sse_reply(event(ok(request)), event(note))

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        for _ in range(3):
            await client.call_tool("read")
            assert not client.transport._draining
            assert client.notifications[-1]["method"] == "notifications/message"
        pool = client.transport._client._transport._pool
        assert len(pool.connections) == 1  # each stream ended before the next call


async def test_a_server_that_keeps_answered_streams_open_is_not_waited_for_again():
    async def on_call(request: Request) -> Reply:
        return sse_reply(event(ok(request)), HOLD)

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        assert (await client.call_tool("read")).text == "ok"
        await asyncio.gather(
            *client.transport._draining
        )  # it gave up after _DRAIN_TIMEOUT
        assert not client.transport._drain_streams
        assert (await client.call_tool("read")).text == "ok"
        assert not client.transport._draining
