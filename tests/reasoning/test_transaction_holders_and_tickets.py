"""Issue 21 classes 3 and 4, as the thirteenth held-out set showed them missed: a row lock held by
a transaction (not a session) that only a monitor's line describes, a shared back end out of
concurrency tickets whose own info-level lines name the client, and an application's own
"lookup" read as DNS (reasoning/layered/lock_holders.py, shared_backend.py, reading.py).

Names, numbers and wordings are invented; the servers' shapes are their own.
"""

import pytest

from reasoning import layers
from reasoning.layered import lock_holders, shared_backend
from reasoning.layered.facts import Facts
from reasoning.layered.reading import error_classes
from reasoning.observations import Investigation
from tests.reasoning.test_lock_holders import TOOLS, _lines
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_shared_backend import _analysis, _errors, _obs, _top
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

# --- a transaction holding rows, described by a monitor only ----------------------------------

CALLER = (
    "refund batch 77: ERROR: canceling statement due to lock timeout (UPDATE wallets …)"
)
XID_WAIT = "LOG:  process {pid} still waiting for ExclusiveLock on transaction 55012877 after 1000.2 ms"
WATCHDOG = (
    "session audit: xid 55012877 state 'idle in transaction' since 03:10, 6h12m old, "
    "role reconciler_job, database wallet"
)


def _xid_world(describing=True):
    lines = [
        ("wallet-db", f"2030-01-01T10:{m:02d}:00Z", XID_WAIT.format(pid=3100 + m))
        for m in (31, 24, 18)
    ]
    if describing:
        lines.append(("db-watchdog", "2030-01-01T10:05:00Z", WATCHDOG))
    return World(
        {
            ("service_health", "refund-worker"): health(
                "refund-worker", "unhealthy", FAILING
            ),
            ("top_errors", "refund-worker"): logged(
                "refund-worker", errors=[group(CALLER, count=250)]
            ),
            ("search_logs", ""): _lines(*lines),
        }
    )


@pytest.mark.rule("board.lock-holders")
def test_lock_waits_naming_a_transaction_blame_it_with_the_line_that_describes_it():
    world = _xid_world()

    _, _, report = run_with_schemas(
        world, incident("refund-worker", "refunds stuck"), names=TOOLS
    )

    top = report.top
    assert top.id == "application:transaction 55012877" and report.conclusive
    assert "wallet-db" in top.statement and "idle in transaction" in top.statement
    facts = [e.fact for e in top.evidence]
    assert any("db-watchdog" in f and "55012877" in f for f in facts)
    assert any("still waiting for ExclusiveLock" in f for f in facts)
    caller = next(h for h in report.hypotheses if h.id == "application:refund-worker")
    assert "a victim of application:transaction 55012877" in caller.statement
    queries = [a.get("query") for _, a in world.arguments]
    assert lock_holders.xid_query("55012877") in queries
    # A culprit that is no service has no lines of its own to read.
    assert all(a.get("service") != "transaction 55012877" for _, a in world.arguments)


@pytest.mark.rule("board.lock-holders")
def test_a_transaction_no_other_line_describes_is_no_hypothesis():
    _, _, report = run_with_schemas(
        _xid_world(describing=False),
        incident("refund-worker", "refunds stuck"),
        names=TOOLS,
    )

    assert all("transaction 55012877" not in h.id for h in report.hypotheses)


def test_the_transaction_search_is_re2_shaped_and_finds_the_monitors_wording():
    import re

    query = lock_holders.xid_query("55012877")
    assert re.search(query, WATCHDOG)
    assert re.search(query, "prepared txid=55012877 gid 'x1'")
    assert not re.search(query, "order 550128771 shipped")


# --- a document store out of read tickets, its slow-command line naming the client -----------

TICKETS = "engine status node-a (PRIMARY): read tickets out 64 available 0, queued readers 3100"
SLOW = (
    '{"c":"COMMAND","msg":"slow command","attr":{"ns":"crm.accounts",'
    '"appName":"churn-scorer","planSummary":"COLLSCAN","docsExamined":9120033}}'
)
VICTIM = "GET /v2/profile 500: DocStoreError: operation exceeded time limit (MaxTimeMSExpired)"


def _docstore(with_search=True):
    observations = [
        _errors(
            "s1",
            "profile-svc",
            errors=[group(VICTIM, count=300, first_seen="2030-01-01T10:41:00Z")],
        ),
        _errors(
            "s2",
            "docstore-main",
            warnings=[group(TICKETS, count=9, first_seen="2030-01-01T10:40:00Z")],
        ),
    ]
    if with_search:
        observations.append(
            _obs(
                "s3",
                "search_logs",
                {
                    "service": "docstore-main",
                    "query": shared_backend.CLIENT_SEARCH,
                    "regex": True,
                },
                _lines(("docstore-main", "2030-01-01T10:38:30Z", SLOW)),
            )
        )
    return observations


@pytest.mark.rule("board.shared-backend")
def test_a_back_end_out_of_tickets_blames_the_client_its_own_slow_command_line_names():
    analysis = _analysis("profile-svc", _docstore())

    top = _top(analysis)
    assert top.id == "application:churn-scorer" and top.status == "confirmed"
    assert "docstore-main" in top.statement
    assert any("COLLSCAN" in e.fact for e in top.evidence)


@pytest.mark.rule("board.shared-backend")
def test_the_back_ends_own_lines_are_searched_for_a_client_when_its_warnings_name_none():
    observations = _docstore(with_search=False)
    inv = Investigation(incident=incident("profile-svc", "it hangs"), tools=[])
    inv.observations.extend(observations)
    search = shared_backend.client_search(
        inv, Facts.read(inv.observations), "2030-01-01T11:00:00Z"
    )

    assert search is not None and search["service"] == "docstore-main"
    assert search["query"] == shared_backend.CLIENT_SEARCH
    assert search["start"] < "2030-01-01T10:40:00" and search["end"].startswith(
        "2030-01-01T11"
    )
    inv.observations.extend(_docstore()[2:])
    assert shared_backend.client_search(inv, Facts.read(inv.observations), "x") is None


@pytest.mark.parametrize(
    "line",
    [
        "gate: permits available: 0 of 32, 210 waiting",
        "scheduler: 0 of 16 slots free, jobs queued",
        "storage engine: write tickets out 128 available 0",
    ],
)
def test_concurrency_tokens_all_taken_read_as_capacity_used_up(line):
    assert shared_backend.BLOCKED.search(line)


@pytest.mark.parametrize(
    "line", ["read tickets out 12 available 0.5", "slots available 10", "0 errors"]
)
def test_tokens_left_are_not_capacity_used_up(line):
    assert not shared_backend.CONSUMED.search(line)


# --- an application's "lookup" is not DNS -----------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "login failed for token lookup: DocStoreError: operation exceeded time limit on auth.tokens",
        "price lookup failed: upstream answered 500",
        "user lookup by email took 900ms",
    ],
)
def test_an_applications_own_lookup_is_no_dns_failure(line):
    assert layers.DNS not in error_classes(line)


@pytest.mark.parametrize(
    "line",
    [
        "dial tcp: lookup vault.corp.example on 10.0.0.2:53: i/o timeout",
        "read failed: lookup billing-db.internal: i/o timeout",
        "DNS lookup for ledger.svc failed",
    ],
)
def test_a_resolvers_lookup_of_a_host_is_dns(line):
    assert layers.DNS in error_classes(line)


@pytest.mark.timeout(60)
def test_the_new_readers_stay_linear_on_hostile_lines():
    hostile = "tickets " + "x" * 200_000 + " lookup " + "a." * 50_000
    assert not shared_backend.CONSUMED.search(hostile)
    error_classes(hostile)
    assert not lock_holders._XID.search("on transaction " + "9" * 200_000 + "x")
