"""`python -m mcpservers.netcheck` over stdio and Streamable HTTP, driven by the official SDK client."""

import asyncio
import json
import os
import re
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcpservers.netcheck import Policy, Prober, Resolver
from mcpservers.netcheck.__main__ import main
from mcpservers.netcheck.server import build_server
from mcpservers.scenarios._listeners import Listeners, Response

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
NAME = "api.payments.internal"


def server_args(*extra):
    return [
        "-m",
        "mcpservers.netcheck",
        "--allow",
        NAME,
        "--allow",
        "gone.internal",
        "--resolve",
        f"{NAME}=127.0.0.1",
        "--resolve",
        "gone.internal=NXDOMAIN",
        "--http-timeout",
        "2",
        *extra,
    ]


@pytest.fixture
async def gateway():
    """A real listener answering 502, as a gateway whose upstream is broken does."""

    async def bad_gateway(request, writer):
        return Response(
            502, "upstream connect error or disconnect/reset before headers"
        )

    async with Listeners() as group:
        yield await group.http(bad_gateway)


@asynccontextmanager
async def stdio_session():
    params = StdioServerParameters(
        command=sys.executable, args=server_args(), cwd=str(ROOT)
    )
    with open(os.devnull, "w") as errlog:  # noqa: PTH123 - stdio_client wants a text file
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            async with asyncio.timeout(60):
                await session.initialize()
            yield session


@asynccontextmanager
async def http_server(*extra, env=None):
    """Start the server with --http 127.0.0.1:0 and yield its /mcp URL, read from its start-up line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *server_args("--http", "127.0.0.1:0", *extra),
        cwd=str(ROOT),
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(60):
            while True:
                line = (await process.stderr.readline()).decode()
                assert line, "server exited before listening"
                if match := re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line):
                    break
        yield match.group(1)
    finally:
        process.terminate()
        async with asyncio.timeout(10):
            await process.wait()


def payload(result):
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_stdio_lists_tools_and_targets_and_probes_a_real_502_gateway(gateway):
    async with stdio_session() as session, asyncio.timeout(60):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        targets = payload(await session.call_tool("list_targets", {}))
        result = payload(
            await session.call_tool(
                "probe_url", {"url": f"http://{NAME}:{gateway}/checkout"}
            )
        )

    assert set(tools) == {"probe_url", "list_targets"}
    assert tools["probe_url"].annotations.read_only_hint is True
    assert tools["probe_url"].input_schema["required"] == ["url"]
    assert (result["failed_layer"], result["reason"]) == ("http", "http_502")
    assert result["http"]["status"] == 502
    assert result["resolver"] == "override"
    assert targets["allow"] == [NAME, "gone.internal"]
    assert targets["resolve"] == {NAME: ["127.0.0.1"], "gone.internal": "NXDOMAIN"}
    assert targets["timeouts_s"]["http"] == 2.0


async def test_stdio_tool_errors_are_actionable_and_carry_no_traceback():
    async with stdio_session() as session, asyncio.timeout(60):
        refused = await session.call_tool(
            "probe_url", {"url": "http://169.254.169.254/latest/meta-data/"}
        )
        unlisted = await session.call_tool("probe_url", {"url": "https://example.com/"})
        bad_scheme = await session.call_tool(
            "probe_url", {"url": "ftp://api.payments.internal/"}
        )
        bad_type = await session.call_tool(
            "probe_url", {"url": NAME, "timeout_s": "soon"}
        )

    for result in (refused, unlisted, bad_scheme, bad_type):
        assert result.is_error is True
        assert "Traceback" not in result.content[0].text
    assert "cloud metadata address" in refused.content[0].text
    assert "not in the allowlist" in unlisted.content[0].text
    assert "--allow" in unlisted.content[0].text
    assert "scheme must be http or https" in bad_scheme.content[0].text
    assert "timeout_s" in bad_type.content[0].text


async def test_streamable_http_probes_with_the_sdk_client(gateway):
    async with (
        http_server() as url,
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
        asyncio.timeout(60),
    ):
        await session.initialize()
        tools = await session.list_tools()
        bad = payload(
            await session.call_tool("probe_url", {"url": f"http://{NAME}:{gateway}/"})
        )
        gone = payload(
            await session.call_tool("probe_url", {"url": "https://gone.internal/"})
        )

    assert {tool.name for tool in tools.tools} == {"probe_url", "list_targets"}
    assert (bad["failed_layer"], bad["http"]["status"]) == ("http", 502)
    assert (gone["failed_layer"], gone["reason"]) == ("dns", "nxdomain")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--allow", "http://169.254.169.254/"], "cloud metadata address"),
        (["--allow", "a.internal", "--resolve", "a.internal"], "expected name=IP"),
        (["--allow", "ftp://a.internal/"], "only http and https"),
        (
            ["--allow", "a.internal", "--tls-timeout", "0"],
            "expected seconds, > 0 and <= 30",
        ),
        (
            ["--allow", "a.internal", "--dns-server", "dns.internal"],
            "expected IP[:PORT]",
        ),
    ],
)
def test_bad_command_line_exits_2_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as exited:
        main(args)

    stderr = capsys.readouterr().err
    assert exited.value.code == 2
    assert message in stderr
    assert "Traceback" not in stderr


class ExplodingProber(Prober):
    async def probe(self, url, **kwargs):
        raise RuntimeError("resolver state corrupted")


async def test_unexpected_failure_is_a_tool_error_without_traceback(caplog):
    server = build_server(ExplodingProber(policy=Policy.from_values([NAME])))

    async with Client(server) as client, asyncio.timeout(10):
        result = await client.call_tool("probe_url", {"url": f"https://{NAME}/"})

    assert result.is_error is True
    text = result.content[0].text
    assert "failed unexpectedly (RuntimeError: resolver state corrupted)" in text
    assert "Traceback" not in text
    assert "resolver state corrupted" in caplog.text  # the server log keeps the detail


async def test_probe_result_reports_the_status_at_top_level(gateway):
    resolver = Resolver()
    resolver.add_override(f"{NAME}=127.0.0.1")
    server = build_server(Prober(policy=Policy.from_values([NAME]), resolver=resolver))

    async with Client(server) as client, asyncio.timeout(10):
        result = await client.call_tool(
            "probe_url", {"url": f"http://{NAME}:{gateway}/"}
        )

    assert result.structured_content["status"] == 502
    assert json.loads(result.content[0].text)["failed_layer"] == "http"
