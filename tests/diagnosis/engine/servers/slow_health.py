"""A metrics-like MCP server whose service_health never answers: for cancellation tests.

    python -m tests.diagnosis.engine.servers.slow_health --log PATH [--http 127.0.0.1:0]

Each call appends "started <service>" to PATH and sends a progress notification every 20 ms; when the client cancels the call (the SDK cancels
the handler on notifications/cancelled, or when the request's stream closes), "cancelled
<service>" is appended. The test reads PATH: that is the server's side of the cancellation.
"""

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

from mcpservers._common import base_parser, run


def _log(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(line + "\n")
        out.flush()


def build(log: Path) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "slow-health", version="0.1.0", log_level="WARNING"
    )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def service_health(
        ctx: Context, service: str, start: str = "now-1h", end: str = "now"
    ) -> dict[str, Any]:
        """Health of a service (this one never finishes; it reports progress every 20 ms)."""
        _log(log, f"started {service}")
        try:
            for step in range(180_000):
                await ctx.report_progress(step, None, f"still checking {service}")
                await asyncio.sleep(0.02)
        except BaseException:
            _log(log, f"cancelled {service}")
            raise
        return {"verdict": "unknown"}

    return server


def main() -> None:
    parser = base_parser("slow_health", "A service_health that never answers.")
    parser.add_argument("--log", required=True, type=Path)
    args = parser.parse_args()
    run(build(args.log), args, prog="slow_health")


if __name__ == "__main__":
    sys.exit(main())
