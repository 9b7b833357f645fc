"""Issue 21: a host fact another service logs explains the service failing on it (a noexec mount, an
unsynchronised clock, CPU steal, a unit without its LimitNOFILE, a NAT gateway out of ports); a
cache at its connection ceiling before the database behind it is the cause, not the database
(reasoning/layered/host_facts.py, cache_ceiling.py).

Names and wordings are invented; the servers' shapes (top_errors with a baseline, search_logs lines
of every service with labels and times) are their own.
"""

import pytest

from reasoning import layers
from reasoning.layered import cache_ceiling, host_facts
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation


def _brief(service="ledger-sync"):
    return IncidentBrief(
        title="synthetic incident",
        service=service,
        severity="sev2",
        symptoms=(),
        window_start="2030-01-01T10:00:00Z",
        window_end="2030-01-01T11:00:00Z",
    )


def _errors(service, *samples, level="top", first_seen="2030-01-01T10:20:00Z"):
    key = "warnings" if level == "warn" else "top"
    return Observation(
        span_id=f"e-{service}-{level}",
        agent="a",
        server="logs",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={
            key: [
                {
                    "sample": s,
                    "signature": s,
                    "count": 7,
                    "before": 0,
                    "first_seen": first_seen,
                }
                for s in samples
            ]
        },
    )


def _search(query, *lines, span="s-every"):
    """search_logs of every service: (service, labels, message, time)."""
    return Observation(
        span_id=span,
        agent="a",
        server="logs",
        tool="search_logs",
        arguments={"query": query, "regex": True},
        is_ok=True,
        result={
            "lines": [
                {
                    "service": who,
                    "time": at,
                    "level": "info",
                    "message": message,
                    "labels": labels,
                }
                for who, labels, message, at in lines
            ]
        },
    )


def _board(*observations, brief=None):
    inv = Investigation(
        incident=brief or _brief(), tools=(), observations=list(observations)
    )
    return Board(inv, Facts.read(inv.observations))


def _top(board):
    standing = [c for c in board.candidates.values() if c.status != "ruled_out"]
    return max(standing, key=lambda c: c.confidence, default=None)


# --- a noexec mount --------------------------------------------------------------------------------

MAP_REFUSED = (
    "[BOOT-77:ERROR] cannot load '/scratch/_unpk81/libruntime.so.4': "
    "failed to map segment from shared object"
)


@pytest.mark.rule("board.noexec-mount")
def test_a_noexec_mount_under_the_failing_path_blames_the_host():
    board = _board(
        _errors("statement-job", MAP_REFUSED),
        _search(
            host_facts.NOEXEC_SEARCH,
            (
                "salt",
                {},
                "highstate worker-17: hardening applied, mount /scratch tmpfs nosuid,noexec",
                "2030-01-01T07:00:00Z",
            ),
        ),
    )
    board.get(
        layers.APPLICATION, "statement-job", "statement-job itself fails"
    ).confidence = 0.5
    host_facts.noexec_mount(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.PLATFORM, "worker-17")
    assert any("failed to map segment" in e.fact for e in top.evidence)
    assert board.candidates["application:statement-job"].confidence <= 0.4


@pytest.mark.rule("board.noexec-mount")
def test_a_noexec_mount_of_another_path_blames_nothing():
    board = _board(
        _errors("statement-job", MAP_REFUSED),
        _search(
            host_facts.NOEXEC_SEARCH,
            (
                "salt",
                {},
                "worker-17: mount /var/log/audit noexec",
                "2030-01-01T07:00:00Z",
            ),
        ),
    )
    host_facts.noexec_mount(board)
    assert not board.candidates


# --- an unsynchronised clock -----------------------------------------------------------------------

SKEW = 'POST https://hooks.crate.example/in -> 401 {"error":"timestamp outside tolerance (skew 530s)"}'


@pytest.mark.rule("board.unsynced-clock")
def test_skewed_requests_and_a_time_daemon_timing_out_blame_its_host():
    board = _board(
        _errors("dispatch", SKEW),
        _search(
            host_facts.CLOCK_SEARCH,
            (
                "chronyd",
                {"host": "relay-04"},
                "Timed out waiting for reply from 192.0.2.9:123 (2.pool.ntp.org).",
                "2030-01-01T09:00:00Z",
            ),
        ),
    )
    host_facts.unsynced_clock(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.PLATFORM, "relay-04")
    assert any("skew 530s" in e.fact for e in top.evidence)


@pytest.mark.rule("board.unsynced-clock")
def test_skewed_requests_with_time_in_sync_blame_no_host():
    board = _board(
        _errors("dispatch", SKEW),
        _search(
            host_facts.CLOCK_SEARCH,
            (
                "chronyd",
                {"host": "relay-04"},
                "Selected source 192.0.2.9",
                "2030-01-01T09:00:00Z",
            ),
        ),
    )
    host_facts.unsynced_clock(board)
    assert not board.candidates


# --- CPU steal -------------------------------------------------------------------------------------


def _steal(host, percent):
    return (
        "perfmon",
        {},
        f"{host} sar -u: all %user 40.1 %system 5.0 %steal {percent} %idle 10.0",
        "2030-01-01T10:30:00Z",
    )


@pytest.mark.rule("board.cpu-steal")
def test_steal_on_the_host_the_slow_requests_name_blames_that_host():
    board = _board(
        _errors(
            "quote-bff",
            "upstream timeout: pricing GET /q after 2000ms (backend calc-05)",
        ),
        _search(
            host_facts.STEAL_SEARCH, _steal("calc-04", "0.0"), _steal("calc-05", "37.5")
        ),
    )
    host_facts.cpu_steal(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.PLATFORM, "calc-05")
    assert any("%steal 37.5" in e.fact for e in top.evidence)


@pytest.mark.rule("board.cpu-steal")
def test_steal_on_a_host_no_slow_request_names_blames_nothing():
    board = _board(
        _errors(
            "quote-bff",
            "upstream timeout: pricing GET /q after 2000ms (backend calc-05)",
        ),
        _search(
            host_facts.STEAL_SEARCH, _steal("calc-09", "44.0"), _steal("calc-05", "2.0")
        ),
    )
    host_facts.cpu_steal(board)
    assert not board.candidates


# --- a unit without its LimitNOFILE ----------------------------------------------------------------

EMFILE = "accept tcp [::]:7000: accept4: too many open files; retrying in 5ms"


@pytest.mark.rule("board.descriptor-limit")
def test_a_unit_rewritten_without_its_limit_blames_the_unit():
    board = _board(
        _errors("feed-relay", EMFILE),
        _search(
            host_facts.NOFILE_SEARCH,
            (
                "puppet",
                {},
                "Service_unit[feed-relay.service]: content changed (- LimitNOFILE=131072)",
                "2030-01-01T09:40:00Z",
            ),
        ),
    )
    host_facts.descriptor_limit(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.PLATFORM, "feed-relay.service")
    assert any("too many open files" in e.fact for e in top.evidence)


@pytest.mark.rule("board.descriptor-limit")
def test_a_raised_limit_or_another_units_limit_blames_nothing():
    board = _board(
        _errors("feed-relay", EMFILE),
        _search(
            host_facts.NOFILE_SEARCH,
            (
                "puppet",
                {},
                "feed-relay.service: LimitNOFILE=262144 applied",
                "2030-01-01T09:40:00Z",
            ),
            (
                "puppet",
                {},
                "other-app.service: removed LimitNOFILE",
                "2030-01-01T09:41:00Z",
            ),
        ),
    )
    host_facts.descriptor_limit(board)
    assert not board.candidates


# --- a NAT gateway out of source ports -------------------------------------------------------------

DIAL = "dial tcp 198.51.100.7:443: i/o timeout (connect) host=api.fares.example"


@pytest.mark.rule("board.nat-ports")
def test_connect_timeouts_with_a_nat_out_of_ports_blame_the_gateway():
    board = _board(
        _errors("booking", DIAL),
        _errors(
            "metrics-relay",
            "NATGateway nat-77aa01 ErrorPortAllocation Sum=9120",
            level="warn",
        ),
    )
    host_facts.nat_ports(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.CONNECT, "nat-77aa01")


@pytest.mark.rule("board.nat-ports")
def test_a_nat_out_of_ports_without_connect_failures_blames_nothing():
    board = _board(
        _errors("booking", "payment declined: insufficient funds"),
        _errors(
            "metrics-relay",
            "NATGateway nat-77aa01 ErrorPortAllocation Sum=9120",
            level="warn",
        ),
    )
    host_facts.nat_ports(board)
    assert not board.candidates


def test_host_fact_searches_follow_their_symptoms():
    calls = []
    inv = Investigation(
        incident=_brief(),
        tools=(),
        observations=[_errors("feed-relay", EMFILE), _errors("dispatch", SKEW)],
    )
    host_facts.searches(
        inv,
        Facts.read(inv.observations),
        lambda tool, arguments, why: calls.append(arguments) or arguments,
        {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"},
    )
    queries = {c["query"] for c in calls}
    assert queries == {host_facts.NOFILE_SEARCH, host_facts.CLOCK_SEARCH}
    # hours before the window, within the logs server's six hours
    assert all(c["start"] == "2030-01-01T05:10:00Z" for c in calls)


@pytest.mark.timeout(60)
def test_hostile_host_facts_stay_fast():
    long = "failed to map segment from shared object /a/ " * 20_000 + "-1 " * 100_000
    board = _board(
        _errors(
            "x",
            long,
            SKEW * 2000,
            EMFILE * 3000,
            DIAL * 2000,
            "slow request took 2s " + "a-1 " * 100_000,
        ),
        _search(
            host_facts.NOEXEC_SEARCH,
            ("y", {"host": "h" * 5000}, "noexec /a " * 50_000, "bad"),
        ),
        _search(
            host_facts.CLOCK_SEARCH,
            ("y", {}, "Timed out waiting for reply from :123 " * 20_000, ""),
        ),
        _search(host_facts.STEAL_SEARCH, ("y", {}, "a-1 %steal 99 " * 50_000, "")),
        _search(
            host_facts.NOFILE_SEARCH,
            ("x", {}, "- LimitNOFILE=1 x.service " * 50_000, ""),
        ),
        _search(
            host_facts.PORTS_SEARCH,
            ("y", {}, "ErrorPortAllocation nat-" + "a" * 100_000, ""),
        ),
    )
    for rule in (
        host_facts.noexec_mount,
        host_facts.unsynced_clock,
        host_facts.cpu_steal,
        host_facts.descriptor_limit,
        host_facts.nat_ports,
    ):
        rule(board)


# --- a cache at its ceiling before the database ----------------------------------------------------

DB_FULL = "Too many connections (max_connections 400, threads_running 390)"
CACHE_FULL = "accept(): Too many open connections (maxconns 2048 reached)"


@pytest.mark.rule("board.cache-ceiling")
def test_a_cache_at_its_ceiling_before_the_database_is_the_cause():
    board = _board(
        _errors("mariadb", DB_FULL, first_seen="2030-01-01T10:20:00Z"),
        _search(
            cache_ceiling.SEARCH,
            ("kvcache", {"pod": "kvcache-02"}, CACHE_FULL, "2030-01-01T10:14:00Z"),
        ),
    )
    board.get(
        layers.APPLICATION, "store-db-1", f"store-db-1 refuses: {DB_FULL}"
    ).confidence = 0.88
    cache_ceiling.cache_ceiling(board)
    top = _top(board)
    assert (top.layer, top.component) == (layers.APPLICATION, "kvcache-02")
    assert board.candidates["application:store-db-1"].confidence <= 0.4


@pytest.mark.rule("board.cache-ceiling")
def test_a_cache_at_its_ceiling_after_the_database_is_a_victim():
    board = _board(
        _errors("mariadb", DB_FULL, first_seen="2030-01-01T10:20:00Z"),
        _search(
            cache_ceiling.SEARCH,
            ("kvcache", {"pod": "kvcache-02"}, CACHE_FULL, "2030-01-01T10:35:00Z"),
        ),
    )
    cache_ceiling.cache_ceiling(board)
    assert not board.candidates


@pytest.mark.timeout(60)
def test_hostile_cache_ceiling_stays_fast():
    board = _board(
        _errors("db", "too many connections " * 50_000, first_seen="not a time"),
        _search(
            cache_ceiling.SEARCH, ("c", {"pod": "p" * 5000}, "maxconns " * 100_000, "x")
        ),
    )
    cache_ceiling.cache_ceiling(board)
