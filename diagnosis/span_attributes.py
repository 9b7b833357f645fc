"""A tool call's OpenTelemetry attributes (GenAI and MCP semantic conventions) from its row:
one set for the OTLP export, the trace page and the API."""

import json
from typing import TYPE_CHECKING, Any

from diagnosis.models import SpanState, ToolCallSpan

if TYPE_CHECKING:
    import mcpclient

# A call still `started` when its task ended (its worker died and no attempt came after).
UNFINISHED = "unfinished"


def span_attributes(row: ToolCallSpan) -> dict[str, Any]:
    """The call's attributes: the row's stored ones, with what the GenAI execute_tool span also
    asks for (its tool, operation, agent, state and error)."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": row.tool_name,
        "gen_ai.tool.call.id": row.span_id,
        "mcp.method.name": "tools/call",
    }
    attributes.update(
        (key, value)
        for key, value in ((k, attribute_value(v)) for k, v in row.attributes.items())
        if value is not None
    )
    # The conventions type it as a string (a JSON-RPC error code like "-32602").
    if "rpc.response.status_code" in attributes:
        attributes["rpc.response.status_code"] = str(
            attributes["rpc.response.status_code"]
        )
    attributes.update(
        {
            "gen_ai.agent.name": row.agent,
            # A tool the agent reaches through an MCP server, not a function of its own.
            "gen_ai.tool.type": "extension",
            "agentops.server.name": row.server_name,
            "agentops.span.state": row.state,
            "agentops.attempt": row.attempt,
            "agentops.retry_count": row.retry_count,
        }
    )
    if row.protocol_version and "mcp.protocol.version" not in attributes:
        attributes["mcp.protocol.version"] = row.protocol_version
    if row.state == SpanState.STARTED:
        attributes["error.type"] = UNFINISHED
    elif row.state != SpanState.OK:
        attributes.setdefault("error.type", row.error_code or row.state)
        if row.failure_layer:  # none for a cancelled call: a state, not a layer
            attributes["agentops.error.layer"] = row.failure_layer
        if row.error_code:
            attributes["agentops.error.code"] = row.error_code
    return attributes


def attribute_value(value: Any) -> Any:
    """A JSON value as an OTel attribute: scalars and homogeneous scalar lists as they are."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list) and value:
        kinds = {type(item) for item in value}
        if len(kinds) == 1 and kinds <= {str, bool, int, float}:
            return list(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# mcpclient's HTTP layers, in the order a request goes through them, with the trace page's names.
HTTP_LAYERS = {
    "pool_wait": "pool wait",
    "connect": "connect",
    "tls": "TLS",
    "send": "send",
    "ttfb": "first byte",
    "body": "body",
}


def record_attributes(record: "mcpclient.CallRecord") -> dict[str, Any]:
    """The attributes of a call's CallRecord beyond the conventions: the task that answered a
    task-backed call and each state it was seen in, and where its HTTP time went, by layer."""
    attributes: dict[str, Any] = {}
    if record.task_id:
        attributes["agentops.task.id"] = record.task_id
        attributes["agentops.task.states"] = list(record.task_states)
    http = record.http
    if http is not None:
        attributes["agentops.http.requests"] = http.requests
        for layer, ms in http.layers().items():
            attributes[f"agentops.http.{layer}_ms"] = ms
        attributes["agentops.http.slowest"] = http.slowest
    return attributes


def http_layers(attributes: dict[str, Any]) -> list[tuple[str, float, bool]]:
    """(name, milliseconds, is the slowest) per HTTP layer a span recorded; [] for none."""
    slowest = attributes.get("agentops.http.slowest")
    layers = []
    for layer, name in HTTP_LAYERS.items():
        ms = attributes.get(f"agentops.http.{layer}_ms")
        if isinstance(ms, int | float):
            layers.append((name, float(ms), layer == slowest))
    return layers
