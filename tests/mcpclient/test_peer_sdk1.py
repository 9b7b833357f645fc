"""Against a server written with the official SDK 1.x (FastMCP, mcp==1.30.0), which speaks only the
handshake versions: real stdio pipes and real Streamable HTTP (uvicorn on 127.0.0.1). The peer runs in
its own venv (var/peers/mcp1, made by scripts/setup.d/30-mcp-peers.sh)."""

from __future__ import annotations

import asyncio
import subprocess
from typing import TYPE_CHECKING

import pytest

import mcpclient

from .peers import HERE, mcp1_python

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

pytestmark = pytest.mark.anyio

SERVER = HERE / "sdk1_server.py"
HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
TOOLS = ["echo", "add", "weather", "slow", "fail", "hang", "observed"]


@pytest.fixture(scope="session")
def sdk1_stdio() -> mcpclient.StdioServer:
    return mcpclient.StdioServer(command=[str(mcp1_python()), str(SERVER)], name="sdk1")


@pytest.fixture(scope="session")
def sdk1_http_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [str(mcp1_python()), str(SERVER), "--http"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("PORT "), f"sdk1 peer did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    # Module scope so that one connection (``client``) can serve the tests that do not test connecting:
    # the 1.x peer takes seconds to start on a loaded machine.
    return "asyncio"


@pytest.fixture(scope="module", params=["stdio", "http"])
def sdk1(request) -> mcpclient.StdioServer | mcpclient.HttpServer:
    if request.param == "stdio":
        return request.getfixturevalue("sdk1_stdio")
    return mcpclient.HttpServer(
        url=request.getfixturevalue("sdk1_http_url"), name="sdk1-http"
    )


@pytest.fixture(scope="module")
async def client(sdk1) -> AsyncIterator[mcpclient.ClientSession]:
    """One auto-negotiated connection per transport, shared by the tests of calls on an open session."""
    async with mcpclient.connect(sdk1) as session:
        await session.list_tools()
        yield session


async def test_auto_falls_back_to_the_handshake_at_2025_11_25(sdk1):
    async with mcpclient.connect(sdk1) as client:
        assert client.protocol_version == "2025-11-25"
        assert not client.is_modern
        assert client.server_info == {"name": "sdk1-peer", "version": "1.30.0"}
        assert client.instructions == "A legacy-only test peer."
        assert set(client.server_capabilities) >= {"tools", "resources", "prompts"}
        assert (await client.call_tool("echo", {"text": "hi"})).text == "hi"


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_every_call_works_at_each_pinned_version(sdk1, version):
    async with mcpclient.connect(sdk1, protocol_version=version) as client:
        assert client.protocol_version == version
        tools = await client.list_tools()  # two pages of 4
        assert [tool.name for tool in tools] == TOOLS
        by_name = {tool.name: tool for tool in tools}
        assert by_name["echo"].annotations.read_only_hint
        assert by_name["add"].input_schema["required"] == ["a", "b"]
        assert by_name["weather"].output_schema["required"] == ["city", "celsius"]
        assert len({tool.schema_hash for tool in tools}) == len(tools)

        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert (added.is_error, added.structured_content, added.text) == (
            False,
            {"result": 5},
            "5",
        )
        weather = await client.call_tool("weather", {"city": "Oslo"})
        assert weather.structured_content == {"city": "Oslo", "celsius": 21.5}

        assert [r.uri for r in await client.list_resources()] == ["note://hello"]
        note = await client.read_resource("note://hello")
        assert (note.contents[0].text, note.contents[0].mime_type) == (
            "hello note",
            "text/plain",
        )
        assert (await client.read_resource("note://db")).contents[0].text == "note db"
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == ["note://{name}"]

        prompts = await client.list_prompts()
        assert [
            (p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts
        ] == [("triage", [("service", True)])]
        prompt = await client.get_prompt("triage", {"service": "db"})
        assert [(m.role, m.content["text"]) for m in prompt.messages] == [
            ("user", "Triage the db service.")
        ]


async def test_tool_error_is_a_result_and_raise_for_error_raises(client):
    result = await client.call_tool("fail", {"reason": "disk full"})
    assert result.is_error
    assert "disk full" in result.text
    with pytest.raises(mcpclient.ToolExecutionError, match="disk full") as info:
        result.raise_for_error()
    assert info.value.layer == mcpclient.Layer.TOOL_EXECUTION


async def test_progress_notifications_reach_the_callback_in_order(client):
    seen: list[tuple[float, float | None, str | None]] = []
    result = await client.call_tool(
        "slow", {"steps": 3}, on_progress=lambda p, t, m: seen.append((p, t, m))
    )
    assert result.text == "done"
    assert seen == [(1, 3, "step 1/3"), (2, 3, "step 2/3"), (3, 3, "step 3/3")]


async def test_arguments_failing_the_input_schema_are_refused_before_sending(client):
    with pytest.raises(mcpclient.ToolValidationError) as info:
        await client.call_tool("add", {"a": "two", "b": 3})
    assert info.value.layer == mcpclient.Layer.TOOL_VALIDATION
    assert not info.value.outcome_unknown


async def test_pinning_2026_07_28_fails_with_version_mismatch(sdk1):
    with pytest.raises(mcpclient.VersionMismatch) as info:
        async with mcpclient.connect(sdk1, protocol_version="2026-07-28"):
            pass
    assert info.value.layer == mcpclient.Layer.PROTOCOL


async def test_unknown_resource_raises_json_rpc_error(client):
    with pytest.raises(mcpclient.JsonRpcError) as info:
        await client.read_resource("other://missing")
    assert "missing" in str(info.value)


async def _observed(client: mcpclient.ClientSession, tag: str) -> dict[str, list[str]]:
    """The server's record once it has seen ``tag`` cancelled (bounded by the caller's timeout)."""
    while True:
        seen = (await client.call_tool("observed")).structured_content
        if tag in seen["cancelled"]:
            return seen
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("how", ["timeout", "task-cancel"])
async def test_cancellation_is_observed_on_the_server(client, how):
    tag = f"{how}-{client.transport.kind}"
    if how == "timeout":
        with pytest.raises(mcpclient.ResponseTimeout) as info:
            await client.call_tool("hang", {"tag": tag}, timeout=0.5)
        assert info.value.outcome_unknown
    else:
        task = asyncio.create_task(client.call_tool("hang", {"tag": tag}))
        async with asyncio.timeout(5):
            while (
                tag
                not in (await client.call_tool("observed")).structured_content[
                    "started"
                ]
            ):
                await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    async with asyncio.timeout(5):
        seen = await _observed(client, tag)
    assert tag in seen["started"]
    # The request id was freed: the connection still serves calls.
    assert (await client.call_tool("echo", {"text": "after"})).text == "after"
