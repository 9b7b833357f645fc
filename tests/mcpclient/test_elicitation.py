"""Elicitation against the official SDK server (mcp 2.3.0, servers/sdk_elicit.py), over stdio and
Streamable HTTP: with a handler the client declares the capability and answers; the requested
schema's defaults fill what the handler left out (SEP-1034); without one it declines to take part."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

import mcpclient

from .conftest import SERVERS

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.anyio
ELICIT_PEER = SERVERS / "sdk_elicit.py"


@pytest.fixture(scope="module")
def elicit_http_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(ELICIT_PEER), "--http"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("PORT "), f"peer did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


def stdio() -> mcpclient.StdioServer:
    return mcpclient.StdioServer(
        command=[sys.executable, str(ELICIT_PEER)], close_timeout=15.0
    )


async def some(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    assert message == "Your profile?"
    assert set(schema["properties"]) == {"name", "age", "verified"}
    return {"name": "Ada"}


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_handler_answers_and_defaults_fill_the_rest(
    transport, elicit_http_url
):
    server = (
        stdio() if transport == "stdio" else mcpclient.HttpServer(url=elicit_http_url)
    )
    async with mcpclient.connect(
        server, protocol_version="2025-11-25", elicit=some, timeout=30
    ) as client:
        result = await client.call_tool("ask_profile")
    assert json.loads(result.text) == {"name": "Ada", "age": 30, "verified": True}


async def test_a_handler_returning_none_declines(elicit_http_url):
    async with mcpclient.connect(
        mcpclient.HttpServer(url=elicit_http_url),
        protocol_version="2025-11-25",
        elicit=lambda message, schema: None,
    ) as client:
        assert (await client.call_tool("ask_profile")).text == "decline"


async def test_a_failing_handler_answers_an_error(elicit_http_url):
    def broken(message: str, schema: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("no")

    async with mcpclient.connect(
        mcpclient.HttpServer(url=elicit_http_url),
        protocol_version="2025-11-25",
        elicit=broken,
    ) as client:
        with pytest.raises(mcpclient.JsonRpcError) as caught:
            await client.call_tool("ask_profile")
    assert "elicitation failed" in str(
        caught.value
    )  # our error answer, passed on by the tool


async def test_without_a_handler_nothing_is_elicited():
    async with mcpclient.connect(stdio(), protocol_version="2025-11-25") as client:
        with pytest.raises(mcpclient.JsonRpcError) as caught:
            await client.call_tool("ask_profile")
    assert "does not support 'elicitation/create'" in str(caught.value)
