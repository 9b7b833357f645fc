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

Every failure is an McpError with ``.layer``, ``.retryable`` and ``.outcome_unknown``; misuse
raises UsageError. Pass ``observer=`` to get one CallRecord per call. Never imports Django.
"""

from ._auth import (
    AuthorizationCode,
    ClientCredentials,
    ClientInfo,
    ClientMetadata,
    OAuth,
    Tokens,
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
    "JsonRpcError",
    "Layer",
    "LegacySseServer",
    "MalformedMessage",
    "MalformedResult",
    "McpError",
    "MessageTooLarge",
    "OAuth",
    "OutputSchemaMismatch",
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
    "connect",
    "map_httpx_errors",
    "memory_pair",
]
