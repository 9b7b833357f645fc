"""JSON-RPC 2.0 framing: encode, decode and classify messages; pure functions, no I/O."""

from __future__ import annotations

import json
from typing import Any

from ._exceptions import JsonRpcError, MalformedMessage

_dumps = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode
_loads = json.loads


def encode(message: dict[str, Any]) -> bytes:
    """Serialize one message to compact UTF-8 JSON (no newline: JSON escapes every newline in strings)."""
    return _dumps(message).encode()


def decode(data: bytes | str) -> dict[str, Any]:
    """Parse one JSON-RPC message.

    Raises:
        MalformedMessage: not JSON, not an object, or not JSON-RPC 2.0.
    """
    try:
        message = _loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedMessage(f"not JSON: {_preview(data)}") from exc
    if type(message) is not dict or message.get("jsonrpc") != "2.0":
        raise MalformedMessage(f"not a JSON-RPC 2.0 message: {_preview(data)}")
    return message


def decode_batch(data: bytes) -> list[dict[str, Any]]:
    """Parse a JSON array of messages (2025-03-26 batching).

    Raises:
        MalformedMessage: not an array of JSON-RPC 2.0 messages.
    """
    try:
        items = _loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedMessage(f"not JSON: {_preview(data)}") from exc
    if type(items) is not list or not all(
        type(m) is dict and m.get("jsonrpc") == "2.0" for m in items
    ):
        raise MalformedMessage(f"not a JSON-RPC batch: {_preview(data)}")
    return items


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
    if not isinstance(err, dict) or not isinstance(err.get("code"), int):
        return MalformedMessage(f"malformed error object: {_preview(json.dumps(err))}")
    msg = err.get("message")
    return JsonRpcError(
        msg if isinstance(msg, str) else "",
        code=err["code"],
        data=err.get("data"),
        http_status=http_status,
    )
