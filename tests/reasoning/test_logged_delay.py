"""Issue 21 class 1: a path's logged round trip rose above the baseline its line states, and the
route change just before it is the cause (reasoning/layered/logged_delay.py).

Names, numbers and wordings are invented; the servers' shapes are their own.
"""

import pytest

from reasoning.layered import logged_delay
from tests.reasoning.test_lock_holders import TOOLS, _lines
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    SLOW,
    group,
    logged,
    run_with_schemas,
)

RTT = "netprobe: checkout-svc → pay-db.core.lan:3306 round trip {now} ms (usual {base} ms)"
ROUTE = (
    "pulumi up core-net: route table rtb-5e1f0a9c7d3b2e418 172.18.0.0/16 now via "
    "fw-endpoint (was pcx-77a1c3e9 direct)"
)
CALLER = "POST /cart/pay slow: 4100ms total, 210 queries, db time 70ms"


def _world(now="9.2", base="0.4", route=True):
    lines = [
        ("netprobe", f"2030-01-01T10:{m:02d}:00Z", RTT.format(now=now, base=base))
        for m in (40, 30, 21)
    ]
    if route:
        lines.append(("pulumi", "2030-01-01T10:12:00Z", ROUTE))
    return World(
        {
            ("service_health", "checkout-svc"): health(
                "checkout-svc", "degraded", SLOW
            ),
            ("top_errors", "checkout-svc"): logged(
                "checkout-svc", warnings=[group(CALLER, count=200)]
            ),
            ("search_logs", ""): _lines(*lines),
        }
    )


@pytest.mark.rule("board.logged-delay")
def test_a_route_change_just_before_a_logged_round_trip_rose_is_the_cause():
    world = _world()

    _, _, report = run_with_schemas(
        world, incident("checkout-svc", "checkout very slow"), names=TOOLS
    )

    top = report.top
    assert top.id == "connect:rtb-5e1f0a9c7d3b2e418" and report.conclusive
    assert "pay-db.core.lan" in top.statement and "9.2 ms" in top.statement
    facts = [e.fact for e in top.evidence]
    assert any("round trip 9.2 ms" in f for f in facts)
    assert any("rtb-5e1f0a9c7d3b2e418" in f for f in facts)
    caller = next(
        (h for h in report.hypotheses if h.id == "application:checkout-svc"), None
    )
    assert (
        caller is None
        or "a victim of connect:rtb-5e1f0a9c7d3b2e418" in caller.statement
    )
    queries = [a.get("query") for _, a in world.arguments]
    assert logged_delay.ROUTE_SEARCH in queries


@pytest.mark.rule("board.logged-delay")
def test_a_rise_with_no_route_change_is_a_lead_about_the_path():
    _, _, report = run_with_schemas(
        _world(route=False), incident("checkout-svc", "checkout very slow"), names=TOOLS
    )

    path = next(h for h in report.hypotheses if h.id == "connect:pay-db.core.lan")
    assert path.status == "likely" and path.confidence <= 0.6


@pytest.mark.parametrize("now,base", [("0.9", "0.5"), ("1.6", "0.4"), ("12", "11")])
def test_a_round_trip_within_noise_of_its_baseline_did_not_rise(now, base):
    assert logged_delay.rose(RTT.format(now=now, base=base)) is None


@pytest.mark.parametrize(
    "line",
    [
        "api-gw -> ledger.int:5432 tcp rtt p50 7.5ms p99 12ms (baseline p50 0.6ms)",
        "edge to auth-core rtt 3500us, was 400us",
    ],
)
def test_logged_round_trips_in_other_wordings_rise(line):
    assert logged_delay.rose(line) is not None


@pytest.mark.timeout(60)
def test_the_round_trip_reader_stays_linear_on_hostile_lines():
    hostile = ("a -> b " + "rtt 1ms " * 30 + "x") * 8000
    logged_delay.rose(hostile)
    logged_delay.rose("a" * 200_000 + " -> " + "b." * 100_000)
