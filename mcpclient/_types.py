"""Server specs, MCP result types and the per-call observer record; plain slotted dataclasses."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._exceptions import ToolExecutionError

if TYPE_CHECKING:
    import httpx

JSON = Any
Message = dict[str, Any]
ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
Observer = Callable[["CallRecord"], None]
#: ``on_task(task_id, status, status_message)``: a task-backed call's task moved to ``status``.
TaskCallback = Callable[[str, str, str | None], Awaitable[None] | None]
#: ``handler(message, requested_schema)``: the content to accept an elicitation with, or None to decline.
ElicitHandler = Callable[
    [str, dict[str, Any]], Awaitable[dict[str, Any] | None] | dict[str, Any] | None
]

MODERN_VERSION = "2026-07-28"
LATEST_HANDSHAKE_VERSION = "2025-11-25"
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
KNOWN_VERSIONS = (MODERN_VERSION, *HANDSHAKE_VERSIONS)
DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024


def canonical_json(value: Any) -> bytes:
    """Stable JSON bytes (sorted keys, no spaces) used for hashes."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class StdioServer:
    """A server started as a subprocess speaking newline-delimited JSON-RPC on stdin/stdout.

    The child gets a minimal environment: the names in ``DEFAULT_INHERITED_ENV`` that this process
    has (as the official SDKs do; values starting with ``()``, shell functions, are skipped) plus
    ``env``. Nothing else of this process (``DATABASE_URL``, ``SECRET_KEY``, tokens) reaches it
    unless ``inherit_env=True`` asks for the whole environment. Closing waits ``close_timeout``
    after closing stdin, then SIGTERM and ``terminate_timeout``, then SIGKILL.
    """

    command: Sequence[str]
    env: Mapping[str, str] | None = None
    inherit_env: bool = False
    cwd: str | None = None
    name: str | None = None
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    stderr_max_lines: int = 1000
    close_timeout: float = 2.0
    terminate_timeout: float = 2.0

    @property
    def display_name(self) -> str:
        return self.name or " ".join(self.command)


#: What a stdio server inherits by default (the MCP Python SDK's list for POSIX).
DEFAULT_INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def child_environment(server: StdioServer, parent: Mapping[str, str]) -> dict[str, str]:
    """The environment a stdio server is started with (see :class:`StdioServer`)."""
    if server.inherit_env:
        env = dict(parent)
    else:
        env = {
            name: value
            for name in DEFAULT_INHERITED_ENV
            if (value := parent.get(name)) is not None and not value.startswith("()")
        }
    env.update(server.env or {})
    return env


@dataclass(frozen=True, slots=True)
class HttpServer:
    """A Streamable HTTP endpoint (2025-03-26 and later); ``http_client`` may be injected.

    ``auth`` (an httpx.Auth, usually mcpclient.ClientCredentials or AuthorizationCode) authorizes
    every request to it, as the MCP authorization spec describes.
    """

    url: str
    headers: Mapping[str, str] | None = None
    name: str | None = None
    http_client: httpx.AsyncClient | None = field(default=None, compare=False)
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    resume_attempts: int = 2
    auth: httpx.Auth | None = field(default=None, compare=False, repr=False)

    @property
    def display_name(self) -> str:
        return self.name or self.url


@dataclass(frozen=True, slots=True)
class LegacySseServer:
    """A 2024-11-05 HTTP+SSE server: GET the stream, POST to the announced endpoint."""

    url: str
    headers: Mapping[str, str] | None = None
    name: str | None = None
    http_client: httpx.AsyncClient | None = field(default=None, compare=False)
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE

    @property
    def display_name(self) -> str:
        return self.name or self.url


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints from the server (untrusted unless the server is)."""

    title: str | None = None
    read_only_hint: bool = False
    destructive_hint: bool = True
    idempotent_hint: bool = False
    open_world_hint: bool = True

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any] | None) -> ToolAnnotations:
        if not raw:
            return _DEFAULT_ANNOTATIONS
        return cls(
            title=raw["title"] if isinstance(raw.get("title"), str) else None,
            read_only_hint=raw.get("readOnlyHint") is True,
            destructive_hint=raw.get("destructiveHint") is not False,
            idempotent_hint=raw.get("idempotentHint") is True,
            open_world_hint=raw.get("openWorldHint") is not False,
        )


_DEFAULT_ANNOTATIONS = ToolAnnotations()


@dataclass(frozen=True, slots=True)
class Tool:
    """One entry of tools/list; ``schema_hash`` covers name, inputSchema and outputSchema."""

    name: str
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: ToolAnnotations
    schema_hash: str
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: What of the schemas this client does not enforce, and why (e.g. a ``$ref`` it will not fetch).
    schema_warnings: tuple[str, ...] = ()

    @property
    def is_idempotent(self) -> bool:
        """True when a retry cannot repeat a side effect (readOnlyHint or idempotentHint)."""
        return self.annotations.read_only_hint or self.annotations.idempotent_hint


@dataclass(slots=True)
class CallToolResult:
    """The answer of tools/call: content blocks as plain dicts, optional structured content."""

    content: list[dict[str, Any]]
    structured_content: Any = None
    is_error: bool = False
    meta: dict[str, Any] | None = None
    tool: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return "\n".join(
            b["text"]
            for b in self.content
            if b.get("type") == "text" and isinstance(b.get("text"), str)
        )

    def raise_for_error(self) -> CallToolResult:
        """Raise ToolExecutionError when the tool reported failure, else return self.

        Raises:
            ToolExecutionError: the tool answered ``isError: true``.
        """
        if self.is_error:
            raise ToolExecutionError(
                self.text or "tool reported an error", tool=self.tool, result=self
            )
        return self


@dataclass(frozen=True, slots=True)
class Resource:
    uri: str
    name: str | None
    description: str | None = None
    mime_type: str | None = None
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class ResourceContents:
    uri: str
    mime_type: str | None
    text: str | None = None
    blob: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class ReadResourceResult:
    contents: list[ResourceContents]
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class PromptMessage:
    role: str
    content: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GetPromptResult:
    description: str | None
    messages: list[PromptMessage]
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class HttpTimings:
    """Where a call's HTTP time went, layer by layer (httpx's ``trace`` extension), in milliseconds.

    Summed over the call's HTTP requests (``requests``: retries, a task's polls, an auth retry):
    ``pool_wait_ms`` before a connection was ready to use (waiting for the pool), ``connect_ms``
    opening TCP connections (name resolution included: httpcore does not trace it apart),
    ``tls_ms`` their TLS handshakes, ``send_ms`` writing requests, ``ttfb_ms`` from the request
    written to the response headers (the server's think time plus the network), ``body_ms`` from
    the headers to the answer read (for an SSE answer, up to the event that answered). A reused
    connection has no connect or TLS time.
    """

    requests: int
    pool_wait_ms: float
    connect_ms: float
    tls_ms: float
    send_ms: float
    ttfb_ms: float
    body_ms: float

    LAYERS = ("pool_wait", "connect", "tls", "send", "ttfb", "body")

    def layers(self) -> dict[str, float]:
        """Each layer's milliseconds by name (``LAYERS`` order)."""
        return {name: getattr(self, f"{name}_ms") for name in self.LAYERS}

    @property
    def slowest(self) -> str:
        """The layer that took the most time."""
        layers = self.layers()
        return max(layers, key=layers.__getitem__)


@dataclass(slots=True)
class CallRecord:
    """One finished request, for tracing (DESIGN §3 ToolCallSpan) without mcpclient knowing Django."""

    server: str
    transport: str
    protocol_version: str | None
    method: str
    tool: str | None
    schema_hash: str | None
    request_id: int | None
    arguments_hash: str | None
    started_at: float  # wall clock, seconds since the epoch
    latency_ms: float
    deadline: float | None  # wall clock
    retries: int
    outcome: str  # "ok" | "tool_error" | "error"
    error_layer: str | None = None
    error_code: int | str | None = None
    error_message: str | None = None
    result_hash: str | None = None
    result_size: int | None = None
    #: Tasks extension: the task a tools/call was answered with, and each status it was seen in.
    task_id: str | None = None
    task_states: list[str] = field(default_factory=list)
    #: HTTP transports: the call's time by layer (None over stdio, or when no request was sent).
    http: HttpTimings | None = None
