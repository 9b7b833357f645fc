"""Network delay from metrics (issue 21): a round trip that rose while the callee is not slower itself.

A slow service with no errors anywhere: the planner asks the metrics for the round trips they record
between callers and callees over the window and the hour before; for a pair whose round trip rose, it
asks the callee's own latency and the caller's health. A rise with the callee's own latency flat is a
delay on the path (connect layer), confirmed by both ends' metrics; a callee slower itself is not.
"""

from datetime import UTC, datetime

import pytest

from reasoning.layered.network_delay import ROUND_TRIPS, own_latency
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import SLOW, logged, run_with_schemas

START = datetime(2030, 1, 1, 9, 0, tzinfo=UTC).timestamp()  # the hour before the window
STEP_AT = datetime(2030, 1, 1, 10, 20, tzinfo=UTC).timestamp()  # inside the window


def _series(labels, before, after):
    values = [
        [START + 60 * i, str(after if START + 60 * i >= STEP_AT else before)]
        for i in range(121)
    ]
    return {"metric": labels, "values": values}


def _world(callee_after):
    rtt = "mesh_rtt_seconds"
    return World(
        {
            ("service_health", "shop-front"): health("shop-front", "degraded", SLOW),
            ("top_errors", "shop-front"): logged("shop-front"),
            ("service_health", "quote-svc"): health("quote-svc", "degraded", SLOW),
            ("query_metric", ROUND_TRIPS): {
                "series": [
                    _series(
                        {"__name__": rtt, "src": "quote-svc", "dst": "fx-store"},
                        0.0005,
                        0.012,
                    ),
                    # A fast path's jitter is no delay.
                    _series(
                        {"__name__": rtt, "src": "quote-svc", "dst": "quote-db"},
                        0.0004,
                        0.0011,
                    ),
                ]
            },
            ("query_metric", own_latency("fx-store")): {
                "series": [
                    _series(
                        {
                            "__name__": "kv_op_duration_seconds",
                            "service": "fx-store",
                            "quantile": "0.99",
                        },
                        0.0003,
                        callee_after,
                    )
                ]
            },
        }
    )


NAMES = ("service_health", "query_metric", "top_errors", "search_runbooks")


@pytest.mark.rule("board.network-delay")
def test_a_round_trip_that_rose_while_the_callee_stays_flat_is_the_path():
    world = _world(callee_after=0.0003)

    _, _, report = run_with_schemas(
        world, incident("shop-front", "pages slow", "no errors"), names=NAMES
    )

    rtt_call = next(a for t, a in world.arguments if a.get("promql") == ROUND_TRIPS)
    assert rtt_call["start"] == "2030-01-01T09:00:00Z"  # the hour before, as a baseline
    assert ("service_health", "quote-svc") in world.asked
    assert report.top.id == "connect:fx-store"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "quote-svc -> fx-store" in cited and "stays flat" in cited
    assert "service_health(quote-svc)" in cited
    assert not any(h.component == "quote-db" for h in report.hypotheses)


@pytest.mark.rule("board.network-delay")
def test_a_callee_slower_itself_is_no_network_delay():
    _, _, report = run_with_schemas(
        _world(callee_after=0.012),
        incident("shop-front", "pages slow", "no errors"),
        names=NAMES,
    )

    assert not any(h.id == "connect:fx-store" for h in report.hypotheses)
