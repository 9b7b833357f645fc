"""Issue 21: a back end answering that its own ceiling is spent is the application-level cause
(reasoning/layered/backend_ceiling.py).

Names and wordings are invented: a search cluster out of shards, a document store out of fields, a
database out of connections; near misses: a rate limit, a refusal of credentials, a plain 500.
"""

import pytest

from reasoning import layers
from reasoning.layered.backend_ceiling import backend_ceiling
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="reports are empty",
    service="reports",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _lines(service, *samples):
    return Observation(
        span_id=f"e-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={"top": [{"sample": s, "signature": s, "count": 9} for s in samples]},
        text="",
    )


def _probe(url, status, body):
    return Observation(
        span_id=f"p-{url}",
        agent="a",
        server="netcheck",
        tool="probe_url",
        arguments={"url": url},
        is_ok=True,
        result={
            "url": url,
            "status": status,
            "failed_layer": "http",
            "reason": f"http_{status}",
            "evidence": [],
            "http": {"status": status, "body_excerpt": body},
        },
        text="",
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


@pytest.mark.rule("board.backend-ceiling")
@pytest.mark.parametrize(
    ("url", "status", "body", "backend"),
    [
        (
            "http://search-main.corp.example/events-2030.01.01",
            400,
            '{"error":{"reason":"this action would add [4] shards, but this cluster currently has [2000]/[2000] maximum shards open"}}',
            "search-main",
        ),
        (
            "http://docstore.corp.example/items/_mapping",
            400,
            '{"error":"Limit of total fields [1000] has been exceeded while adding new fields"}',
            "docstore",
        ),
        (
            "http://events-bus.corp.example/topics/orders-v9",
            400,
            '{"error_code":40002,"message":"too many partitions: maximum number of partitions exceeded"}',
            "events-bus",
        ),
    ],
)
def test_a_back_end_answering_its_own_ceiling_is_the_cause(url, status, body, backend):
    board = _board(
        _probe(url, status, body),
        _lines("ingest-writer", f"write failed: {status} {body}"),
    )
    host = url.split("/")[2]
    http = board.get(layers.HTTP, host, f"{host} answers {status}")
    http.status, http.confidence = "likely", 0.55
    writer = board.get(layers.APPLICATION, "ingest-writer", "writer fails")
    writer.status, writer.confidence = "confirmed", 0.7
    backend_ceiling(board)
    c = board.candidates[f"{layers.APPLICATION}:{backend}"]
    assert c.status == "confirmed" and c.confidence >= 0.88
    assert f"p-{url}" in {e.span_id for e in c.evidence}
    assert "e-ingest-writer" in {e.span_id for e in c.evidence}
    assert http.status == "ruled_out" and writer.confidence <= 0.4


@pytest.mark.rule("board.backend-ceiling")
@pytest.mark.parametrize(
    ("status", "body"),
    [
        (429, "too many requests: rate limit of 600 per minute exceeded"),
        (400, "quota: rate limit exceeded for maximum requests per second"),
        (403, "maximum sessions reached for this key"),
        (500, "internal server error"),
        (503, "QueuePool limit of size 20 overflow 0 reached"),
    ],
)
def test_rate_limits_refusals_and_plain_errors_are_no_ceiling(status, body):
    board = _board(_probe("http://api.corp.example/x", status, body))
    backend_ceiling(board)
    assert board.candidates == {}


@pytest.mark.rule("board.backend-ceiling")
@pytest.mark.timeout(60)
def test_long_bodies_stay_linear():
    body = "maximum limit would add " * 9000
    board = _board(
        _probe("http://api.corp.example/x", 400, body), _lines("a", "x" * 200000)
    )
    backend_ceiling(board)
