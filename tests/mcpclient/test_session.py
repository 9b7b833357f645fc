"""ClientSession logic over the in-memory transport: routing, cancellation, validation, retries."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import Any

import pytest

import mcpclient
from mcpclient._transports import MemoryTransport

pytestmark = pytest.mark.anyio

ALL_CAPS = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}}
FAST_RETRY = mcpclient.RetryPolicy(max_attempts=3, base=0.001, cap=0.002)


def ok(message: dict, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def text(message: dict, value: str = "ok") -> dict:
    return ok(message, {"content": [{"type": "text", "text": value}]})


class Fake:
    """A scripted in-memory server: handshake built in, everything else to ``handler``."""

    def __init__(
        self,
        handler=None,
        *,
        caps: dict | None = None,
        modern: bool = False,
        version: str = "2025-11-25",
    ) -> None:
        self.transport, self.end = mcpclient.memory_pair(name="fake")
        self.handler = handler
        self.caps = ALL_CAPS if caps is None else caps
        self.modern = modern
        self.version = version
        self.received: list[dict] = []

    async def run(self) -> None:
        with contextlib.suppress(mcpclient.ConnectionLost):
            while True:
                message = await self.end.receive()
                self.received.append(message)
                method = message.get("method")
                if method == "server/discover":
                    if self.modern:
                        meta = {
                            "io.modelcontextprotocol/serverInfo": {
                                "name": "fake-modern"
                            }
                        }
                        self.end.send(
                            ok(
                                message,
                                {
                                    "supportedVersions": ["2026-07-28"],
                                    "capabilities": self.caps,
                                    "_meta": meta,
                                    "instructions": "hi",
                                },
                            )
                        )
                    else:
                        self.end.send(
                            {
                                "jsonrpc": "2.0",
                                "id": message["id"],
                                "error": {"code": -32601, "message": "nope"},
                            }
                        )
                elif method == "initialize":
                    self.end.send(
                        ok(
                            message,
                            {
                                "protocolVersion": self.version,
                                "capabilities": self.caps,
                                "serverInfo": {"name": "fake"},
                                "instructions": "be nice",
                            },
                        )
                    )
                elif (
                    method in ("notifications/initialized", "notifications/cancelled")
                    or method is None
                ):
                    pass
                elif self.handler is not None:
                    outcome = self.handler(self.end, message)
                    if asyncio.iscoroutine(outcome):
                        await outcome

    def sent(self, method: str) -> list[dict]:
        return [m for m in self.received if m.get("method") == method]


@contextlib.asynccontextmanager
async def session(
    handler=None, *, caps=None, modern=False, version="2025-11-25", **kwargs: Any
):
    fake = Fake(handler, caps=caps, modern=modern, version=version)
    task = asyncio.create_task(fake.run())
    try:
        async with mcpclient.connect(
            fake.transport, timeout=kwargs.pop("timeout", 5.0), **kwargs
        ) as client:
            yield client, fake
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def until(predicate) -> None:
    async with asyncio.timeout(5):
        while not predicate():
            await asyncio.sleep(0)


# -- handshake ----------------------------------------------------------------------------------


async def test_auto_mode_uses_2026_when_discover_answers():
    async with session(modern=True) as (client, fake):
        assert client.protocol_version == "2026-07-28" and client.is_modern
        assert (
            client.server_info == {"name": "fake-modern"}
            and client.instructions == "hi"
        )
        assert client.transport.modern
        assert fake.sent("initialize") == []


async def test_auto_mode_falls_back_to_initialize_and_records_what_the_server_said():
    async with session() as (client, fake):
        assert client.protocol_version == "2025-11-25" and not client.is_modern
        assert (
            client.server_info == {"name": "fake"} and client.instructions == "be nice"
        )
        assert fake.sent("initialize")[0]["params"] == {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcpclient", "version": "0.1.0"},
        }
        await until(lambda: len(fake.sent("notifications/initialized")) == 1)


@pytest.mark.parametrize("answer", ["2025-06-18", "2025-03-26", "2024-11-05"])
async def test_auto_mode_accepts_an_older_version_the_server_answers(answer):
    async with session(version=answer) as (client, _):
        assert client.protocol_version == answer


async def test_discover_listing_other_versions_only_falls_back_and_is_refused_when_pinned():
    def handler(end, message):
        end.send(ok(message, {"supportedVersions": ["2099-01-01"], "capabilities": {}}))

    fake = Fake()
    fake.modern = False
    async with session() as (client, _):
        assert client.protocol_version == "2025-11-25"
    transport, end = mcpclient.memory_pair()

    async def serve():
        with contextlib.suppress(mcpclient.ConnectionLost):
            while True:
                handler(end, await end.receive())

    task = asyncio.create_task(serve())
    with pytest.raises(mcpclient.VersionMismatch, match="2099-01-01") as info:
        async with mcpclient.connect(transport, protocol_version="2026-07-28"):
            pass
    assert info.value.supported == ["2099-01-01"]
    task.cancel()


async def test_a_late_discover_answer_then_minus_32022_to_initialize_switches_to_2026():
    transport, end = mcpclient.memory_pair()
    probes = []

    async def serve():
        with contextlib.suppress(mcpclient.ConnectionLost):
            while True:
                message = await end.receive()
                if message.get("method") == "server/discover":
                    probes.append(message)
                    if len(probes) == 2:  # answer only the second probe
                        end.send(
                            ok(
                                message,
                                {
                                    "supportedVersions": ["2026-07-28"],
                                    "capabilities": {"tools": {}},
                                },
                            )
                        )
                elif message.get("method") == "initialize":
                    error = {
                        "code": -32022,
                        "message": "serving 2026",
                        "data": {"supported": ["2026-07-28"]},
                    }
                    end.send({"jsonrpc": "2.0", "id": message["id"], "error": error})

    task = asyncio.create_task(serve())
    async with mcpclient.connect(transport, probe_timeout=0.05) as client:
        assert client.protocol_version == "2026-07-28"
    task.cancel()


async def test_other_initialize_errors_are_raised():
    transport, end = mcpclient.memory_pair()

    async def serve():
        with contextlib.suppress(mcpclient.ConnectionLost):
            while True:
                message = await end.receive()
                end.send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32603, "message": "broken"},
                    }
                )

    task = asyncio.create_task(serve())
    with pytest.raises(mcpclient.JsonRpcError, match="broken"):
        async with mcpclient.connect(transport):
            pass
    task.cancel()


async def test_a_silent_handshake_times_out():
    transport, _end = mcpclient.memory_pair()
    with pytest.raises((mcpclient.ResponseTimeout, mcpclient.ConnectError)):
        async with mcpclient.connect(transport, timeout=0.2, probe_timeout=0.05):
            pass


async def test_a_hanging_transport_start_is_a_connect_error():
    transport, _ = mcpclient.memory_pair()

    async def start(deliver, closed):
        await asyncio.Event().wait()

    transport.start = start  # type: ignore[method-assign]
    with pytest.raises(mcpclient.ConnectError, match="no connection within"):
        async with mcpclient.connect(transport, timeout=0.1):
            pass


async def test_misuse_raises_usage_errors_outside_the_tree():
    transport, _ = mcpclient.memory_pair()
    client = mcpclient.ClientSession(transport)
    with pytest.raises(mcpclient.UsageError, match="before the handshake"):
        await client.list_tools()
    assert not issubclass(mcpclient.UsageError, mcpclient.McpError)
    with pytest.raises(mcpclient.UsageError, match="unknown protocol version"):
        await client.open(protocol_version="1999-01-01")
    async with session() as (opened, _):
        with pytest.raises(mcpclient.UsageError, match="twice"):
            await opened.open()
    with pytest.raises(mcpclient.UsageError, match="not a server spec"):
        async with mcpclient.connect("http://example.com"):  # type: ignore[arg-type]
            pass
    with pytest.raises(mcpclient.UsageError, match="empty"):
        async with mcpclient.connect(mcpclient.StdioServer(command=[])):
            pass


# -- routing ------------------------------------------------------------------------------------


async def test_progress_is_routed_to_the_right_call_sync_and_async_callbacks():
    async def handler(end, message):
        token = message["params"]["_meta"]["progressToken"]
        for i in (1, 2):
            end.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {
                        "progressToken": token,
                        "progress": i,
                        "total": 2,
                        "message": f"s{i}",
                    },
                }
            )
        end.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 999, "progress": 1},
            }
        )
        end.send(text(message))

    seen_sync, seen_async = [], []

    async def on_async(p, t, m):
        seen_async.append(p)

    def broken(p, t, m):
        raise RuntimeError("callback bug")

    async with session(handler) as (client, _):
        await client.call_tool(
            "x", on_progress=lambda p, t, m: seen_sync.append((p, t, m))
        )
        await client.call_tool("x", on_progress=on_async)
        assert (await client.call_tool("x", on_progress=broken)).text == "ok"
        await until(lambda: len(seen_async) == 2)
    assert seen_sync == [(1, 2, "s1"), (2, 2, "s2")]


async def test_progress_token_in_2026_sits_next_to_the_meta_keys():
    def handler(end, message):
        end.send(text(message))

    async with session(handler, modern=True) as (client, fake):
        await client.call_tool("x", on_progress=lambda *a: None)
        meta = fake.sent("tools/call")[0]["params"]["_meta"]
        assert meta["progressToken"] == fake.sent("tools/call")[0]["id"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


async def test_server_requests_are_answered_never_left_hanging():
    def handler(end, message):
        end.send({"jsonrpc": "2.0", "id": "a", "method": "ping"})
        end.send(
            {"jsonrpc": "2.0", "id": "b", "method": "elicitation/create", "params": {}}
        )
        end.send({"jsonrpc": "2.0", "id": "c", "method": "roots/list"})
        end.send(text(message))

    async with session(handler) as (client, fake):
        await client.call_tool("x")
        await until(
            lambda: sum(1 for m in fake.received if m.get("id") in ("a", "b", "c")) == 3
        )
    answers = {m["id"]: m for m in fake.received if m.get("id") in ("a", "b", "c")}
    assert answers["a"]["result"] == {}
    assert (
        answers["b"]["error"]["code"] == -32601
        and answers["c"]["error"]["code"] == -32601
    )
    assert (
        fake.sent("initialize")[0]["params"]["capabilities"] == {}
    )  # nothing advertised


async def test_ping_in_2026_is_not_a_method():
    def handler(end, message):
        end.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
        end.send(text(message))

    async with session(handler, modern=True) as (client, fake):
        await client.call_tool("x")
        await until(lambda: any(m.get("id") == "p" for m in fake.received))
    assert (
        next(m for m in fake.received if m.get("id") == "p")["error"]["code"] == -32601
    )


async def test_notifications_are_kept_bounded_and_list_changed_drops_the_tool_cache():
    def handler(end, message):
        if message["method"] == "tools/list":
            end.send(
                ok(
                    message,
                    {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]},
                )
            )
            return
        for i in range(5):
            end.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"i": i},
                }
            )
        end.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        end.send(text(message))

    async with session(handler, max_notifications=3) as (client, _):
        await client.list_tools()
        assert client._tools.tools is not None
        await client.call_tool("x")
        assert [n.get("params", {}).get("i") for n in client.notifications] == [
            3,
            4,
            None,
        ]
        assert client._tools.tools is None
        assert client.tools_changed == 1  # what a pool compares its cached listing with


async def test_the_server_going_away_fails_every_pending_call_at_once():
    async def handler(end, message):
        if message["params"]["name"] == "die":
            end.close()

    async with session(handler, timeout=30) as (client, _):
        calls = [
            asyncio.create_task(client.call_tool("wait", timeout=30)) for _ in range(3)
        ]
        await until(lambda: len(client._pending) == 3)
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("die", timeout=30)
        async with asyncio.timeout(1):
            results = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(r, mcpclient.ConnectionLost) for r in results)
        assert client._pending == {}


async def test_garbage_from_the_server_fails_pending_calls_as_malformed():
    def handler(end, message):
        end.send_raw(b"\x00garbage")

    async with session(handler) as (client, _):
        with pytest.raises(mcpclient.MalformedMessage):
            await client.call_tool("x")


# -- cancellation and timeouts ------------------------------------------------------------------


async def test_cancelling_a_call_sends_cancelled_frees_the_id_and_ignores_the_late_answer():
    held = []

    def handler(end, message):
        held.append(message)

    async with session(handler) as (client, fake):
        task = asyncio.create_task(client.call_tool("slow"))
        await until(lambda: held)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await until(lambda: fake.sent("notifications/cancelled"))
        note = fake.sent("notifications/cancelled")[0]
        assert note["params"]["requestId"] == held[0]["id"]
        assert client._pending == {} and client._progress == {}
        fake.end.send(text(held[0]))  # the race the spec allows: a late answer
        await until(lambda: client.unknown_responses == 1)


async def test_a_timeout_sends_cancelled_with_the_reason():
    async with session(lambda end, message: None) as (client, fake):
        with pytest.raises(mcpclient.ResponseTimeout, match="tools/call"):
            await client.call_tool("slow", timeout=0.05)
        await until(lambda: fake.sent("notifications/cancelled"))
        assert fake.sent("notifications/cancelled")[0]["params"]["reason"] == "timeout"


# -- validation and results -----------------------------------------------------------------------

TOOL = {
    "name": "add",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"sum": {"type": "integer"}},
        "required": ["sum"],
    },
    "annotations": {"readOnlyHint": False, "idempotentHint": True, "title": "Add"},
    "title": "Adder",
}


def tools_then(answer):
    def handler(end, message):
        if message["method"] == "tools/list":
            end.send(ok(message, {"tools": [TOOL]}))
        else:
            end.send(ok(message, answer))

    return handler


async def test_arguments_are_validated_before_anything_is_sent():
    records = []
    async with session(tools_then({}), observer=records.append) as (client, fake):
        (tool,) = await client.list_tools()
        assert (
            tool.title == "Adder"
            and tool.annotations.title == "Add"
            and tool.is_idempotent
        )
        with pytest.raises(mcpclient.ToolValidationError) as info:
            await client.call_tool("add", {"a": "one"})
        assert (
            info.value.tool == "add"
            and "a: 'one' is not of type 'integer'" in info.value.errors[0]
        )
        assert fake.sent("tools/call") == []
    assert (
        records[-1].error_layer == "tool_validation" and records[-1].request_id is None
    )


async def test_validation_can_be_switched_off():
    async with session(tools_then({"content": []}), validate=False) as (client, fake):
        await client.list_tools()
        await client.call_tool("add", {"a": "one"})
        assert len(fake.sent("tools/call")) == 1


async def test_structured_content_is_checked_against_the_output_schema():
    async with session(
        tools_then({"content": [], "structuredContent": {"sum": "x"}})
    ) as (client, _):
        await client.list_tools()
        with pytest.raises(mcpclient.OutputSchemaMismatch) as info:
            await client.call_tool("add", {"a": 1})
        assert info.value.layer is mcpclient.Layer.RESULT_CONSUMPTION


async def test_missing_structured_content_is_a_mismatch_unless_the_tool_failed():
    async with session(tools_then({"content": []})) as (client, _):
        await client.list_tools()
        with pytest.raises(
            mcpclient.OutputSchemaMismatch, match="no structuredContent"
        ):
            await client.call_tool("add", {"a": 1})
    async with session(
        tools_then({"content": [{"type": "text", "text": "bad"}], "isError": True})
    ) as (client, _):
        await client.list_tools()
        result = await client.call_tool("add", {"a": 1})
        assert result.is_error and result.text == "bad"


async def test_a_schema_that_is_itself_invalid_does_not_block_calls():
    bad = {
        "name": "odd",
        "inputSchema": {"type": "object", "properties": {"a": {"type": 12}}},
    }

    def handler(end, message):
        end.send(
            ok(message, {"tools": [bad]})
            if message["method"] == "tools/list"
            else text(message)
        )

    async with session(handler) as (client, _):
        await client.list_tools()
        assert (await client.call_tool("odd", {"a": 1})).text == "ok"


async def test_a_remote_ref_is_never_fetched():
    ref = {
        "name": "r",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"$ref": "https://example.invalid/s.json"}},
        },
    }

    def handler(end, message):
        end.send(
            ok(message, {"tools": [ref]})
            if message["method"] == "tools/list"
            else text(message)
        )

    async with session(handler) as (client, _):
        await client.list_tools()
        assert (await client.call_tool("r", {"a": 1})).text == "ok"


async def test_input_required_results_are_refused_as_unsupported():
    async with session(
        tools_then({"resultType": "input_required", "inputRequests": {}})
    ) as (client, _):
        with pytest.raises(mcpclient.CapabilityError, match="input_required"):
            await client.call_tool("add", {"a": 1})


@pytest.mark.parametrize(
    ("method", "answer"),
    [
        ("tools/list", {"tools": [{"name": 1}]}),
        ("tools/list", {"tools": "nope"}),
        ("tools/list", {"tools": [], "nextCursor": 5}),
        ("resources/list", {"resources": [{"name": "no uri"}]}),
        ("prompts/list", {"prompts": [{"title": "no name"}]}),
        ("resources/read", {"contents": [{"text": "no uri"}]}),
        ("prompts/get", {"messages": [{"role": "user", "content": "not an object"}]}),
    ],
)
async def test_malformed_results_are_result_consumption_errors(method, answer):
    async with session(lambda end, message: end.send(ok(message, answer))) as (
        client,
        _,
    ):
        call = {
            "tools/list": client.list_tools,
            "resources/list": client.list_resources,
            "prompts/list": client.list_prompts,
            "resources/read": lambda: client.read_resource("x://y"),
            "prompts/get": lambda: client.get_prompt("p"),
        }[method]
        with pytest.raises(mcpclient.MalformedResult):
            await call()


async def test_pagination_follows_cursors_and_refuses_a_repeated_one():
    def handler(end, message):
        cursor = message["params"].get("cursor")
        if message["method"] == "resources/templates/list":
            end.send(
                ok(
                    message,
                    {"resourceTemplates": [{"uriTemplate": "a://{x}", "name": "a"}]},
                )
            )
        elif message["method"] == "prompts/list":
            end.send(ok(message, {"prompts": [{"name": "p"}], "nextCursor": "same"}))
        else:
            page = {
                None: ({"uri": "a://1"}, "c1"),
                "c1": ({"uri": "a://2"}, "c2"),
                "c2": ({"uri": "a://3"}, None),
            }[cursor]
            end.send(
                ok(
                    message,
                    {
                        "resources": [page[0]],
                        **({"nextCursor": page[1]} if page[1] else {}),
                    },
                )
            )

    async with session(handler) as (client, _):
        assert [r.uri for r in await client.list_resources()] == [
            "a://1",
            "a://2",
            "a://3",
        ]
        assert (await client.list_resource_templates())[0]["name"] == "a"
        with pytest.raises(mcpclient.MalformedResult, match="repeated cursor"):
            await client.list_prompts()


async def test_a_server_without_a_capability_is_refused_locally():
    async with session(caps={}) as (client, fake):
        for call in (
            client.list_tools(),
            client.call_tool("x"),
            client.list_resources(),
            client.read_resource("a://b"),
            client.list_prompts(),
            client.get_prompt("p"),
        ):
            with pytest.raises(mcpclient.CapabilityError) as info:
                await call
            assert info.value.layer is mcpclient.Layer.CAPABILITY
        assert [m["method"] for m in fake.received][:2] == [
            "server/discover",
            "initialize",
        ]
        assert not [
            m
            for m in fake.received
            if m["method"].split("/")[0] in ("tools", "resources", "prompts")
        ]


async def test_send_request_passes_other_methods_through():
    async with session(
        lambda end, message: end.send(ok(message, {"echo": message["method"]}))
    ) as (client, _):
        assert await client.send_request("completion/complete", {"ref": {}}) == {
            "echo": "completion/complete"
        }


async def test_a_jsonrpc_error_answer_raises_jsonrpc_error():
    def handler(end, message):
        end.send(
            {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {
                    "code": -32002,
                    "message": "Resource not found",
                    "data": {"uri": "a://b"},
                },
            }
        )

    async with session(handler) as (client, _):
        with pytest.raises(mcpclient.JsonRpcError) as info:
            await client.read_resource("a://b")
        assert info.value.code == -32002 and info.value.data == {"uri": "a://b"}
        assert str(info.value) == "-32002: Resource not found"


async def test_prompt_arguments_and_results_are_parsed():
    def handler(end, message):
        if message["method"] == "prompts/list":
            end.send(
                ok(
                    message,
                    {
                        "prompts": [
                            {"name": "p", "arguments": [{"name": "x"}, {"bad": 1}]}
                        ]
                    },
                )
            )
        else:
            assert message["params"] == {"name": "p"}
            end.send(
                ok(
                    message,
                    {
                        "messages": [
                            {"role": "user", "content": {"type": "text", "text": "t"}}
                        ]
                    },
                )
            )

    async with session(handler) as (client, _):
        (prompt,) = await client.list_prompts()
        assert prompt.arguments == [mcpclient.PromptArgument("x", None, required=False)]
        result = await client.get_prompt("p")
        assert result.description is None and result.messages[0].role == "user"


# -- retries, breaker, bulkhead, observer ---------------------------------------------------------


class Flaky(MemoryTransport):
    """Raises the queued exceptions from send() before behaving."""

    def __init__(self, end, errors: list[Exception]) -> None:
        super().__init__(end)
        self.errors = errors

    async def send(self, message):
        if message.get("method") == "tools/call" and self.errors:
            raise self.errors.pop(0)
        await super().send(message)


@contextlib.asynccontextmanager
async def flaky_session(errors, **kwargs):
    fake = Fake(tools_then({"content": [], "structuredContent": {"sum": 1}}))
    fake.transport = Flaky(fake.end, errors)
    task = asyncio.create_task(fake.run())
    try:
        async with mcpclient.connect(
            fake.transport, retry=kwargs.pop("retry", FAST_RETRY), **kwargs
        ) as client:
            yield client, fake
    finally:
        task.cancel()


async def test_idempotent_calls_are_retried_on_retryable_errors():
    records = []
    async with flaky_session(
        [mcpclient.ConnectionLost("x"), mcpclient.HttpStatusError("y", status=503)],
        observer=records.append,
    ) as (client, _):
        await client.list_tools()  # idempotentHint → retried
        assert (await client.call_tool("add", {"a": 1})).structured_content == {
            "sum": 1
        }
    assert records[-1].retries == 2 and records[-1].outcome == "ok"


async def test_non_idempotent_calls_are_not_retried_unless_the_caller_says_so():
    async with flaky_session(
        [mcpclient.ConnectionLost("x"), mcpclient.ConnectionLost("x")]
    ) as (client, _):
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("add", {"a": 1})  # not listed → not known idempotent
        assert (
            await client.call_tool("add", {"a": 1}, idempotent=True)
        ).structured_content == {"sum": 1}


async def test_non_retryable_errors_and_exhausted_attempts_are_raised():
    async with flaky_session([mcpclient.HttpStatusError("bad", status=400)]) as (
        client,
        _,
    ):
        with pytest.raises(mcpclient.HttpStatusError):
            await client.call_tool("add", {"a": 1}, idempotent=True)
    async with flaky_session([mcpclient.ConnectionLost("x")] * 5) as (client, _):
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("add", {"a": 1}, idempotent=True)


async def test_a_backoff_beyond_the_deadline_is_not_attempted():
    slow = mcpclient.RetryPolicy(max_attempts=5, base=10.0)
    async with flaky_session([mcpclient.ConnectionLost("x")], retry=slow) as (
        client,
        _,
    ):
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("add", {"a": 1}, idempotent=True, timeout=1.0)


async def test_a_spent_budget_is_a_timeout():
    async with flaky_session([]) as (client, _):
        with pytest.raises(mcpclient.ResponseTimeout, match="budget"):
            await client.call_tool("add", {"a": 1}, timeout=0)


def test_retry_delays_grow_exponentially_capped_with_jitter_and_honour_retry_after():
    policy = mcpclient.RetryPolicy(base=0.5, cap=30.0, jitter=0.25)
    for attempt, base in [(0, 0.5), (1, 1.0), (2, 2.0), (6, 30.0), (10, 30.0)]:
        delay = policy.delay(attempt)
        assert base <= delay <= base * 1.25
    assert 7.0 <= policy.delay(0, retry_after=7.0) <= 7.0 * 1.25
    assert mcpclient.RetryPolicy(jitter=0).delay(3) == 4.0


async def test_the_breaker_opens_after_consecutive_failures_and_probes_half_open():
    now = [0.0]
    breaker = mcpclient.CircuitBreaker(
        failure_threshold=2, reset_timeout=10.0, clock=lambda: now[0]
    )
    async with flaky_session(
        [mcpclient.ConnectionLost("x")] * 3,
        breaker=breaker,
        retry=mcpclient.RetryPolicy(max_attempts=1),
    ) as (client, _):
        for _ in range(2):
            with pytest.raises(mcpclient.ConnectionLost):
                await client.call_tool("add", {"a": 1})
        assert breaker.state == "open"
        with pytest.raises(mcpclient.CircuitOpen, match="circuit open") as info:
            await client.call_tool("add", {"a": 1})
        assert info.value.retryable and not info.value.outcome_unknown
        now[0] = 11.0
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("add", {"a": 1})  # the half-open probe fails
        assert breaker.state == "open"
        now[0] = 22.0
        assert (await client.call_tool("add", {"a": 1})).structured_content == {
            "sum": 1
        }
        assert breaker.state == "closed" and breaker.failures == 0


def test_the_half_open_breaker_lets_exactly_one_probe_through():
    now = [0.0]
    breaker = mcpclient.CircuitBreaker(
        failure_threshold=1, reset_timeout=1.0, clock=lambda: now[0]
    )
    breaker.record_failure()
    now[0] = 2.0
    assert breaker.before_call() is True
    with pytest.raises(mcpclient.CircuitOpen, match="probe"):
        breaker.before_call()
    breaker.release_probe()
    assert breaker.before_call() is True


async def test_a_cancelled_probe_releases_the_half_open_slot():
    now = [0.0]
    breaker = mcpclient.CircuitBreaker(
        failure_threshold=1, reset_timeout=1.0, clock=lambda: now[0]
    )
    async with session(lambda end, message: None, breaker=breaker) as (client, _):
        breaker.record_failure()
        now[0] = 5.0
        task = asyncio.create_task(client.call_tool("x"))
        await until(lambda: client._pending)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert breaker.before_call() is True


async def test_tool_and_protocol_errors_do_not_trip_the_breaker():
    def handler(end, message):
        end.send(
            {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32602, "message": "bad"},
            }
        )

    breaker = mcpclient.CircuitBreaker(failure_threshold=1)
    async with session(handler, breaker=breaker) as (client, _):
        for _ in range(3):
            with pytest.raises(mcpclient.JsonRpcError):
                await client.call_tool("x")
        assert breaker.state == "closed"


async def test_the_concurrency_limit_queues_callers():
    held: list[dict] = []
    async with session(
        lambda end, message: held.append(message), max_concurrency=2
    ) as (client, fake):
        tasks = [asyncio.create_task(client.call_tool("x")) for _ in range(5)]
        await until(lambda: len(held) == 2)
        for _ in range(10):
            await asyncio.sleep(0)
        assert len(held) == 2  # the other three wait for a slot
        for i in range(5):
            await until(lambda i=i: len(held) > i)
            fake.end.send(text(held[i]))
        assert len(await asyncio.gather(*tasks)) == 5


async def test_the_observer_gets_one_record_per_call_and_its_errors_are_contained():
    records = []

    def observer(record):
        records.append(record)
        raise RuntimeError("observer bug")

    def handler(end, message):
        if message["params"]["name"] == "fail":
            end.send(ok(message, {"content": [], "isError": True}))
        elif message["params"]["name"] == "boom":
            end.send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32603, "message": "boom"},
                }
            )
        else:
            end.send(text(message))

    async with session(handler, observer=observer) as (client, _):
        await client.call_tool("ok", {"b": 1, "a": 2})
        await client.call_tool("fail")
        with pytest.raises(mcpclient.JsonRpcError):
            await client.call_tool("boom")
        task = asyncio.create_task(client.call_tool("never", {}))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    ok_record, fail_record, boom_record = records[:3]
    assert (
        ok_record.server == "fake"
        and ok_record.transport == "memory"
        and ok_record.method == "tools/call"
    )
    assert (
        ok_record.tool == "ok" and ok_record.outcome == "ok" and ok_record.retries == 0
    )
    assert (
        ok_record.arguments_hash == hashlib.sha256(b'{"a":2,"b":1}').hexdigest()
    )  # canonical JSON
    assert (
        ok_record.result_size > 0
        and ok_record.latency_ms >= 0
        and ok_record.deadline > ok_record.started_at
    )
    assert (
        fail_record.outcome == "tool_error"
        and fail_record.error_layer == "tool_execution"
    )
    assert (
        boom_record.outcome == "error"
        and boom_record.error_code == -32603
        and boom_record.error_layer == "protocol"
    )
    assert records[3].error_code == "CancelledError"


async def test_the_stderr_property_is_empty_for_non_stdio_transports():
    async with session() as (client, _):
        assert client.stderr == []


async def test_an_optional_argument_given_as_null_is_validated_as_absent_and_sent_as_is():
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"verbose": {"type": "boolean"}, "q": {"type": "string"}},
            "required": ["q"],
        },
    }

    def handler(end, message):
        end.send(
            ok(message, {"tools": [tool]})
            if message["method"] == "tools/list"
            else text(message)
        )

    async with session(handler) as (client, fake):
        await client.list_tools()
        await client.call_tool("t", {"q": "x", "verbose": None})
        assert fake.sent("tools/call")[0]["params"]["arguments"] == {
            "q": "x",
            "verbose": None,
        }
        with pytest.raises(mcpclient.ToolValidationError):
            await client.call_tool("t", {"q": None})  # a required one stays required


def version_server(end_answers):
    """Answer discover with -32022 listing ``supported``; count probes; answer initialize with its version."""
    transport, end = mcpclient.memory_pair()
    probes: list[dict] = []

    async def serve():
        with contextlib.suppress(mcpclient.ConnectionLost):
            while True:
                message = await end.receive()
                method = message.get("method")
                if method == "server/discover":
                    probes.append(message)
                    answer = end_answers(len(probes))
                    end.send({"jsonrpc": "2.0", "id": message["id"], **answer})
                elif method == "initialize":
                    version = message["params"]["protocolVersion"]
                    end.send(
                        ok(
                            message,
                            {
                                "protocolVersion": version,
                                "capabilities": {},
                                "serverInfo": {},
                            },
                        )
                    )

    return transport, probes, asyncio.create_task(serve())


@pytest.mark.parametrize("pinned", ["2026-07-28", None])
async def test_a_minus_32022_that_lists_our_version_is_retried_once(pinned):
    rejected = {
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "x"},
        }
    }
    accepted = {"result": {"supportedVersions": ["2026-07-28"], "capabilities": {}}}
    transport, probes, task = version_server(lambda n: rejected if n == 1 else accepted)
    async with mcpclient.connect(transport, protocol_version=pinned) as client:
        assert client.protocol_version == "2026-07-28"
    assert len(probes) == 2 and probes[0]["id"] != probes[1]["id"]
    task.cancel()


async def test_a_minus_32022_listing_only_handshake_versions_initializes_with_the_best_mutual_one():
    rejected = {
        "error": {
            "code": -32022,
            "message": "no",
            "data": {"supported": ["2024-11-05", "2025-06-18", "1999-01-01"]},
        }
    }
    transport, probes, task = version_server(lambda n: rejected)
    async with mcpclient.connect(transport) as client:
        assert client.protocol_version == "2025-06-18"
    assert len(probes) == 1
    task.cancel()


async def test_a_discover_result_without_our_version_falls_back_to_initialize_in_auto_mode():
    transport, _, task = version_server(
        lambda n: {"result": {"supportedVersions": ["2099-01-01"], "capabilities": {}}}
    )
    async with mcpclient.connect(transport) as client:
        assert client.protocol_version == "2025-11-25"
    task.cancel()


async def test_timeout_none_means_no_limit():
    async with session(lambda end, message: end.send(text(message)), timeout=None) as (
        client,
        _,
    ):
        assert client.timeout == float("inf")
        assert (await client.call_tool("x")).text == "ok"


async def test_a_command_given_as_one_string_is_a_usage_error():
    with pytest.raises(mcpclient.UsageError, match="list"):
        async with mcpclient.connect(mcpclient.StdioServer(command="python -m server")):  # type: ignore[arg-type]
            pass


async def test_ping_asks_ping_in_the_handshake_era_and_discover_at_2026():
    def handler(end, message):
        if message["method"] == "ping":
            end.send(ok(message, {}))

    async with session(handler) as (client, fake):
        await client.ping(timeout=1.0)
        assert [m["method"] for m in fake.sent("ping")] == ["ping"]
        assert client.is_open
    async with session(modern=True) as (client, fake):
        before = len(fake.sent("server/discover"))
        await client.ping(timeout=1.0)
        assert len(fake.sent("server/discover")) == before + 1
        assert fake.sent("ping") == []


async def test_ping_unanswered_times_out_and_a_closed_session_is_not_open():
    async with session(lambda end, message: None) as (client, _):
        with pytest.raises(mcpclient.ResponseTimeout):
            await client.ping(timeout=0.05)
        assert client.is_open  # silence is not death: the caller decides
        await client.aclose()
        assert not client.is_open
