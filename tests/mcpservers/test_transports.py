"""Every server answers tools/list and a tool call over real stdio pipes and real Streamable HTTP (official SDK client)."""

from __future__ import annotations

import anyio
import httpx
import pytest

from tests.mcpservers._support import (
    DEMO,
    TOKEN,
    http_session,
    stdio_session,
    structured,
)

EXPECTED = {
    "mcpservers.logs": (
        {"search_logs", "top_errors"},
        ("top_errors", {"service": "checkout"}),
        lambda data: data["top"][0]["count"] == 29,
    ),
    "mcpservers.metrics": (
        {"query_metric", "service_health"},
        ("service_health", {"service": "checkout"}),
        lambda data: data["verdict"] == "unhealthy",
    ),
    "mcpservers.runbooks": (
        {"search_runbooks"},
        ("search_runbooks", {"symptoms": "x509: certificate has expired"}),
        lambda data: data["results"][0]["slug"] == "expired-tls-certificate",
    ),
    "mcpservers.actions": (
        {"restart_workload", "scale_workload", "get_action_status"},
        ("get_action_status", {"idempotency_key": "never-used-key"}),
        lambda data: data["found"] is False,
    ),
}


async def _exercise(session, module: str) -> None:
    names, (tool, arguments), check = EXPECTED[module]
    tools = await session.list_tools()
    assert {t.name for t in tools.tools} == names
    assert check(structured(await session.call_tool(tool, arguments)))


@pytest.mark.anyio
async def test_each_server_answers_over_stdio(tmp_path) -> None:
    # All four at once: starting a server is mostly importing the SDK, which parallelizes across cores.
    async def one(module: str) -> None:
        args = (
            ["--ledger", str(tmp_path / "ledger.jsonl")]
            if module == "mcpservers.actions"
            else ["--scenario", str(DEMO)]
        )
        async with stdio_session(module, *args) as session:
            await _exercise(session, module)
            done.add(module)

    done: set[str] = set()
    with anyio.fail_after(90):
        async with anyio.create_task_group() as tg:
            for module in EXPECTED:
                tg.start_soon(one, module)
    assert done == set(EXPECTED)


@pytest.mark.anyio
@pytest.mark.parametrize("module", list(EXPECTED))
async def test_server_answers_over_streamable_http(module: str, http_servers) -> None:
    with anyio.fail_after(30):
        async with http_session(http_servers[module]) as session:
            await _exercise(session, module)


@pytest.mark.anyio
async def test_runbooks_resources_over_streamable_http(http_servers) -> None:
    with anyio.fail_after(30):
        async with http_session(http_servers["mcpservers.runbooks"]) as session:
            listed = await session.list_resources()
            assert "runbook://dns-nxdomain" in {str(r.uri) for r in listed.resources}
            read = await session.read_resource("runbook://dns-nxdomain")
            assert read.contents[0].text.startswith("# DNS NXDOMAIN")


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}


@pytest.mark.anyio
async def test_http_without_token_is_401_with_challenge(http_servers) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            http_servers["mcpservers.logs"], json=INITIALIZE, headers=MCP_HEADERS
        )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer ")


@pytest.mark.anyio
async def test_http_with_wrong_token_is_401_invalid_token(http_servers) -> None:
    headers = {**MCP_HEADERS, "Authorization": "Bearer wrong"}
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            http_servers["mcpservers.metrics"], json=INITIALIZE, headers=headers
        )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


@pytest.mark.anyio
async def test_http_foreign_origin_is_403(http_servers) -> None:
    headers = {
        **MCP_HEADERS,
        "Authorization": f"Bearer {TOKEN}",
        "Origin": "https://evil.example",
    }
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            http_servers["mcpservers.actions"], json=INITIALIZE, headers=headers
        )
    assert response.status_code == 403
    assert "--allow-origin" in response.json()["error"]


@pytest.mark.anyio
async def test_http_oversized_body_is_413(http_servers) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "'
        + b"x" * (1024 * 1024)
        + b'"}'
    )
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            http_servers["mcpservers.runbooks"], content=body, headers=headers
        )
    assert response.status_code == 413


@pytest.mark.anyio
async def test_http_loopback_origin_with_token_reaches_the_sdk(http_servers) -> None:
    headers = {
        **MCP_HEADERS,
        "Authorization": f"Bearer {TOKEN}",
        "Origin": "http://localhost:3000",
    }
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            http_servers["mcpservers.logs"], json=INITIALIZE, headers=headers
        )
    assert response.status_code == 200
    assert "mcpservers-logs" in response.text
