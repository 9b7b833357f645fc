"""stdio transport against hand-written misbehaving servers: one test per way of going wrong."""

from __future__ import annotations

import asyncio
import sys

import pytest

import mcpclient
from mcpclient._transports import StdioTransport

from .conftest import misbehaving

pytestmark = pytest.mark.anyio


async def call(server: mcpclient.StdioServer, *, timeout: float = 5.0, **kwargs):
    async with mcpclient.connect(server, timeout=timeout, **kwargs) as client:
        return await client.call_tool("work", {}, timeout=timeout)


async def test_a_well_behaved_call_works_and_the_version_falls_back_to_the_handshake():
    async with mcpclient.connect(misbehaving("ok")) as client:
        assert client.protocol_version == "2025-11-25"
        assert (await client.call_tool("work")).text == "ok"


async def test_garbage_on_stdout_fails_the_pending_call_as_malformed():
    with pytest.raises(mcpclient.MalformedMessage) as info:
        await call(misbehaving("garbage"))
    assert info.value.layer is mcpclient.Layer.PROTOCOL
    assert info.value.outcome_unknown


async def test_garbage_before_the_handshake_fails_the_connect():
    with pytest.raises(mcpclient.MalformedMessage):
        await call(misbehaving("garbage_at_start"))


async def test_json_that_is_not_jsonrpc_is_malformed():
    with pytest.raises(mcpclient.MalformedMessage, match="not a JSON-RPC"):
        await call(misbehaving("not_jsonrpc"))


async def test_a_line_over_the_limit_is_an_error_not_a_hang():
    server = misbehaving("over_limit", str(200_000), max_message_size=64 * 1024)
    with pytest.raises(mcpclient.MessageTooLarge) as info:
        await call(server)
    assert info.value.layer is mcpclient.Layer.RESULT_CONSUMPTION
    assert info.value.limit == 64 * 1024


async def test_a_50_mib_result_is_refused_at_the_default_limit():
    with pytest.raises(mcpclient.MessageTooLarge):
        await call(misbehaving("over_limit", str(50 * 1024 * 1024)), timeout=30)


async def test_a_result_under_the_limit_split_across_many_writes_is_reassembled():
    result = await call(misbehaving("over_limit", str(1_000_000)))
    assert len(result.text) == 1_000_000


async def test_a_server_that_never_answers_times_out_and_is_told_to_cancel():
    async with mcpclient.connect(misbehaving("silent")) as client:
        with pytest.raises(mcpclient.ResponseTimeout) as info:
            await client.call_tool("work", timeout=0.3)
        assert info.value.outcome_unknown and info.value.retryable
        async with asyncio.timeout(5):
            while not any(line.startswith("cancelled ") for line in client.stderr):
                await asyncio.sleep(
                    0
                )  # yield to the pipe reader; bounded by the timeout above
        assert client._pending == {}


async def test_a_server_dying_mid_call_fails_every_pending_call_at_once():
    async with mcpclient.connect(misbehaving("die"), timeout=30) as client:
        loop = asyncio.get_running_loop()
        started = loop.time()
        results = await asyncio.gather(
            *(client.call_tool("work", timeout=30) for _ in range(5)),
            return_exceptions=True,
        )
        assert loop.time() - started < 10  # nowhere near the 30 s timeout
        assert all(isinstance(r, mcpclient.ConnectionLost) for r in results)
        assert "dying now" in str(results[0])
        assert results[0].outcome_unknown
        with pytest.raises(mcpclient.ConnectionLost):
            await client.call_tool("work")


async def test_a_response_with_a_wrong_id_is_ignored_and_the_call_times_out():
    async with mcpclient.connect(misbehaving("wrong_id")) as client:
        with pytest.raises(mcpclient.ResponseTimeout):
            await client.call_tool("work", timeout=0.5)
        assert client.unknown_responses == 1


@pytest.mark.parametrize(
    ("code", "layer"),
    [
        (-32700, mcpclient.Layer.PROTOCOL),
        (-32600, mcpclient.Layer.PROTOCOL),
        (-32601, mcpclient.Layer.PROTOCOL),
        (-32602, mcpclient.Layer.PROTOCOL),
        (-32603, mcpclient.Layer.PROTOCOL),
        (-32002, mcpclient.Layer.PROTOCOL),
        (-32000, mcpclient.Layer.PROTOCOL),
        (-32020, mcpclient.Layer.PROTOCOL),
        (-32021, mcpclient.Layer.CAPABILITY),
        (-32022, mcpclient.Layer.PROTOCOL),
    ],
)
async def test_each_jsonrpc_error_code_is_raised_with_code_message_and_data(
    code, layer
):
    with pytest.raises(mcpclient.JsonRpcError) as info:
        await call(misbehaving("error_code", str(code)))
    assert info.value.code == code
    assert info.value.message == f"error {code}"
    assert info.value.data == {"why": "test"}
    assert info.value.layer is layer
    assert not info.value.retryable


async def test_a_malformed_error_object_is_malformed():
    with pytest.raises(mcpclient.MalformedMessage):
        await call(misbehaving("malformed_error"))


async def test_a_response_without_result_or_error_is_a_malformed_result():
    with pytest.raises(mcpclient.MalformedResult):
        await call(misbehaving("no_result"))


async def test_content_that_is_not_a_list_is_a_malformed_result():
    with pytest.raises(mcpclient.MalformedResult):
        await call(misbehaving("bad_content"))


async def test_an_answer_dribbled_out_seven_bytes_at_a_time_is_reassembled():
    assert (await call(misbehaving("split_writes"))).text == "split"


async def test_a_notification_blank_line_and_answer_in_one_write_are_all_read():
    async with mcpclient.connect(misbehaving("two_in_one_write")) as client:
        assert (await client.call_tool("work")).text == "two"
        assert client.notifications[-1]["method"] == "notifications/message"


async def test_server_requests_are_answered_ping_with_a_result_others_with_method_not_found():
    async with mcpclient.connect(misbehaving("ping_client")) as client:
        async with asyncio.timeout(5):
            while sum(line.startswith("answer ") for line in client.stderr) < 2:
                await client.call_tool("work")
        answers = [line for line in client.stderr if line.startswith("answer ")]
        assert '"id": "srv-1", "result": {}' in answers[0]
        assert '"id": "srv-2", "error": {"code": -32601' in answers[1]


async def test_a_silent_discover_probe_falls_back_to_initialize_after_the_probe_timeout():
    async with mcpclient.connect(
        misbehaving("silent_discover"), probe_timeout=0.3
    ) as client:
        assert client.protocol_version == "2025-11-25"
        assert (await client.call_tool("work")).text == "ok"


async def test_a_pinned_handshake_version_the_server_does_not_echo_is_a_clear_error():
    with pytest.raises(mcpclient.VersionMismatch, match="2025-03-26"):
        await call(
            misbehaving("answer_version", "2025-03-26"), protocol_version="2025-06-18"
        )


async def test_an_unknown_answered_version_is_refused_in_auto_mode():
    with pytest.raises(mcpclient.VersionMismatch) as info:
        await call(misbehaving("answer_version", "1999-01-01"))
    assert info.value.requested == "2025-11-25"


async def test_pinning_2026_against_a_handshake_only_server_is_a_clear_error():
    with pytest.raises(mcpclient.VersionMismatch, match="does not speak 2026-07-28"):
        await call(misbehaving("ok"), protocol_version="2026-07-28")


async def test_a_command_that_does_not_exist_is_a_connect_error():
    with pytest.raises(mcpclient.ConnectError) as info:
        await call(mcpclient.StdioServer(command=["/nonexistent/mcp-server"]))
    assert info.value.retryable and not info.value.outcome_unknown


async def test_close_escalates_to_sigterm_when_stdin_close_is_ignored():
    server = misbehaving("ignore_stdin_close", close_timeout=0.2, terminate_timeout=2.0)
    async with mcpclient.connect(server) as client:
        transport = client.transport
    assert transport.returncode == -15


async def test_close_escalates_to_sigkill_when_sigterm_is_ignored():
    server = misbehaving("ignore_sigterm", close_timeout=0.2, terminate_timeout=0.3)
    async with mcpclient.connect(server) as client:
        transport = client.transport
        # wait until the handler is installed: the server has answered the handshake by now
    assert transport.returncode == -9


async def test_stderr_is_kept_in_a_bounded_log_and_named_when_the_server_dies():
    code = "import sys\nfor i in range(50): print('line', i, 'x' * 9000, file=sys.stderr)\nprint('partial', end='', file=sys.stderr)"
    transport = StdioTransport(
        mcpclient.StdioServer(command=[sys.executable, "-c", code], stderr_max_lines=10)
    )
    closed = []
    await transport.start(lambda m: None, closed.append)
    try:
        async with asyncio.timeout(5):
            while not closed:
                await asyncio.sleep(0)
    finally:
        await transport.aclose()
    assert len(transport.stderr) == 10
    assert transport.stderr[-1].startswith("line 49 ")
    assert len(transport.stderr[-1]) == 4096
    assert isinstance(closed[0], mcpclient.ConnectionLost)
    assert "line 49" in str(closed[0])


async def start_raw(code: str, **kwargs) -> tuple[StdioTransport, list, list]:
    transport = StdioTransport(
        mcpclient.StdioServer(command=[sys.executable, "-c", code], **kwargs)
    )
    delivered: list = []
    closed: list = []
    await transport.start(delivered.append, closed.append)
    return transport, delivered, closed


async def wait_for(predicate) -> None:
    async with asyncio.timeout(10):
        while not predicate():
            await asyncio.sleep(0)


async def test_a_long_line_arriving_in_one_read_is_refused():
    code = 'import sys; sys.stdout.write(\'{"jsonrpc":"2.0","method":"x","params":{"p":"\' + \'y\' * 100 + \'"}}\\n\'); sys.stdout.flush(); sys.stdin.read()'
    transport, delivered, closed = await start_raw(code, max_message_size=40)
    try:
        await wait_for(lambda: closed)
    finally:
        await transport.aclose()
    assert isinstance(closed[0], mcpclient.MessageTooLarge) and delivered == []


async def test_a_good_line_followed_by_an_over_long_partial_line_is_refused():
    code = 'import sys; sys.stdout.write(\'{"jsonrpc":"2.0","method":"x"}\\n\' + \'z\' * 100); sys.stdout.flush(); sys.stdin.read()'
    transport, delivered, closed = await start_raw(code, max_message_size=40)
    try:
        await wait_for(lambda: closed)
    finally:
        await transport.aclose()
    assert delivered == [{"jsonrpc": "2.0", "method": "x"}]
    assert isinstance(closed[0], mcpclient.MessageTooLarge)


async def test_an_outgoing_message_over_the_limit_is_refused_and_send_after_close_fails():
    transport, _, _ = await start_raw(
        "import sys; sys.stdin.read()", max_message_size=100
    )
    with pytest.raises(mcpclient.MessageTooLarge):
        await transport.send(
            {"jsonrpc": "2.0", "method": "x", "params": {"p": "y" * 200}}
        )
    await transport.aclose()
    await transport.aclose()  # idempotent
    with pytest.raises(mcpclient.ConnectionLost) as info:
        await transport.send({"jsonrpc": "2.0", "method": "x"})
    assert not info.value.outcome_unknown  # never sent


async def test_a_slow_reader_applies_backpressure_until_it_reads():
    code = "import sys; sys.stdin.buffer.readline(); data = sys.stdin.buffer.read(); sys.stderr.write(str(len(data)) + '\\n'); sys.stderr.flush()"
    transport, _, _ = await start_raw(code, max_message_size=16 * 1024 * 1024)
    try:
        await transport.send({"jsonrpc": "2.0", "method": "go"})
        await transport.send(
            {
                "jsonrpc": "2.0",
                "method": "big",
                "params": {"p": "x" * (4 * 1024 * 1024)},
            }
        )
        await asyncio.sleep(
            0
        )  # let the coalesced write run: 4 MiB cannot fit in the pipe
        assert not transport._writable.is_set()  # paused
        assert transport.send_nowait({"jsonrpc": "2.0", "method": "more"}) is False
        await transport.send(
            {"jsonrpc": "2.0", "method": "more"}
        )  # waits until the server drains
        assert transport._writable.is_set()
    finally:
        await transport.aclose()
    await wait_for(lambda: transport.stderr)
    assert int(transport.stderr[-1]) > 4 * 1024 * 1024


async def test_a_sender_blocked_on_backpressure_learns_when_the_server_dies():
    transport, _, closed = await start_raw(
        "import time; time.sleep(1)"
    )  # never reads stdin
    try:
        await transport.send(
            {"jsonrpc": "2.0", "method": "big", "params": {"p": "x" * (1024 * 1024)}}
        )
        await asyncio.sleep(0)
        assert not transport._writable.is_set()
        async with asyncio.timeout(10):
            with pytest.raises(mcpclient.ConnectionLost):
                await transport.send({"jsonrpc": "2.0", "method": "more"})
        assert closed
    finally:
        await transport.aclose()
