"""A hand-written stdio MCP server that misbehaves on purpose: ``python misbehaving_stdio.py <mode>``.

It speaks just enough of the handshake era (initialize, tools/list) to get a session going, then
misbehaves in ``tools/call`` (or earlier) according to the mode. No SDK: every byte is deliberate.
"""

from __future__ import annotations

import json
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
out = sys.stdout.buffer


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def result(request_id: object, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


TOOL = {"name": "work", "inputSchema": {"type": "object"}}


def main() -> None:
    if MODE == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "garbage_at_start":
        out.write(b"this is not json\n")
        out.flush()
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        method = message.get("method")
        request_id = message.get("id")
        if method == "server/discover":
            if MODE == "silent_discover":
                continue
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )
        elif method == "initialize":
            version = (
                ARG
                if MODE == "answer_version"
                else message["params"]["protocolVersion"]
            )
            result(
                request_id,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehaving", "version": "0"},
                },
            )
        elif method == "notifications/initialized":
            if MODE == "ping_client":
                send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": "srv-2",
                        "method": "sampling/createMessage",
                        "params": {},
                    }
                )
        elif method == "notifications/cancelled":
            sys.stderr.write(f"cancelled {message['params']['requestId']}\n")
            sys.stderr.flush()
        elif method == "tools/list":
            result(request_id, {"tools": [TOOL]})
        elif method == "tools/call":
            misbehave(request_id, message)
        elif (request_id is not None and "method" not in message) or method is None:
            # An answer to one of our server->client requests: report it on stderr.
            sys.stderr.write("answer " + json.dumps(message) + "\n")
            sys.stderr.flush()
    if MODE in ("ignore_stdin_close", "ignore_sigterm"):
        while True:
            time.sleep(1)


def misbehave(request_id: object, message: dict) -> None:
    if MODE == "garbage":
        out.write(b"{not json at all\n")
        out.flush()
    elif MODE == "not_jsonrpc":
        out.write(b'{"hello": "world"}\n')
        out.flush()
    elif MODE == "over_limit":
        out.write(
            b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"'
            % request_id
            + b"x" * int(ARG)
            + b'"}]}}\n'
        )
        out.flush()
    elif MODE in ("silent", "ignore_stdin_close", "ignore_sigterm"):
        pass
    elif MODE == "die":
        sys.stderr.write("dying now\n")
        sys.stderr.flush()
        sys.exit(3)
    elif MODE == "wrong_id":
        result(request_id + 1000, {"content": []})
    elif MODE == "error_code":
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {
                    "code": int(ARG),
                    "message": f"error {ARG}",
                    "data": {"why": "test"},
                },
            }
        )
    elif MODE == "malformed_error":
        send({"jsonrpc": "2.0", "id": request_id, "error": "just a string"})
    elif MODE == "no_result":
        send({"jsonrpc": "2.0", "id": request_id})
    elif MODE == "bad_content":
        result(request_id, {"content": "not a list"})
    elif MODE == "split_writes":
        data = (
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {"content": [{"type": "text", "text": "split"}]},
                }
            ).encode()
            + b"\n"
        )
        for i in range(0, len(data), 7):
            out.write(data[i : i + 7])
            out.flush()
            time.sleep(0.001)
    elif MODE == "two_in_one_write":
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "hi"},
        }
        answer = {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"content": [{"type": "text", "text": "two"}]},
        }
        out.write(
            json.dumps(note).encode() + b"\n\n" + json.dumps(answer).encode() + b"\n"
        )
        out.flush()
    else:
        result(request_id, {"content": [{"type": "text", "text": "ok"}]})


if __name__ == "__main__":
    main()
