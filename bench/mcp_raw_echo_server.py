"""Minimal MCP server over stdio with no SDK: blocking reads, one JSON line in, one out.

The benchmark's baseline peer: it costs a few microseconds a call, so timings against it measure the client.
Speaks the handshake era (initialize at whatever version is asked, up to 2025-11-25) and answers
``server/discover`` with -32601, so dual-era clients fall back to ``initialize``.
"""

import json
import sys

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOL = {
    "name": "echo",
    "description": "Echo the text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "annotations": {"readOnlyHint": True},
}


def _answer(message: dict) -> dict | None:
    method = message.get("method")
    if "id" not in message or method is None:
        return None  # notifications (initialized, cancelled) and stray responses
    params = message.get("params") or {}
    if method == "tools/call":
        text = params.get("arguments", {}).get("text", "")
        result: dict = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "initialize":
        asked = params.get("protocolVersion")
        result = {
            "protocolVersion": asked
            if asked in HANDSHAKE_VERSIONS
            else HANDSHAKE_VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "raw-echo", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in stdin:
        answer = _answer(json.loads(line))
        if answer is not None:
            stdout.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
            stdout.flush()


if __name__ == "__main__":
    main()
