"""Issue 21: a host out of space, inodes or processes is the platform's fault; a container runtime's
open-files limit after the nodes changed is the runtime's; a provider's allowance spent after a flag
of ours rolled out is our application's; a connect failure named by a host is the service's
(reasoning/layered/host_exhaustion.py, runtime_limits.py, flag_quota.py, service_hosts.py).

Names and wordings are invented; the servers' shapes (query_metric's matrix, top_errors with a
baseline, search_logs lines with labels, kubectl events) are their own.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning import layers
from reasoning.layered import backend_gauges, flag_quota, host_exhaustion
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.flag_quota import flag_quota as flag_quota_rule
from reasoning.layered.host_exhaustion import host_exhaustion as host_rule
from reasoning.layered.runtime_limits import runtime_limits
from reasoning.layered.service_hosts import host_service, service_hosts
from reasoning.observations import IncidentBrief, Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

_BASE = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)  # an hour before the incident's window
NAMES = (
    "service_health",
    "query_metric",
    "top_errors",
    "search_logs",
    "search_runbooks",
)


def _brief(service="ledger-sync", title="synthetic incident"):
    return IncidentBrief(
        title=title,
        service=service,
        severity="sev2",
        symptoms=(),
        window_start="2030-01-01T10:00:00Z",
        window_end="2030-01-01T11:00:00Z",
    )


def _errors(service, *samples, level="top", before=0):
    key = "warnings" if level == "warn" else "top"
    return Observation(
        span_id=f"e-{service}",
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
                    "before": before,
                    "first_seen": "2030-01-01T10:20:00Z",
                }
                for s in samples
            ]
        },
        text="",
    )


def _series(name, labels, values):
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, **labels}, "values": points}


def _falling(peak, steps=120):
    return [max(peak - peak * i / (steps - 10), 0) for i in range(steps)]


def _gauges(*series):
    return Observation(
        span_id="m-unlabelled",
        agent="a",
        server="metrics",
        tool="query_metric",
        arguments={"promql": backend_gauges.QUERY},
        is_ok=True,
        result={"series": list(series)},
    )


def _search(query, *lines, span="s-every"):
    """search_logs of every service: (service, host label, message, time)."""
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
                    "labels": {"host": host} if host else {},
                }
                for who, host, message, at in lines
            ]
        },
    )


def _board(*observations, brief=None):
    inv = Investigation(
        incident=brief or _brief(), tools=(), observations=list(observations)
    )
    return Board(inv, Facts.read(inv.observations))


# --- a host out of space or inodes ----------------------------------------------------------------

ENOSPC = "ERROR ledger_sync.outbox: write /var/spool/ledger/batch_77.json failed: [Errno 28] No space left on device"


@pytest.mark.rule("board.host-exhaustion")
def test_a_full_root_volume_a_monitor_names_is_the_hosts_platform_fault():
    board = _board(
        _errors("ledger-sync", ENOSPC),
        _gauges(
            _series(
                "node_filesystem_avail_bytes",
                {"instance": "ledger-sync-03", "mountpoint": "/"},
                _falling(4e9),
            )
        ),
        _errors(
            "host-monitor",
            "warn DiskAlmostFull ledger-sync-03 /: 1% free",
            level="warn",
        ),
    )
    victim = board.get(layers.APPLICATION, "ledger-sync", "ledger-sync fails")
    victim.status, victim.confidence = "confirmed", 0.88
    host_rule(board)
    c = board.candidates[f"{layers.PLATFORM}:ledger-sync-03"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert {"e-ledger-sync", "m-unlabelled", "e-host-monitor"} <= {
        e.span_id for e in c.evidence
    }
    assert victim.status == "likely" and victim.confidence <= 0.4


@pytest.mark.rule("board.host-exhaustion")
def test_inodes_spent_on_a_vm_blame_the_host_through_the_lines_the_search_finds():
    """The failing writer is not a service anyone read: the errno search finds its lines, labelled
    with the host, and the hypothesis cites them."""
    line = (
        "PHP Warning: session_start(): open(/data/sess/sess_9a1f, O_RDWR) failed: "
        "No space left on device (28) in /srv/members/login.php on line 12"
    )
    board = _board(
        _gauges(
            _series(
                "node_filesystem_files_free",
                {"instance": "members-vm-2", "mountpoint": "/data"},
                _falling(120000),
            )
        ),
        _search(
            host_exhaustion.SEARCH,
            ("php8-fpm", "members-vm-2", line, "2030-01-01T10:40:00Z"),
        ),
        brief=_brief("member area"),
    )
    app = board.get(layers.APPLICATION, "members-vm-2", "members-vm-2 ran out of files")
    app.status, app.confidence = "confirmed", 0.84
    host_rule(board)
    c = board.candidates[f"{layers.PLATFORM}:members-vm-2"]
    assert c.status == "confirmed" and "inodes" in c.statement
    assert any(e.span_id == "s-every" and "O_RDWR" in e.fact for e in c.evidence)
    assert app.confidence <= 0.4


@pytest.mark.rule("board.host-exhaustion")
def test_a_data_stores_own_volume_or_a_monitor_alone_blames_no_host():
    pg = 'ERROR: could not extend file "base/1/2": No space left on device'
    board = _board(
        _errors("pg-billing", pg),
        _gauges(
            _series(
                "node_filesystem_avail_bytes",
                {"instance": "pg-billing-2", "mountpoint": "/var/lib/postgresql"},
                _falling(9e9),
            ),
            _series(
                "node_filesystem_avail_bytes",
                {"instance": "batch-vm-7", "mountpoint": "/"},
                _falling(9e9),
            ),
        ),
    )
    host_rule(board)
    assert not [c for c in board.candidates.values() if c.layer == layers.PLATFORM]


@pytest.mark.rule("board.host-exhaustion")
def test_the_planner_searches_every_services_errno_lines_when_a_host_gauge_is_spent():
    line = "spool write failed: ENOSPC (No space left on device)"
    world = World(
        {
            ("query_metric", backend_gauges.QUERY): {
                "series": [
                    _series(
                        "node_filesystem_avail_bytes",
                        {"instance": "relay-node-4", "mountpoint": "/"},
                        _falling(2e9),
                    )
                ]
            },
            ("service_health", "mail relay"): health("mail relay"),
            ("top_errors", "mail relay"): logged("mail relay"),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "postfix-out",
                        "time": "2030-01-01T10:30:00Z",
                        "level": "error",
                        "message": line,
                        "labels": {"host": "relay-node-4"},
                    }
                ]
            },
        }
    )
    _, _, report = run_with_schemas(world, incident("mail relay"), names=NAMES)
    asked = [a for t, a in world.arguments if t == "search_logs"]
    assert any(a.get("query") == host_exhaustion.SEARCH for a in asked)
    assert report.top.id == "platform:relay-node-4"


@pytest.mark.rule("board.host-exhaustion")
@pytest.mark.timeout(60)
def test_hostile_host_lines_stay_fast():
    long = "No space left on device " + "disk full " * 50_000 + "-1 " * 100_000
    board = _board(
        _errors("x", long),
        _errors("mon", "DiskSpaceLow " + "a-1 " * 100_000, level="warn"),
        _gauges(
            _series(
                "node_filesystem_avail_bytes", {"instance": "a" * 5000}, _falling(1)
            )
        ),
        _search(host_exhaustion.SEARCH, ("y", "a" * 5000, long, "bad time")),
    )
    host_rule(board)


# --- a container runtime's open-files limit -------------------------------------------------------

EMFILE = "OSError: [Errno 24] Too many open files: '/tmp/thumb_81.png'"


def _events(*rows):
    text = "LAST SEEN   TYPE      REASON      OBJECT      MESSAGE\n" + "\n".join(rows)
    return Observation(
        span_id="k-events",
        agent="k",
        server="kubernetes",
        tool="events",
        arguments={"namespace": "thumbs"},
        is_ok=True,
        result={"rows": []},
        text=text,
    )


@pytest.mark.rule("board.runtime-limits")
def test_out_of_open_files_on_nodes_ready_under_a_new_runtime_blames_the_runtime():
    board = _board(
        _errors("thumbnailer", EMFILE),
        _events(
            "5h   Normal   NodeReady   Node/worker-b-7   Node status is now: NodeReady (cri-o://1.31.2)",
            "3m   Warning  Unhealthy   Pod/thumbnailer-5d9f-x2   Liveness probe failed",
        ),
        brief=_brief("thumbnails"),
    )
    own = board.get(layers.APPLICATION, "thumbnailer", "thumbnailer fails")
    workload = board.get(layers.APPLICATION, "deployment/thumbnailer", "probes fail")
    own.confidence = workload.confidence = 0.9
    runtime_limits(board)
    c = board.candidates[f"{layers.PLATFORM}:cri-o"]
    assert c.status == "confirmed" and c.confidence > 0.9
    assert {e.span_id for e in c.evidence} == {"e-thumbnailer", "k-events"}
    assert own.confidence <= 0.4 and workload.confidence <= 0.4


@pytest.mark.rule("board.runtime-limits")
def test_open_files_without_a_runtime_change_or_a_hosts_file_table_blame_no_runtime():
    unchanged = _board(_errors("thumbnailer", EMFILE))
    runtime_limits(unchanged)
    host_table = _board(
        _errors("thumbnailer", "accept: Too many open files in system"),
        _events(
            "5h Normal NodeReady Node/w-1 Node status is now: NodeReady (containerd://2.1.0)"
        ),
    )
    runtime_limits(host_table)
    for board in (unchanged, host_table):
        assert not [c for c in board.candidates.values() if c.layer == layers.PLATFORM]


@pytest.mark.rule("board.runtime-limits")
@pytest.mark.timeout(60)
def test_hostile_runtime_events_stay_fast():
    board = _board(
        _errors("x", "Too many open files " * 50_000),
        _events("NodeReady " * 100_000 + "(containerd://" + "1." * 50_000 + ")"),
    )
    runtime_limits(board)


# --- a provider's allowance spent after a flag of ours --------------------------------------------

SPENT = "Geoapify Autocomplete 429: monthly request limit exceeded for key 7f3c****"


def _flag_board(
    flag_line, refusal=SPENT, title="customers cannot enter their postcode"
):
    return _board(
        _errors("checkout-api", refusal),
        _search(
            flag_quota.FLAG_QUERY,
            ("flagsmith", "", flag_line, "2030-01-01T08:10:00Z"),
        ),
        brief=_brief("checkout", title),
    )


@pytest.mark.rule("board.flag-quota")
def test_an_allowance_spent_after_a_related_flag_rolled_out_is_our_applications_fault():
    board = _flag_board(
        "audit: feature flag postcode-suggest-v3 in prod: rollout 5% -> 100% by a.kim"
    )
    provider = board.get(layers.HTTP, "geoapify", "geoapify rate-limits us")
    provider.status, provider.confidence = "likely", 0.6
    flag_quota_rule(board)
    c = board.candidates[f"{layers.APPLICATION}:checkout-api"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert "postcode-suggest-v3" in c.statement
    assert {e.span_id for e in c.evidence} == {"e-checkout-api", "s-every"}
    assert provider.confidence <= 0.4


@pytest.mark.rule("board.flag-quota")
def test_an_allowance_spent_after_the_callers_own_release_is_its_application_fault():
    board = _flag_board(
        "deploy: checkout-api 8.4.0 rolled out to prod (search-as-you-type)"
    )
    flag_quota_rule(board)
    c = board.candidates[f"{layers.APPLICATION}:checkout-api"]
    assert c.status == "confirmed" and "its release" in c.statement
    late = _board(
        _errors("checkout-api", SPENT),
        _search(
            flag_quota.FLAG_QUERY,
            ("deployer", "", "checkout-api 8.4.0 deployed", "2030-01-01T10:50:00Z"),
        ),
    )
    flag_quota_rule(
        late
    )  # released after the refusals began: not what spent the allowance
    assert f"{layers.APPLICATION}:checkout-api" not in late.candidates


@pytest.mark.rule("board.flag-quota")
def test_an_unrelated_flag_a_throttle_or_an_outage_leave_the_provider_alone():
    unrelated = _flag_board("audit: flag dark-mode-v2 rollout 0% -> 50%")
    throttled = _flag_board(
        "audit: flag postcode-suggest-v3 rollout 5% -> 100%",
        refusal="Geoapify 429: too many requests per second, retry after 1s",
    )
    outage = _flag_board(
        "audit: flag postcode-suggest-v3 rollout 5% -> 100%",
        refusal="Geoapify answered 503 Service Unavailable",
    )
    for board in (unrelated, throttled, outage):
        flag_quota_rule(board)
        c = board.candidates.get(f"{layers.APPLICATION}:checkout-api")
        assert c is None or c.confidence < 0.9


@pytest.mark.rule("board.flag-quota")
def test_the_planner_asks_for_flag_changes_when_a_provider_refuses_our_allowance():
    world = World(
        {
            ("service_health", "checkout-api"): health(
                "checkout-api", "unhealthy", FAILING
            ),
            ("top_errors", "checkout-api"): logged(
                "checkout-api", errors=[group(SPENT, count=300)]
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "flagsmith",
                        "time": "2030-01-01T08:10:00Z",
                        "level": "info",
                        "message": "audit: flag postcode-suggest-v3 rollout 5% -> 100%",
                        "labels": {},
                    }
                ]
            },
        }
    )
    _, _, report = run_with_schemas(
        world,
        incident("checkout-api", title="customers cannot enter their postcode"),
        names=NAMES,
    )
    asked = [a for t, a in world.arguments if t == "search_logs"]
    assert any(
        a.get("query", "").startswith(flag_quota.FLAG_QUERY)
        and "checkout" in a["query"]
        for a in asked
    )
    assert report.top.id == "application:checkout-api"


@pytest.mark.rule("board.flag-quota")
@pytest.mark.timeout(60)
def test_hostile_flag_lines_stay_fast():
    board = _flag_board(
        "flag " + "x" * 200_000 + " -> " * 50_000,
        refusal="429 daily " + "limit " * 50_000 + "for key",
    )
    flag_quota_rule(board)


# --- a connect failure named by a host -----------------------------------------------------------


@pytest.mark.rule("board.service-hosts")
def test_a_connect_failure_named_by_a_services_host_names_the_service():
    board = _board(_errors("fx-quotes"), _errors("storefront", "dial tcp: i/o timeout"))
    c = board.get(
        layers.CONNECT, "fx-quotes.svc.corp", "TCP connect to fx-quotes.svc.corp fails"
    )
    c.status, c.confidence = "confirmed", 0.92
    dns = board.get(layers.DNS, "fx-quotes.other.corp", "DNS resolution fails")
    service_hosts(board)
    assert board.candidates[f"{layers.CONNECT}:fx-quotes"] is c
    assert c.component == "fx-quotes" and "fx-quotes.svc.corp" in c.statement
    assert f"{layers.CONNECT}:fx-quotes.svc.corp" not in board.candidates
    assert board.candidates[f"{layers.DNS}:fx-quotes.other.corp"] is dns


def test_only_a_known_services_first_label_names_a_host():
    known = {"fx-quotes", "api"}
    assert host_service("fx-quotes.internal", known) == "fx-quotes"
    assert host_service("api.vendor.example", known) is None  # a front, not a service
    assert (
        host_service("ledger.internal", known) is None
    )  # no service read by that name
    assert host_service("fx-quotes", known) is None  # not a dotted host
    assert host_service("10.0.0.7", {"10"}) is None


@pytest.mark.rule("board.service-hosts")
@pytest.mark.timeout(60)
def test_hostile_host_names_stay_fast():
    board = _board(_errors("a"))
    for i in range(2000):
        board.get(layers.CONNECT, "a." * 200 + str(i), "x")
    board.get(layers.CONNECT, "a.b", "y")
    service_hosts(board)
    assert f"{layers.CONNECT}:a" in board.candidates
