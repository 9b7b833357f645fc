"""Issue 21 classes 2, 4 and 5: a service's own series against their baseline, a full shared back end
blamed on the client it names, and a probe's direct evidence confirmed by any service's lines
naming its host (reasoning/layered/metric_trends.py, shared_capacity.py, host_lines.py).

Names are invented; the servers' shapes (query_metric's matrix, top_errors with warnings and a
baseline, search_logs over every service) are their own.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import metric_trends
from tests.reasoning.test_planner import World, health, incident, probe, targets
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


def _series(name, service, values):
    """One query_metric series, a point a minute from an hour before the window."""
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, "service": service}, "values": points}


def _matrix(*series):
    return {"series": list(series)}


def _lines(*entries):
    """search_logs lines over every service: (service, level, message)."""
    return {
        "lines": [
            {
                "service": s,
                "time": "2030-01-01T10:20:00Z",
                "level": lvl,
                "message": m,
                "labels": {},
            }
            for s, lvl, m in entries
        ]
    }


# A gauge of held workers climbing every minute for two hours; one flat; one that only wobbles.
CLIMBING = [400 + 55 * i for i in range(121)]
FLAT = [400 + (7 if i % 2 else 0) for i in range(121)]


def _leak_world(values, verdict="unhealthy"):
    return World(
        {
            ("query_metric", metric_trends.QUERY): _matrix(
                _series("worker_threads_live", "quote-relay", values)
            ),
            ("service_health", "quote-relay"): health(
                "quote-relay", verdict, FAILING if verdict != "healthy" else []
            ),
            ("top_errors", "quote-relay"): logged("quote-relay"),
        }
    )


@pytest.mark.rule("board.metric-trends")
def test_a_held_resource_climbing_from_before_the_window_is_its_services_fault():
    inv, _, report = run_with_schemas(
        _leak_world(CLIMBING),
        incident("quote-relay", "quotes frozen"),
        names=WITH_METRICS,
    )

    top = report.top
    assert top.id == "application:quote-relay" and report.conclusive
    assert "worker_threads_live" in top.statement and "leak" in top.statement
    assert any("worker_threads_live" in e.fact for e in top.evidence)
    # Read in the first round, with the hour before the window.
    first = next(o for o in inv.observations if o.tool == "query_metric")
    assert first.arguments["start"] == "2030-01-01T09:00:00Z"


@pytest.mark.rule("board.metric-trends")
def test_a_flat_gauge_or_a_climb_in_a_healthy_service_concludes_nothing():
    _, _, flat = run_with_schemas(
        _leak_world(FLAT), incident("quote-relay", "quotes frozen"), names=WITH_METRICS
    )
    _, _, healthy = run_with_schemas(
        _leak_world(CLIMBING, verdict="healthy"),
        incident("quote-relay", "quotes frozen"),
        names=WITH_METRICS,
    )

    assert not any("worker_threads_live" in h.statement for h in flat.hypotheses)
    lead = next(h for h in healthy.hypotheses if h.id == "application:quote-relay")
    assert lead.status == "likely" and not healthy.conclusive


def _jump_world(counts, consumer_errors):
    return World(
        {
            ("query_metric", metric_trends.QUERY): _matrix(
                _series("queue_client_session_timeouts_total", "invoice-reader", counts)
            ),
            ("service_health", "billing-portal"): health("billing-portal"),
            ("top_errors", "billing-portal"): logged("billing-portal"),
            ("top_errors", "invoice-reader"): logged(
                "invoice-reader", errors=consumer_errors
            ),
        }
    )


# A session timeout every 20 minutes before the window and through its first half, then three a minute.
STEADY = [i // 20 for i in range(121)]
JUMPED = [i // 20 if i < 90 else 4 + 3 * (i - 90) for i in range(121)]


@pytest.mark.rule("board.metric-trends")
def test_a_fault_count_whose_rate_jumped_names_a_service_nobody_named():
    errors = [
        group("offset commit refused: member was removed from the group", count=60)
    ]

    inv, _, report = run_with_schemas(
        _jump_world(JUMPED, errors),
        incident("billing-portal", "invoices late"),
        names=WITH_METRICS,
    )

    assert ("top_errors", "invoice-reader") in [
        (o.tool, o.arguments.get("service")) for o in inv.observations
    ]
    top = report.top
    assert top.id == "application:invoice-reader" and report.conclusive
    assert "queue_client_session_timeouts_total rate jumped" in top.statement
    assert any("commit refused" in e.fact for e in top.evidence)


@pytest.mark.rule("board.metric-trends")
def test_a_fault_count_at_its_usual_rate_names_nobody():
    _, _, report = run_with_schemas(
        _jump_world(STEADY, [group("offset commit refused", count=60)]),
        incident("billing-portal", "invoices late"),
        names=WITH_METRICS,
    )

    assert not any(
        h.id == "application:invoice-reader" and h.status == "confirmed"
        for h in report.hypotheses
    )


QUOTED = "PUT /v3/ledger/88 500: could not acquire connection: FATAL: sorry, too many clients already"
FULL = "FATAL:  remaining connection slots are reserved for non-replication superuser connections"


def _capacity_world(backend_warnings):
    return World(
        {
            ("service_health", "ledger-api"): health(
                "ledger-api", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-api"): logged(
                "ledger-api", errors=[group(QUOTED, count=700)]
            ),
            ("search_logs", ""): _lines(
                ("ledger-api", "error", QUOTED),
                ("books-db", "error", FULL),
            ),
            ("top_errors", "books-db"): logged(
                "books-db",
                errors=[group(FULL, count=500)],
                warnings=backend_warnings,
            ),
            ("top_errors", "nightly-export"): logged("nightly-export"),
        },
    )


@pytest.mark.rule("board.shared-capacity")
def test_the_client_a_full_back_end_names_is_the_cause_and_the_loud_caller_its_victim():
    holder = group(
        "LOG:  connections: 180 idle from application_name=nightly-export, max_connections=200",
        count=12,
    )
    world = _capacity_world([holder])
    # Its pool stepped up from 8 to 32 connections when the window began.
    world.answers[("query_metric", metric_trends.QUERY)] = _matrix(
        _series("sql_pool_open", "nightly-export", [8] * 60 + [32] * 61)
    )

    _, _, report = run_with_schemas(
        world, incident("ledger-api", "ledger writes fail"), names=WITH_METRICS
    )

    top = report.top
    assert top.id == "application:nightly-export" and report.conclusive
    assert "books-db" in top.statement
    assert any("application_name=nightly-export" in e.fact for e in top.evidence)
    assert any("sql_pool_open" in e.fact for e in top.evidence)
    caller = next(h for h in report.hypotheses if h.id == "application:ledger-api")
    assert caller.status == "likely" and caller.confidence <= 0.4


@pytest.mark.rule("board.shared-capacity")
def test_a_full_back_end_naming_no_client_is_only_a_lead():
    _, _, report = run_with_schemas(
        _capacity_world([]),
        incident("ledger-api", "ledger writes fail"),
        names=WITH_METRICS,
    )

    backend = next(h for h in report.hypotheses if h.id == "application:books-db")
    assert backend.status == "likely" and backend.confidence <= 0.5
    assert report.top.id == "application:ledger-api"


@pytest.mark.rule("board.shared-capacity")
def test_unnamed_the_client_whose_connections_stepped_up_and_that_does_not_fail_is_the_cause():
    def world(stepping):
        w = _capacity_world([])
        w.answers[("query_metric", metric_trends.QUERY)] = _matrix(
            _series("sql_pool_open", stepping, [8] * 60 + [32] * 61)
        )
        return w

    _, _, quiet = run_with_schemas(
        world("nightly-export"),
        incident("ledger-api", "ledger writes fail"),
        names=WITH_METRICS,
    )
    # The failing caller's own pool filling up is its symptom, not a change of demand.
    _, _, loud = run_with_schemas(
        world("ledger-api"),
        incident("ledger-api", "ledger writes fail"),
        names=WITH_METRICS,
    )

    assert quiet.top.id == "application:nightly-export" and quiet.conclusive
    assert "stepped up" in quiet.top.statement
    assert not any(h.id == "application:nightly-export" for h in loud.hypotheses)
    assert loud.top.id == "application:ledger-api"


MEDIA = "https://media.shop.test/upload"


def _probe_world(search_lines):
    return World(
        {
            ("service_health", "media"): health("media", "unknown"),
            ("list_targets", ""): targets(MEDIA),
            (
                "probe_url",
                MEDIA,
            ): probe(
                MEDIA,
                "http",
                "http_413",
                ["HTTP 413 Request Entity Too Large"],
                status=413,
                body="413 Request Entity Too Large",
            ),
            ("search_logs", ""): _lines(*search_lines),
        }
    )


@pytest.mark.rule("probe.corroborate")
def test_a_probes_failure_is_confirmed_by_any_services_line_naming_its_host():
    proxy_line = (
        "client sent too large body: 9000000 bytes, server: media.shop.test, "
        'request: "POST /upload HTTP/1.1"'
    )
    names = (*WITH_METRICS, "list_targets", "probe_url")

    _, _, confirmed = run_with_schemas(
        _probe_world([("front-proxy", "error", proxy_line)]),
        incident("media", "uploads fail"),
        names=names,
    )
    _, _, alone = run_with_schemas(
        _probe_world([("front-proxy", "info", "GET /health 200")]),
        incident("media", "uploads fail"),
        names=names,
    )

    top = confirmed.top
    assert top.id == "http:media.shop.test" and confirmed.conclusive
    assert any("front-proxy" in e.fact for e in top.evidence)
    assert alone.top.id == "http:media.shop.test" and not alone.conclusive


@pytest.mark.rule("board.shared-capacity")
@pytest.mark.parametrize(
    ("line", "callers"),
    [
        # A caller quoting a remote's quota answer: the remote's limit, not a back end's own line.
        (
            "Ads API campaigns.mutate failed: 429 RESOURCE_EXHAUSTED quota exceeded",
            True,
        ),
        ("geocoder returned 429 (Quota exceeded for project maps-7)", True),
        ("upload status code: 503 quota exceeded, retrying", True),
        # A back end's own words that it is full.
        ("FATAL: remaining connection slots are reserved for superuser", False),
        ("ERR max number of clients reached (maxclients 10000)", False),
    ],
)
def test_a_line_quoting_a_remotes_answer_is_a_callers_not_a_full_back_ends(
    line, callers
):
    from reasoning.layered.shared_capacity import REQUEST_LINE

    assert bool(REQUEST_LINE.search(line)) is callers
