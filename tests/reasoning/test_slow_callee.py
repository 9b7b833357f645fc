"""A quiet service its callers time out on, whose own latency rose (reasoning/layered/slow_callee.py),
and the line naming the versions it runs (cited_lines.version_lines).

Names and wordings are invented: a broker API timing out on a pricing service, a gRPC gateway's
deadline exceeded calling a tariff service, a fare search started with a new HTTP client library.
"""

import pytest

from reasoning import layers
from reasoning.layered import cited_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.slow_callee import slow_callee
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="brokers see no prices",
    service="broker portal",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)
_SLOW = ("p99_latency_s", "p99 latency 3.2 s since 10:05")
_ERRORS = ("error_ratio", "error ratio 6.0% since 10:05")


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="a",
        server="metrics-mcp" if tool == "service_health" else "logs-mcp",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
        text="",
    )


def _health(span, service, *findings):
    return _obs(
        span,
        "service_health",
        {"service": service},
        {
            "verdict": "degraded" if findings else "healthy",
            "summary": "; ".join(d for _, d in findings) or "healthy",
            "findings": [
                {"signal": s, "severity": "warning", "detail": d} for s, d in findings
            ],
        },
    )


def _errors(span, service, *samples, before=0):
    return _obs(
        span,
        "top_errors",
        {"service": service},
        {
            "top": [
                {
                    "signature": s,
                    "sample": s,
                    "count": 40,
                    "first_seen": "2030-01-01T10:06:00Z",
                    "before": before,
                }
                for s in samples
            ],
            "warnings": [],
        },
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.slow-callee")
@pytest.mark.parametrize(
    "said",
    [
        "GET /brokers/v1/prices 504: pricing did not answer within 1500ms",
        "rpc error: code = DeadlineExceeded desc = deadline exceeded calling pricing",
        "POST /price failed: timeout waiting for http://pricing:8080/v2/price",
    ],
)
def test_a_quiet_slow_service_its_callers_time_out_on_is_a_lead(said):
    board = _board(
        _health("h1", "pricing", _SLOW),
        _errors("e1", "pricing"),
        _errors("e2", "broker-api", said),
    )
    slow_callee(board)
    c = board.candidates[f"{layers.APPLICATION}:pricing"]
    assert c.status == "likely" and c.confidence == pytest.approx(0.6)
    assert {e.span_id for e in c.evidence} == {"e2", "h1"}


@pytest.mark.rule("board.slow-callee")
def test_a_failing_or_fast_or_unnamed_or_stale_callee_is_not_a_slow_callee_lead():
    said = "GET /prices 504: pricing did not answer within 1500ms"
    cases = [
        # it fails by itself (errors of its own): the application rule's to judge
        (_health("h1", "pricing", _SLOW), _errors("e1", "pricing", "boom"), said, 0),
        # it logs a warning of its own: the warning rules judge it
        (
            _health("h1", "pricing", _SLOW),
            _obs(
                "e1",
                "top_errors",
                {"service": "pricing"},
                {
                    "top": [],
                    "warnings": [{"signature": "w", "sample": "w", "count": 3}],
                },
            ),
            said,
            0,
        ),
        # its latency did not rise
        (_health("h1", "pricing"), _errors("e1", "pricing"), said, 0),
        # the callers name another service
        (
            _health("h1", "pricing", _SLOW),
            _errors("e1", "pricing"),
            "tariffs did not answer",
            0,
        ),
        # the callers' timeouts are old (in the baseline hour too)
        (_health("h1", "pricing", _SLOW), _errors("e1", "pricing"), said, 30),
        # it answers 5xx too: not merely slow
        (_health("h1", "pricing", _SLOW, _ERRORS), _errors("e1", "pricing"), said, 0),
    ]
    for health, own, line, before in cases:
        board = _board(health, own, _errors("e2", "broker-api", line, before=before))
        slow_callee(board)
        assert f"{layers.APPLICATION}:pricing" not in board.candidates


@pytest.mark.rule("board.cited-lines")
def test_a_quiet_slow_service_reads_and_cites_the_line_naming_the_versions_it_runs():
    board = _board(_health("h1", "fare-search", _SLOW), _errors("e1", "fare-search"))
    c = board.get(layers.APPLICATION, "fare-search", "fare-search is slow")
    c.confidence = 0.6

    def asked():
        return [
            args
            for _, args in cited_lines.reads(
                board, lambda tool, args, why: (tool, args), {}, every_service=False
            )
            if args.get("query") == cited_lines._VERSION_QUERY
        ]

    assert len(asked()) == 1
    search = _obs(
        "s1",
        "search_logs",
        {"service": "fare-search", "query": cited_lines._VERSION_QUERY},
        {
            "lines": [
                {
                    "service": "fare-search",
                    "time": "2030-01-01T09:59:20Z",
                    "message": "fare-search 12.1.0 started: fx-client 5.0.0 pool=none keepalive=false",
                },
                {
                    "service": "fare-search",
                    "time": "2030-01-01T10:10:00Z",
                    "message": "cache 1.2.3.4 miss ratio 0.2",
                },
            ]
        },
    )
    board.inv.observations.append(search)
    assert asked() == []
    cited_lines.cite_specific(board)
    assert any("fx-client 5.0.0" in e.fact for e in c.evidence if e.span_id == "s1")


@pytest.mark.rule("board.slow-callee")
@pytest.mark.parametrize(
    ("at", "confirmed"),
    [("2030-01-01T10:04:10Z", True), ("2030-01-01T08:00:00Z", False)],
)
def test_its_own_release_just_before_its_callers_first_timeout_confirms_it(
    at, confirmed
):
    release = _obs(
        "s1",
        "search_logs",
        {"service": "pricing", "query": "x"},
        {
            "lines": [
                {
                    "service": "pricing",
                    "time": at,
                    "level": "info",
                    "message": "pricing 4.1.0 started: http-client 2.0.0 keepalive=off",
                }
            ]
        },
    )
    board = _board(
        _health("h1", "pricing", _SLOW),
        _errors("e1", "pricing"),
        _errors("e2", "broker-api", "GET /p 504: pricing did not answer within 900ms"),
        release,
    )
    slow_callee(board)
    c = board.candidates[f"{layers.APPLICATION}:pricing"]
    assert (c.status == "confirmed") is confirmed
    assert ("s1" in {e.span_id for e in c.evidence}) is confirmed
