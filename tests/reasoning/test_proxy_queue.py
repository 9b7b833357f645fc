"""A proxy answering 5xx from its own queue or connection limit while its servers are not slow
(reasoning/layered/proxy_queue.py).

Names and wordings are invented: an HAProxy in front of a catalogue service whose server lines
time out in the queue, an Envoy edge whose circuit breaker overflows (`UO`), a balancer saying its
queue is full; and the lines that are not a queue: a server refusing connections (`SC--`), a
normal 200.
"""

import re

import pytest

from reasoning import layers
from reasoning.layered import proxy_queue
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="catalogue pages fail",
    service="storefront",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


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
            "verdict": "unhealthy" if findings else "healthy",
            "summary": "; ".join(d for _, d in findings) or "healthy",
            "findings": [
                {"signal": s, "severity": "warning", "detail": d} for s, d in findings
            ],
        },
    )


def _errors(span, service):
    return _obs(span, "top_errors", {"service": service}, {"top": [], "warnings": []})


def _search(span, service, *messages):
    return _obs(
        span,
        "search_logs",
        {"service": service, "query": proxy_queue.STATUS_5XX_QUERY, "regex": True},
        {
            "lines": [
                {"service": service, "time": "2030-01-01T10:10:00Z", "message": m}
                for m in messages
            ]
        },
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


_ERRORS = ("error_ratio", "error ratio 12.0% since 10:05")
_SLOW = ("p99_latency_s", "p99 latency 4.1 s since 10:05")
_QUEUED = [
    "gw-2 haproxy[90]: 10.1.2.3:4411 [01/Jan/2030:10:10:00.001] web~ bk_cat/cat1 "
    '0/5000/-1/-1/5000 503 212 - - sQ-- 300/290/64/16/0 0/40 "GET /c/9 HTTP/1.1"',
    '[2030-01-01T10:10:00.000Z] "GET /c/9 HTTP/1.1" 503 UO 0 81 0 - "10.1.2.3" '
    '"okhttp/4" "c1" "catalogue:8080" "-"',
    "upstream catalogue: queue full (max 16 pending), answered 503 to GET /c/9",
]


@pytest.mark.rule("board.proxy-queue")
@pytest.mark.parametrize("line", _QUEUED)
def test_a_proxy_answering_503_from_its_queue_is_the_http_fault(line):
    board = _board(
        _health("h1", "front-lb", _ERRORS),
        _errors("e1", "front-lb"),
        _search("s1", "front-lb", "GET /c/1 200 12ms", line),
        _health("h2", "catalogue"),
    )
    app = board.get(layers.APPLICATION, "front-lb", "front-lb fails")
    app.confidence, app.status = 0.5, "likely"
    proxy_queue.proxy_queue(board)
    c = board.candidates[f"{layers.HTTP}:front-lb"]
    assert c.status == "confirmed" and c.confidence > 0.8
    assert {e.span_id for e in c.evidence} == {"s1", "h1"}
    assert app.confidence <= 0.4


@pytest.mark.rule("board.proxy-queue")
@pytest.mark.parametrize(
    "line",
    [
        "gw-2 haproxy[90]: 10.1.2.3:4411 [01/Jan/2030:10:10:00.001] web~ bk_cat/cat1 "
        '0/0/-1/-1/2 503 212 - - SC-- 3/2/1/1/0 0/0 "GET /c/9 HTTP/1.1"',
        "GET /c/9 200 41ms maxconn=64",
        "GET /c/9 503 upstream connect error (connection refused)",
    ],
)
def test_a_server_refusing_or_a_200_is_no_queue_of_the_proxy(line):
    board = _board(
        _health("h1", "front-lb", _ERRORS),
        _search("s1", "front-lb", line),
    )
    proxy_queue.proxy_queue(board)
    assert f"{layers.HTTP}:front-lb" not in board.candidates


@pytest.mark.rule("board.proxy-queue")
def test_with_a_slow_server_read_or_no_metrics_the_queue_is_only_a_lead():
    for extra in ([_health("h2", "catalogue", _SLOW)], []):
        health = [_health("h1", "front-lb", _ERRORS)] if extra else []
        board = _board(*health, *extra, _search("s1", "front-lb", _QUEUED[0]))
        proxy_queue.proxy_queue(board)
        c = board.candidates[f"{layers.HTTP}:front-lb"]
        assert c.status == "likely" and c.confidence <= 0.5


@pytest.mark.rule("board.proxy-queue")
def test_a_service_with_a_5xx_ratio_and_no_error_line_gets_one_read_of_its_5xx_lines():
    board = _board(
        _health("h1", "front-lb", _ERRORS),
        _errors("e1", "front-lb"),
        _health("h3", "catalogue", _ERRORS),
        _obs(
            "e3",
            "top_errors",
            {"service": "catalogue"},
            {"top": [{"signature": "boom", "sample": "boom", "count": 3}]},
        ),
    )
    calls = proxy_queue.reads(
        board.facts, lambda tool, args, why: (tool, args), {"start": "s", "end": "e"}
    )
    assert len(calls) == 1
    tool, args = calls[0]
    assert tool == "search_logs" and args["service"] == "front-lb"
    query = re.compile(args["query"])
    assert query.search("bk/c1 0/5000/-1/-1/5000 503 212 - - sQ--")
    assert query.search("GET /x 502 bad gateway")
    assert not query.search("took 5031ms")
    assert not query.search("10.0.3.503:80")


@pytest.mark.rule("board.proxy-queue")
@pytest.mark.timeout(60)
def test_long_proxy_lines_stay_linear():
    hostile = " 503 " + "sQ" * 100000 + " " + "UO " * 30000
    board = _board(
        _health("h1", "front-lb", _ERRORS), _search("s1", "front-lb", hostile)
    )
    proxy_queue.proxy_queue(board)
    assert f"{layers.HTTP}:front-lb" not in board.candidates
