"""JSON-RPC 2.0 framing: encode, decode and classify messages; pure functions, no I/O."""

from __future__ import annotations

import json
from typing import Any

from ._exceptions import JsonRpcError, MalformedMessage

_dumps = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode
_loads = json.loads
_raw_decode = json.JSONDecoder().raw_decode


def encode(message: dict[str, Any]) -> bytes:
    """Serialize one message to compact UTF-8 JSON (no newline: JSON escapes every newline in strings)."""
    return _dumps(message).encode()


#: Deepest nesting of arrays and objects accepted in a message. Deeper JSON is refused as malformed:
#: it would otherwise surface as a RecursionError in whatever walks the value next (hashing, schema
#: validation, the application's redaction).
MAX_DEPTH = 100


def decode(data: bytes | str) -> dict[str, Any]:
    """Parse one JSON-RPC message.

    Raises:
        MalformedMessage: not JSON, nested deeper than MAX_DEPTH, not an object, or not JSON-RPC 2.0.
    """
    message = _parse(data)
    if type(message) is not dict or message.get("jsonrpc") != "2.0":
        raise MalformedMessage(f"not a JSON-RPC 2.0 message: {_preview(data)}")
    return message


def decode_batch(data: bytes) -> list[dict[str, Any]]:
    """Parse a JSON array of messages (2025-03-26 batching).

    Raises:
        MalformedMessage: not an array of JSON-RPC 2.0 messages.
    """
    items = _parse(data)
    if type(items) is not list or not all(
        type(m) is dict and m.get("jsonrpc") == "2.0" for m in items
    ):
        raise MalformedMessage(f"not a JSON-RPC batch: {_preview(data)}")
    return items


def _parse(data: bytes | str) -> Any:
    try:
        # raw_decode on the decoded text skips what json.loads adds per call (encoding detection,
        # two whitespace regex matches): about 3 us of a 100 us stdio round trip. Anything but one
        # bare value filling the whole text (whitespace around it, garbage after it, an error)
        # goes through json.loads, so acceptance and error messages are exactly json.loads'.
        text = data.decode() if isinstance(data, bytes) else data
        value, end = _raw_decode(text)
        if end != len(text):
            value = _loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError):
        try:
            value = _loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise MalformedMessage(f"not JSON: {_preview(data)}") from exc
    # Only a message with more brackets than MAX_DEPTH can be too deep (and each level takes two
    # bytes, so a short one never is); counting is a C loop.
    if len(data) <= 2 * MAX_DEPTH:
        return value
    brackets = (
        data.count(b"[") + data.count(b"{")
        if isinstance(data, bytes)
        else data.count("[") + data.count("{")
    )
    if brackets > MAX_DEPTH and depth_exceeds(value, MAX_DEPTH):
        raise MalformedMessage(
            f"JSON nested deeper than {MAX_DEPTH} levels: {_preview(data)}"
        )
    return value


def depth_exceeds(value: Any, limit: int) -> bool:
    """True when ``value`` nests arrays/objects more than ``limit`` deep (iterative, no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = (
            node.values() if type(node) is dict else node if type(node) is list else ()
        )
        for child in children:
            if type(child) is dict or type(child) is list:
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _preview(data: bytes | str, limit: int = 120) -> str:
    text = data if isinstance(data, str) else data[:limit].decode("utf-8", "replace")
    return repr(text[:limit])


def request(
    request_id: int, method: str, params: dict[str, Any] | None
) -> dict[str, Any]:
    if params is None:
        return {"jsonrpc": "2.0", "id": request_id, "method": method}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    if params is None:
        return {"jsonrpc": "2.0", "method": method}
    return {"jsonrpc": "2.0", "method": method, "params": params}


def error_response(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message},
    }


def is_response(message: dict[str, Any]) -> bool:
    return "id" in message and "method" not in message


def error_from(
    message: dict[str, Any], *, http_status: int | None = None
) -> JsonRpcError | MalformedMessage:
    """Build the exception for a response that carries ``error``."""
    err = message.get("error")
    if not isinstance(err, dict) or type(err.get("code")) is not int:  # true is no code
        return MalformedMessage(f"malformed error object: {_preview(json.dumps(err))}")
    msg = err.get("message")
    return JsonRpcError(
        msg if isinstance(msg, str) else "",
        code=err["code"],
        data=err.get("data"),
        http_status=http_status,
    )
