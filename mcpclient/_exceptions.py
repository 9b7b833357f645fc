"""The one exception tree of mcpclient: every error knows its layer and whether a retry can help.

    McpError                          .layer  .retryable  .outcome_unknown
    ├── TransportError                transport
    │   ├── ConnectError              never sent                 retryable
    │   ├── CircuitOpen               refused locally, never sent retryable (later)
    │   ├── ConnectionLost            sent, outcome unknown      retryable if idempotent
    │   ├── ResponseTimeout           sent, outcome unknown      retryable if idempotent
    │   └── HttpStatusError           .status .body              502/503/504 retryable
    │       ├── RateLimited           429, .retry_after          retryable
    │       └── SessionExpired        404 for our Mcp-Session-Id (re-initialize)
    ├── AuthorizationError            authorization  401/403, .www_authenticate, .challenge
    │   └── AuthorizationFlowError    getting a token failed, .stage, .error
    ├── ProtocolError                 protocol
    │   ├── JsonRpcError              .code .message .data (layer capability for -32021)
    │   ├── MalformedMessage          the peer wrote something that is not JSON-RPC
    │   └── VersionMismatch           no protocol version both sides speak
    ├── CapabilityError               capability     the server did not declare it
    ├── ToolValidationError           tool_validation   arguments fail the inputSchema (never sent)
    ├── ToolExecutionError            tool_execution    the tool answered isError (raise_for_error)
    │   └── TaskFailed                a task-backed call ended failed/cancelled, .task_id .status
    └── ResultConsumptionError        result_consumption
        ├── MessageTooLarge           over max_message_size
        ├── OutputSchemaMismatch      structuredContent does not match outputSchema
        └── MalformedResult           result of the wrong shape

``.local`` marks an error raised on our side before anything reached the server (never counted by
the circuit breaker). UsageError (a RuntimeError, outside the tree) reports misuse: calling before the handshake or after close.
"""

from __future__ import annotations

import enum
from typing import Any


class Layer(enum.StrEnum):
    """Where a failure happened (seed 000 §7.9); tells the caller which action can help."""

    TRANSPORT = "transport"
    AUTHORIZATION = "authorization"
    PROTOCOL = "protocol"
    CAPABILITY = "capability"
    TOOL_VALIDATION = "tool_validation"
    TOOL_EXECUTION = "tool_execution"
    RESULT_CONSUMPTION = "result_consumption"


class UsageError(RuntimeError):
    """The library was used wrongly (before the handshake, after close); not a server failure."""


class McpError(Exception):
    """Base of every failure talking to an MCP server."""

    layer: Layer = Layer.PROTOCOL
    retryable: bool = False
    outcome_unknown: bool = False
    #: Raised on our side before anything reached the server (a header httpx refuses to send):
    #: says nothing about the server's health, so it never counts towards its circuit breaker.
    local: bool = False
    code: int | str | None = None

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


# -- transport ---------------------------------------------------------------------------------


class TransportError(McpError):
    """The bytes did not make a clean round trip."""

    layer = Layer.TRANSPORT


class ConnectError(TransportError):
    """The request was never sent (connect refused, process failed to start): safe to retry."""

    retryable = True
    code = "connect_error"


class CircuitOpen(TransportError):
    """The per-server circuit breaker is open; the request was refused locally and never sent."""

    retryable = True
    code = "circuit_open"


class ConnectionLost(TransportError):
    """The connection died after the request was sent; the server may or may not have run it."""

    retryable = True
    outcome_unknown = True
    code = "connection_lost"


class ResponseTimeout(TransportError):
    """No answer within the deadline; the server may still be running the request."""

    retryable = True
    outcome_unknown = True
    code = "timeout"


class HttpStatusError(TransportError):
    """The HTTP layer refused the request with a non-success status."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.headers = headers or {}
        self.code = status
        self.retryable = status in (502, 503, 504)
        # A gateway error may come after the server ran the request.
        self.outcome_unknown = status in (500, 502, 504)


class RateLimited(HttpStatusError):
    """HTTP 429; ``retry_after`` (seconds) comes from the Retry-After header when present."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 429,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status=status, body=body, headers=headers)
        self.retry_after = retry_after
        self.retryable = True
        self.outcome_unknown = False


class SessionExpired(HttpStatusError):
    """HTTP 404 for our Mcp-Session-Id: the server forgot the session; a new handshake is needed."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 404,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, status=status, body=body, headers=headers)
        self.retryable = True
        self.outcome_unknown = False


# -- authorization ---------------------------------------------------------------------------


class AuthorizationError(McpError):
    """HTTP 401/403: refresh or step up the credentials; a blind retry will not help."""

    layer = Layer.AUTHORIZATION

    def __init__(
        self,
        message: str,
        *,
        status: int,
        body: bytes = b"",
        www_authenticate: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = status
        self.body = body
        self.www_authenticate = www_authenticate
        self.challenge = parse_challenge(www_authenticate)


class AuthorizationFlowError(AuthorizationError):
    """Getting a token failed: ``stage`` is discovery, registration, authorization or token.

    The message names the step and what the server said (``error``, its description); never a token,
    a code or a client secret.
    """

    def __init__(
        self,
        message: str,
        *,
        stage: str,
        status: int = 401,
        error: str | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.stage = stage
        self.error = error


def parse_challenge(header: str | None) -> dict[str, str]:
    """Parse ``Bearer k="v", k2=v2`` into a dict (keys lower-cased, ``scheme`` holds the scheme)."""
    if not header:
        return {}
    scheme, _, rest = header.strip().partition(" ")
    out = {"scheme": scheme}
    i, n = 0, len(rest)
    while i < n:
        while i < n and rest[i] in " ,":
            i += 1
        eq = rest.find("=", i)
        if eq < 0:
            break
        key = rest[i:eq].strip().lower()
        i = eq + 1
        if i < n and rest[i] == '"':
            j = i + 1
            buf = []
            while j < n and rest[j] != '"':
                if rest[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(rest[j])
                j += 1
            out[key] = "".join(buf)
            i = j + 1
        else:
            j = rest.find(",", i)
            j = n if j < 0 else j
            out[key] = rest[i:j].strip()
            i = j
    return out


# -- protocol ------------------------------------------------------------------------------------


class ProtocolError(McpError):
    """The message was delivered but the protocol exchange failed."""

    layer = Layer.PROTOCOL


class JsonRpcError(ProtocolError):
    """The server answered with a JSON-RPC error object."""

    def __init__(
        self,
        message: str,
        *,
        code: int,
        data: Any = None,
        http_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.data = data
        self.http_status = http_status
        if code == MISSING_REQUIRED_CLIENT_CAPABILITY:
            self.layer = Layer.CAPABILITY

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class MalformedMessage(ProtocolError):
    """The peer sent bytes that are not a JSON-RPC message; the stream can no longer be trusted."""

    outcome_unknown = True
    code = "malformed_message"


class VersionMismatch(ProtocolError):
    """The server does not speak the pinned version, or answered one we do not know."""

    code = "version_mismatch"

    def __init__(
        self,
        message: str,
        *,
        requested: str | None = None,
        supported: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.requested = requested
        self.supported = supported or []


# -- capability, tools, results --------------------------------------------------------------


class CapabilityError(McpError):
    """The server did not declare the capability the call needs."""

    layer = Layer.CAPABILITY
    code = "capability_missing"


class ToolValidationError(McpError):
    """The arguments do not match the tool's inputSchema; nothing was sent."""

    layer = Layer.TOOL_VALIDATION
    code = "invalid_arguments"

    def __init__(self, message: str, *, tool: str, errors: list[str]) -> None:
        super().__init__(message)
        self.tool = tool
        self.errors = errors


class ToolExecutionError(McpError):
    """The tool ran and reported failure (``isError: true``)."""

    layer = Layer.TOOL_EXECUTION
    code = "tool_error"

    def __init__(
        self, message: str, *, tool: str | None = None, result: Any = None
    ) -> None:
        super().__init__(message)
        self.tool = tool
        self.result = result


class TaskFailed(ToolExecutionError):
    """A task-backed tool call (Tasks extension) ended ``failed`` or ``cancelled`` at the server."""

    code = "task_failed"

    def __init__(
        self,
        message: str,
        *,
        tool: str | None,
        task_id: str,
        status: str,
        error: Any = None,
    ) -> None:
        super().__init__(message, tool=tool)
        self.task_id = task_id
        self.status = status
        self.error = error


class ResultConsumptionError(McpError):
    """The answer arrived but cannot be used as it is."""

    layer = Layer.RESULT_CONSUMPTION


class MessageTooLarge(ResultConsumptionError):
    """A message exceeded max_message_size; it was not read into memory."""

    outcome_unknown = True
    code = "too_large"

    def __init__(self, message: str, *, limit: int, size: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.size = size


class OutputSchemaMismatch(ResultConsumptionError):
    """structuredContent is missing or does not match the tool's outputSchema."""

    code = "output_schema_mismatch"

    def __init__(self, message: str, *, tool: str, errors: list[str]) -> None:
        super().__init__(message)
        self.tool = tool
        self.errors = errors


class MalformedResult(ResultConsumptionError):
    """The result does not have the shape the method promises."""

    code = "malformed_result"


# JSON-RPC and MCP error codes (schema.ts of each version).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
