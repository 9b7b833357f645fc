"""The mcp layer of the probe (seed 000 §1.2): an MCP `initialize` over Streamable HTTP, and its verdict.

MCP is JSON-RPC carried by HTTP, so a server can answer HTTP 200 and still fail every request
with a JSON-RPC error; only a real `initialize` shows it. The wire rules (handshake era,
2025-03-26 … 2025-11-25): POST one request with `Accept: application/json, text/event-stream`;
the answer is one JSON object or an event stream whose `data:` carries the response; a session
the server opens (`Mcp-Session-Id`) is ended with DELETE.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpservers._common import mask_secrets

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

# The newest handshake-era revision: servers of every era since 2025-03-26 negotiate from it
# (a 2026-07-28 server keeps serving initialize for older clients).
PROTOCOL_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "agentops-netcheck", "version": "1"}
_REQUEST_ID = 1
_TEXT_LIMIT = 300


def initialize_request(path: str, host_header: str) -> bytes:
    """The HTTP/1.1 POST of a JSON-RPC `initialize`, as a Streamable HTTP client sends it."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": _REQUEST_ID,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": CLIENT_INFO,
            },
        }
    ).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: agentops-netcheck/1\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        f"MCP-Protocol-Version: {PROTOCOL_VERSION}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


def delete_request(path: str, host_header: str, session: str) -> bytes:
    """The DELETE that ends the session `initialize` opened."""
    # The id comes from the peer: keep only visible ASCII (the spec's alphabet), no header injection.
    session = "".join(c for c in session if "!" <= c <= "~")
    return (
        f"DELETE {path} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: agentops-netcheck/1\r\n"
        f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n"
    ).encode("latin-1")


@dataclass(frozen=True)
class Outcome:
    """What came back: the raw JSON-RPC response (a JSON body or an event's data), or None."""

    message: bytes | None
    events: int = (
        0  # events on a stream that were not the response (notifications, priming)
    )


@dataclass(frozen=True)
class Verdict:
    """reason None: a good InitializeResult; else the mcp layer's reason. `details` is result["mcp"]."""

    reason: str | None
    evidence: str
    details: dict[str, Any] | None = None


async def read_sse_response(chunks: AsyncGenerator[bytes, None]) -> Outcome:
    """Read an event stream until the event carrying a JSON-RPC response; earlier events are skipped."""
    buffer = b""
    events = 0
    async with contextlib.aclosing(chunks):
        async for chunk in chunks:
            buffer = (buffer + chunk).replace(b"\r\n", b"\n")
            *complete, buffer = buffer.split(b"\n\n")
            for event in complete:
                data = _event_data(event)
                if data is None:
                    continue  # a comment, or a priming event with an id and no data
                if _is_response(data):
                    return Outcome(message=data, events=events)
                events += 1
    return Outcome(message=None, events=events)


def _event_data(event: bytes) -> bytes | None:
    lines = [
        line[5:].removeprefix(b" ")
        for line in event.split(b"\n")
        if line.startswith(b"data:")
    ]
    data = b"\n".join(lines)
    return data if data.strip() else None


def _is_response(data: bytes) -> bool:
    try:
        message = json.loads(data)
    except ValueError:
        return True  # not JSON: let the verdict say so
    return not isinstance(message, dict) or "method" not in message


def error_in(data: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error object in a JSON body, as result["mcp"] holds it, or None."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if isinstance(message, dict) and isinstance(message.get("error"), dict):
        return _error_details(message["error"])
    return None


def _error_details(error: dict[str, Any]) -> dict[str, Any]:
    details: dict[str, Any] = {
        "error_code": error.get("code"),
        "error_message": mask_secrets(str(error.get("message", "")))[:_TEXT_LIMIT],
    }
    if "data" in error:
        details["error_data"] = mask_secrets(json.dumps(error["data"]))[:_TEXT_LIMIT]
    return details


def describe_error(details: dict[str, Any]) -> str:
    return f"JSON-RPC error {details['error_code']}: {details['error_message']!r}"


def judge_initialize(outcome: Outcome) -> Verdict:
    """Classify the answer to `initialize`: jsonrpc_error, malformed_response, or None (ok)."""
    if outcome.message is None:
        return Verdict(
            "malformed_response",
            "no JSON-RPC response to initialize: the body was empty, too large, or the event "
            f"stream ended after {outcome.events} other events",
        )
    text = mask_secrets(outcome.message[:_TEXT_LIMIT].decode("utf-8", "replace"))
    try:
        message = json.loads(outcome.message)
    except ValueError:
        return Verdict(
            "malformed_response", f"the answer to initialize is not JSON: {text!r}"
        )
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return Verdict(
            "malformed_response",
            f"the answer to initialize is not a JSON-RPC 2.0 message: {text!r}",
        )
    error = message.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), int):
        details = _error_details(error)
        return Verdict(
            "jsonrpc_error",
            f"{describe_error(details)} in answer to initialize (HTTP fine, the MCP server fails requests)",
            details,
        )
    result = message.get("result")
    if message.get("id") != _REQUEST_ID or not isinstance(result, dict):
        return Verdict(
            "malformed_response",
            f"the answer to initialize is neither its result nor a JSON-RPC error: {text!r}",
        )
    missing = [
        key
        for key, kind in (
            ("protocolVersion", str),
            ("capabilities", dict),
            ("serverInfo", dict),
        )
        if not isinstance(result.get(key), kind)
    ]
    if missing:
        return Verdict(
            "malformed_response",
            f"initialize's result is not an InitializeResult (no {', '.join(missing)}): {text!r}",
        )
    info = result["serverInfo"]
    details = {
        "protocol_version": result["protocolVersion"],
        "server_info": {
            "name": str(info.get("name", ""))[:_TEXT_LIMIT],
            "version": str(info.get("version", ""))[:_TEXT_LIMIT],
        },
        "capabilities": sorted(result["capabilities"]),
    }
    return Verdict(
        None,
        f"MCP initialize ok: {details['server_info']['name']} {details['server_info']['version']}, "
        f"protocol {details['protocol_version']}, capabilities {', '.join(details['capabilities']) or 'none'}",
        details,
    )
