"""A cache whose hit ratio collapsed (`cache_hits`), with invented names: the cache's own rules are the
fault, not the origin that now renders every page nor the CDN in front.
"""

import pytest

from reasoning.layered import backend_gauges
from reasoning.layered.cache_hits import QUERY
from tests.reasoning.test_paths_limits_backlogs import _series, _step
from tests.reasoning.test_planner import World, health, incident, targets
from tests.reasoning.test_warnings_and_changes import (
    SLOW,
    group,
    logged,
    run_with_schemas,
)

RULE_LINE = "Mar 3 10:12:40 edge-2 keeper[77]: rules v41 loaded: cache key += header X-Locale; vary on Cookie"


def _world(ratio, origin_errors=()):
    return World(
        {
            ("list_targets", ""): targets(),
            ("query_metric", backend_gauges.QUERY): {
                "series": [_series("keeper_hit_ratio", {"host": "edge-2"}, ratio)]
            },
            ("service_health", "bookshelf"): health("bookshelf", "unhealthy", SLOW),
            ("top_errors", "bookshelf"): logged(
                "bookshelf",
                errors=list(origin_errors),
                warnings=[group("render queue full, 88 waiting", count=60)],
            ),
            ("service_health", "keeper"): health("keeper", "degraded", SLOW),
            ("top_errors", "keeper"): logged("keeper"),
            ("search_logs", "keeper"): {
                "lines": [
                    {
                        "time": "2030-01-01T10:12:40Z",
                        "level": "info",
                        "message": RULE_LINE,
                        "labels": {},
                    }
                ]
            },
        }
    )


@pytest.mark.rule("board.cache-hits-collapsed")
def test_a_cache_whose_hit_ratio_collapsed_is_the_fault_not_the_origin():
    world = _world(_step(0.88, 0.04))

    _, _, report = run_with_schemas(world, incident("keeper", "pages are slow"))

    assert any(
        a.get("query") == QUERY for t, a in world.arguments if t == "search_logs"
    )
    assert report.top.id == "application:keeper"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "vary on Cookie" in facts and "keeper_hit_ratio" in facts


_SWAMPED = "OperationalError: FATAL: sorry, too many clients already (shelf-db)"


@pytest.mark.rule("board.cache-hits-collapsed")
def test_the_origin_out_of_connections_since_the_collapse_is_cited_by_the_cache():
    world = _world(_step(0.88, 0.04), origin_errors=[group(_SWAMPED, count=90)])

    _, _, report = run_with_schemas(world, incident("bookshelf", "pages are slow"))

    assert "hit ratio collapsed" in report.top.statement
    assert any("too many clients" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.cache-hits-collapsed")
def test_an_origin_out_of_connections_before_the_window_is_not_cited():
    old = group(_SWAMPED, count=90, before=40)
    world = _world(_step(0.88, 0.04), origin_errors=[old])

    _, _, report = run_with_schemas(world, incident("bookshelf", "pages are slow"))

    assert "hit ratio collapsed" in report.top.statement
    assert not any("too many clients" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.cache-hits-collapsed")
def test_a_steady_hit_ratio_is_not_this_fault():
    world = _world(_step(0.88, 0.85))

    _, _, report = run_with_schemas(world, incident("keeper", "pages are slow"))

    assert not any("hit ratio collapsed" in h.statement for h in report.hypotheses)


@pytest.mark.timeout(60)
def test_hostile_series_and_lines_are_read_quickly():
    world = _world([0.9] * 5_000 + [0.01] * 5_000)
    world.answers[("search_logs", "keeper")]["lines"][0]["message"] = "vary " * 2_000
    run_with_schemas(world, incident("keeper", "pages are slow"))
    assert len(QUERY) <= 500
