"""A metrics-like MCP server whose service_health takes a while: for the session pool tests.

    python -m tests.diagnosis.engine.servers.timed_health --log PATH [--seconds S] [--hang SERVICE]

Each call appends "started <service> <pid>" to PATH, then waits `--seconds` (or forever for the
service named by `--hang`) and appends "finished <service> <pid>"; a call the client cancels
appends "cancelled <service> <pid>". The answer names the pid, so a test can tell which
process answered whom. With TIMED_HEALTH_TOKEN set, the start appends "token <value> <pid>".
"""

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from mcpservers._common import base_parser, run


def _log(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(line + "\n")
        out.flush()


def build(log: Path, seconds: float, hang: str | None) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "timed-health", version="0.1.0", log_level="WARNING"
    )
    pid = os.getpid()

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def service_health(
        service: str, start: str = "now-1h", end: str = "now"
    ) -> dict[str, Any]:
        """Health of a service (takes a while)."""
        _log(log, f"started {service} {pid}")
        try:
            await asyncio.sleep(3600 if service == hang else seconds)
        except BaseException:
            _log(log, f"cancelled {service} {pid}")
            raise
        _log(log, f"finished {service} {pid}")
        return {"verdict": "healthy", "service": service, "pid": pid}

    return server


def main() -> None:
    parser = base_parser("timed_health", "A service_health that takes a while.")
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--hang", default=None)
    args = parser.parse_args()
    token = os.environ.get("TIMED_HEALTH_TOKEN")
    if token:
        _log(args.log, f"token {token} {os.getpid()}")
    run(build(args.log, args.seconds, args.hang), args, prog="timed_health")


if __name__ == "__main__":
    sys.exit(main())
