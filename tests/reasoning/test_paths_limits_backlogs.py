"""Issue 21: a network path element reporting itself down, a provider's rate limit used up by a
co-tenant's burst, a quiet producer whose backlog climbs (reasoning/layered/path_elements.py,
shared_limits.py, stalled_output.py).

Names are invented; the servers' shapes (query_metric's matrix, top_errors with a baseline) are
their own.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import backend_gauges, metric_trends
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    SLOW,
    group,
    logged,
    run_with_schemas,
)

NAMES = (
    "service_health",
    "query_metric",
    "top_errors",
    "search_logs",
    "search_runbooks",
)
_BASE = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)  # an hour before the incident's window


def _series(name, labels, values):
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, **labels}, "values": points}


def _lines(*entries):
    """search_logs lines: (service, message)."""
    return {
        "lines": [
            {
                "service": who,
                "time": "2030-01-01T10:30:00Z",
                "level": "info",
                "message": message,
                "labels": {},
            }
            for who, message in entries
        ]
    }


def _step(before, after, at=60):
    return [before if i < at else after for i in range(121)]


# --- a path element down ------------------------------------------------------------------------

TIMED_OUT = "GET https://ledger.branch.corp:9443/v2/post failed: ReadTimeout: read timed out after 20s"


def _path_world(state_values, *, symptoms=True, sibling=True):
    unlabelled = [
        _series(
            "ipsec_tunnel_up",
            {"vpn_connection": "vpn-7f00aa11", "tunnel": "2"},
            state_values,
        ),
        _series(
            "ipsec_tunnel_up",
            {"vpn_connection": "vpn-7f00aa11", "tunnel": "1"},
            _step(1, 1),
        ),
    ]
    if sibling:
        unlabelled.append(
            _series(
                "ipsec_tunnel_throughput_mbps",
                {"vpn_connection": "vpn-7f00aa11", "tunnel": "1"},
                _step(400, 950),
            )
        )
    errors = [group(TIMED_OUT, count=300)] if symptoms else []
    return World(
        {
            ("query_metric", backend_gauges.QUERY): {"series": unlabelled},
            ("service_health", "branch-sync"): health("branch-sync", "unhealthy", SLOW),
            ("top_errors", "branch-sync"): logged("branch-sync", errors=errors),
            ("search_logs", ""): _lines(
                (
                    "net-watch",
                    "vpn-7f00aa11 tunnel 2 state DOWN (phase 1 negotiation failed)",
                )
            ),
        }
    )


@pytest.mark.rule("board.path-element-down")
def test_a_tunnel_reporting_down_while_its_users_time_out_is_the_connect_fault():
    _, _, report = run_with_schemas(
        _path_world(_step(0, 0)),
        incident("branch-sync", "branches offline"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "connect:vpn-7f00aa11" and report.conclusive
    assert "tunnel 2" in top.statement
    assert any("ipsec_tunnel_throughput_mbps" in e.fact for e in top.evidence)
    # What the lines say of the element is read and cited.
    assert any("phase 1 negotiation failed" in e.fact for e in top.evidence)


@pytest.mark.rule("board.path-element-down")
def test_a_down_element_without_a_sibling_rising_is_a_lead_and_without_timeouts_nothing():
    _, _, lead = run_with_schemas(
        _path_world(_step(0, 0), sibling=False),
        incident("branch-sync", "branches offline"),
        names=NAMES,
    )
    _, _, quiet = run_with_schemas(
        _path_world(_step(0, 0), symptoms=False),
        incident("branch-sync", "branches offline"),
        names=NAMES,
    )
    _, _, up = run_with_schemas(
        _path_world(_step(1, 1)),
        incident("branch-sync", "branches offline"),
        names=NAMES,
    )

    element = next(h for h in lead.hypotheses if h.id == "connect:vpn-7f00aa11")
    assert element.status == "likely"
    assert not any(h.id == "connect:vpn-7f00aa11" for h in quiet.hypotheses)
    assert not any(h.id == "connect:vpn-7f00aa11" for h in up.hypotheses)


# --- a shared rate limit -----------------------------------------------------------------------

LIMITED = (
    "deliver code to user 8812 failed: POST https://gw.textpush.io/v3/messages "
    "-> 429 Too Many Requests (account limit)"
)


def _limit_world(burst_values):
    return World(
        {
            ("query_metric", metric_trends.QUERY): {
                "series": [
                    _series(
                        "pushes_sent_per_second",
                        {"service": "newsletter-blaster"},
                        burst_values,
                    ),
                    _series(
                        "code_delivery_failures_rate",
                        {"service": "signin-api"},
                        _step(0.01, 9),
                    ),
                ]
            },
            ("service_health", "signin-api"): health(
                "signin-api", "unhealthy", FAILING
            ),
            ("top_errors", "signin-api"): logged(
                "signin-api", errors=[group(LIMITED, count=400)]
            ),
        }
    )


@pytest.mark.rule("board.shared-rate-limit")
def test_a_co_tenants_burst_behind_a_providers_429s_is_the_cause_at_http():
    _, _, report = run_with_schemas(
        _limit_world(_step(0, 350, at=59)),
        incident("signin-api", "codes never arrive"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "http:newsletter-blaster" and report.conclusive
    assert "gw.textpush.io" in top.statement
    assert any(h.id == "http:gw.textpush.io" for h in report.hypotheses)


@pytest.mark.rule("board.shared-rate-limit")
def test_without_a_co_tenants_burst_the_providers_limit_is_the_fault():
    _, _, report = run_with_schemas(
        _limit_world(_step(120, 125)),
        incident("signin-api", "codes never arrive"),
        names=NAMES,
    )

    assert report.top.id == "http:gw.textpush.io" and report.conclusive
    assert not any(h.id == "http:newsletter-blaster" for h in report.hypotheses)


# --- a quiet producer whose backlog climbs ------------------------------------------------------

STARVING = "invoice 7731 not emailed: no InvoiceIssued event received within 15 min"


def _backlog_world(values, producer_verdict=None):
    answers = {
        ("query_metric", metric_trends.QUERY): {
            "series": [
                _series(
                    "ledger_unpublished_events", {"service": "ledger-publisher"}, values
                )
            ]
        },
        ("service_health", "receipt-mailer"): health(
            "receipt-mailer", "degraded", FAILING
        ),
        ("top_errors", "receipt-mailer"): logged(
            "receipt-mailer", errors=[group(STARVING, count=200)]
        ),
    }
    answers[("search_logs", "ledger-publisher")] = _lines(
        (
            "ledger-publisher",
            "lock ledger-out held by ledger-publisher-0 (renewed 40ms ago), follower idle",
        )
    )
    if producer_verdict is not None:
        answers[("service_health", "ledger-publisher")] = health(
            "ledger-publisher", producer_verdict, FAILING
        )
    return World(answers)


CLIMBING = [15 if i < 60 else 15 + 300 * (i - 59) for i in range(121)]
WOBBLING = [15 + (3 if i % 2 else 0) for i in range(121)]


@pytest.mark.rule("board.stalled-producer")
def test_a_quiet_producers_climbing_backlog_explains_its_starving_consumers():
    _, _, report = run_with_schemas(
        _backlog_world(CLIMBING),
        incident("receipt-mailer", "no receipts sent"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "application:ledger-publisher" and report.conclusive
    assert "ledger_unpublished_events" in top.statement
    assert any(STARVING[:20] in e.fact for e in top.evidence)
    # The producer's own lease lines are read and cited: who holds it while nothing moves.
    assert any("held by ledger-publisher-0" in e.fact for e in top.evidence)


@pytest.mark.rule("board.stalled-producer")
def test_a_producer_failing_loudly_itself_is_left_to_the_other_rules():
    _, _, report = run_with_schemas(
        _backlog_world(CLIMBING, producer_verdict="unhealthy"),
        incident("receipt-mailer", "no receipts sent"),
        names=NAMES,
    )

    assert not any("stopped producing" in h.statement for h in report.hypotheses)


@pytest.mark.rule("board.stalled-producer")
def test_a_flat_backlog_concludes_nothing():
    _, _, report = run_with_schemas(
        _backlog_world(WOBBLING),
        incident("receipt-mailer", "no receipts sent"),
        names=NAMES,
    )

    assert not any("stopped producing" in h.statement for h in report.hypotheses)
