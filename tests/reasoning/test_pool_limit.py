"""A server that says it reached its own worker ceiling (`pool_limit`), with invented names: the pool's
owner is the fault, not the proxy in front that times out.
"""

import pytest

from reasoning.layered.pool_limit import limit_reached
from tests.reasoning.test_planner import World, health, incident, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

FRONT_ERROR = (
    "upstream timed out (110: Connection timed out) while reading response header from "
    "upstream, upstream: http://quarry-app:9000/render"
)
CEILING = (
    "[mpm_worker:warn] server reached MaxWorkers setting (12), consider raising it"
)


SETTING = "recipe[quarry::httpd] MaxWorkers changed from 64 to 12 (cookbook 4.0.0)"


def _world(*warnings, setting_lines=(SETTING,)):
    return World(
        {
            ("list_targets", ""): targets(),
            ("service_health", "tollgate"): health("tollgate", "unhealthy", FAILING),
            ("top_errors", "tollgate"): logged(
                "tollgate", errors=[group(FRONT_ERROR, count=300)]
            ),
            ("service_health", "quarry-app"): health("quarry-app", "healthy"),
            ("top_errors", "quarry-app"): logged(
                "quarry-app",
                warnings=[group(w, count=40) for w in (*warnings, *setting_lines)],
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "chef",
                        "time": "2030-01-01T10:01:00Z",
                        "level": "info",
                        "message": m,
                        "labels": {},
                    }
                    for m in setting_lines
                ]
            },
        }
    )


@pytest.mark.rule("board.pool-limit-reached")
def test_a_server_at_its_worker_ceiling_is_the_fault_not_the_proxy_in_front():
    world = _world(CEILING)

    _, _, report = run_with_schemas(world, incident("tollgate", "pages time out"))

    assert report.top.id == "application:quarry-app"
    assert report.top.status == "confirmed"
    # The ceiling line is decisive: above a host or a proxy that other rules find guilty (0.88).
    assert report.top.confidence >= 0.9
    assert any("MaxWorkers" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.pool-limit-reached")
def test_a_full_pool_whose_setting_no_line_names_is_not_decisive():
    # Slow storage or no room to scale out fills a pool too: then the ceiling is a symptom.
    world = _world(CEILING, setting_lines=())

    _, _, report = run_with_schemas(world, incident("tollgate", "pages time out"))

    assert all(
        h.confidence < 0.9
        for h in report.hypotheses
        if h.id == "application:quarry-app"
    )


@pytest.mark.rule("board.pool-limit-reached")
def test_a_rate_limit_warning_is_not_a_pool_ceiling():
    world = _world("client rate limit reached for tenant 88 (50 per second)")

    _, _, report = run_with_schemas(world, incident("tollgate", "pages time out"))

    # Its own warning still makes it a lead (other rules), but not a decisive ceiling.
    assert all(
        h.confidence < 0.9
        for h in report.hypotheses
        if h.id == "application:quarry-app"
    )


def test_limit_reached_reads_a_servers_ceiling():
    assert limit_reached(CEILING)
    assert limit_reached(
        "WARNING: [pool api] server reached pm.max_children setting (8), consider raising it"
    )
    assert limit_reached("maximum number of clients reached (max 2048)")
    assert limit_reached("2048 worker_connections are not enough")
    assert not limit_reached("request quota reached for account 7")
    assert not limit_reached("reached the end of the stream")


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "reached " * 60_000,
        "maximum " * 60_000 + "reached",
        "server reached" + "x" * 1_000_000,
    ):
        limit_reached(hostile)
