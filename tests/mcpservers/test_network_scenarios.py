"""The network- and protocol-layer scenarios: started from their targets.json, the real netcheck sees what expected.json says."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpservers import scenarios

NETWORK = (
    "tls-wrong-host",
    "tls-wrong-chain",
    "dns-servfail",
    "dns-slow-resolver",
    "port-changed-deploy",
    "connect-timeout-firewall",
    "gateway-rate-limit",
    "mcp-jsonrpc-error",
)
# Bottom-up, as reasoning/layers.py; netcheck itself reports dns..mcp or none.
LAYERS = ("dns", "connect", "tls", "http", "mcp", "tool_backend", "application")
PROBE_LAYERS = {"dns", "connect", "tls", "http", "mcp", "none"}
# slug → (the running scenario, probe name → netcheck result)
Probed = dict[str, tuple[scenarios.LiveScenario, dict[str, dict[str, Any]]]]


def _expected(slug: str) -> dict[str, Any]:
    expected: dict[str, Any] = scenarios.load(scenarios.ROOT / slug).expected
    return expected


async def _probe_all(
    slug: str, stack: contextlib.AsyncExitStack
) -> tuple[scenarios.LiveScenario, dict[str, dict[str, Any]]]:
    live = await stack.enter_async_context(scenarios.run(scenarios.ROOT / slug))
    # netcheck's default per-layer timeouts, as the demo netcheck server runs
    prober = live.prober()
    # Each target as its targets.json "protocol" says (an MCP endpoint gets an initialize).
    results = await asyncio.gather(
        *(
            prober.probe(p.url, stream_s=p.stream_s, protocol=p.protocol)
            for p in live.probes.values()
        )
    )
    return live, dict(zip(live.probes, results, strict=True))


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def probed() -> AsyncIterator[Probed]:
    """Every scenario started at once and every target probed at once: slug → (live, name → result)."""
    async with asyncio.timeout(30), contextlib.AsyncExitStack() as stack:
        done = await asyncio.gather(*(_probe_all(slug, stack) for slug in NETWORK))
        yield dict(zip(NETWORK, done, strict=True))


@pytest.mark.parametrize("slug", NETWORK)
def test_expected_names_a_layer_component_signal_and_every_target(slug: str) -> None:
    scenario = scenarios.load(scenarios.ROOT / slug)
    expected = scenario.expected

    assert expected["slug"] == slug
    assert expected["root_cause_layer"] in LAYERS
    assert expected["root_cause_component"]
    assert expected["root_cause_signal"]
    assert set(expected["netcheck"]) == {t.name for t in scenario.targets}
    assert 2 <= len(scenario.targets) <= 4
    assert all(o["failed_layer"] in PROBE_LAYERS for o in expected["netcheck"].values())
    probe = expected["root_cause_probe"]
    if probe is not None:
        assert (
            expected["netcheck"][probe]["failed_layer"] == expected["root_cause_layer"]
        )
    assert len(list(scenario.runbooks_path.glob("*.md"))) >= 2  # one is a red herring


@pytest.mark.anyio
async def test_netcheck_sees_what_expected_json_says(probed: Probed) -> None:
    found = {
        slug: {name: (r["failed_layer"], r["reason"]) for name, r in results.items()}
        for slug, (_live, results) in probed.items()
    }

    assert found == {
        slug: {
            name: (o["failed_layer"], o["reason"])
            for name, o in _expected(slug)["netcheck"].items()
        }
        for slug in NETWORK
    }


@pytest.mark.anyio
async def test_the_root_cause_signal_is_in_the_culprit_probe_result(
    probed: Probed,
) -> None:
    missing: list[str] = []
    for slug, (_live, results) in probed.items():
        expected = _expected(slug)
        if expected["root_cause_probe"] is not None:
            result = json.dumps(results[expected["root_cause_probe"]])
            if expected["root_cause_signal"] not in result:
                missing.append(slug)

    assert missing == []


@pytest.mark.anyio
async def test_the_mcp_endpoint_answers_json_rpc_errors_in_http_200() -> None:
    slug = "mcp-jsonrpc-error"
    expected = _expected(slug)
    async with asyncio.timeout(10), scenarios.run(scenarios.ROOT / slug) as live:
        url = live.probes["orders-mcp"].url.replace(
            "orders-mcp.tools.internal", "127.0.0.1"
        )
        request = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
        async with httpx.AsyncClient() as client:
            answer = await client.post(url, json=request)

    assert answer.status_code == 200
    assert answer.json()["id"] == 7
    assert str(answer.json()["error"]["code"]) == expected["root_cause_signal"]
    logs = scenarios.load(scenarios.ROOT / slug).logs_path.read_text(encoding="utf-8")
    assert f"JSON-RPC error {expected['root_cause_signal']}" in logs


@pytest.mark.anyio
async def test_the_mcp_endpoint_is_listed_for_an_mcp_probe_and_a_get_sees_only_405(
    probed: Probed,
) -> None:
    live, results = probed["mcp-jsonrpc-error"]
    url = live.probes["orders-mcp"].url
    prober = live.prober()
    async with asyncio.timeout(10):
        plain = await prober.probe(url)

    assert live.probes["orders-mcp"].protocol == "mcp"
    assert prober.mcp_endpoints == (url,)
    assert live.netcheck_args().count("--allow-mcp") == 1
    assert live.netcheck_args()[live.netcheck_args().index("--allow-mcp") + 1] == url
    assert results["orders-mcp"]["mcp"]["error_code"] == -32603
    assert (plain["failed_layer"], plain["reason"]) == ("http", "http_405")
