"""Issue 21: DNS that is slow, not failing. Lookups that end in an answer after seconds spend a
call's time budget; a name asked with a search domain appended first shows why (ndots, search list)."""

import pytest

from reasoning import layers
from tests.reasoning.test_planner import World, errors, health, incident, run

NO_NETCHECK = ("service_health", "top_errors", "search_runbooks", "query_metric")
FAILING = [("error_ratio", "critical", "error ratio 9% since 08:10")]
SLOW = (
    "POST https://rates.fxvendor.example/v1/quote failed: timeout after 3000ms "
    "(dns 2980ms, connect 0ms)"
)


@pytest.mark.rule("board.slow-lookups")
def test_slow_lookups_and_the_name_asked_with_a_search_domain_blame_that_expansion():
    expanded = (
        "getaddrinfo rates.fxvendor.example.cluster.corp.lan: no answer before 2.9s"
    )
    world = World(
        {
            ("service_health", "quote-worker"): health(
                "quote-worker", "unhealthy", FAILING
            ),
            ("top_errors", "quote-worker"): errors("quote-worker", SLOW, expanded),
        }
    )

    _, _, report = run(
        world, incident("quote-worker", "quotes time out"), names=NO_NETCHECK
    )

    assert report.top.id == f"{layers.DNS}:rates.fxvendor.example.cluster.corp.lan"
    assert "search domain cluster.corp.lan" in report.top.statement
    assert report.top.status == "confirmed" and report.conclusive


@pytest.mark.rule("board.slow-lookups")
def test_slow_lookups_alone_are_a_lead_about_the_host():
    world = World(
        {
            ("service_health", "quote-worker"): health("quote-worker"),
            ("top_errors", "quote-worker"): errors("quote-worker", SLOW),
        }
    )

    _, _, report = run(
        world, incident("quote-worker", "quotes time out"), names=NO_NETCHECK
    )

    candidate = next(
        h for h in report.hypotheses if h.id == f"{layers.DNS}:rates.fxvendor.example"
    )
    assert "succeed slowly (up to 2980 ms)" in candidate.statement
    assert candidate.status == "likely"


def test_fast_lookups_are_not_a_dns_hypothesis():
    fast = SLOW.replace("dns 2980ms", "dns 12ms")
    world = World(
        {
            ("service_health", "quote-worker"): health(
                "quote-worker", "unhealthy", FAILING
            ),
            ("top_errors", "quote-worker"): errors("quote-worker", fast),
        }
    )

    _, _, report = run(
        world, incident("quote-worker", "quotes time out"), names=NO_NETCHECK
    )

    assert not any(h.layer == layers.DNS for h in report.hypotheses)
