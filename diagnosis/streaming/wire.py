"""SSE encoding per WHATWG HTML §9.2: one frame per event, `data:` is a single JSON line.

A field value never carries CR, LF or NUL (the parser would split or drop it), so event types and
ids are checked, and payloads are JSON, whose encoder escapes every control character.
"""

import json
from typing import Any

_FORBIDDEN = frozenset("\r\n\0")


def _field(value: str) -> str:
    if _FORBIDDEN.intersection(value):
        raise ValueError(f"SSE field value may not contain CR, LF or NUL: {value!r}")
    return value


def json_line(payload: Any) -> str:
    """One-line JSON; non-ASCII stays UTF-8 (the stream is always UTF-8)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def frame(
    *,
    event: str,
    data_json: str,
    event_id: int | None = None,
    retry_ms: int | None = None,
) -> bytes:
    """One dispatchable event. `data_json` is already one line of JSON text.

    Events that are not resume points (server_draining) pass no id: an empty `id:` would reset
    the browser's Last-Event-ID, so it is omitted, never sent blank.
    """
    if "\n" in data_json or "\r" in data_json:
        raise ValueError("data_json must be a single line")
    head = "" if event_id is None else f"id: {int(event_id)}\n"
    if retry_ms is not None:
        head += f"retry: {max(0, int(retry_ms))}\n"
    return f"{head}event: {_field(event)}\ndata: {data_json}\n\n".encode()


def retry(milliseconds: int) -> bytes:
    """The reconnection delay advice; only ASCII digits are accepted by the parser."""
    return f"retry: {max(0, int(milliseconds))}\n\n".encode()


def http_chunk(body: bytes) -> bytes:
    """`body` as one HTTP/1.1 chunk (RFC 9112 §7.1), for writes that bypass the server's framing."""
    return b"%x\r\n%s\r\n" % (len(body), body)


HEARTBEAT = b": hb\n\n"
OPENING = b": ok\n\n"
