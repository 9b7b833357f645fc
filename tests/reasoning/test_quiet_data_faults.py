"""Issue 21 classes 1 and 4: an exporter's gauge of a spent resource or a lagging replica, and the
quiet lines of replica lag, offsets reset past retention and a traffic split
(reasoning/layered/backend_gauges.py, silent_lines.py).

Names are invented; the servers' shapes (query_metric's matrix, search_logs over every service)
are their own.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import backend_gauges, metric_trends
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

WITH_METRICS = (
    "service_health",
    "query_metric",
    "top_errors",
    "search_logs",
    "search_runbooks",
)
_BASE = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)  # an hour before the incident's window
TIMEOUT = "GET /v4/quotes/118 504: query timeout after 2000ms"


def _series(name, labels, values):
    """One query_metric series of an exporter (no service label), a point a minute from 09:00."""
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, **labels}, "values": points}


def _lines(*entries):
    """search_logs lines over every service: (service, time, level, message)."""
    return {
        "lines": [
            {"service": s, "time": t, "level": lvl, "message": m, "labels": {}}
            for s, t, lvl, m in entries
        ]
    }


def _caller(service, answers, message=TIMEOUT):
    return World(
        {
            ("service_health", service): health(service, "unhealthy", FAILING),
            ("top_errors", service): logged(
                service, errors=[group(message, count=400)]
            ),
            **answers,
        }
    )


# A credit balance spent minute by minute from 09:00 to zero at 10:40, one that dips and refills.
SPENT = [max(0.0, 100 - i) for i in range(121)]
REFILLED = [100 - i if i < 60 else 40 + (i - 60) for i in range(121)]


def _credits_world(values, name="storage_iops_credit_balance"):
    return _caller(
        "quote-api",
        {
            ("query_metric", backend_gauges.QUERY): {
                "series": [_series(name, {"instance": "ledger-store:9100"}, values)]
            }
        },
    )


@pytest.mark.rule("board.depleted-resource")
def test_a_back_end_whose_credit_balance_is_spent_is_the_fault_not_its_timing_out_caller():
    inv, _, report = run_with_schemas(
        _credits_world(SPENT), incident("quote-api", "quotes slow"), names=WITH_METRICS
    )

    top = report.top
    assert top.id == "application:ledger-store" and report.conclusive
    assert any("storage_iops_credit_balance" in e.fact for e in top.evidence)
    # Read in the first round, with the hour before the window.
    first = next(
        o for o in inv.observations if o.arguments.get("promql") == backend_gauges.QUERY
    )
    assert first.arguments["start"] == "2030-01-01T09:00:00Z"


@pytest.mark.rule("board.depleted-resource")
def test_a_balance_that_refills_or_a_gauge_of_no_resource_blames_nobody():
    _, _, refilled = run_with_schemas(
        _credits_world(REFILLED),
        incident("quote-api", "quotes slow"),
        names=WITH_METRICS,
    )
    _, _, other = run_with_schemas(
        _credits_world(SPENT, name="storage_queue_depth"),
        incident("quote-api", "quotes slow"),
        names=WITH_METRICS,
    )

    for report in (refilled, other):
        assert not any(h.component == "ledger-store" for h in report.hypotheses)


LAG_LINE = (
    "standby wallet-db-standby-2 replay lag 95.0s exceeds 30s "
    "(replay paused by a conflicting query from nightly-etl)"
)
NOT_FOUND = "GET /v1/cards/77 404 card not found (created 3s ago)"
# Lag under a second until 10:10, then a minute more every minute.
CLIMBING_LAG = [0.3 if i < 70 else 0.3 + 6 * (i - 70) for i in range(121)]
FLAT_LAG = [0.3 + 0.1 * (i % 3) for i in range(121)]


def _lag_world(values, lines=()):
    answers = {
        ("query_metric", backend_gauges.QUERY): {
            "series": [
                _series(
                    "pg_standby_replay_lag_seconds",
                    {"instance": "wallet-db-standby-2"},
                    values,
                )
            ]
        }
    }
    if lines:
        answers[("search_logs", "")] = _lines(*lines)
    return _caller("wallet-api", answers, NOT_FOUND)


@pytest.mark.rule("board.replica-lag")
def test_a_replica_whose_lag_climbs_is_why_reads_miss_recent_writes():
    lines = [
        ("db-operator", f"2030-01-01T10:{m}:00Z", "warn", LAG_LINE)
        for m in (12, 20, 31)
    ]
    _, _, report = run_with_schemas(
        _lag_world(CLIMBING_LAG, lines),
        incident("wallet-api", "saved cards vanish"),
        names=WITH_METRICS,
    )

    top = report.top
    assert top.id == "application:wallet-db-standby-2" and report.conclusive
    assert any("pg_standby_replay_lag_seconds" in e.fact for e in top.evidence)
    assert any("replay lag 95.0s" in e.fact for e in top.evidence)


@pytest.mark.rule("board.replica-lag")
def test_replica_lag_the_database_logs_again_and_again_blames_the_replica_without_a_gauge():
    lines = [
        ("db-operator", f"2030-01-01T10:{m}:00Z", "warn", LAG_LINE)
        for m in (12, 20, 31)
    ]
    _, _, logged_only = run_with_schemas(
        _lag_world(FLAT_LAG, lines),
        incident("wallet-api", "saved cards vanish"),
        names=WITH_METRICS,
    )
    _, _, neither = run_with_schemas(
        _lag_world(FLAT_LAG),
        incident("wallet-api", "saved cards vanish"),
        names=WITH_METRICS,
    )

    assert logged_only.top.id == "application:wallet-db-standby-2"
    assert not any(h.component == "wallet-db-standby-2" for h in neither.hypotheses)


RESET = (
    "[Consumer clientId=ledger-sync-{n}, groupId=ledger-sync] Fetch position "
    "FetchPosition{{offset=4411}} is out of range for partition invoices.booked-{n}, resetting offset"
)


def _reset_world(count):
    lines = [
        ("ledger-sync", "2030-01-01T10:05:00Z", "info", RESET.format(n=n))
        for n in range(count)
    ]
    return World(
        {
            ("service_health", "billing-portal"): health("billing-portal"),
            ("top_errors", "billing-portal"): logged(
                "billing-portal",
                warnings=[group("invoice total differs from bank statement by 4.1%")],
            ),
            ("search_logs", ""): _lines(*lines),
        }
    )


@pytest.mark.rule("board.offset-reset")
def test_a_consumer_that_reset_offsets_out_of_range_skipped_data_and_is_the_fault():
    _, _, report = run_with_schemas(
        _reset_world(4),
        incident("billing-portal", "invoice totals too low"),
        names=WITH_METRICS,
    )

    top = report.top
    assert top.id == "application:ledger-sync" and report.conclusive
    assert any("is out of range for partition" in e.fact for e in top.evidence)


@pytest.mark.rule("board.offset-reset")
def test_one_offset_reset_is_no_fault():
    _, _, report = run_with_schemas(
        _reset_world(1),
        incident("billing-portal", "invoice totals too low"),
        names=WITH_METRICS,
    )

    assert not any(
        h.component == "ledger-sync" and h.status == "confirmed"
        for h in report.hypotheses
    )


SPLIT = "reloaded routes: weighted service quotes: quotes-main weight=10, quotes-next weight=90"
BROKEN = "POST /v2/quote 500: KeyError: 'discount_tier'"


def _split_world(at):
    return World(
        {
            ("service_health", "shop-web"): health("shop-web", "unhealthy", FAILING),
            ("top_errors", "shop-web"): logged(
                "shop-web", errors=[group("POST /cart 502: quotes returned 500")]
            ),
            ("top_errors", "quotes-next"): logged(
                "quotes-next", errors=[group(BROKEN, count=300)]
            ),
            ("search_logs", ""): _lines(("edge-router", at, "info", SPLIT)),
        }
    )


@pytest.mark.rule("board.traffic-split")
def test_a_traffic_split_set_just_before_a_services_errors_is_cited_with_them():
    _, _, report = run_with_schemas(
        _split_world("2030-01-01T10:12:00Z"),
        incident("shop-web", "cart fails", "quotes-next"),
        names=WITH_METRICS,
    )

    top = report.top
    assert top.id == "application:quotes-next" and report.conclusive
    assert any("quotes-next weight=90" in e.fact for e in top.evidence)
    assert any("discount_tier" in e.fact for e in top.evidence)


@pytest.mark.rule("board.traffic-split")
def test_weights_set_after_the_errors_began_are_not_their_cause():
    _, _, report = run_with_schemas(
        _split_world("2030-01-01T10:40:00Z"),
        incident("shop-web", "cart fails", "quotes-next"),
        names=WITH_METRICS,
    )

    assert not any("weight=90" in e.fact for h in report.hypotheses for e in h.evidence)


STALE = (
    "ConnPool-2 - Failed to validate connection PgConn@5521 (This connection has been "
    "closed.). Possibly consider using a shorter maxLifetime value."
)
SLOW_REQUEST = "GET /v2/invoices?account=88 200 8400ms (slow)"
SLOW = [("p99_latency_s", "critical", "p99 latency 8.4 s since 10:12")]


def _pool_world(idle, warnings):
    return World(
        {
            ("service_health", "invoice-api"): health("invoice-api", "degraded", SLOW),
            ("top_errors", "invoice-api"): logged(
                "invoice-api",
                warnings=[group(SLOW_REQUEST, count=300), *warnings],
            ),
            ("query_metric", metric_trends.QUERY): {
                "series": [
                    {
                        "metric": {
                            "__name__": "pool_connections_idle",
                            "service": "invoice-api",
                        },
                        "values": [
                            [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
                            for i, v in enumerate(idle)
                        ],
                    }
                ]
            },
        }
    )


# Six idle connections until the window, forty after.
STEPPED = [6 if i < 60 else 40 for i in range(121)]
STEADY_IDLE = [6 for _ in range(121)]


@pytest.mark.rule("board.stale-pool")
def test_a_pool_whose_idle_connections_stepped_up_and_fail_validation_is_the_fault():
    _, _, report = run_with_schemas(
        _pool_world(STEPPED, [group(STALE, count=200)]),
        incident("invoice-api", "invoices slow sometimes"),
        names=WITH_METRICS,
    )

    top = report.top
    assert top.id == "application:invoice-api" and report.conclusive
    assert any("shorter maxLifetime" in e.fact for e in top.evidence)
    assert any("pool_connections_idle" in e.fact for e in top.evidence)


@pytest.mark.rule("board.stale-pool")
def test_stale_warnings_without_a_pool_that_grew_stay_a_lead():
    _, _, report = run_with_schemas(
        _pool_world(STEADY_IDLE, [group(STALE, count=200)]),
        incident("invoice-api", "invoices slow sometimes"),
        names=WITH_METRICS,
    )

    assert not any(
        "go stale while idle" in h.statement and h.status == "confirmed"
        for h in report.hypotheses
    )
