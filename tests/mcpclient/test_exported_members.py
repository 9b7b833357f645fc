"""The public surface: a curated __all__, the names other parts rely on, and no Django import."""

from __future__ import annotations

import subprocess
import sys

import mcpclient

PROMISED = {
    "StdioServer",
    "HttpServer",
    "LegacySseServer",
    "connect",
    "ClientSession",
    "Tool",
    "CallToolResult",
    "McpError",
    "Layer",
    "ConnectError",
    "ConnectionLost",
    "ResponseTimeout",
    "HttpStatusError",
    "AuthorizationError",
    "RateLimited",
    "JsonRpcError",
    "SessionExpired",
    "CapabilityError",
    "ToolValidationError",
    "ToolExecutionError",
    "ResultConsumptionError",
    "UsageError",
    "map_httpx_errors",
    "CallRecord",
    "RetryPolicy",
    "CircuitBreaker",
}


def test_all_lists_exactly_the_public_names():
    public = {name for name in dir(mcpclient) if not name.startswith("_")}
    assert set(mcpclient.__all__) == public
    assert len(set(mcpclient.__all__)) == len(mcpclient.__all__)  # no duplicates


def test_the_promised_names_are_there():
    assert set(mcpclient.__all__) >= PROMISED


def test_every_public_member_is_documented():
    for name in mcpclient.__all__:
        member = getattr(mcpclient, name)
        if callable(member) and not isinstance(member, str):
            assert member.__doc__, name


def test_importing_mcpclient_never_imports_django():
    code = "import sys, mcpclient, mcpclient.__main__; print('django' in sys.modules, 'mcp' in sys.modules, 'pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.split() == ["False", "False", "False"]
