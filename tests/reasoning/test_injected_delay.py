"""Delay injected on purpose (issue 21 classes 1 and 4): a path that slowed whose callee another
service's line names while injecting or shaping delay (a chaos tool, traffic control, a mesh's
fault injection) is slowed by that line's actor; the caller that logs its slow calls is a victim.
Names and wordings are invented."""

from datetime import UTC, datetime

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.network_delay import (
    ROUND_TRIPS,
    actor_query,
    actor_searches,
)
from reasoning.observations import IncidentBrief, Investigation, Observation

START = datetime(2030, 1, 1, 9, 0, tzinfo=UTC).timestamp()
STEP_AT = datetime(2030, 1, 1, 10, 20, tzinfo=UTC).timestamp()


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="logs" if tool != "query_metric" else "metrics",
        server="logs" if tool != "query_metric" else "metrics",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _rtt():
    values = [
        [START + 60 * i, str(0.2 if START + 60 * i >= STEP_AT else 0.0008)]
        for i in range(121)
    ]
    return _obs(
        "m1",
        "query_metric",
        {"promql": ROUND_TRIPS},
        {
            "series": [
                {
                    "metric": {
                        "__name__": "net_rtt_seconds",
                        "src": "quote-svc",
                        "dst": "fx-store",
                    },
                    "values": values,
                }
            ]
        },
    )


def _caller():
    slow = "slow call: fx-store GET /rates took 840ms (budget 150ms)"
    return _obs(
        "l1",
        "top_errors",
        {"service": "quote-svc", "warnings": True, "baseline_s": 3600},
        {
            "service": "quote-svc",
            "top": [],
            "warnings": [
                {"signature": slow, "sample": slow, "count": 300, "before": 0}
            ],
        },
    )


def _search(*lines):
    return _obs(
        "l2",
        "search_logs",
        {"query": actor_query("fx-store"), "regex": True},
        {
            "lines": [
                {
                    "time": f"2030-01-01T10:1{i}:00Z",
                    "service": s,
                    "level": lvl,
                    "message": m,
                }
                for i, (s, lvl, m) in enumerate(lines)
            ]
        },
    )


def _board(*observations):
    incident = IncidentBrief(
        title="quotes slow",
        service="quote-svc",
        severity="sev3",
        symptoms=(),
        window_start="2030-01-01T10:00:00Z",
        window_end="2030-01-01T11:00:00Z",
    )
    inv = Investigation(incident=incident, tools=[], observations=list(observations))
    board = Analysis(inv, Facts.read(inv.observations))
    return {c.id: c for c in board.candidates.values()}


@pytest.mark.rule("board.injected-delay")
@pytest.mark.parametrize(
    "actor,message",
    [
        (
            "litmus-operator",
            "pod-network-latency experiment on app=fx-store: NETWORK_LATENCY=200 injected",
        ),
        (
            "node-agent",
            "tc qdisc add dev eth0 root netem delay 200ms for fx-store pods",
        ),
        ("toxiproxy", "added toxic latency_downstream to proxy fx-store (latency=200)"),
    ],
)
def test_a_line_injecting_delay_on_the_callee_is_the_cause(actor, message):
    by = _board(_rtt(), _caller(), _search((actor, "info", message)))

    path = by["connect:fx-store"]
    assert path.status == "confirmed" and path.confidence >= 0.85
    assert any(message in e.fact for e in path.evidence)
    caller = by.get("application:quote-svc")
    assert caller is None or caller.confidence < path.confidence


@pytest.mark.rule("board.injected-delay")
def test_the_ends_own_lines_and_lines_not_naming_the_callee_are_no_actor():
    by = _board(
        _rtt(),
        _caller(),
        _search(
            ("fx-store", "info", "chaos: cache warmed, injecting 0 faults"),
            ("quote-svc", "warn", "fx-store call slow, chaos? retrying"),
            ("chaos-runner", "info", "injected delay on app=ledger-svc"),
        ),
    )

    assert by["connect:fx-store"].confidence < 0.7


def test_the_actor_search_follows_a_slowed_path_once():
    incident = IncidentBrief(
        title="quotes slow",
        service="quote-svc",
        severity="sev3",
        symptoms=(),
        window_start="2030-01-01T10:00:00Z",
        window_end="2030-01-01T11:00:00Z",
    )
    calls = []

    def call(tool, arguments, why):
        calls.append((tool, arguments))
        return None

    inv = Investigation(incident=incident, tools=[], observations=[_rtt()])
    actor_searches(inv, call)
    assert calls and calls[0][1]["query"] == actor_query("fx-store")
    assert calls[0][1]["start"] == "2030-01-01T08:00:00Z"

    calls.clear()
    done = Investigation(incident=incident, tools=[], observations=[_rtt(), _search()])
    actor_searches(done, call)
    assert not calls


@pytest.mark.timeout(60)
def test_a_hostile_actor_line_is_read_in_bounded_time():
    huge = "inject " * 30_000 + "fx-store" + " netem" * 5_000
    by = _board(_rtt(), _caller(), _search(("chaos-runner", "info", huge)))
    assert "connect:fx-store" in by
