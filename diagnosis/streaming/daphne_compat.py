"""What Daphne does not publish: the Twisted request behind an ASGI application's `send`.

Daphne 4.2 builds each application's send as `partial(server.handle_reply, protocol)`, where the
protocol of an HTTP request is its `daphne.http_protocol.WebRequest` (a `twisted.web.http.Request`).
The Daphne range is pinned in pyproject.toml; tests/diagnosis/test_daphne_compat.py fails, naming
the version, when that shape changes.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from twisted.web.http import Request


def twisted_request(send: Any) -> Request | None:
    """The request Daphne serves through `send`, or None under any other server."""
    # Only look when Daphne is what loaded it: importing daphne.http_protocol elsewhere would
    # pull Twisted's web stack into a process that never serves with it.
    module = sys.modules.get("daphne.http_protocol")
    if module is None or not (isinstance(send, functools.partial) and send.args):
        return None
    request = send.args[0]
    # Daphne has no type hints: WebRequest is Any to mypy, so the isinstance cannot narrow.
    return cast("Request", request) if isinstance(request, module.WebRequest) else None
