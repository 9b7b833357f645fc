"""One layer vocabulary for the report, the spans, netcheck, mcpclient and expected.json."""

from typing import Final

PLATFORM: Final = "platform"  # the orchestrator and its nodes (Kubernetes admission, scheduling, kubelet …)
DNS: Final = "dns"
CONNECT: Final = "connect"
TLS: Final = "tls"
HTTP: Final = "http"
MCP: Final = "mcp"
TOOL_BACKEND: Final = "tool_backend"
APPLICATION: Final = "application"
POLICY: Final = "policy"  # a call the engine refused: never a hypothesis

# Bottom-up: a failure low in the stack explains the failures above it (seed 000 §1.2).
LAYERS: Final = (PLATFORM, DNS, CONNECT, TLS, HTTP, MCP, TOOL_BACKEND, APPLICATION)
NETWORK_LAYERS: Final = (DNS, CONNECT, TLS, HTTP)

# Other spellings that mean the same layer (expected.json, older notes).
_ALIASES: Final = {
    "app": APPLICATION,
    "kubernetes": PLATFORM,
    "k8s": PLATFORM,
    "gateway": HTTP,
    "jsonrpc": MCP,
    "json-rpc": MCP,
}

# mcpclient.Layer → ours. A tool that answers isError is its back end failing (tool_backend);
# everything below the tool (transport, protocol …) is the MCP hop itself.
_MCPCLIENT: Final = {
    "transport": MCP,
    "authorization": MCP,
    "protocol": MCP,
    "capability": MCP,
    "tool_validation": MCP,
    "tool_execution": TOOL_BACKEND,
    "result_consumption": MCP,
}


def normalize(layer: str | None) -> str | None:
    """The vocabulary's name for `layer` (netcheck's "none" and empty mean no failure: None)."""
    if layer is None:
        return None
    name = layer.strip().lower()
    if name in ("", "none", "null"):
        return None
    name = _ALIASES.get(name, name)
    return name if name in LAYERS or name == POLICY else None


def from_mcpclient(layer: str | None) -> str:
    """The layer of a failed call, from mcpclient's error layer."""
    return _MCPCLIENT.get(layer or "", MCP)


def rank(layer: str) -> int:
    """Position bottom-up; unknown layers sort last."""
    return LAYERS.index(layer) if layer in LAYERS else len(LAYERS)
