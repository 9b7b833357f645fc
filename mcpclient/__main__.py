"""Command line: ``python -m mcpclient tools <target>`` and ``python -m mcpclient call <target> <tool> '<json>'``.

The target is an http(s) URL (Streamable HTTP; ``--legacy-sse`` for 2024-11-05 servers) or ``--``
followed by the command of a stdio server. Errors are printed with their layer; the exit code is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from typing import Any

from . import HttpServer, LegacySseServer, McpError, StdioServer, connect


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mcpclient", description=__doc__)
    parser.add_argument(
        "--protocol-version",
        default=None,
        help="pin a protocol version (default: auto)",
    )
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="extra HTTP header",
    )
    parser.add_argument(
        "--legacy-sse",
        action="store_true",
        help="the URL is a 2024-11-05 HTTP+SSE endpoint",
    )
    parser.add_argument("command", choices=["tools", "call"])
    return parser


def _split(argv: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, None


def _target(
    options: argparse.Namespace, url: str | None, stdio: list[str] | None
) -> Any:
    if stdio:
        return StdioServer(command=stdio)
    headers = dict(h.split(":", 1) for h in options.header)
    headers = {k.strip(): v.strip() for k, v in headers.items()}
    if options.legacy_sse:
        return LegacySseServer(url=url or "", headers=headers)
    return HttpServer(url=url or "", headers=headers)


async def _run(options: argparse.Namespace, server: Any, rest: list[str]) -> Any:
    async with connect(
        server, protocol_version=options.protocol_version, timeout=options.timeout
    ) as client:
        if options.command == "tools":
            tools = await client.list_tools()
            return {
                "protocol_version": client.protocol_version,
                "server_info": client.server_info,
                "tools": [
                    {
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                        "schema_hash": t.schema_hash,
                    }
                    for t in tools
                ],
            }
        tool, raw_args = rest
        await client.list_tools()  # so arguments are validated against the inputSchema
        result = await client.call_tool(
            tool, json.loads(raw_args), timeout=options.timeout
        )
        return {k: v for k, v in asdict(result).items() if k != "raw"}


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args, stdio = _split(list(sys.argv[1:] if argv is None else argv))
    parser = _parser()
    options, rest = parser.parse_known_args(args)
    url = None
    if stdio is None:
        if not rest:
            parser.error("a target is needed: a URL, or -- followed by a command")
        url, rest = rest[0], rest[1:]
    elif options.command == "call" and not rest and len(stdio) >= 3:
        # With a stdio target the tool and its JSON arguments are the last two words.
        stdio, rest = stdio[:-2], stdio[-2:]
    expected = 2 if options.command == "call" else 0
    if len(rest) != expected:
        parser.error(
            f"{options.command} takes {'<tool> <json>' if expected else 'no arguments'} after the target"
        )
    if options.command == "call":
        try:
            json.loads(rest[1])
        except ValueError as exc:
            parser.error(f"arguments are not JSON: {exc}")
    try:
        output = asyncio.run(_run(options, _target(options, url, stdio), rest))
    except McpError as exc:
        print(f"error [{exc.layer}] {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(output, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
