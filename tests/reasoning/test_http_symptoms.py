"""An HTTP timeout or 5xx of a service's own host is explained by that service's own confirmed fault.

A probe sees how a service fails to answer; the service's own logs and metrics say why. When they show
an application fault of its own (a deadlock, an exhausted pool), the application is the cause and the
HTTP failure its symptom, as the bundled 5xx-from-the-service-itself case already reads it.
"""

import pytest

from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    SLOW,
    group,
    lines,
    logged,
    run_with_schemas,
)

EDGE = "https://tiles-gw.maps.internal:8443/v2/tiles"
RENDER = "http://geo-render.maps.internal:9100/v1/render"
RELAYED = "GET /v2/tiles/12/881 504: upstream geo-render timed out after 12000ms"
STUCK = "possible deadlock: 48 worker threads BLOCKED on TileCache held by warmer-2"


def _world(render_warnings):
    return World(
        {
            ("service_health", "tiles-gw"): health("tiles-gw", "unhealthy", FAILING),
            ("top_errors", "tiles-gw"): logged(
                "tiles-gw", errors=[group(RELAYED, count=410)]
            ),
            ("service_health", "geo-render"): health("geo-render", "degraded", SLOW),
            ("top_errors", "geo-render"): logged(
                "geo-render", warnings=render_warnings
            ),
            ("list_targets", ""): targets(EDGE, RENDER),
            ("probe_url", EDGE): probe(
                EDGE,
                "http",
                "http_504",
                ["HTTP 504"],
                status=504,
                body="upstream timeout",
            ),
            ("probe_url", RENDER): probe(
                RENDER, "http", "timeout", ["no response within 10 s"]
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.http-symptoms")
def test_a_timeout_of_a_service_whose_own_logs_show_a_deadlock_is_the_application():
    _, _, report = run_with_schemas(
        _world([group(STUCK, count=30)]), incident("tiles-gw", "tiles-gw 504")
    )

    assert report.top.id == "application:geo-render"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "deadlock" in cited and "reason=timeout" in cited
    wire = next(h for h in report.hypotheses if h.id == "http:geo-render.maps.internal")
    assert wire.status == "ruled_out"
    assert "application:geo-render" in (wire.reason_ruled_out or "")


def test_without_a_fault_of_its_own_the_timeout_stays_an_http_lead():
    _, _, report = run_with_schemas(_world([]), incident("tiles-gw", "tiles-gw 504"))

    wire = next(h for h in report.hypotheses if h.id == "http:geo-render.maps.internal")
    assert wire.status != "ruled_out"
    assert not any(
        h.id == "application:geo-render" and h.status == "confirmed"
        for h in report.hypotheses
    )
