"""Peer MCP server written with the official SDK 1.x (FastMCP, mcp==1.30.0): handshake versions only.

Runs under var/peers/mcp1/bin/python (scripts/setup.d/30-mcp-peers.sh), never under the app's venv.
``python sdk1_server.py`` serves stdio; ``python sdk1_server.py --http`` binds 127.0.0.1 on a free
port and prints ``PORT <n>`` once it listens (Streamable HTTP at /mcp, stateful, SSE answers).
"""

from __future__ import annotations

import asyncio
import socket
import sys

import mcp.types as types
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import BaseModel

PAGE_SIZE = 4
STATE: dict[str, list[str]] = {"started": [], "cancelled": []}

mcp = FastMCP("sdk1-peer", instructions="A legacy-only test peer.", log_level="WARNING")


class Weather(BaseModel):
    city: str
    celsius: float


@mcp.tool(annotations=types.ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations=types.ToolAnnotations(readOnlyHint=True))
def weather(city: str) -> Weather:
    """Structured output with an outputSchema."""
    return Weather(city=city, celsius=21.5)


@mcp.tool()
async def slow(steps: int = 3, ctx: Context = None) -> str:  # type: ignore[assignment]
    """Report progress for each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
    return "done"


@mcp.tool()
def fail(reason: str = "boom") -> str:
    """Always fails with a tool error."""
    raise ToolError(reason)


@mcp.tool()
async def hang(tag: str) -> str:
    """Wait until cancelled; the server records the cancellation."""
    STATE["started"].append(tag)
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        STATE["cancelled"].append(tag)
        raise
    return "finished"


@mcp.tool(annotations=types.ToolAnnotations(readOnlyHint=True))
def observed() -> dict[str, list[str]]:
    """What the server saw: tags of started and cancelled hang calls."""
    return {"started": list(STATE["started"]), "cancelled": list(STATE["cancelled"])}


@mcp.resource("note://hello", mime_type="text/plain")
def hello_note() -> str:
    """A static note."""
    return "hello note"


@mcp.resource("note://{name}")
def named_note(name: str) -> str:
    """A templated note."""
    return f"note {name}"


@mcp.prompt()
def triage(service: str) -> str:
    """Triage prompt for a service."""
    return f"Triage the {service} service."


@mcp._mcp_server.list_tools()
async def _paged_list_tools(request: types.ListToolsRequest) -> types.ListToolsResult:
    """tools/list answers PAGE_SIZE tools per page, so clients must follow nextCursor."""
    tools = await mcp.list_tools()
    # The low-level server caches only the page it returns; keep every tool known for call_tool.
    # (It refreshes that cache by calling this handler with None, hence the None check below.)
    mcp._mcp_server._tool_cache.update({tool.name: tool for tool in tools})
    cursor = (
        request.params.cursor
        if request is not None and request.params is not None
        else None
    )
    start = int(cursor) if cursor else 0
    end = start + PAGE_SIZE
    next_cursor = str(end) if end < len(tools) else None
    return types.ListToolsResult(tools=tools[start:end], nextCursor=next_cursor)


async def _serve_http() -> None:
    import uvicorn

    app = mcp.streamable_http_app()
    # proto=IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and without it
    # Nagle holds the body behind the header segment for a delayed ACK (~40 ms a call on keep-alive).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections made right after PORT is printed wait in the backlog
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    await server.serve(sockets=[sock])


def _main(argv: list[str]) -> None:
    if "--http" in argv:
        asyncio.run(_serve_http())
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    _main(sys.argv[1:])
