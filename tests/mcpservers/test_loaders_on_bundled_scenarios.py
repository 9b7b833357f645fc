"""Contract check: every bundled scenario's data loads with our loaders (the formats agreed with scenarios/)."""

from __future__ import annotations

import time

import pytest

from mcpservers._common import SCENARIOS_ROOT
from mcpservers.logs.backends import load_jsonl
from mcpservers.metrics.backends import load_metrics_json
from mcpservers.metrics.promql import Evaluator
from mcpservers.metrics.server import health_queries
from mcpservers.runbooks.library import load_folders

BUNDLED = sorted(
    p
    for p in SCENARIOS_ROOT.glob("*/")
    if (p / "logs.jsonl").exists() or (p / "metrics.json").exists()
)


@pytest.mark.skipif(
    not BUNDLED, reason="no bundled scenarios in mcpservers/scenarios yet"
)
@pytest.mark.parametrize("scenario", BUNDLED, ids=lambda p: p.name)
def test_bundled_scenario_loads_and_has_health_series(scenario) -> None:
    now = time.time()
    logs = load_jsonl(scenario / "logs.jsonl", now=now)
    series = load_metrics_json(scenario / "metrics.json", now=now)
    assert logs
    assert all(r.ts <= now + 1 for r in logs)  # offsets are in the past
    services = {
        s.labels["service"]
        for s in series
        if s.labels["__name__"] == "http_requests_total"
    }
    assert services, "service_health needs http_requests_total{service,code}"
    evaluator = Evaluator(series)
    for service in services:
        requests = evaluator.range_query(
            health_queries(service)["requests_per_s"], start=now - 600, end=now, step=60
        )
        assert requests, f"no request rate for {service}"
    if (scenario / "runbooks").is_dir():
        assert load_folders([scenario / "runbooks"])
