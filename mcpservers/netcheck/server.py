"""The netcheck MCP server: `probe_url` (the layered probe) and `list_targets` over one Prober."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from mcpservers.netcheck.policy import TargetRefused
from mcpservers.netcheck.probe import MAX_STREAM_S, MAX_TIMEOUT_S, BadArgument, Prober

logger = logging.getLogger(__name__)

# Probing touches only listed targets and changes nothing there, but the outcome depends on the network.
_READ_ONLY = ToolAnnotations(
    read_only_hint=True, idempotent_hint=True, open_world_hint=True
)


def build_server(prober: Prober, *, max_concurrent_probes: int = 8) -> MCPServer[Any]:
    """The netcheck server bound to `prober` (its allowlist, resolver, trust store and timeouts).

    At most `max_concurrent_probes` run at once; further calls wait their turn, so an agent that
    fans out cannot turn the probe into a scanner.
    """
    slots = asyncio.Semaphore(max_concurrent_probes)
    server: MCPServer[Any] = MCPServer(
        "mcpservers-netcheck",
        version="0.1.0",
        instructions=(
            "Layered network probe: DNS → TCP connect → TLS → HTTP (→ MCP), each timed separately, with "
            "the first failed layer and its evidence. Only URLs on the allowlist given at start can be "
            "probed; call list_targets to see them, and probe its mcp_endpoints with protocol='mcp'."
        ),
        log_level="WARNING",
    )

    @server.tool(annotations=_READ_ONLY)
    async def probe_url(
        url: Annotated[
            str, Field(description="Absolute http:// or https:// URL on the allowlist")
        ],
        timeout_s: Annotated[
            float | None,
            Field(
                description=f"Per-layer timeout in seconds (0 < t ≤ {MAX_TIMEOUT_S:g}); server defaults if omitted"
            ),
        ] = None,
        stream_s: Annotated[
            float,
            Field(
                description=(
                    f"For text/event-stream answers, keep reading up to this many seconds (≤ {MAX_STREAM_S:g}) "
                    "to catch a proxy cutting the stream; 0 reads only the head"
                )
            ),
        ] = 0.0,
        protocol: Annotated[
            Literal["http", "mcp"],
            Field(
                description=(
                    "http: GET the URL. mcp: the URL is an MCP endpoint (Streamable HTTP; list_targets' "
                    "mcp_endpoints); POST a JSON-RPC initialize and judge the answer at the mcp layer"
                )
            ),
        ] = "http",
    ) -> dict[str, Any]:
        """Probe a URL layer by layer: DNS, TCP connect, TLS handshake, time to first byte, HTTP status, body.

        Returns dns_ms, connect_ms, tls_ms, ttfb_ms, the certificate (subject, SAN, expiry; read even
        when verification fails), the HTTP status, and failed_layer (dns | connect | tls | http | mcp |
        none) with a short reason and evidence. The body is read to its end (up to 1 MiB): a reset
        or fewer bytes than Content-Length fail at http (connection_reset, truncated_body,
        body_timeout). Other reasons: nxdomain, servfail, refused, timeout, certificate_expired,
        certificate_name_mismatch, certificate_untrusted, empty_reply, http_502, stream_cut.
        With protocol="mcp": mcp/jsonrpc_error (an MCP server failing requests inside HTTP 200;
        result["mcp"] has error_code and error_message), mcp/malformed_response (not JSON-RPC, or
        not an InitializeResult), mcp/timeout (an event stream with no response); ok gives
        result["mcp"] with server_info, protocol_version and capabilities. HTTP errors stay http_N.
        """
        try:
            async with slots:
                return await prober.probe(
                    url, timeout_s=timeout_s, stream_s=stream_s, protocol=protocol
                )
        except (BadArgument, TargetRefused) as exc:
            raise ToolError(str(exc)) from exc
        except Exception as exc:
            # Keep tracebacks out of tool results; the server log still has one.
            logger.exception("probe of %r failed unexpectedly", url)
            raise ToolError(
                f"probe of {url!r} failed unexpectedly ({exc.__class__.__name__}: {exc})"
            ) from exc

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=True, idempotent_hint=True, open_world_hint=False
        )
    )
    def list_targets() -> dict[str, Any]:
        """The allowlist this server was started with, its MCP endpoints and the name-resolution overrides.

        mcp_endpoints: allowlisted URLs that serve MCP over Streamable HTTP; probe each with
        probe_url(url, protocol="mcp"), since a GET there only shows the endpoint refusing GET.
        """
        return {
            "allow": [str(entry) for entry in prober.policy.entries],
            "mcp_endpoints": list(prober.mcp_endpoints),
            "allow_net": [str(net) for net in prober.policy.networks],
            "resolve": {
                name: "NXDOMAIN" if addresses is None else [str(a) for a in addresses]
                for name, addresses in sorted(prober.resolver.overrides.items())
            },
            "dns_server": (
                None
                if prober.resolver.nameserver is None
                else "{}:{}".format(*prober.resolver.nameserver)
            ),
            "timeouts_s": {
                "dns": prober.timeouts.dns,
                "connect": prober.timeouts.connect,
                "tls": prober.timeouts.tls,
                "http": prober.timeouts.http,
            },
            "target_timeouts_s": dict(prober.target_timeouts),
        }

    return server
