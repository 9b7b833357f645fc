"""A slow service whose runtime chose differently at its last start (`runtime_choice`), with invented
names: its own info-level start-up line is the fault, not the caller that complains.
"""

import pytest

from reasoning.layered.runtime_choice import QUERY, choice
from tests.reasoning.test_planner import World, health, incident, targets
from tests.reasoning.test_warnings_and_changes import (
    SLOW,
    group,
    logged,
    run_with_schemas,
)

EARLIER = "2030-01-01 07:02:11 INFO  boot: scheduler using 8 workers (detected 8 cores)"
LATEST = "2030-01-01 10:04:51 INFO  boot: scheduler using 2 workers (detected 2 cores)"


def _world(*lines):
    return World(
        {
            ("list_targets", ""): targets(),
            ("service_health", "portal"): health("portal", "unhealthy", SLOW),
            ("top_errors", "portal"): logged(
                "portal",
                warnings=[group("quote lookup slow: tariffd took 9120 ms", count=80)],
            ),
            ("service_health", "tariffd"): health("tariffd", "degraded", SLOW),
            ("top_errors", "tariffd"): logged("tariffd"),
            ("search_logs", "tariffd"): {
                "lines": [
                    {"time": t, "level": "info", "message": m, "labels": {}}
                    for t, m in lines
                ]
            },
        }
    )


@pytest.mark.rule("board.runtime-choice")
def test_a_slow_service_whose_runtime_chose_fewer_workers_is_the_fault():
    world = _world(("2030-01-01T10:04:51Z", LATEST), ("2030-01-01T07:02:11Z", EARLIER))

    _, _, report = run_with_schemas(world, incident("tariffd", "quotes are slow"))

    assert any(
        a.get("query") == QUERY for t, a in world.arguments if t == "search_logs"
    )
    assert report.top.id == "application:tariffd"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "using 2 workers" in facts and "using 8 workers" in facts


@pytest.mark.rule("board.runtime-choice")
def test_the_same_choice_at_every_start_is_not_this_fault():
    world = _world(("2030-01-01T10:04:51Z", EARLIER), ("2030-01-01T07:02:11Z", EARLIER))

    _, _, report = run_with_schemas(world, incident("tariffd", "quotes are slow"))

    assert not any(
        h.id == "application:tariffd" and h.status == "confirmed"
        for h in report.hypotheses
    )


def test_choice_reads_what_was_chosen():
    assert choice("[0.004s][info][gc] Using Serial") == (
        ("info", "gc", "using"),
        "serial",
    )
    assert choice(LATEST) == (("info", "boot", "scheduler", "using"), "2")
    assert choice("GET /cart using session 41aa") is None
    assert choice("connected to db-1") is None


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "using " * 100_000,
        "gc " * 100_000 + "using x",
        "a" * 1_000_000,
    ):
        choice(hostile)
    assert len(QUERY) <= 500
