"""netcheck: a layered network probe (DNS → TCP → TLS → HTTP) as an MCP server, for allowlisted URLs only.

The probe itself needs no MCP SDK: the server lives in `mcpservers.netcheck.server` and is not
imported here, so the app can use `Prober` (through `mcpservers.scenarios`) without loading `mcp`.
"""

from mcpservers.netcheck.policy import AllowEntry, Policy, TargetRefused
from mcpservers.netcheck.probe import (
    BadArgument,
    Prober,
    Timeouts,
    describe_certificate,
)
from mcpservers.netcheck.resolver import ResolveError, Resolver

__all__ = [
    "AllowEntry",
    "BadArgument",
    "Policy",
    "Prober",
    "ResolveError",
    "Resolver",
    "TargetRefused",
    "Timeouts",
    "describe_certificate",
]
