"""Command line shared by every server: stdio by default, `--http HOST:PORT` for Streamable HTTP."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from mcpservers._common.http import (
    DEFAULT_MAX_REQUEST_BYTES,
    GuardMiddleware,
    is_loopback_host,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SCENARIOS_ROOT = Path(__file__).resolve().parent.parent / "scenarios"
_SCENARIO_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class UsageError(Exception):
    """A start-up problem (bad flag, unreadable data file) reported as one line and exit status 2."""


def parse_hostport(value: str) -> tuple[str, int]:
    """Parse "127.0.0.1:8000", "[::1]:8000" or "localhost:0" (0 picks a free port)."""
    match = re.fullmatch(r"\[([^\]]+)\]:(\d{1,5})|([^:\[\]]+):(\d{1,5})", value.strip())
    if not match:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT such as 127.0.0.1:8000, got {value!r}"
        )
    host = match.group(1) or match.group(3)
    port = int(match.group(2) or match.group(4))
    if port > 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range")
    return host, port


def base_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the transport flags every server shares."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    group = parser.add_argument_group("transport")
    group.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=parse_hostport,
        help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 picks a free port)",
    )
    group.add_argument(
        "--token-env",
        metavar="NAME",
        help="HTTP only: require 'Authorization: Bearer <token>', the token read from environment variable NAME",
    )
    group.add_argument(
        "--allow-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="HTTP only: also accept this browser Origin (loopback origins are always accepted); repeatable",
    )
    group.add_argument(
        "--max-request-bytes",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_REQUEST_BYTES,
        help=f"HTTP only: reject larger request bodies with 413 (default {DEFAULT_MAX_REQUEST_BYTES})",
    )
    return parser


def scenario_dir(name_or_path: str) -> Path:
    """Resolve `--scenario`: a bundled scenario name, or a path to a scenario directory.

    Raises:
        UsageError: unknown name or missing directory; the message lists the bundled scenarios.
    """
    if _SCENARIO_NAME.match(name_or_path):
        path = SCENARIOS_ROOT / name_or_path
    else:
        path = Path(name_or_path).expanduser()
    if not path.is_dir():
        known = (
            sorted(
                p.name
                for p in SCENARIOS_ROOT.iterdir()
                if p.is_dir() and p.name[0] not in "._"
            )
            if SCENARIOS_ROOT.is_dir()
            else []
        )
        raise UsageError(
            f"scenario {name_or_path!r} not found (looked in {path}); bundled scenarios: {', '.join(known) or 'none'}"
        )
    return path


def read_token(env_name: str | None) -> str | None:
    if env_name is None:
        return None
    token = os.environ.get(env_name, "")
    if not token.strip():
        raise UsageError(
            f"--token-env {env_name}: environment variable {env_name} is unset or empty"
        )
    return token.strip()


def fail(prog: str, message: str) -> NoReturn:
    sys.stderr.write(f"{prog}: error: {message}\n")
    raise SystemExit(2)


def prepare_start() -> None:
    """Make a `python -m mcpservers.<name>` start cheap; each `__main__` calls it before the SDK loads.

    Measured with bench/server_start.py, a start is mostly importing the SDK (hundreds of pydantic
    classes). Two things here cut it without changing what the server answers:
    1. Cyclic GC is off until `run()` serves: every collection during the imports would walk all
       the objects built so far again, and nothing built at start is garbage.
    2. `rich` (an optional extra of mcp, present when dev tools pulled it in) is not imported:
       MCPServer() logs through rich when it can, which costs ~60 ms to import, and otherwise
       through a plain StreamHandler, as in a `pip install mcp` without extras.
    """
    gc.disable()
    sys.modules.setdefault(
        "rich", None
    )  # None in sys.modules: `import rich…` raises ImportError


def run(server: MCPServer[Any], args: argparse.Namespace, *, prog: str) -> None:
    """Serve `server` on stdio, or on Streamable HTTP when `--http` was given."""
    gc.enable()  # off since prepare_start(), if that ran
    if args.http is None:
        if args.token_env or args.allow_origin:
            fail(prog, "--token-env and --allow-origin apply only with --http")
        server.run("stdio")
        return
    host, port = args.http
    try:
        token = read_token(args.token_env)
    except UsageError as exc:
        fail(prog, str(exc))
    if token is None and not is_loopback_host(host):
        sys.stderr.write(
            f"{prog}: warning: serving on {host} without --token-env; anyone who can reach it can call tools\n"
        )
    asyncio.run(
        serve_http(
            server,
            host=host,
            port=port,
            token=token,
            allowed_origins=args.allow_origin,
            max_request_bytes=args.max_request_bytes,
            prog=prog,
        )
    )


def build_http_app(
    server: MCPServer[Any],
    *,
    host: str,
    token: str | None,
    allowed_origins: list[str],
    max_request_bytes: int,
) -> GuardMiddleware:
    """The SDK's Streamable HTTP app at /mcp behind `GuardMiddleware`."""
    from mcp.server.transport_security import TransportSecuritySettings

    # The guard owns Host/Origin checks, so the SDK's own copy (loopback-only lists) is switched off;
    # otherwise an Origin allowed with --allow-origin would still be refused by the SDK.
    app = server.streamable_http_app(
        host=host,
        max_request_body_size=max_request_bytes,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=False
        ),
    )
    return GuardMiddleware(
        app,
        token=token,
        allowed_origins=allowed_origins,
        max_request_bytes=max_request_bytes,
        check_host=is_loopback_host(host),
    )


async def serve_http(
    server: MCPServer[Any],
    *,
    host: str,
    port: int,
    token: str | None,
    allowed_origins: list[str],
    max_request_bytes: int,
    prog: str,
) -> None:
    import uvicorn

    app = build_http_app(
        server,
        host=host,
        token=token,
        allowed_origins=allowed_origins,
        max_request_bytes=max_request_bytes,
    )
    # Bind before uvicorn starts so the real port (for port 0) can be printed; connections that arrive
    # before uvicorn accepts wait in the listen backlog.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        fail(prog, f"cannot listen on {host}:{port}: {exc.strerror}")
    sock.listen(128)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"{prog}: serving Streamable HTTP on http://{shown_host}:{bound_port}/mcp\n"
    )
    sys.stderr.flush()
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2
    )
    await uvicorn.Server(config).serve(sockets=[sock])
