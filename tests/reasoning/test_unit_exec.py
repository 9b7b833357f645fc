"""A process manager that cannot find a unit's command (`unit_exec`), with invented names: the unit's
service is the fault, not the host that refuses connections or the front that answers 503.
"""

import pytest

from reasoning.layered.unit_exec import missing_executable, unit_of
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import run_with_schemas

FRONT = "https://books.tallow-mutual.example"
HOST = "https://fin-07.dc.tallow-mutual.example:8443"
MISSING = (
    "Mar 03 10:02:11 fin-07 systemd[1]: ledgerd.service: Failed to locate executable "
    "/usr/lib/jvm/zulu-11/bin/java: No such file or directory"
)
EXITED = (
    "Mar 03 10:02:11 fin-07 systemd[1]: ledgerd.service: Main process exited, "
    "code=exited, status=203/EXEC"
)


def _world(*messages):
    return World(
        {
            ("service_health", "bookkeeping"): health("bookkeeping", "unknown"),
            ("list_targets", ""): targets(FRONT, HOST),
            ("probe_url", FRONT): probe(
                FRONT, "http", "http_503", ["HTTP 503 Service Unavailable"], status=503
            ),
            ("probe_url", HOST): probe(
                HOST, "connect", "refused", ["connection refused (RST)"]
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "systemd",
                        "time": "2030-01-01T10:05:00Z",
                        "level": "error",
                        "message": m,
                        "labels": {"host": "fin-07"},
                    }
                    for m in messages
                ]
            },
        }
    )


@pytest.mark.rule("board.unit-executable-missing")
def test_a_unit_whose_runtime_was_removed_is_the_fault_not_its_host():
    world = _world(EXITED, MISSING)

    _, _, report = run_with_schemas(world, incident("bookkeeping", "books fail"))

    assert report.top.id == "application:ledgerd"
    assert report.top.status == "confirmed"
    assert "/usr/lib/jvm/zulu-11/bin/java" in report.top.evidence[0].fact
    host = next(h for h in report.hypotheses if h.layer == "connect")
    assert host.confidence <= 0.4


@pytest.mark.rule("board.unit-executable-missing")
def test_a_unit_that_starts_is_not_this_fault():
    world = _world(
        "Mar 03 10:02:11 fin-07 systemd[1]: ledgerd.service: Started Ledger daemon.",
        "Mar 03 10:02:12 fin-07 systemd[1]: ledgerd.service: Consumed 2.1s CPU time.",
    )

    _, _, report = run_with_schemas(world, incident("bookkeeping", "books fail"))

    assert not any(
        h.id == "application:ledgerd" and h.status == "confirmed"
        for h in report.hypotheses
    )


def test_missing_executable_lines_and_their_units():
    assert missing_executable(MISSING) and unit_of(MISSING) == "ledgerd"
    assert missing_executable(EXITED)
    supervised = (
        "2030-03-03 10:02:11,118 INFO spawnerr: can't find command "
        "'/srv/venvs/py38/bin/gunicorn' for program:quillpad"
    )
    assert missing_executable(supervised) and unit_of(supervised) == "quillpad"
    templated = "worker@3.service: Failed at step EXEC spawning /opt/x/run: No such file or directory"
    assert unit_of(templated) == "worker"
    assert not missing_executable("ledgerd.service: Started Ledger daemon.")
    assert not missing_executable("GET /books/42 404 not found")
    assert unit_of("connection refused by 10.2.0.4:8443") is None


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "a." * 200_000 + "service",
        "executable " * 50_000,
        "-" * 300_000 + ".service: Failed to locate executable",
        "Mar 03 10:02 " + "h" * 200_000,
    ):
        missing_executable(hostile)
        unit_of(hostile)
