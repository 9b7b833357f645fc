"""Issue 21 classes 1 and 4: a shared database's locks held by another workload's batch or
maintenance job; the holder the database's lock-wait lines name is blamed, the callers whose
statements time out and the database are its victims (reasoning/layered/lock_holders.py).

Names are invented; the servers' shapes (top_errors with warnings and a baseline, search_logs over
every service and over one) are their own.
"""

import pytest

from reasoning.layered import lock_holders
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

TOOLS = ("service_health", "top_errors", "search_logs", "search_runbooks")
CALLER = "POST /v2/invoices 500: ERROR: canceling statement due to lock timeout"
WAIT = (
    "user=billing app=invoice-api LOG:  process {pid} still waiting for RowExclusiveLock on "
    "relation 20561 after 1000.3 ms; blocking process: 9120 (application_name=archive-sweeper)"
)


def _lines(*entries):
    """search_logs lines: (service, time, message)."""
    return {
        "lines": [
            {"service": s, "time": t, "level": "info", "message": m, "labels": {}}
            for s, t, m in entries
        ]
    }


def _world(db_lines, holder_lines=None, caller=CALLER, before=0):
    answers = {
        ("service_health", "invoice-api"): health("invoice-api", "unhealthy", FAILING),
        ("top_errors", "invoice-api"): logged(
            "invoice-api", errors=[group(caller, count=400, before=before)]
        ),
        ("search_logs", ""): _lines(*db_lines),
    }
    if holder_lines is not None:
        answers[("search_logs", "archive-sweeper")] = _lines(*holder_lines)
    return World(answers)


WAITS = [
    ("ledger-pg", f"2030-01-01T10:{m:02d}:00Z", WAIT.format(pid=4400 + m))
    for m in (30, 20, 16)
]
RUN = [
    (
        "archive-sweeper",
        "2030-01-01T10:13:40Z",
        "sweep started: moving 800k invoices to cold storage",
    ),
    ("archive-sweeper", "2030-01-01T09:26:10Z", "sweep finished in 14m02s"),
    ("archive-sweeper", "2030-01-01T09:12:00Z", "sweep started: moving 780k invoices"),
]


@pytest.mark.rule("board.lock-holders")
def test_the_holder_a_databases_lock_waits_name_is_the_cause_and_the_waiting_caller_its_victim():
    world = _world(WAITS, RUN)

    _, _, report = run_with_schemas(
        world, incident("invoice-api", "invoices time out"), names=TOOLS
    )

    top = report.top
    assert top.id == "application:archive-sweeper" and report.conclusive
    assert top.confidence == pytest.approx(0.9)
    assert "ledger-pg" in top.statement and "sweep started" in top.statement
    facts = [e.fact for e in top.evidence]
    assert any("blocking process: 9120" in f for f in facts)
    assert any("sweep started: moving 800k" in f for f in facts)
    assert any("canceling statement due to lock timeout" in f for f in facts)
    assert "Stop the run of archive-sweeper" in (top.remediation or "")
    caller = next(h for h in report.hypotheses if h.id == "application:invoice-api")
    assert caller.status == "likely" and caller.confidence <= 0.4
    assert "a victim of application:archive-sweeper" in caller.statement
    # What the planner asked: every service's lock waits, then the holder's own runs.
    queries = [(a.get("service", ""), a.get("query")) for _, a in world.arguments]
    assert ("", lock_holders.SEARCH) in queries
    assert ("archive-sweeper", lock_holders.JOB_SEARCH) in queries
    assert "waves" not in top.statement  # the callers did not fail before the window
    # The graph: the waiting client calls the database, held by the holder, the root of both.
    edges = {(e["caller"], e["callee"], e["kind"]) for e in report.graph["edges"]}
    assert ("invoice-api", "ledger-pg", "calls") in edges
    assert ("ledger-pg", "archive-sweeper", "held_by") in edges
    blame = report.graph["blame"][0]
    assert blame["node"] == "archive-sweeper" and "invoice-api" in blame["explains"]


@pytest.mark.rule("board.lock-holders")
def test_callers_failing_before_the_window_too_match_the_holders_earlier_run():
    _, _, report = run_with_schemas(
        _world(WAITS, RUN, before=120),
        incident("invoice-api", "invoices time out now and then"),
        names=TOOLS,
    )

    top = report.top
    assert top.id == "application:archive-sweeper" and report.conclusive
    assert "they come in waves with its runs" in top.statement
    assert any("sweep finished in 14m02s" in e.fact for e in top.evidence)


@pytest.mark.rule("board.lock-holders")
def test_a_holder_named_only_by_its_pid_is_found_in_the_sessions_own_line_and_a_run_long_before_counts_less():
    # MySQL-like: the waiter's line names the blocking thread; the holder's session line has its app.
    waits = [
        (
            "catalog-mysql",
            "2030-01-01T10:20:00Z",
            "InnoDB: trx 88123 lock wait on table `items` blocked by thread 5521",
        ),
        (
            "catalog-mysql",
            "2030-01-01T10:19:00Z",
            "[5521] app=archive-sweeper query is holding lock on `items` for 1200 s",
        ),
    ]
    long_before = [("archive-sweeper", "2030-01-01T08:10:00Z", "sweep started")]

    _, _, report = run_with_schemas(
        _world(
            waits,
            long_before,
            caller="PUT /stock/77 500: Lock wait timeout exceeded; try restarting transaction",
        ),
        incident("invoice-api", "stock updates fail"),
        names=TOOLS,
    )

    top = report.top
    assert top.id == "application:archive-sweeper" and report.conclusive
    assert top.confidence == pytest.approx(0.86)  # its run did not start just before
    assert "catalog-mysql" in top.statement


@pytest.mark.rule("board.lock-holders")
def test_a_deadlock_a_wait_naming_no_holder_or_a_line_without_a_lock_blames_no_one_else():
    deadlock = [
        (
            "ledger-pg",
            "2030-01-01T10:20:00Z",
            "ERROR:  deadlock detected DETAIL: Process 41 waits for ShareLock on transaction 7; "
            "blocked by process 42 (application_name=archive-sweeper)",
        ),
        (
            "ledger-pg",
            "2030-01-01T10:21:00Z",
            "LOG:  process 43 still waiting for ShareLock on transaction 9 after 1000.1 ms",
        ),
        # "blocked" is no lock: a firewall's words are not a database's lock wait.
        (
            "edge-waf",
            "2030-01-01T10:22:00Z",
            "request blocked by rule 9 (holder of the session: app=archive-sweeper)",
        ),
    ]

    _, _, report = run_with_schemas(
        _world(deadlock, RUN), incident("invoice-api", "invoices fail"), names=TOOLS
    )

    assert not any(h.id == "application:archive-sweeper" for h in report.hypotheses)
    assert report.top.id == "application:invoice-api"


@pytest.mark.rule("board.lock-holders")
def test_no_search_for_lock_waits_unless_a_caller_times_out_waiting_on_its_database():
    world = _world(WAITS, RUN, caller="POST /v2/invoices 500: upstream connect error")

    _, _, report = run_with_schemas(
        world, incident("invoice-api", "invoices fail"), names=TOOLS
    )

    assert not any(a.get("query") == lock_holders.SEARCH for _, a in world.arguments)
    assert report.top.id == "application:invoice-api"


@pytest.mark.rule("board.lock-holders")
def test_the_holder_is_read_after_its_mark_not_from_the_waiters_own_prefix():
    known = {"invoice-api", "archive-sweeper", "ledger-pg"}
    line = "app=invoice-api LOG: process 1 still waiting; blocking process: 9 (user=archive_sweeper)"
    assert lock_holders.holder_of(line, "ledger-pg", known) == ("archive-sweeper", "9")
    assert lock_holders.holder_of(
        "lock wait on orders held by archive-sweeper's export", "ledger-pg", known
    ) == ("archive-sweeper", None)
    assert lock_holders.holder_of("app=invoice-api waiting", "ledger-pg", known) == (
        None,
        None,
    )
    # MySQL's sys.innodb_lock_waits, SQL Server's blocked process report, a pod's name.
    mysql = "innodb_lock_waits: waiting_pid=31 blocking_pid=77 blocking_account=archive_sweeper@10.1.2.3"
    assert lock_holders.holder_of(mysql, "ledger-pg", known) == (
        "archive-sweeper",
        "77",
    )
    report = '<blocked-process-report><blocking-process><process spid="55" clientapp="archive-sweeper"'
    assert lock_holders.holder_of(report, "ledger-pg", known)[0] == "archive-sweeper"
    pod = "lock wait: blocked by pid 12 (pod=archive-sweeper-29041-x7k2p)"
    assert lock_holders.holder_of(pod, "ledger-pg", known) == ("archive-sweeper", "12")
