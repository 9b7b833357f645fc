"""A metrics-like MCP server that fails in one chosen way: for the engine's fault tests.

    python -m tests.diagnosis.engine.servers.faulty MODE --log PATH [--http 127.0.0.1:0]

No SDK: every byte is deliberate. It speaks the handshake era (server/discover is refused, so
the client falls back to initialize), lists one read-only tool, service_health, and answers
tools/call as MODE says. Each tools/call appends "call <service>" to PATH before misbehaving,
so a test counts what reached the server (retries included). Over HTTP it prints
"listening on <url>" on stderr once it listens (tests.mcpclient.servers.scripted_http).

Modes, both transports: crash_at_start (exit 1 before reading anything), crash_mid_call (exit 1
during a tools/call), hang (never answer a call), garbage (non-JSON where the answer belongs),
huge (a 50 MiB result, streamed), is_error (the tool answers isError). HTTP only: status_401
(every POST), status_401_call (tools/call only), status_429 (Retry-After: 1), status_502,
drop_mid_answer (an SSE answer that closes after a progress event, before the result).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.mcpclient.servers.scripted_http import (
    DROP,
    HOLD,
    Reply,
    Request,
    ScriptedServer,
    json_reply,
    sse_reply,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

HUGE_BYTES = 50 * 1024 * 1024
CHUNK = 1024 * 1024
TOOL = {
    "name": "service_health",
    "description": "Health of a service.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "start": {"type": "string"},
            "end": {"type": "string"},
        },
        "required": ["service"],
    },
    "annotations": {"readOnlyHint": True},
}
BACKEND_DOWN = "prometheus query failed: connection refused to prometheus:9090"


def _log(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def _answer(request_id: object, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _handshake(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a lifecycle request, or None for tools/call and notifications."""
    method, request_id = message.get("method"), message.get("id")
    if request_id is None or method == "tools/call":
        return None
    if method == "initialize":
        return _answer(
            request_id,
            {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "faulty", "version": "0"},
            },
        )
    if method == "tools/list":
        return _answer(request_id, {"tools": [TOOL]})
    if method == "ping":
        return _answer(request_id, {})
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": -32601, "message": "Method not found"},
    }


def _is_error(request_id: object) -> dict[str, Any]:
    return _answer(
        request_id,
        {"content": [{"type": "text", "text": BACKEND_DOWN}], "isError": True},
    )


def _huge_parts(request_id: object) -> Iterator[bytes]:
    """One JSON-RPC answer of HUGE_BYTES of text, a chunk at a time (never whole in memory)."""
    yield (
        b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"'
        % json.dumps(request_id).encode()
    )
    for _ in range(HUGE_BYTES // CHUNK):
        yield b"x" * CHUNK
    yield b'"}]}}'


# -- stdio ------------------------------------------------------------------------------------


def serve_stdio(mode: str, log: Path) -> None:
    out = sys.stdout.buffer
    if mode == "crash_at_start":
        sys.stderr.write("faulty: failing at start\n")
        sys.exit(1)
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        if message.get("method") == "notifications/cancelled":
            _log(log, f"cancelled {message['params'].get('requestId')}")
            continue
        answer = _handshake(message)
        if answer is not None:
            out.write(json.dumps(answer).encode() + b"\n")
            out.flush()
            continue
        if message.get("method") != "tools/call":
            continue
        request_id = message["id"]
        _log(log, f"call {message['params']['arguments'].get('service')}")
        if mode == "crash_mid_call":
            sys.stderr.write("faulty: dying mid-call\n")
            sys.stderr.flush()
            os._exit(1)
        elif mode == "hang":
            continue
        elif mode == "garbage":
            out.write(b"<html>502 Bad Gateway</html>\nnot json either\n")
            out.flush()
        elif mode == "huge":
            for part in _huge_parts(request_id):
                out.write(part)
                out.flush()
            out.write(b"\n")
            out.flush()
        elif mode == "is_error":
            out.write(json.dumps(_is_error(request_id)).encode() + b"\n")
            out.flush()
        else:
            raise SystemExit(f"faulty: no stdio mode {mode!r}")


# -- Streamable HTTP --------------------------------------------------------------------------


async def _huge_chunks(request_id: object) -> AsyncIterator[bytes]:
    for part in _huge_parts(request_id):
        yield part


def http_handler(mode: str, log: Path) -> Any:
    async def handler(request: Request) -> Reply:
        if request.method == "DELETE":
            return Reply(200)
        if mode == "status_401":
            return Reply(
                401,
                {
                    "content-type": "text/plain",
                    "www-authenticate": 'Bearer realm="mcp"',
                },
                [b"invalid token"],
            )
        message = request.json()
        method = message.get("method")
        if method == "server/discover":
            return Reply(400, {"content-type": "text/plain"}, [b"Missing session ID"])
        if "id" not in message or method is None:
            return Reply(202)  # a notification, or an answer to a server request
        if method != "tools/call":
            answer = _handshake(message)
            assert answer is not None
            headers = {"mcp-session-id": "faulty-1"} if method == "initialize" else {}
            return json_reply(answer, headers=headers)
        request_id = message["id"]
        _log(log, f"call {message['params']['arguments'].get('service')}")
        if mode == "crash_mid_call":
            os._exit(1)
        if mode == "hang":
            return Reply(200, {"content-type": "text/event-stream"}, [HOLD])
        if mode == "garbage":
            return Reply(
                200,
                {"content-type": "application/json"},
                [b"<html>502 Bad Gateway</html>\nnot json either\n"],
            )
        if mode == "huge":
            # scripted_http writes async chunks as they come: the 50 MiB never sits here whole.
            chunks: Any = _huge_chunks(request_id)
            return Reply(200, {"content-type": "application/json"}, chunks)
        if mode == "is_error":
            return json_reply(_is_error(request_id))
        if mode == "status_401_call":
            return Reply(
                401,
                {
                    "content-type": "text/plain",
                    "www-authenticate": 'Bearer error="invalid_token"',
                },
                [b"token expired"],
            )
        if mode == "status_429":
            return Reply(
                429, {"content-type": "text/plain", "retry-after": "1"}, [b"slow down"]
            )
        if mode == "status_502":
            return Reply(
                502,
                {"content-type": "text/html"},
                [b"<html><body><h1>502 Bad Gateway</h1></body></html>"],
            )
        if mode == "drop_mid_answer":
            token = message["params"].get("_meta", {}).get("progressToken")
            progress = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 2},
            }
            return sse_reply(
                b"event: message\ndata: " + json.dumps(progress).encode() + b"\n\n",
                DROP,
            )
        raise SystemExit(f"faulty: no HTTP mode {mode!r}")

    return handler


async def serve_http(mode: str, log: Path, bind: str) -> None:
    host, _, port = bind.rpartition(":")
    if mode == "crash_at_start":
        sys.stderr.write("faulty: failing at start\n")
        sys.exit(1)
    server = ScriptedServer(http_handler(mode, log))
    await server.start()  # 127.0.0.1, a free port (the only address the tests use)
    assert host == "127.0.0.1" and port == "0", "faulty listens on 127.0.0.1:0 only"
    sys.stderr.write(f"listening on {server.url}\n")
    sys.stderr.flush()
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="faulty", description=__doc__)
    parser.add_argument("mode")
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--http", metavar="HOST:PORT")
    args = parser.parse_args()
    if args.http:
        asyncio.run(serve_http(args.mode, args.log, args.http))
    else:
        serve_stdio(args.mode, args.log)


if __name__ == "__main__":
    main()
