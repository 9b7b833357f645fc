"""Issue 21 class 2, a rate that jumped: a log pattern logged before the window too, but many times
as often in it, is a lead for its service (reasoning/layered/rate_jumps.py).

Names are invented; the logs server's shape (top_errors with warnings and a baseline) is its own.
"""

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.rate_jumps import JUMP, MIN_LINES, jumped
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    SLOW,
    group,
    lines,
    logged,
    run_with_schemas,
)

SLOW_QUERY = "slow query 2.90s: fares by route; plan: Seq Scan on fares"
CALLER_TIMEOUT = (
    "fare lookup failed: GET http://fare-keeper/v1/fares/77 timed out after 2000ms"
)


def _fares_world(*, count, before, caller=True):
    answers = {
        ("service_health", "trip-planner"): health("trip-planner", "degraded", SLOW),
        ("top_errors", "trip-planner"): logged(
            "trip-planner",
            errors=[group(CALLER_TIMEOUT, count=300)] if caller else [],
        ),
        ("service_health", "fare-keeper"): health(
            "fare-keeper", "degraded" if caller else "healthy", SLOW if caller else []
        ),
        ("top_errors", "fare-keeper"): logged(
            "fare-keeper", warnings=[group(SLOW_QUERY, count=count, before=before)]
        ),
        ("search_logs", ""): lines(),
    }
    return World(answers)


@pytest.mark.rule("board.rate-jumps")
def test_a_cause_logged_before_too_but_forty_times_as_often_now_is_confirmed_by_its_callers():
    world = _fares_world(count=240, before=6)

    _, _, report = run_with_schemas(
        world, incident("trip-planner", "trip search slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:fare-keeper"
    assert report.top.status == "confirmed" and report.conclusive
    assert "40 times as often as before the window" in report.top.statement
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "Seq Scan" in cited and "timed out" in cited
    assert any("40 times as often" in line for line in report.top.causal_chain)


@pytest.mark.rule("board.rate-jumps")
def test_a_cause_logged_as_often_before_is_no_lead():
    world = _fares_world(count=240, before=200)

    _, _, report = run_with_schemas(
        world, incident("trip-planner", "trip search slow"), names=NO_NETCHECK
    )

    lead = next(
        (h for h in report.hypotheses if h.id == "application:fare-keeper"), None
    )
    assert lead is None or lead.status != "confirmed"


@pytest.mark.rule("board.rate-jumps", "board.application")
def test_an_own_error_that_jumped_is_no_longer_read_as_stale():
    """The same error at a steady rate is stale (a lead at most); at twenty times it is current."""

    def world(before):
        return World(
            {
                ("service_health", "bin-ledger"): health(
                    "bin-ledger", "unhealthy", FAILING
                ),
                ("top_errors", "bin-ledger"): logged(
                    "bin-ledger",
                    errors=[
                        group(
                            "deadlock detected on table bins", count=200, before=before
                        )
                    ],
                ),
                ("search_logs", ""): lines(),
            }
        )

    brief = incident("bin-ledger", "bin postings fail")
    _, _, steady = run_with_schemas(world(180), brief, names=NO_NETCHECK)
    _, _, jumped_report = run_with_schemas(world(10), brief, names=NO_NETCHECK)

    old = next(h for h in steady.hypotheses if h.id == "application:bin-ledger")
    assert old.status == "likely" and old.confidence <= 0.3
    assert "not new" in old.statement
    top = jumped_report.top
    assert top.id == "application:bin-ledger" and top.status == "confirmed"
    assert "not new" not in top.statement and "20 times as often" in top.statement


@pytest.mark.rule("board.rate-jumps")
def test_a_jump_alone_is_a_lead_not_a_conclusion():
    world = _fares_world(count=240, before=6, caller=False)

    _, _, report = run_with_schemas(
        world, incident("fare-keeper", "fares slow"), names=NO_NETCHECK
    )

    lead = next(h for h in report.hypotheses if h.id == "application:fare-keeper")
    assert lead.status == "likely" and not report.conclusive


@pytest.mark.rule("board.rate-jumps")
def test_a_jump_in_a_line_about_an_upstream_or_the_network_is_not_the_services_own():
    world = World(
        {
            ("service_health", "route-desk"): health(
                "route-desk", "unhealthy", FAILING
            ),
            ("top_errors", "route-desk"): logged(
                "route-desk",
                errors=[
                    group(
                        "GET http://geo-cache/v2/tiles failed: connection refused",
                        count=400,
                        before=4,
                    )
                ],
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("route-desk", "maps fail"), names=NO_NETCHECK
    )

    own = next((h for h in report.hypotheses if h.id == "application:route-desk"), None)
    assert own is None or "times as often" not in own.statement


def _errors(result, arguments):
    obs = Observation(
        span_id="s1",
        agent="logs",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": "quay-api", **arguments},
        is_ok=True,
        result=result,
    )
    return Facts.read([obs]).errors["quay-api"]


def test_the_rates_are_per_second_of_the_window_and_of_the_baseline():
    """50 lines in a 10-minute window against 30 in the hour before is 10 times the rate; the same
    50 lines over a whole hour is not."""
    short_window = _errors(
        {
            "top": [group("heap space exhausted", count=50, before=30)],
            "window": {"start": "2030-01-01T10:50:00Z", "end": "2030-01-01T11:00:00Z"},
            "baseline": {
                "start": "2030-01-01T09:50:00Z",
                "end": "2030-01-01T10:50:00Z",
            },
        },
        {},
    )
    long_window = _errors(
        {
            "top": [group("heap space exhausted", count=50, before=30)],
            "window": {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"},
            "baseline": {
                "start": "2030-01-01T09:00:00Z",
                "end": "2030-01-01T10:00:00Z",
            },
        },
        {},
    )

    assert jumped(short_window, short_window.groups[0]) == pytest.approx(JUMP)
    assert jumped(long_window, long_window.groups[0]) is None


def test_without_a_baseline_or_with_too_few_lines_nothing_jumped():
    arguments = {
        "start": "2030-01-01T10:00:00Z",
        "end": "2030-01-01T10:10:00Z",
        "baseline_s": 3600,
    }
    few = _errors(
        {"top": [group("heap space exhausted", count=MIN_LINES - 1, before=1)]},
        arguments,
    )
    new = _errors(
        {"top": [group("heap space exhausted", count=90, before=0)]}, arguments
    )
    unasked = _errors(
        {"top": [{"signature": "heap space exhausted", "count": 90}]}, arguments
    )
    enough = _errors(
        {"top": [group("heap space exhausted", count=MIN_LINES, before=1)]},
        arguments,
    )

    assert jumped(few, few.groups[0]) is None
    assert jumped(new, new.groups[0]) is None  # new: the warning leads' rule, not this
    assert jumped(unasked, unasked.groups[0]) is None
    # From the arguments: 20 lines in 600 s against 1 in 3600 s.
    assert jumped(enough, enough.groups[0]) == pytest.approx(120)


@pytest.mark.rule("board.healthy-services")
def test_a_healthy_service_with_no_error_lines_is_ruled_out_one_with_errors_is_not():
    def read(service, verdict, errors):
        return [
            Observation(
                span_id=f"h-{service}",
                agent="metrics",
                server="metrics-mcp",
                tool="service_health",
                arguments={"service": service},
                is_ok=True,
                result=health(service, verdict, []),
            ),
            Observation(
                span_id=f"e-{service}",
                agent="logs",
                server="logs-mcp",
                tool="top_errors",
                arguments={"service": service},
                is_ok=True,
                result=logged(service, errors=errors),
            ),
        ]

    inv = Investigation(incident=incident("seat-map", "seats missing"), tools=[])
    inv.observations += read("seat-map", "healthy", [])
    inv.observations += read("berth-api", "healthy", [group("KeyError: 'berth'")])
    board = Analysis(inv, Facts.read(inv.observations)).candidates

    seat = board["application:seat-map"]
    assert seat.status == "ruled_out"
    assert seat.reason_ruled_out == (
        "service_health(seat-map) is healthy and its logs show no errors"
    )
    berth = board.get("application:berth-api")
    assert berth is None or berth.status != "ruled_out"
