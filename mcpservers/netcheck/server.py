"""The netcheck MCP server: `probe_url` (the layered probe) and `list_targets` over one Prober."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

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
            "Layered network probe: DNS → TCP connect → TLS → HTTP, each timed separately, with the first "
            "failed layer and its evidence. Only URLs on the allowlist given at start can be probed; "
            "call list_targets to see them."
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
    ) -> dict[str, Any]:
        """Probe a URL layer by layer: DNS, TCP connect, TLS handshake, time to first byte, HTTP status.

        Returns dns_ms, connect_ms, tls_ms, ttfb_ms, the certificate (subject, SAN, expiry; read even
        when verification fails), the HTTP status, and failed_layer (dns | connect | tls | http | none)
        with a short reason (nxdomain, refused, timeout, certificate_expired, http_502 …) and evidence.
        """
        try:
            async with slots:
                return await prober.probe(url, timeout_s=timeout_s, stream_s=stream_s)
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
        """The allowlist this server was started with, and the name-resolution overrides in force."""
        return {
            "allow": [str(entry) for entry in prober.policy.entries],
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
        }

    return server
