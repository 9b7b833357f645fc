"""Quiet causes on a shared back end's host or pooler (`quiet_backend`, `shared_backend`), with
invented names and wordings.

Work that began on a database's host (an antivirus scan, a backup) is written in a line labelled
with the host, not naming it: the host whose gauges stepped up is the cause once such a line is
found. A connection pooler closing the clients that waited in its queue holds every client alike:
it is the fault when nobody new is in view.
"""

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import LayeredPlanner, backend_gauges
from reasoning.layered.quiet_backend import WORK_SEARCH, WORK_STARTED, state_lines
from reasoning.layered.shared_backend import BLOCKED, QUEUED
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_unread_services import EVERY, _every, _tools, _with
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
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


def _step(before, after, at=72):
    return [before if i < at else after for i in range(121)]


class _ByQuery(World):
    """Answers every service's search_logs by its query (`lines` for `query`, else nothing)."""

    def __init__(self, answers, searched):
        super().__init__(answers)
        self.searched = searched

    def answer(self, call, span_id):
        if call.tool == "search_logs" and not call.arguments.get("service"):
            query = call.arguments.get("query")
            self.answers[("search_logs", "")] = {"lines": self.searched.get(query, [])}
        return super().answer(call, span_id)


# --- work that began on a database's host ----------------------------------------------------------

TIMEOUT = (
    "OrderStore.Save failed: SqlException: Execution Timeout Expired. "
    "The wait operation timed out."
)
BACKUP = "VSS full backup job 'nightly-data' started (volumes D:, E:)"


def _host_world(*, at="2030-01-01T10:10:00Z", host="dbw-12", gauge=None):
    return _ByQuery(
        {
            ("query_metric", backend_gauges.QUERY): {
                "series": [
                    _series(
                        "node_disk_read_time_seconds_avg",
                        {"host": "dbw-12", "device": "sdb"},
                        gauge or _step(0.003, 0.7),
                    )
                ]
            },
            ("service_health", "orders-api"): health(
                "orders-api", "unhealthy", FAILING
            ),
            ("top_errors", "orders-api"): logged(
                "orders-api", errors=[group(TIMEOUT, count=300)]
            ),
        },
        {
            WORK_SEARCH: [
                {
                    "service": "backup-agent",
                    "time": at,
                    "level": "info",
                    "message": BACKUP,
                    "labels": {"host": host},
                }
            ]
        },
    )


@pytest.mark.rule("board.quiet-backend")
def test_work_begun_on_the_stepped_host_by_its_label_blames_the_host():
    world = _host_world()
    _, _, report = run_with_schemas(
        world, incident("orders-api", "orders time out"), names=NAMES
    )

    top = report.top
    assert top.id == "application:dbw-12" and report.conclusive
    assert any(BACKUP in e.fact for e in top.evidence)
    assert any(
        tool == "search_logs" and args.get("query") == WORK_SEARCH
        for tool, args in world.arguments
    )
    caller = next(h for h in report.hypotheses if h.id == "application:orders-api")
    assert caller.status == "likely" and caller.confidence <= 0.4


@pytest.mark.rule("board.quiet-backend")
def test_work_on_another_host_long_before_or_no_step_blames_no_host():
    for world in (
        _host_world(host="build-3"),
        _host_world(at="2030-01-01T08:30:00Z"),
        _host_world(gauge=_step(0.003, 0.003)),
    ):
        _, _, report = run_with_schemas(
            world, incident("orders-api", "orders time out"), names=NAMES
        )
        assert not any(
            h.id == "application:dbw-12" and h.status == "confirmed"
            for h in report.hypotheses
        )


def test_work_started_words():
    assert WORK_STARTED.search("Antivirus scan has started. Scan Type: full")
    assert WORK_STARTED.search("starting full backup of /var/lib/mysql")
    assert WORK_STARTED.search("defragmentation began on volume E:")
    assert WORK_STARTED.search("Integrity check job started for db 'stock'")
    assert not WORK_STARTED.search("job 4411 finished in 3.2 s")
    assert not WORK_STARTED.search("scanner 12 connected")


@pytest.mark.rule("board.quiet-backend")
@pytest.mark.timeout(60)
def test_huge_host_lines_are_read_in_bounded_time():
    huge = "scan " * 40000 + "x" * 200000 + " started"
    assert not WORK_STARTED.search(huge)
    inv = Investigation(incident=incident("orders-api"), tools=[])
    inv.observations.append(
        Observation(
            span_id="s1",
            agent="logs",
            server="logs",
            tool="search_logs",
            arguments={"query": WORK_SEARCH, "regex": True},
            is_ok=True,
            result={
                "lines": [
                    {
                        "service": "av",
                        "time": "2030-01-01T10:10:00Z",
                        "level": "info",
                        "message": huge,
                        "labels": {
                            "host": "dbw-12",
                            **{f"k{i}": "v" for i in range(500)},
                        },
                    }
                ]
            },
        )
    )
    assert state_lines(inv, "dbw-12") == []


# --- a pooler closing the clients its queue held too long ---------------------------------------

DROPPED = (
    "LOG C-0x7f31: ledger/ledger_rw@10.4.2.8:40122 closing because: query_wait_timeout "
    "(age=90s)"
)
CALLER = "ERROR: query_wait_timeout (SQLSTATE 08P01) while saving posting"


def _pooler_world(*, before=0):
    return World(
        {
            ("service_health", "postings"): health("postings", "unhealthy", FAILING),
            ("top_errors", "postings"): logged(
                "postings",
                errors=[group(CALLER, count=200, first_seen="2030-01-01T10:16:00Z")],
            ),
            ("top_errors", ""): _every(
                _with("postings", CALLER, count=200),
                warnings=[_with("pooler-main", DROPPED, count=40, before=before)],
            ),
            ("search_logs", ""): {"lines": []},
        }
    )


def _run(world):
    planner = LayeredPlanner()
    inv = Investigation(
        incident=incident("postings", "postings fail"), tools=_tools(EVERY)
    )
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return asyncio.run(planner.conclude(inv))


@pytest.mark.rule("board.shared-backend")
def test_a_pooler_closing_queued_clients_is_the_fault_when_nobody_new_is_in_view():
    report = _run(_pooler_world())

    top = report.top
    assert top.id == "application:pooler-main" and report.conclusive
    assert any("query_wait_timeout (age=90s)" in e.fact for e in top.evidence)
    caller = next(h for h in report.hypotheses if h.id == "application:postings")
    assert caller.status == "likely" and caller.confidence <= 0.4


@pytest.mark.rule("board.shared-backend")
def test_a_pooler_line_logged_before_the_window_too_blames_no_pooler():
    report = _run(_pooler_world(before=30))
    assert not any(
        h.id == "application:pooler-main" and h.status == "confirmed"
        for h in report.hypotheses
    )


def test_pooler_queue_words_and_not_a_callers_quote():
    assert QUEUED.search(DROPPED)
    assert QUEUED.search(
        "Max connect timeout reached while reaching hostgroup 10 after 10000ms"
    )
    assert QUEUED.search("client timed out waiting for a server connection")
    assert not BLOCKED.search(CALLER)


@pytest.mark.rule("board.shared-backend")
@pytest.mark.timeout(60)
def test_huge_pooler_lines_stay_fast():
    assert not QUEUED.search("closing because " * 30000 + "x" * 200000)
    assert not QUEUED.search("timed out waiting " * 30000)
