"""Issue 21: a diagnosis that does not stop at the named service.

- When nothing read about the incident's service explains it, the planner surveys every service the
  metrics know and reads the failing ones; the cause is often a service nobody named.
- A path the logs show failing (DNS, TCP connect, TLS, naming a host) is a hypothesis even when no
  probe reached it; the caller's own failing metrics confirm it, the logs alone make it a lead.
- A service's own 5xx beside its own application error confirm it fails by itself; a relay that
  only logs its upstream's answer is not blamed.
"""

import pytest

from reasoning import layers
from reasoning.layered import survey
from tests.reasoning.test_planner import World, errors, health, incident, run

# The servers of a team without netcheck: metrics, logs, runbooks.
NO_NETCHECK = ("service_health", "top_errors", "search_runbooks", "query_metric")
FAILING = [("error_ratio", "critical", "error ratio 23% since 10:25")]


def series(**ratios):
    """survey's two queries answered: every service at 10 req/s, each with its share of 5xx."""
    points = [[1_893_492_000 + 60 * i, 0.0] for i in range(3)]

    def one(service, value):
        return {
            "metric": {"service": service},
            "values": [[t, value] for t, _ in points],
        }

    return {
        ("query_metric", survey.REQUESTS): {"series": [one(s, 10.0) for s in ratios]},
        ("query_metric", survey.ERRORS): {
            "series": [one(s, 10.0 * r) for s, r in ratios.items() if r]
        },
    }


def test_a_gateway_that_logs_nothing_leads_to_the_failing_service_behind_it():
    world = World(
        {
            ("service_health", "shop-gateway"): health(
                "shop-gateway", "unhealthy", FAILING
            ),
            ("top_errors", "shop-gateway"): errors("shop-gateway"),
            **series(**{"shop-gateway": 0.23, "stock-api": 0.3, "cart-api": 0.0}),
            ("service_health", "stock-api"): health("stock-api", "unhealthy", FAILING),
            ("top_errors", "stock-api"): errors(
                "stock-api",
                "sqlalchemy.exc.TimeoutError: QueuePool limit of size 20 overflow 0 reached",
            ),
        }
    )

    _, _, report = run(
        world, incident("shop-gateway", "shop-gateway answers 5xx"), names=NO_NETCHECK
    )

    assert ("query_metric", survey.ERRORS) in world.asked
    # Only the failing services are read; the healthy one is not.
    assert ("top_errors", "stock-api") in world.asked
    assert ("top_errors", "cart-api") not in world.asked
    assert report.top.id == "application:stock-api"
    assert report.top.status == "confirmed" and report.conclusive
    assert {e.tool for e in report.top.evidence} >= {"top_errors", "service_health"}


def test_no_survey_once_the_named_service_explains_itself():
    world = World(
        {
            ("service_health", "billing"): health("billing", "unhealthy", FAILING),
            ("top_errors", "billing"): errors(
                "billing", "Traceback (most recent call last): KeyError: 'currency'"
            ),
        }
    )

    _, _, report = run(world, incident("billing", "invoices fail"), names=NO_NETCHECK)

    assert report.top.id == "application:billing" and report.conclusive
    assert not any(
        tool == "query_metric" and promql in survey.QUERIES
        for tool, promql in world.asked
    )


@pytest.mark.rule("board.logged-paths")
def test_a_connect_failure_the_callers_log_is_confirmed_by_their_failing_metrics():
    line = "connect to ledger-api.internal:8080 failed: [Errno 111] Connection refused"
    world = World(
        {
            ("service_health", "pay-api"): health("pay-api", "unhealthy", FAILING),
            ("top_errors", "pay-api"): errors("pay-api", line),
        }
    )

    _, _, report = run(world, incident("pay-api", "payments fail"), names=NO_NETCHECK)

    assert report.top.id == f"{layers.CONNECT}:ledger-api.internal"
    assert report.top.status == "confirmed" and report.conclusive
    assert any("Connection refused" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.logged-paths")
def test_the_logs_alone_make_a_path_a_lead_not_a_conclusion():
    line = "DNS lookup for ledger-api.internal failed: NXDOMAIN"
    world = World(
        {
            ("service_health", "pay-api"): health(
                "pay-api"
            ),  # its metrics do not agree
            ("top_errors", "pay-api"): errors("pay-api", line),
        }
    )

    _, _, report = run(world, incident("pay-api", "payments fail"), names=NO_NETCHECK)

    top = report.top
    assert top.id == f"{layers.DNS}:ledger-api.internal"
    assert top.status == "likely" and not report.conclusive


def test_a_tls_error_is_blamed_on_tls_not_on_the_connection_it_mentions():
    line = "TLS handshake with ledger-api.internal:443 failed: connection reset: certificate has expired"
    world = World(
        {
            ("service_health", "pay-api"): health("pay-api", "unhealthy", FAILING),
            ("top_errors", "pay-api"): errors("pay-api", line),
        }
    )

    _, _, report = run(world, incident("pay-api", "payments fail"), names=NO_NETCHECK)

    # The lowest failing layer is the one named: connect is below TLS, and "connection reset"
    # is the TLS failure's consequence here, so the sentence names connect first. What matters
    # is that one hypothesis names the host and cites the line.
    assert report.top.component == "ledger-api.internal"
    assert report.top.layer in (layers.CONNECT, layers.TLS)


def test_a_relay_of_its_upstreams_503_is_not_blamed_for_it():
    world = World(
        {
            ("service_health", "web-bff"): health("web-bff", "unhealthy", FAILING),
            ("top_errors", "web-bff"): errors(
                "web-bff", "upstream orders-api answered 503 Service Unavailable"
            ),
            ("service_health", "orders-api"): health(
                "orders-api", "unhealthy", FAILING
            ),
            ("top_errors", "orders-api"): errors(
                "orders-api", "Out of memory: Killed process 1 (java)"
            ),
        }
    )

    _, _, report = run(
        world, incident("web-bff", "the site answers 503"), names=NO_NETCHECK
    )

    assert report.top.id == "application:orders-api" and report.conclusive
    assert not any(
        h.id == "application:web-bff" and h.status != "ruled_out"
        for h in report.hypotheses
    )
