"""Peer MCP server written with the official SDK (mcp 2.3.0), dual-era, stdio or Streamable HTTP.

Run: ``python sdk_peer.py`` (stdio), ``python sdk_peer.py --http [--stateless] [--json]`` or ``--sse``
(2024-11-05 HTTP+SSE), which
binds 127.0.0.1 on a free port and prints ``PORT <n>`` on stdout once it listens.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context  # noqa: TC002 - the SDK reads annotations at runtime
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListToolsResult, ToolAnnotations

PAGE_SIZE = 3
STATE: dict[str, Any] = {"cancelled": [], "started": []}


class PagedServer(MCPServer):
    """tools/list answers PAGE_SIZE tools per page, so clients must follow nextCursor."""

    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE_SIZE
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


mcp = PagedServer("sdk-peer", version="1.2.3", log_level="WARNING")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow(steps: int = 3, delay: float = 0.01, ctx: Context = None) -> str:
    """Report progress for each step."""
    for i in range(1, steps + 1):
        await asyncio.sleep(delay)
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


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def observed() -> dict[str, list[str]]:
    """What the server saw: tags of started and cancelled hang calls."""
    return {"started": list(STATE["started"]), "cancelled": list(STATE["cancelled"])}


@mcp.tool()
def big(size: int) -> str:
    """Return a text of the given size."""
    return "x" * size


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


async def _serve_http(
    *, stateless: bool, json_response: bool, legacy_sse: bool
) -> None:
    import uvicorn

    if legacy_sse:
        app = (
            mcp.sse_app()
        )  # 2024-11-05 HTTP+SSE: GET /sse, POST /messages/?session_id=…
    else:
        app = mcp.streamable_http_app(
            stateless_http=stateless, json_response=json_response
        )
    # Let uvicorn bind port 0 itself (a pre-bound socket handed over loses TCP_NODELAY: 40 ms calls).
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    await task


if __name__ == "__main__":
    if "--http" in sys.argv or "--sse" in sys.argv:
        asyncio.run(
            _serve_http(
                stateless="--stateless" in sys.argv,
                json_response="--json" in sys.argv,
                legacy_sse="--sse" in sys.argv,
            )
        )
    else:
        mcp.run("stdio")
