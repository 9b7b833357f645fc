"""The benchmark's SDK peer: an official-SDK (mcp 2.3.0) server with one ``echo`` tool, dual-era.

``python bench/mcp_sdk_server.py`` serves stdio; ``--http`` binds 127.0.0.1 on a free port, prints
``PORT <n>`` once it listens and serves Streamable HTTP at /mcp (stateful; SSE answers to handshake-era
requests, JSON answers to 2026-07-28 requests).

Configured as the SDK's ``MCPServer.run("streamable-http")`` does it (uvicorn, the SDK's
``streamable_http_app``, log level warning, stateful, SSE answers); the socket is bound here only
to pick a free port, with the TCP protocol set so that asyncio enables TCP_NODELAY exactly as it
does for a socket uvicorn binds itself. Both clients talk to this same server.
"""

import asyncio
import socket
import sys

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("bench-sdk-peer", version="1.0.0", log_level="WARNING")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Echo the text back."""
    return text


async def _serve_http() -> None:
    import uvicorn

    app = mcp.streamable_http_app()
    # proto=IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and without it
    # Nagle holds the body behind the header segment for a delayed ACK (~40 ms a call on keep-alive).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    )
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv:
        asyncio.run(_serve_http())
    else:
        mcp.run("stdio")
