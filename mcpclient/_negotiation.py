"""Protocol version negotiation: what server/discover (2026-07-28) and initialize answers mean.

Pure functions over the server's (untrusted) answers; the session does the requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._types import MODERN_VERSION

if TYPE_CHECKING:
    from ._exceptions import JsonRpcError

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@dataclass(frozen=True, slots=True)
class ServerHello:
    """What a handshake told us about the server (fields of the wrong type are dropped)."""

    capabilities: dict[str, Any]
    server_info: dict[str, Any]
    instructions: str | None


def supported_versions(exc: JsonRpcError) -> list[str]:
    """The ``supported`` versions a -32022 error lists (empty when it lists none)."""
    supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
    return (
        [v for v in supported if isinstance(v, str)]
        if isinstance(supported, list)
        else []
    )


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def client_capabilities(*, elicit: bool, modern: bool) -> dict[str, Any]:
    """What this client declares: form elicitation when given a handler; on 2026-07-28 the Tasks
    extension (a tools/call may be answered with a task, which call_tool follows)."""
    caps: dict[str, Any] = {"elicitation": {"form": {}}} if elicit else {}
    if modern:
        caps["extensions"] = {TASKS_EXTENSION: {}}
    return caps


def modern_meta(client_info: dict[str, Any], *, elicit: bool = False) -> dict[str, Any]:
    """The ``_meta`` every 2026-07-28 request carries (version, capabilities, client info)."""
    return {
        META_VERSION: MODERN_VERSION,
        META_CAPS: client_capabilities(elicit=elicit, modern=True),
        META_INFO: client_info,
    }


def _hello(caps: Any, info: Any, instructions: Any) -> ServerHello:
    return ServerHello(
        caps if isinstance(caps, dict) else {},
        info if isinstance(info, dict) else {},
        instructions if isinstance(instructions, str) else None,
    )


def hello_from_discover(result: dict[str, Any]) -> ServerHello:
    meta = result.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    return _hello(result.get("capabilities"), info, result.get("instructions"))


def hello_from_initialize(result: dict[str, Any]) -> ServerHello:
    return _hello(
        result.get("capabilities"), result.get("serverInfo"), result.get("instructions")
    )
