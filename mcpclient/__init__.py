"""mcpclient: a small, fast MCP client on asyncio and httpx (stdio, Streamable HTTP, legacy HTTP+SSE).

    server = mcpclient.StdioServer(command=[sys.executable, "-m", "my_server"])
    async with mcpclient.connect(server, protocol_version=None, timeout=10.0) as client:
        client.protocol_version, client.server_info, client.server_capabilities
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"}, timeout=5.0, on_progress=print)
        result.raise_for_error()

A server behind an identity provider: ``HttpServer(url, auth=mcpclient.ClientCredentials(client_id,
client_secret=...))`` for a service account, or ``mcpclient.AuthorizationCode(...)`` with a user agent
or stored tokens; 401/403 challenges are answered as the MCP authorization spec describes (_auth/).
A web app's "Connect" runs the code grant in two requests: ``start_authorization(http, url,
redirect_uri=...)`` (discovery, registration, PKCE; send the user to ``pending.url``, keep
``pending.to_dict()`` secret), then ``complete_authorization(http, pending, callback_url)``.

Elicitation is opt-in (a worker has nobody to ask): ``connect(..., elicit=handler)`` declares the
capability and ``handler(message, requested_schema)`` returns the content to accept with, or None to
decline; fields it leaves out that the schema gives a ``default`` are sent with it (SEP-1034). It
answers ``elicitation/create`` requests (handshake era; the GET stream is opened for them) and
2026-07-28 ``input_required`` results: call_tool retries with ``inputResponses`` and the server's
``requestState`` echoed untouched (SEP-2322), as a new request. Without a handler these fail with
CapabilityError (MRTR) or "method not found" (requests).

The Tasks extension (``io.modelcontextprotocol/tasks``, declared on 2026-07-28): a tools/call answered
with a task is followed by call_tool itself, which returns the task's result as for a plain call. It
polls ``tasks/get`` at the server's ``pollIntervalMs`` (0.5 s if none, within 10 ms..30 s) up to the
call's deadline, answers ``input_required`` through the elicit handler with ``tasks/update``, and sends
``tasks/cancel`` when the caller cancels, the deadline passes (ResponseTimeout) or the input cannot be
given. A task ending ``failed``/``cancelled`` raises TaskFailed (``.task_id``, ``.status``,
``.error``). The observer gets one CallRecord for the whole call (no record per poll), with
``task_id`` and ``task_states`` (each status seen, in order); ``call_tool(on_task=...)`` hears of
each status as it is seen (``on_task(task_id, status, status_message)``).

Over HTTP a CallRecord's ``http`` (HttpTimings) says where the call's time went, from httpx's
``trace`` extension: pool wait, connect (name resolution included), TLS, send, time to first byte
and body, summed over the call's requests, so a slow remote call shows which layer was slow.

Every failure is an McpError with ``.layer``, ``.retryable`` and ``.outcome_unknown``; misuse
raises UsageError. Pass ``observer=`` to get one CallRecord per call. Never imports Django.
"""

from ._auth import (
    AuthorizationCode,
    ClientCredentials,
    ClientInfo,
    ClientMetadata,
    OAuth,
    PendingAuthorization,
    Tokens,
    complete_authorization,
    refresh_tokens,
    start_authorization,
)
from ._breaker import CircuitBreaker
from ._connect import connect
from ._exceptions import (
    AuthorizationError,
    AuthorizationFlowError,
    CapabilityError,
    CircuitOpen,
    ConnectError,
    ConnectionLost,
    HttpStatusError,
    JsonRpcError,
    Layer,
    MalformedMessage,
    MalformedResult,
    McpError,
    MessageTooLarge,
    OutputSchemaMismatch,
    ProtocolError,
    RateLimited,
    ResponseTimeout,
    ResultConsumptionError,
    SessionExpired,
    TaskFailed,
    ToolExecutionError,
    ToolValidationError,
    TransportError,
    UsageError,
    VersionMismatch,
)
from ._retry import RetryPolicy
from ._session import ClientSession
from ._transports import Transport, map_httpx_errors, memory_pair
from ._types import (
    DEFAULT_INHERITED_ENV,
    KNOWN_VERSIONS,
    MODERN_VERSION,
    CallRecord,
    CallToolResult,
    GetPromptResult,
    HttpServer,
    HttpTimings,
    LegacySseServer,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceContents,
    StdioServer,
    Tool,
    ToolAnnotations,
)

__all__ = [
    "DEFAULT_INHERITED_ENV",
    "KNOWN_VERSIONS",
    "MODERN_VERSION",
    "AuthorizationCode",
    "AuthorizationError",
    "AuthorizationFlowError",
    "CallRecord",
    "CallToolResult",
    "CapabilityError",
    "CircuitBreaker",
    "CircuitOpen",
    "ClientCredentials",
    "ClientInfo",
    "ClientMetadata",
    "ClientSession",
    "ConnectError",
    "ConnectionLost",
    "GetPromptResult",
    "HttpServer",
    "HttpStatusError",
    "HttpTimings",
    "JsonRpcError",
    "Layer",
    "LegacySseServer",
    "MalformedMessage",
    "MalformedResult",
    "McpError",
    "MessageTooLarge",
    "OAuth",
    "OutputSchemaMismatch",
    "PendingAuthorization",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "ProtocolError",
    "RateLimited",
    "ReadResourceResult",
    "Resource",
    "ResourceContents",
    "ResponseTimeout",
    "ResultConsumptionError",
    "RetryPolicy",
    "SessionExpired",
    "StdioServer",
    "TaskFailed",
    "Tokens",
    "Tool",
    "ToolAnnotations",
    "ToolExecutionError",
    "ToolValidationError",
    "Transport",
    "TransportError",
    "UsageError",
    "VersionMismatch",
    "complete_authorization",
    "connect",
    "map_httpx_errors",
    "memory_pair",
    "refresh_tokens",
    "start_authorization",
]
