"""Against the reference "everything" server (npm @modelcontextprotocol/server-everything, TypeScript SDK,
handshake versions only) over stdio on the installed Node. scripts/setup.d/30-mcp-peers.sh installs it."""

from __future__ import annotations

import base64
import json
import shutil
from typing import TYPE_CHECKING

import pytest

import mcpclient

from .peers import node_modules

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    # Module scope so that one connection (``client``) serves the whole module.
    return "asyncio"


@pytest.fixture(scope="module")
def everything() -> mcpclient.StdioServer:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        node_modules()
        / "@modelcontextprotocol"
        / "server-everything"
        / "dist"
        / "index.js"
    )
    return mcpclient.StdioServer(
        command=[node, str(script), "stdio"], name="everything"
    )


@pytest.fixture(scope="module")
async def client(everything) -> AsyncIterator[mcpclient.ClientSession]:
    async with mcpclient.connect(everything) as session:
        await session.list_tools()
        yield session


async def test_auto_negotiates_the_handshake_at_2025_11_25(client):
    # Our server/discover probe gets -32601 from this server; the client falls back to initialize.
    assert client.protocol_version == "2025-11-25"
    assert not client.is_modern
    assert client.server_info["name"] == "mcp-servers/everything"
    assert {"tools", "resources", "prompts"} <= set(client.server_capabilities)


async def test_tools_that_need_client_capabilities_are_not_offered(client):
    # The server registers sampling, elicitation and roots tools only for clients that declare those
    # capabilities; we implement none of them, so we must not declare them.
    names = {tool.name for tool in await client.list_tools()}
    assert {
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
        "trigger-long-running-operation",
    } <= names
    assert not names & {
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
    }


async def test_text_tools_answer(client):
    assert (await client.call_tool("echo", {"message": "hello"})).text == "Echo: hello"
    result = await client.call_tool("get-sum", {"a": 2, "b": 3.5})
    assert (result.is_error, result.text) == (False, "The sum of 2 and 3.5 is 5.5.")


async def test_structured_content_matches_its_output_schema_and_text(client):
    tool = next(
        t for t in await client.list_tools() if t.name == "get-structured-content"
    )
    assert set(tool.output_schema["properties"]) == {
        "temperature",
        "conditions",
        "humidity",
    }
    result = await client.call_tool(
        "get-structured-content", {"location": "Chicago"}
    )  # validated by the client
    assert set(result.structured_content) == {"temperature", "conditions", "humidity"}
    assert json.loads(result.text) == result.structured_content


async def test_image_and_embedded_resource_content_blocks(client):
    image = await client.call_tool("get-tiny-image")
    block = next(b for b in image.content if b["type"] == "image")
    assert block["mimeType"] == "image/png"
    assert base64.b64decode(block["data"]).startswith(b"\x89PNG\r\n\x1a\n")

    reference = await client.call_tool(
        "get-resource-reference", {"resourceType": "Text", "resourceId": 2}
    )
    embedded = next(b for b in reference.content if b["type"] == "resource")
    assert embedded["resource"]["uri"] == "demo://resource/dynamic/text/2"

    links = await client.call_tool("get-resource-links", {"count": 2})
    assert [b["type"] for b in links.content] == [
        "text",
        "resource_link",
        "resource_link",
    ]


async def test_progress_notifications_reach_the_callback(client):
    seen: list[tuple[float, float | None, str | None]] = []
    result = await client.call_tool(
        "trigger-long-running-operation",
        {"duration": 0.3, "steps": 3},
        on_progress=lambda p, t, m: seen.append((p, t, m)),
    )
    assert "completed" in result.text
    assert seen == [(1, 3, None), (2, 3, None), (3, 3, None)]


async def test_arguments_failing_the_input_schema_are_refused_before_sending(client):
    with pytest.raises(mcpclient.ToolValidationError):
        await client.call_tool("get-sum", {"a": "two", "b": 3})


async def test_resources_list_read_and_templates(client):
    resources = await client.list_resources()
    assert "demo://resource/static/document/features.md" in {r.uri for r in resources}
    document = await client.read_resource("demo://resource/static/document/features.md")
    assert document.contents[0].mime_type == "text/markdown"
    assert document.contents[0].text.startswith("# Everything Server")

    templates = {t["uriTemplate"] for t in await client.list_resource_templates()}
    assert "demo://resource/dynamic/text/{resourceId}" in templates
    text = await client.read_resource("demo://resource/dynamic/text/7")
    assert text.contents[0].text.startswith("Resource 7:")
    blob = await client.read_resource("demo://resource/dynamic/blob/7")
    assert base64.b64decode(blob.contents[0].blob).startswith(b"Resource 7:")


async def test_missing_resource_raises_json_rpc_error(client):
    with pytest.raises(mcpclient.JsonRpcError) as info:
        await client.read_resource("demo://nope")
    assert info.value.code == -32602
    assert info.value.layer == mcpclient.Layer.PROTOCOL


async def test_prompts_list_and_get(client):
    prompts = {p.name: p for p in await client.list_prompts()}
    assert {"simple-prompt", "args-prompt", "resource-prompt"} <= set(prompts)
    assert [(a.name, a.required) for a in prompts["args-prompt"].arguments] == [
        ("city", True),
        ("state", False),
    ]

    simple = await client.get_prompt("simple-prompt")
    assert [m.role for m in simple.messages] == ["user"]
    args = await client.get_prompt("args-prompt", {"city": "Oslo"})
    assert "Oslo" in args.messages[0].content["text"]
    with_resource = await client.get_prompt(
        "resource-prompt", {"resourceType": "Text", "resourceId": "3"}
    )
    assert (
        with_resource.messages[1].content["resource"]["uri"]
        == "demo://resource/dynamic/text/3"
    )
