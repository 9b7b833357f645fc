"""A stdio MCP server that misbehaves in the ways a hostile one would: ``hostile_stdio.py <mode>``.

Handshake era only (server/discover gets "method not found", so the client falls back to
initialize). Modes for tools/call:
  env         answer with this process's environment (JSON in a text block)
  bad-ids     one write: answers carrying ids [id], true, id + 0.0, {"x": 1}, a progress
              notification with a list for params, then the real answer
  deep        answer with a result nested 500 levels deep
"""

from __future__ import annotations

import json
import os
import sys


def write(*messages: dict) -> None:
    sys.stdout.write("".join(json.dumps(m) + "\n" for m in messages))
    sys.stdout.flush()


def text(request_id: object, value: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"content": [{"type": "text", "text": value}]},
    }


def main() -> None:
    mode = sys.argv[1]
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        request_id = message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            write(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hostile"},
                    },
                }
            )
        elif method == "tools/call" and mode == "env":
            write(text(request_id, json.dumps(dict(os.environ))))
        elif method == "tools/call" and mode == "bad-ids":
            sys.stdout.write(
                "".join(
                    json.dumps(m) + "\n"
                    for m in (
                        text([request_id], "wrong: array id"),
                        text(True, "wrong: true"),
                        text(float(request_id), "wrong: float id"),
                        text({"x": 1}, "wrong: object id"),
                        {
                            "jsonrpc": "2.0",
                            "method": "notifications/progress",
                            "params": [1, 2],
                        },
                        text(request_id, "right"),
                    )
                )
            )
            sys.stdout.flush()
        elif method == "tools/call" and mode == "deep":
            nested = "[" * 500 + "]" * 500
            sys.stdout.write(
                f'{{"jsonrpc":"2.0","id":{request_id},"result":{{"content":[],"x":{nested}}}}}\n'
            )
            sys.stdout.flush()
        else:
            write(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": "method not found"},
                }
            )


if __name__ == "__main__":
    main()
