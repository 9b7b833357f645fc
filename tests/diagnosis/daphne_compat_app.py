"""An ASGI app for tests/diagnosis/test_daphne_compat.py, served by a real Daphne: it answers with
what the adapters find behind Daphne's send, then a chunk written through the direct path."""

import json
from typing import Any

from diagnosis.streaming import daphne_compat, twisted_compat, wire


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    request = daphne_compat.twisted_request(send)
    transport = None if request is None else twisted_compat.tcp_transport(request)
    write = None if request is None else twisted_compat.direct_write(request)
    found = {
        "request": None if request is None else type(request).__module__,
        "tcp_transport": None if transport is None else type(transport).__name__,
        "direct_write": write is not None,
    }
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    line = json.dumps(found).encode() + b"\n"
    await send({"type": "http.response.body", "body": line, "more_body": True})
    direct = b"direct\n"
    written = write is not None and write(direct, wire.http_chunk(direct))
    if not written:
        await send(
            {"type": "http.response.body", "body": b"no direct\n", "more_body": True}
        )
    await send({"type": "http.response.body", "body": b"", "more_body": False})
