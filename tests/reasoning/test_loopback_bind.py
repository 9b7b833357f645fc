"""A server refusing connections because it listens on loopback only (`loopback_bind`), with invented names:
the host's own start line says where it listens, under the short name the machine logs by.
"""

import pytest

from reasoning.layered.loopback_bind import loopback_only, machine_name
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

QUEUE = "http://mq-07.rack2.otterhaus.example:15672/api/overview"
CALLER = (
    "publish failed: dial tcp 10.8.3.7:5672: connect: connection refused "
    "(mq-07.rack2.otterhaus.example)"
)


def _world(*entries):
    return World(
        {
            ("service_health", "orders"): health("orders", "unhealthy", FAILING),
            ("top_errors", "orders"): logged(
                "orders", errors=[group(CALLER, count=120)]
            ),
            ("list_targets", ""): targets(QUEUE),
            ("probe_url", QUEUE): probe(
                QUEUE, "connect", "refused", ["connection refused (RST)"]
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": s,
                        "time": "2030-01-01T10:05:00Z",
                        "level": "info",
                        "message": m,
                        "labels": labels,
                    }
                    for s, m, labels in entries
                ]
            },
        }
    )


@pytest.mark.rule("board.loopback-bind")
def test_a_broker_that_came_up_on_loopback_only_is_the_connect_fault_under_its_short_name():
    world = _world(
        (
            "rabbitmq",
            "started TCP listener on 127.0.0.1:5672",
            {"host": "mq-07"},
        ),
    )

    _, _, report = run_with_schemas(world, incident("orders", "orders fail"))

    searched = [a["query"] for t, a in world.arguments if t == "search_logs"]
    assert "mq-07" in searched
    assert report.top.id == "connect:mq-07"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "started TCP listener on 127.0.0.1:5672" in facts
    assert "reason=refused" in facts


@pytest.mark.rule("board.loopback-bind")
def test_a_database_listening_on_localhost_named_in_its_text_is_found_without_labels():
    world = _world(
        (
            "postgres",
            'mq-07 postgres[811]: LOG:  listening on IPv4 address "127.0.0.1", port 5432',
            {},
        ),
    )

    _, _, report = run_with_schemas(world, incident("orders", "orders fail"))

    assert report.top.id == "connect:mq-07"


def test_a_server_listening_on_every_address_or_another_host_is_not_this_fault():
    for entries in (
        (("rabbitmq", "started TCP listener on [::]:5672", {"host": "mq-07"}),),
        (("rabbitmq", "started TCP listener on 0.0.0.0:5672", {"host": "mq-07"}),),
        (
            (
                "redis",
                "bind 127.0.0.1: Ready to accept connections",
                {"host": "cache-2"},
            ),
        ),
    ):
        _, _, report = run_with_schemas(
            _world(*entries), incident("orders", "orders fail")
        )
        assert all(h.id != "connect:mq-07" for h in report.hypotheses)


def test_loopback_only_lines_and_machine_names():
    assert loopback_only(
        "publish_address {127.0.0.1:9200}, bound_addresses {[::1]:9200}"
    )
    assert loopback_only("Uvicorn running on http://localhost:8000")
    assert not loopback_only("listening on 127.0.0.1:8080 and 10.2.0.4:8080")
    assert not loopback_only("connected to 127.0.0.1:6379")
    assert machine_name("db-03.dc.corp.example") == "db-03"
    assert machine_name("corp.example") is None
    assert machine_name("10.2.0.4") is None


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "listening on " + "127.0.0." * 100_000,
        "bound " + ":" * 200_000,
        "running on " + "localhost " * 50_000,
    ):
        loopback_only(hostile)
    machine_name("a." * 100_000)
