"""netcheck: a layered network probe (DNS → TCP → TLS → HTTP) as an MCP server, for allowlisted URLs only."""

from mcpservers.netcheck.policy import AllowEntry, Policy, TargetRefused
from mcpservers.netcheck.probe import (
    BadArgument,
    Prober,
    Timeouts,
    describe_certificate,
)
from mcpservers.netcheck.resolver import ResolveError, Resolver
from mcpservers.netcheck.server import build_server

__all__ = [
    "AllowEntry",
    "BadArgument",
    "Policy",
    "Prober",
    "ResolveError",
    "Resolver",
    "TargetRefused",
    "Timeouts",
    "build_server",
    "describe_certificate",
]
