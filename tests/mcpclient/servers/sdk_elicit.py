"""The official SDK server (mcp 2.3.0) with a tool that elicits: ``ask_profile`` asks for a profile
whose fields all have defaults and answers with what it got (or the action when not accepted).

Run: ``python sdk_elicit.py`` (stdio) or ``python sdk_elicit.py --http`` (prints ``PORT <n>``).
"""

from __future__ import annotations

import asyncio
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context  # noqa: TC002 - the SDK reads annotations at runtime
from pydantic import BaseModel

mcp = MCPServer("sdk-elicit", log_level="WARNING")


class Profile(BaseModel):
    name: str = "John Doe"
    age: int = 30
    verified: bool = True


@mcp.tool()
async def ask_profile(ctx: Context = None) -> str:  # type: ignore[assignment]
    result = await ctx.elicit("Your profile?", schema=Profile)
    if result.action != "accept":
        return result.action
    return result.data.model_dump_json()


async def _serve_http() -> None:
    import uvicorn

    app = mcp.streamable_http_app()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    print(f"PORT {server.servers[0].sockets[0].getsockname()[1]}", flush=True)
    await task


if __name__ == "__main__":
    if "--http" in sys.argv:
        asyncio.run(_serve_http())
    else:
        mcp.run("stdio")
