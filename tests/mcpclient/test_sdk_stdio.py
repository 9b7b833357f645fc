"""Against the official SDK server (mcp 2.3.0) over a real stdio pipe: every call, every version."""

from __future__ import annotations

import asyncio

import pytest

import mcpclient

pytestmark = pytest.mark.anyio

VERSIONS = [None, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


async def wait_observed(client: mcpclient.ClientSession, key: str, tag: str) -> None:
    """Poll the server's own record until it saw ``tag`` (bounded, no sleeps)."""
    async with asyncio.timeout(10):
        while tag not in (await client.call_tool("observed")).structured_content[key]:
            pass


@pytest.mark.parametrize("version", VERSIONS)
async def test_every_call_works_at_each_version(sdk_stdio, version):
    records = []
    async with mcpclient.connect(
        sdk_stdio, protocol_version=version, observer=records.append
    ) as client:
        assert client.protocol_version == (version or "2026-07-28")
        assert client.is_modern == (client.protocol_version == "2026-07-28")
        assert client.server_info["name"] == "sdk-peer"
        assert "tools" in client.server_capabilities

        tools = await client.list_tools()  # the peer pages 3 at a time: 3 pages
        names = {t.name for t in tools}
        assert {"echo", "add", "slow", "fail", "hang", "observed", "big"} <= names
        echo = next(t for t in tools if t.name == "echo")
        assert echo.annotations.read_only_hint and echo.is_idempotent
        assert echo.input_schema["required"] == ["text"]
        assert len(echo.schema_hash) == 64

        added = await client.call_tool("add", {"a": 2, "b": 40})
        assert added.structured_content == {"result": 42}
        assert added.text == "42"
        assert not added.is_error
        assert added.raise_for_error() is added

        progress = []
        slow = await client.call_tool(
            "slow", {"steps": 3}, on_progress=lambda p, t, m: progress.append((p, t, m))
        )
        assert slow.text == "done"
        assert progress == [(1, 3, "step 1/3"), (2, 3, "step 2/3"), (3, 3, "step 3/3")]

        failed = await client.call_tool("fail", {"reason": "kaputt"})
        assert failed.is_error
        with pytest.raises(mcpclient.ToolExecutionError, match="kaputt") as info:
            failed.raise_for_error()
        assert info.value.layer is mcpclient.Layer.TOOL_EXECUTION

        resources = await client.list_resources()
        assert [r.uri for r in resources] == ["note://hello"]
        read = await client.read_resource("note://hello")
        assert read.contents[0].text == "hello note"
        assert read.contents[0].mime_type == "text/plain"
        templated = await client.read_resource("note://abc")
        assert templated.contents[0].text == "note abc"

        prompts = await client.list_prompts()
        assert prompts[0].name == "triage"
        assert prompts[0].arguments[0].name == "service"
        assert prompts[0].arguments[0].required
        prompt = await client.get_prompt("triage", {"service": "payments"})
        assert prompt.messages[0].content["text"] == "Triage the payments service."

        with pytest.raises(mcpclient.ToolValidationError) as bad:
            await client.call_tool("add", {"a": "x"})
        assert bad.value.layer is mcpclient.Layer.TOOL_VALIDATION

        # Many concurrent callers on one connection each get their own answer.
        results = await asyncio.gather(
            *(client.call_tool("echo", {"text": f"m{i}"}) for i in range(32))
        )
        assert [r.text for r in results] == [f"m{i}" for i in range(32)]

        if version in ("2026-07-28", "2025-11-25"):
            await check_cancellation(client, f"cancel-{version}")
        transport = client.transport
    assert transport.returncode == 0  # closing stdin let the server exit cleanly
    with pytest.raises(mcpclient.UsageError, match="after close"):
        await client.call_tool("echo", {"text": "x"})
    assert {r.method for r in records} >= {
        "tools/list",
        "tools/call",
        "resources/read",
        "prompts/get",
    }
    call = next(r for r in records if r.tool == "add" and r.outcome == "ok")
    assert call.protocol_version == client.protocol_version
    assert call.transport == "stdio"
    assert (
        call.schema_hash is not None
        and call.result_hash is not None
        and call.result_size > 0
    )
    assert next(r for r in records if r.tool == "fail").outcome == "tool_error"
    assert (
        next(r for r in records if r.tool == "add" and r.outcome == "error").error_layer
        == "tool_validation"
    )


async def check_cancellation(client: mcpclient.ClientSession, tag: str) -> None:
    """Cancelling the awaiting task, and a timeout, both reach the server as a cancellation."""
    task = asyncio.create_task(client.call_tool("hang", {"tag": tag}))
    await wait_observed(client, "started", tag)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_observed(client, "cancelled", tag)
    assert client._pending == {}
    with pytest.raises(mcpclient.ResponseTimeout) as info:
        await client.call_tool("hang", {"tag": tag + "-t"}, timeout=0.5)
    assert info.value.outcome_unknown
    await wait_observed(client, "cancelled", tag + "-t")
