"""mcpclient against servers it does not control: what a server sends is untrusted input (seed 000 §7.1).

Each test is one defect class of the hostile-server issue: schemas that try to reach the network or
the disk, secrets leaking into stdio children, wrongly typed fields, oversized error bodies, header
tokens, bursts of server requests, resumption, and deadlines that must cover a whole operation.
"""

from __future__ import annotations

import asyncio
import datetime
import http.server
import json
import os
import ssl
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import mcpclient
from mcpclient import _schema
from mcpclient._sse import SseParser

from .servers.scripted_http import (
    DROP,
    Reply,
    Request,
    json_reply,
    scripted_server,
    sse_reply,
)
from .test_session import session, text
from .test_transport_streamable_http import FAST_RETRY, answer, handshake_server
from .test_transport_streamable_http import ok as http_ok

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.anyio

HOSTILE = Path(__file__).parent / "servers" / "hostile_stdio.py"


def hostile(mode: str, **kwargs: Any) -> mcpclient.StdioServer:
    return mcpclient.StdioServer(
        command=[sys.executable, str(HOSTILE), mode], name=f"hostile-{mode}", **kwargs
    )


# -- 1. a schema never reaches the network or the disk --------------------------------------------


class _Canary(http.server.BaseHTTPRequestHandler):
    """Serves a schema that every argument of the tests below would fail, and counts requests."""

    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = json.dumps({"type": "string", "maxLength": 0}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/schema+json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def canary() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_Canary,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _ref_tool(base: str, file_uri: str) -> dict:
    """Every way a schema can point outside itself: $ref, $id + relative ref, $dynamicRef, file://."""
    return {
        "name": "refs",
        "inputSchema": {
            "type": "object",
            "properties": {
                "remote": {"$ref": f"{base}/remote.json"},
                "relative": {
                    "$id": f"{base}/dir/base.json",
                    "properties": {"inner": {"$ref": "sibling.json"}},
                },
                "dynamic": {"$dynamicRef": f"{base}/dynamic.json#meta"},
                "local_file": {"$ref": file_uri},
                "same_doc": {"$ref": "#/$defs/count"},
                "by_urn": {"$ref": "urn:example:flag"},
            },
            "required": ["remote", "relative", "dynamic", "local_file", "same_doc"],
            "$defs": {
                "count": {"type": "integer"},
                "flag": {"$id": "urn:example:flag", "type": "boolean"},
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "answer": {"$ref": f"{base}/output.json"},
                "n": {"type": "integer"},
            },
            "required": ["answer", "n"],
        },
    }


def _ref_handler(tool: dict, structured: dict):
    def handler(end, message):
        if message["method"] == "tools/list":
            end.send(
                {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [tool]}}
            )
        else:
            end.send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "result": {
                        "content": [{"type": "text", "text": "ok"}],
                        "structuredContent": structured,
                    },
                }
            )

    return handler


ALL_ARGUMENTS = {
    "remote": 1,
    "relative": {"inner": 2},
    "dynamic": 3,
    "local_file": 4,
    "same_doc": 5,
    "by_urn": True,
}


async def test_refs_to_http_and_file_are_never_fetched_for_input_or_output_schemas(
    canary, tmp_path
):
    base, hits = canary
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps({"type": "string", "maxLength": 0}))
    tool = _ref_tool(base, schema_file.as_uri())
    async with session(_ref_handler(tool, {"answer": 42, "n": 1})) as (client, _):
        (listed,) = await client.list_tools()
        # Were any ref fetched, every argument (integers) would fail its "string, maxLength 0".
        result = await client.call_tool("refs", dict(ALL_ARGUMENTS), timeout=5)
        assert result.structured_content == {"answer": 42, "n": 1}
    assert hits == []
    not_enforced = " ".join(listed.schema_warnings)
    for ref in (
        f"{base}/remote.json",
        "sibling.json",
        f"{base}/dynamic.json#meta",
        schema_file.as_uri(),
        f"{base}/output.json",
    ):
        assert ref in not_enforced
    assert (
        "#/$defs/count" not in not_enforced and "urn:example:flag" not in not_enforced
    )


async def test_what_can_be_validated_still_is_around_an_unresolvable_ref(
    canary, tmp_path
):
    base, hits = canary
    tool = _ref_tool(base, (tmp_path / "absent.json").as_uri())
    async with session(_ref_handler(tool, {"answer": "x", "n": "not an int"})) as (
        client,
        _,
    ):
        await client.list_tools()
        # Same-document and urn: refs are still enforced ...
        for wrong in ({"same_doc": "five"}, {"by_urn": "yes"}):
            with pytest.raises(mcpclient.ToolValidationError):
                await client.call_tool("refs", {**ALL_ARGUMENTS, **wrong})
        # ... and so are "required" and every keyword beside the dropped refs.
        with pytest.raises(mcpclient.ToolValidationError, match="remote"):
            await client.call_tool(
                "refs", {k: v for k, v in ALL_ARGUMENTS.items() if k != "remote"}
            )
        with pytest.raises(mcpclient.OutputSchemaMismatch, match="n"):
            await client.call_tool("refs", dict(ALL_ARGUMENTS))
    assert hits == []


def test_a_schema_that_cannot_be_applied_fails_closed():
    validator = _schema.Validator({"properties": {"a": {"$ref": "#"}}, "$ref": "#"})
    assert validator.errors({"a": "x"})[0].startswith("<schema>: cannot be applied")


def test_a_property_named_like_a_keyword_is_still_a_schema():
    validator = _schema.Validator(
        {
            "properties": {
                "default": {"$ref": "http://127.0.0.1:9/x.json"},
                "enum": {"type": "integer"},
            }
        }
    )
    assert validator.warnings and "127.0.0.1:9" in validator.warnings[0]
    assert validator.errors({"default": 1, "enum": 2}) == []
    assert validator.errors({"enum": "two"})


def test_an_invalid_schema_is_reported_not_silently_ignored():
    assert _schema.validator_for({"type": 12}, "invalid-for-warning") is None
    assert "not a valid JSON Schema" in _schema.warnings_for("invalid-for-warning")[0]


# -- 2. a stdio server gets a minimal environment -------------------------------------------------


async def _child_env(server: mcpclient.StdioServer) -> dict[str, str]:
    async with mcpclient.connect(server, timeout=10) as client:
        return json.loads((await client.call_tool("env", timeout=10)).text)


async def test_a_stdio_server_does_not_inherit_secrets(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://app:hunter2@db/app")
    monkeypatch.setenv("SECRET_KEY", "django-insecure-abcdef")
    monkeypatch.setenv("SHELL", "() { :; }; echo pwned")  # a shell function: skipped
    env = await _child_env(hostile("env", env={"LOGS_DIR": "/srv/logs"}))
    assert "DATABASE_URL" not in env and "SECRET_KEY" not in env
    assert "SHELL" not in env
    assert env["LOGS_DIR"] == "/srv/logs"
    assert env["PATH"] == os.environ["PATH"]
    assert set(env) - {"LOGS_DIR"} <= set(mcpclient.DEFAULT_INHERITED_ENV) | {
        # The child's own interpreter may add these at start-up.
        "LC_CTYPE",
        "PYTHONCOERCECLOCALE",
    }


async def test_inheriting_the_whole_environment_is_an_explicit_opt_in(monkeypatch):
    monkeypatch.setenv("MCP_TEST_TOKEN", "t0ken")
    assert "MCP_TEST_TOKEN" not in await _child_env(hostile("env"))
    assert (await _child_env(hostile("env", inherit_env=True)))["MCP_TEST_TOKEN"] == (
        "t0ken"
    )


# -- 3. wrongly typed fields get a typed error, never a crash or a hang ---------------------------


async def test_ids_of_the_wrong_type_answer_nothing_and_the_valid_answer_in_the_same_read_lands():
    async with mcpclient.connect(hostile("bad-ids"), timeout=10) as client:
        result = await client.call_tool("x", timeout=10)
        assert result.text == "right"
        assert client.unknown_responses == 4


async def test_a_message_nested_too_deep_is_a_malformed_message_on_stdio():
    async with mcpclient.connect(hostile("deep"), timeout=10) as client:
        with pytest.raises(mcpclient.MalformedMessage, match="nested deeper"):
            await client.call_tool("x", timeout=10)


async def test_float_and_bool_ids_do_not_answer_int_requests_in_a_session():
    def handler(end, message):
        rid = message["id"]
        end.send(text({"jsonrpc": "2.0", "id": float(rid)}, "float"))
        end.send(text({"jsonrpc": "2.0", "id": True}, "true"))
        end.send(text({"jsonrpc": "2.0", "id": [rid]}, "list"))
        end.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": "x"})
        end.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": [rid], "progress": 1},
            }
        )
        end.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": rid, "progress": "half", "total": []},
            }
        )
        end.send(text(message, "right"))

    seen: list[tuple] = []
    async with session(handler) as (client, _):
        result = await client.call_tool(
            "x", timeout=5, on_progress=lambda *args: seen.append(args)
        )
        assert result.text == "right"
        assert client.unknown_responses == 3
    assert seen == []  # malformed progress is dropped, not passed to the callback


async def test_a_json_answer_carrying_another_id_fails_the_call_at_once():
    async def on_call(request: Request) -> Reply:
        wrong = request.json()["id"] + 1000
        return json_reply({"jsonrpc": "2.0", "id": wrong, "result": {"content": []}})

    async with asyncio.timeout(20):  # waiting out the 60 s deadline would fail here
        with pytest.raises(mcpclient.MalformedMessage, match="carries the id"):
            await _call_over_http(on_call, timeout=60)


async def test_a_json_answer_with_a_float_id_does_not_answer_the_request():
    async def on_call(request: Request) -> Reply:
        rid = request.json()["id"]
        return json_reply(
            {"jsonrpc": "2.0", "id": float(rid), "result": {"content": []}}
        )

    async with asyncio.timeout(20):
        with pytest.raises(mcpclient.MalformedMessage):
            await _call_over_http(on_call, timeout=60)


async def test_a_json_answer_nested_too_deep_is_malformed_over_http():
    async def on_call(request: Request) -> Reply:
        rid = request.json()["id"]
        body = b'{"jsonrpc":"2.0","id":%d,"result":{"x":%s%s}}' % (
            rid,
            b"[" * 2000,
            b"]" * 2000,
        )
        return Reply(200, {"content-type": "application/json"}, [body])

    with pytest.raises(mcpclient.MalformedMessage):
        await _call_over_http(on_call)


def test_an_error_whose_code_is_a_bool_is_malformed():
    from mcpclient import _jsonrpc

    error = _jsonrpc.error_from(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "x"}}
    )
    assert isinstance(error, mcpclient.MalformedMessage)


async def _call_over_http(on_call, *, timeout: float = 5, **connect_kwargs):
    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url), retry=FAST_RETRY, **connect_kwargs
        ) as client,
    ):
        await client.list_tools()
        return await client.call_tool("write", {}, timeout=timeout), srv, client


async def test_the_legacy_sse_reader_survives_wrongly_typed_fields():
    from .test_legacy_sse import legacy_handler

    def message(value: dict) -> bytes:
        return b"event: message\ndata: " + json.dumps(value).encode() + b"\n\n"

    stream_after = [
        message({"jsonrpc": "2.0", "id": [2], "result": {}}),
        message({"jsonrpc": "2.0", "method": "notifications/progress", "params": 7}),
    ]
    async with (
        scripted_server(legacy_handler(stream_after=stream_after)) as srv,
        mcpclient.connect(mcpclient.LegacySseServer(url=srv.url), timeout=5) as client,
    ):
        with pytest.raises(mcpclient.ResponseTimeout):
            await client.call_tool(
                "work", timeout=0.5
            )  # the reader is alive: no answer yet
        assert client.unknown_responses == 1
        # Still connected: a request goes out and the stream is still read.
        with pytest.raises(mcpclient.ResponseTimeout):
            await client.call_tool("work", timeout=0.2)


# -- 4. an error body over the bound is read up to the bound --------------------------------------

BIG = b"<html>" + b"x" * (2 * 1024 * 1024) + b"</html>"


async def test_a_502_with_a_huge_body_stays_a_retryable_status_error():
    async def on_call(request: Request) -> Reply:
        return Reply(502, {"content-type": "text/html"}, [BIG])

    with pytest.raises(mcpclient.HttpStatusError) as info:
        await _call_over_http(on_call)
    assert info.value.status == 502 and info.value.retryable
    assert len(info.value.body) <= 64 * 1024


async def test_a_401_with_a_huge_body_stays_an_authorization_error():
    async def on_call(request: Request) -> Reply:
        return Reply(401, {"www-authenticate": 'Bearer realm="x"'}, [BIG])

    with pytest.raises(mcpclient.AuthorizationError):
        await _call_over_http(on_call)


async def test_a_404_with_a_huge_body_on_our_session_still_reinitializes():
    calls = {"n": 0}

    async def on_call(request: Request) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(404, {"content-type": "text/html"}, [BIG])
        return json_reply(http_ok(request, "after re-init"))

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url), retry=FAST_RETRY
        ) as client,
    ):
        await client.list_tools()
        result = await client.call_tool("read", {}, timeout=5)
        assert result.text == "after re-init"
    assert [r.json()["method"] for r in srv.requests if r.method == "POST"].count(
        "initialize"
    ) == 2


def _legacy_posts_answered(reply: Reply):
    """A 2024-11-05 server: the event stream announces /m and stays open; every POST gets ``reply``."""

    async def handler(request: Request) -> Reply:
        if request.method == "GET":

            async def held_open():
                yield b"event: endpoint\ndata: /m\n\n"
                await asyncio.Event().wait()

            return Reply(200, {"content-type": "text/event-stream"}, held_open())  # type: ignore[arg-type]
        return reply

    return handler


async def test_a_legacy_post_answer_is_bounded_like_everything_else():
    async with scripted_server(
        _legacy_posts_answered(
            Reply(202, {"content-type": "text/plain"}, [b"y" * 100_000])
        )
    ) as srv:
        with pytest.raises(mcpclient.MessageTooLarge):
            async with mcpclient.connect(
                mcpclient.LegacySseServer(url=srv.url, max_message_size=10_000)
            ):
                pass


async def test_a_legacy_error_answer_with_a_huge_body_keeps_its_status():
    async with scripted_server(_legacy_posts_answered(Reply(403, {}, [BIG]))) as srv:
        with pytest.raises(mcpclient.AuthorizationError):
            async with mcpclient.connect(mcpclient.LegacySseServer(url=srv.url)):
                pass


# -- 5. header tokens and local header errors -----------------------------------------------------


@pytest.mark.parametrize("token", ["Region\n", "Region\r\n", "Re gion", "Région", ""])
def test_an_x_mcp_header_token_that_is_not_exactly_a_token_is_refused(token):
    schema = {
        "type": "object",
        "properties": {"r": {"type": "string", "x-mcp-header": token}},
    }
    assert isinstance(_schema.x_mcp_headers(schema), str)


async def test_a_tool_whose_header_token_ends_in_a_newline_is_dropped_in_2026():
    tools = [
        {
            "name": "bad",
            "inputSchema": {
                "type": "object",
                "properties": {"r": {"type": "string", "x-mcp-header": "Region\n"}},
            },
        },
        {"name": "good", "inputSchema": {"type": "object"}},
    ]

    def handler(end, message):
        end.send({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": tools}})

    async with session(handler, modern=True) as (client, _):
        assert [t.name for t in await client.list_tools()] == ["good"]


async def test_a_header_httpx_refuses_to_send_never_opens_the_circuit_breaker():
    async def on_call(request: Request) -> Reply:
        raise AssertionError("nothing should be sent")

    breaker = mcpclient.CircuitBreaker(failure_threshold=2)
    async with scripted_server(handshake_server(on_call)) as srv:
        server = mcpclient.HttpServer(url=srv.url, headers={"x-region": "eu\r\nx: y"})
        with pytest.raises(mcpclient.ConnectError) as info:
            async with mcpclient.connect(server, breaker=breaker, retry=FAST_RETRY):
                pass
    assert info.value.local and not info.value.retryable
    assert breaker.state == "closed" and breaker.failures == 0
    assert srv.requests == []


# -- 6. a burst of server-to-client requests is bounded -------------------------------------------


def _burst(request: Request, count: int) -> bytes:
    events = b"".join(
        b"event: message\ndata: "
        + json.dumps({"jsonrpc": "2.0", "id": f"s{i}", "method": "ping"}).encode()
        + b"\n\n"
        for i in range(count)
    )
    return (
        events
        + b"event: message\ndata: "
        + json.dumps(http_ok(request)).encode()
        + b"\n\n"
    )


async def test_a_burst_of_server_requests_is_answered_in_order_up_to_the_bound():
    async def on_call(request: Request) -> Reply:
        return sse_reply(_burst(request, 100))  # one chunk: all 100 arrive together

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url), max_server_requests=8
        ) as client,
    ):
        await client.list_tools()
        await client.call_tool("read", {}, timeout=5)
        async with asyncio.timeout(5):
            while sum(1 for r in srv.requests if r.body and "result" in r.json()) < 8:
                await asyncio.sleep(0.01)
        assert client.refused_server_requests == 92
    answered = [r.json()["id"] for r in srv.requests if r.body and "result" in r.json()]
    assert answered == [f"s{i}" for i in range(8)]


async def test_no_response_is_posted_over_2026_07_28_http():
    async def handler(request: Request) -> Reply:
        body = request.json()
        if body.get("method") == "server/discover":
            return json_reply(
                answer(
                    request,
                    {
                        "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}},
                    },
                )
            )
        if body.get("method") == "tools/list":
            return json_reply(answer(request, {"tools": []}))
        if "method" not in body:
            raise AssertionError("a response was POSTed")
        return sse_reply(_burst(request, 3))

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(
            mcpclient.HttpServer(url=srv.url), protocol_version="2026-07-28"
        ) as client,
    ):
        await client.call_tool("read", {}, timeout=5)
        assert client.refused_server_requests == 3
    assert all("method" in r.json() for r in srv.requests)


# -- 7. SSE resumption and session ids ------------------------------------------------------------


@pytest.mark.parametrize(
    "event_id", ["évé-1".encode(), b"ev\x01-1", b"ev\x7f", b"e" * 2000]
)
async def test_an_event_id_that_is_not_header_safe_is_never_echoed(event_id):
    async def on_call(request: Request) -> Reply:
        return sse_reply(b"id: " + event_id + b"\ndata:\n\n", DROP)

    async with scripted_server(handshake_server(on_call)) as srv:
        with pytest.raises(mcpclient.ConnectionLost) as info:
            async with mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client:
                await client.call_tool("write", {}, timeout=5)
    assert info.value.outcome_unknown
    assert not [r for r in srv.requests if r.method == "GET"]


async def test_a_resumption_refused_with_503_leaves_the_outcome_unknown():
    async def on_call(request: Request) -> Reply:
        return sse_reply(b"id: ev-1\ndata:\n\n", DROP)

    inner = handshake_server(on_call)

    async def handler(request: Request) -> Reply:
        if request.method == "GET":
            return Reply(503, {}, [b"busy"])
        return await inner(request)

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        with pytest.raises(mcpclient.ConnectionLost) as info:
            await client.call_tool("write", {}, timeout=5)
    # Not "503, retry": the POST was delivered and a non-idempotent write must not be re-sent.
    assert info.value.outcome_unknown
    assert [r.json()["method"] for r in srv.requests if r.method == "POST"].count(
        "tools/call"
    ) == 1


@pytest.mark.parametrize("session_id", ["s" * 1025, "has space", "tab\there", "é"])
async def test_a_session_id_that_is_too_long_or_not_visible_ascii_is_an_error(
    session_id,
):
    async def on_call(request: Request) -> Reply:
        return json_reply(http_ok(request))

    async with scripted_server(
        handshake_server(on_call, session=session_id.encode("utf-8").decode("latin-1"))
    ) as srv:
        with pytest.raises(mcpclient.MalformedMessage, match="Mcp-Session-Id"):
            async with mcpclient.connect(
                mcpclient.HttpServer(url=srv.url), protocol_version="2025-11-25"
            ):
                pass


def test_the_sse_parser_is_linear_in_a_line_that_arrives_in_small_chunks():
    # 1 MB in 1-byte chunks: a parser that re-joins and re-scans its buffer on every chunk does
    # ~1e12 byte operations (minutes); this one touches each byte a few times (a second or two).
    payload = b"data: " + b"x" * 1_000_000 + b"\n\n"
    events: list = []
    done = threading.Event()

    def run() -> None:
        parser = SseParser(2_000_000)
        for i in range(len(payload)):
            events.extend(parser.feed(payload[i : i + 1]))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(60), "feeding a long line byte by byte is not linear"
    assert len(events) == 1 and len(events[0].data) == 1_000_000


@pytest.mark.parametrize("split", [1, 2, 3, 7, 64])
def test_the_sse_parser_gives_the_same_events_however_the_bytes_are_split(split):
    stream = (
        b": comment\r\nid: 1\r\nevent: message\r\ndata: a\r\ndata: b\r\n\r\n"
        b"data: c\rid: 2\r\r"
        b"retry: 5\ndata: d\n\n"
    )
    whole = SseParser(10_000).feed(stream)
    parser = SseParser(10_000)
    pieces: list = []
    for i in range(0, len(stream), split):
        pieces.extend(parser.feed(stream[i : i + split]))
    assert pieces == whole
    assert [e.data for e in whole] == ["a\nb", "c", "d"]
    assert parser.last_event_id == "2" and parser.retry_ms == 5


# -- 8. a deadline covers the whole operation -----------------------------------------------------


async def test_a_list_timeout_covers_every_page():
    async def on_call(request: Request) -> Reply:
        raise AssertionError("no call expected")

    inner = handshake_server(on_call)

    async def handler(request: Request) -> Reply:
        body = request.json() if request.body else {}
        if body.get("method") != "tools/list":
            return await inner(request)
        await asyncio.sleep(0.05)
        page = int((body.get("params") or {}).get("cursor") or 0)
        return json_reply(
            answer(
                request,
                {
                    "tools": [{"name": f"t{page}", "inputSchema": {"type": "object"}}],
                    "nextCursor": str(page + 1) if page < 199 else None,
                },
            )
        )

    async with (
        scripted_server(handler) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        async with asyncio.timeout(5):  # 200 pages x 50 ms would be 10 s
            with pytest.raises(mcpclient.ResponseTimeout):
                await client.list_tools(timeout=1.0)
    pages = [
        r for r in srv.requests if r.body and r.json().get("method") == "tools/list"
    ]
    assert 5 <= len(pages) < 200


async def test_an_unknown_host_is_not_retried():
    with pytest.raises(mcpclient.ConnectError) as info:
        async with mcpclient.connect(
            mcpclient.HttpServer(url="http://nonexistent.invalid/mcp"),
            retry=FAST_RETRY,
            timeout=5,
        ):
            pass
    assert not info.value.retryable


async def test_a_certificate_that_fails_verification_is_not_retried(tmp_path):
    from mcpservers.scenarios._certs import self_signed

    now = datetime.datetime.now(datetime.UTC)
    files = self_signed(
        tmp_path,
        "leaf",
        ["127.0.0.1"],
        not_before=now - datetime.timedelta(days=1),
        not_after=now + datetime.timedelta(days=1),
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.cert, files.key)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(mcpclient.ConnectError) as info:
            async with mcpclient.connect(
                mcpclient.HttpServer(url=f"https://127.0.0.1:{port}/mcp"),
                retry=FAST_RETRY,
                timeout=5,
            ):
                pass
    finally:
        server.close()
        await server.wait_closed()
    assert not info.value.retryable
    assert "CERTIFICATE_VERIFY_FAILED" in str(info.value)
