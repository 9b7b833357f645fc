"""Fixtures for the bundled MCP servers: all four served over Streamable HTTP for the whole session."""

from __future__ import annotations

import contextlib

import pytest

from tests.mcpservers._support import SERVERS, TOKEN, server_args, start_http_server


@pytest.fixture(scope="session")
def http_servers(tmp_path_factory: pytest.TempPathFactory):
    """All four servers over Streamable HTTP with a bearer token, started in parallel (module → URL)."""
    tmp = tmp_path_factory.mktemp("http-servers")
    started = {
        module: start_http_server(
            module,
            *server_args(module, tmp),
            "--token-env",
            "MCP_TEST_TOKEN",
            env={"MCP_TEST_TOKEN": TOKEN},
        )
        for module in SERVERS
    }
    try:
        yield {module: server.wait_ready() for module, server in started.items()}
    finally:
        for server in started.values():
            with contextlib.suppress(Exception):
                server.stop()
