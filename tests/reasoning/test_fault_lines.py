"""Issue 21 class 6, for every layer: a leading hypothesis cites the line that shows its component's
own fault, not only the spans that made it rank (reasoning/layered/fault_lines.py).

Names and wordings are invented: a quota autoscaler pinned at its maximum, a node whose NIC team
lost its partner, a gateway whose route names a port the service no longer has, a nightly refresh
job that ran past its deadline behind a stale catalogue, a Memcached answering a code its caller
quotes, a pool of nodes emptied by a capacity schedule, a table left with its cleaner off.
"""

import pytest

from reasoning import layers
from reasoning.layered import cited_lines, fault_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation, ToolInfo

_BRIEF = IncidentBrief(
    title="quotes fail",
    service="quotes",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _obs(span, tool, arguments, *, text="", result=None):
    return Observation(
        span_id=span,
        agent="a",
        server="kube"
        if tool in ("describe", "events", "get_resources", "pod_logs")
        else "logs",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
        text=text,
    )


def _board(*observations, tools=()):
    inv = Investigation(
        incident=_BRIEF,
        tools=tuple(
            ToolInfo(
                name=t,
                server="kube",
                description="",
                input_schema={},
                is_read_only=True,
                is_destructive=False,
                is_idempotent=True,
            )
            for t in tools
        ),
        observations=list(observations),
    )
    return Board(inv, Facts.read(inv.observations))


def _lines(service, *rows, level="warn", labels=None):
    return {
        "lines": [
            {
                "service": service,
                "time": t,
                "level": level,
                "message": m,
                "labels": labels or {},
            }
            for t, m in rows
        ]
    }


def _groups(service, *samples, key="warnings"):
    return {
        "service": service,
        key: [
            {"sample": s, "count": 9, "first_seen": "2030-01-01T10:05:00Z", "before": 0}
            for s in samples
        ],
    }


def _cited(c):
    return {e.span_id for e in c.evidence}


def _lead(board, layer, component, confidence=0.85):
    c = board.get(layer, component, f"{component} fails")
    c.confidence = confidence
    return c


@pytest.mark.rule("board.fault-lines")
def test_a_service_at_its_autoscalers_maximum_cites_the_limited_condition():
    describe = _obs(
        "h1",
        "describe",
        {"kind": "horizontalpodautoscaler", "name": "quote-pricer", "namespace": "q"},
        text=(
            "Conditions:\n  Type            Status  Reason            Message\n"
            "  ----            ------  ------            -------\n"
            "  AbleToScale     True    ReadyForNewScale  recommended size matches\n"
            "  ScalingLimited  True    TooManyReplicas   the desired replica count "
            "is more than the maximum replica count\n"
        ),
    )
    board = _board(describe)
    c = _lead(board, layers.APPLICATION, "quote-pricer")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"h1"}
    assert "TooManyReplicas" in c.evidence[0].fact


@pytest.mark.rule("board.fault-lines")
def test_an_autoscaler_listed_at_its_maximum_is_described_once():
    listing = _obs(
        "g1",
        "get_resources",
        {"kinds": ["horizontalpodautoscalers"], "namespace": "q"},
        text=(
            "NAME  REFERENCE  TARGETS  MINPODS  MAXPODS  REPLICAS  AGE\n"
            "horizontalpodautoscaler.autoscaling/quote-pricer   Deployment/quote-pricer   "
            "cpu: 240%/70%   2         8         8          90d\n"
            "horizontalpodautoscaler.autoscaling/fx-feed   Deployment/fx-feed   "
            "cpu: 20%/70%   2         8         2          90d\n"
        ),
    )
    board = _board(listing, tools=("describe", "pod_logs"))
    c = _lead(board, layers.APPLICATION, "quote-pricer")
    other = _lead(board, layers.APPLICATION, "fx-feed", 0.84)
    calls = list(fault_lines.reads(board.inv, [c, other], lambda t, a, w: (t, a)))
    assert calls == [
        (
            "describe",
            {
                "kind": "horizontalpodautoscaler",
                "name": "quote-pricer",
                "namespace": "q",
            },
        )
    ]


@pytest.mark.rule("board.fault-lines")
def test_a_node_cites_its_kernels_new_warning_carrying_its_name_in_a_label():
    kernel = _obs(
        "k1",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "kernel",
            (
                "2030-01-01T10:02:00Z",
                "team1: no partner answer on any port of the team",
            ),
            labels={"host": "rack7-n12"},
        ),
    )
    elsewhere = _obs(
        "k2",
        "search_logs",
        {"query": "y"},
        result=_lines(
            "kernel",
            ("2030-01-01T10:03:00Z", "eth0: link flap"),
            labels={"host": "rack2-n01"},
        ),
    )
    board = _board(elsewhere, kernel)
    c = _lead(board, layers.PLATFORM, "node/rack7-n12")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"k1"}


@pytest.mark.rule("board.fault-lines")
def test_a_node_cites_its_hosts_unlabelled_warning_group_new_in_the_window():
    kernel = _obs(
        "k3",
        "top_errors",
        {"service": "kernel"},
        result=_groups("kernel", "team1: no partner answer on any port of the team"),
    )
    board = _board(kernel)
    c = _lead(board, layers.PLATFORM, "node/rack7-n12")
    app = _lead(board, layers.APPLICATION, "quote-pricer", 0.84)
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"k3"}
    assert not app.evidence  # a service's hypothesis does not take a host's lines


@pytest.mark.rule("board.fault-lines")
def test_a_route_cites_the_controllers_warning_naming_its_service_not_a_callers_error():
    controller = _obs(
        "c1",
        "top_errors",
        {"service": "edge-gateway"},
        result=_groups(
            "edge-gateway",
            'route error: Service "shop/quote-web" has no port named "web"',
        ),
    )
    board = _board(controller)
    c = _lead(board, layers.CONNECT, "ingress/quote-web")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"c1"}
    assert 'no port named "web"' in c.evidence[0].fact


@pytest.mark.rule("board.fault-lines")
def test_a_service_cites_the_failed_job_its_own_warning_names_as_a_phrase():
    own = _obs(
        "o1",
        "top_errors",
        {"service": "offer-api"},
        result=_groups("offer-api", "price catalogue stale age_h=30, refusing offers"),
    )
    events = _obs(
        "e1",
        "events",
        {"namespace": "offers"},
        text=(
            "LAST SEEN TYPE REASON OBJECT MESSAGE\n"
            "5h Warning DeadlineExceeded Job/price-catalogue-refresh-4812 Job ran too long\n"
            "5h Warning BackOff Pod/unrelated-batch-77 Back-off restarting\n"
        ),
    )
    board = _board(own, events)
    c = _lead(board, layers.APPLICATION, "offer-api")
    c.cite(own, "offer-api warns")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"o1", "e1"}
    assert "price-catalogue-refresh" in c.evidence[-1].fact


@pytest.mark.rule("board.fault-lines")
def test_a_cache_cites_the_code_its_caller_quotes_from_its_answer():
    caller = _obs(
        "a1",
        "top_errors",
        {"service": "checkout"},
        result=_groups(
            "checkout",
            "get failed: MemcacheServerError: SERVER_ERROR out of memory storing object",
            key="top",
        ),
    )
    board = _board(caller)
    c = _lead(board, layers.APPLICATION, "statefulset/basket-memcache")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"a1"}


@pytest.mark.rule("board.fault-lines")
def test_a_pending_workload_cites_the_capacity_change_of_the_pool_its_selector_names():
    describe = _obs(
        "d1",
        "describe",
        {"kind": "deployment", "name": "ledger-sync", "namespace": "fin"},
        text="Name: ledger-sync\n  Node-Selectors:  pool=batch\n",
    )
    schedule = _obs(
        "s1",
        "search_logs",
        {"query": "x"},
        result=_lines(
            "cloud-audit",
            (
                "2030-01-01T09:58:00Z",
                "ng-batch-77a1: schedule set min 0 max 0 desired 0",
            ),
            ("2030-01-01T09:59:00Z", "ng-web-12: health check ok"),
            level="info",
        ),
    )
    board = _board(describe, schedule)
    c = _lead(board, layers.PLATFORM, "deployment/ledger-sync")
    c.cite(describe, "ledger-sync pending")
    fault_lines.cite_fault_lines(board)
    assert "s1" in _cited(c)
    assert "ng-batch-77a1" in c.evidence[-1].fact


@pytest.mark.rule("board.fault-lines")
def test_an_init_container_cites_its_last_error_and_current_logs_follow_unkept_previous():
    unkept = _obs(
        "p1",
        "pod_logs",
        {
            "pod": "quote-pricer-5c-x2",
            "namespace": "q",
            "container": "fetch",
            "previous": True,
        },
        text="Error from server (NotFound)",
        result={"found": False},
    )
    board = _board(unkept, tools=("pod_logs",))
    c = _lead(board, layers.APPLICATION, "deployment/quote-pricer")
    calls = list(fault_lines.reads(board.inv, [c], lambda t, a, w: (t, a)))
    assert calls == [
        (
            "pod_logs",
            {"pod": "quote-pricer-5c-x2", "namespace": "q", "container": "fetch"},
        )
    ]
    current = _obs(
        "p2",
        "pod_logs",
        {"pod": "quote-pricer-5c-x2", "namespace": "q", "container": "fetch"},
        text=(
            "2030-01-01T10:01:00Z fetch 2.3 starting\n"
            "2030-01-01T10:01:02Z download failed: status 403: token revoked\n"
        ),
    )
    board = _board(unkept, current, tools=("pod_logs",))
    c = _lead(board, layers.APPLICATION, "deployment/quote-pricer")
    fault_lines.cite_fault_lines(board)
    assert _cited(c) == {"p2"}
    assert "token revoked" in c.evidence[0].fact
    assert list(fault_lines.reads(board.inv, [c], lambda t, a, w: (t, a))) == []


@pytest.mark.rule("board.fault-lines")
def test_a_pod_named_as_the_culprit_has_its_own_logs_read():
    pods = _obs(
        "g2",
        "get_resources",
        {"kind": "pods", "namespace": "cache"},
        text="NAME READY STATUS\nbasket-kv-1   1/1   Running\n",
    )
    board = _board(pods, tools=("pod_logs",))
    c = _lead(board, layers.APPLICATION, "basket-kv-1")
    calls = list(fault_lines.reads(board.inv, [c], lambda t, a, w: (t, a)))
    assert calls == [
        ("pod_logs", {"pod": "basket-kv-1", "namespace": "cache", "tail": 200})
    ]


@pytest.mark.rule("board.cited-lines")
def test_a_change_naming_the_plural_of_the_component_is_its_change():
    change = _obs(
        "x1",
        "search_logs",
        {"query": "q"},
        result=_lines(
            "mariadb",
            ("2030-01-01T08:30:00Z", "ALTER TABLE outbox_events SET purge_enabled = 0"),
            level="info",
        ),
    )
    board = _board(change)
    c = _lead(board, layers.APPLICATION, "outbox_event")
    cited_lines.cite_specific(board)
    assert "x1" in _cited(c)
    assert cited_lines.names("outbox_events stalled", "outbox_event")
    assert not cited_lines.names("outbox_eventsink stalled", "outbox_event")


@pytest.mark.rule("board.fault-lines")
@pytest.mark.timeout(60)
def test_long_and_adversarial_lines_stay_linear():
    hostile = ("Warning Failed Job/" + "a-" * 50000) + ("min 1 " * 20000)
    own = _obs(
        "o9",
        "top_errors",
        {"service": "offer-api"},
        result=_groups("offer-api", "a a " * 50000, "price catalogue " * 5000),
    )
    events = _obs("e9", "events", {"namespace": "x"}, text=hostile + "\n" + hostile)
    describe = _obs(
        "d9",
        "describe",
        {"kind": "deployment", "name": "offer-api", "namespace": "x"},
        text=("Node-Selectors: " + "a=b," * 100000 + "\n")
        + ("  Ready False " + "x" * 3000 + "\n") * 3000,
    )
    logs = _obs(
        "s9",
        "search_logs",
        {"query": "x"},
        result=_lines("edge", *[("t", "offer-api " + "b" * 3900)] * 3000),
    )
    board = _board(own, events, describe, logs)
    _lead(board, layers.APPLICATION, "offer-api")
    _lead(board, layers.PLATFORM, "node/" + "n" * 5000)
    fault_lines.cite_fault_lines(board)


@pytest.mark.rule("board.fault-lines")
def test_a_callers_error_naming_the_cache_only_at_its_level_word_is_not_a_quote():
    caller = _obs(
        "a2",
        "top_errors",
        {"service": "checkout"},
        result=_groups("checkout", "ERROR memcache pool warmed in 20 ms", key="top"),
    )
    twice = _obs(
        "k5",
        "top_errors",
        {"service": "kernel", "start": "2030-01-01T10:00:00Z"},
        result=_groups("kernel", "team1: no partner answer on any port of the team"),
    )
    again = _obs(
        "k6",
        "top_errors",
        {"service": "kernel"},
        result=_groups("kernel", "team1: no partner answer on any port of the team"),
    )
    board = _board(caller, twice, again)
    cache = _lead(board, layers.APPLICATION, "statefulset/basket-memcache")
    node = _lead(board, layers.PLATFORM, "node/rack7-n12")
    fault_lines.cite_fault_lines(board)
    assert not cache.evidence
    assert len(node.evidence) == 1  # the same words from two answers are cited once
