"""Issue 21 class 6: the right component, named conclusively, cites the line that carries its fault
(reasoning/layered/cited_lines.py).

Names and wordings are invented: an arm64 image whose binary is `exec format error` on amd64 nodes,
an entrypoint missing from the image, a 90 MB rules blob read at each poll, a certificate renewed
against a wrong CA URL.
"""

from functools import partial

import pytest

from reasoning import layers
from reasoning.layered import cited_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="renders stuck",
    service="render farm",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)


def _obs(span, tool, arguments, *, text="", result=None):
    return Observation(
        span_id=span,
        agent="a",
        server="kube-mcp" if tool in ("describe", "events") else "logs-mcp",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
        text=text,
    )


def _board(*observations):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    return Board(inv, Facts.read(inv.observations))


def _lines(service, *rows):
    return {
        "lines": [
            {"service": service, "time": t, "level": "info", "message": m}
            for t, m in rows
        ]
    }


def _cited(c):
    return {e.span_id for e in c.evidence}


@pytest.mark.rule("board.cited-lines")
def test_a_workload_cites_its_containers_exec_format_error_from_describe():
    describe = _obs(
        "d1",
        "describe",
        {"kind": "pod", "name": "framer-7c9d-x2k4p", "namespace": "render"},
        text=(
            "Name: framer-7c9d-x2k4p\n    Last State:     Terminated\n"
            "      Reason:       StartError\n"
            "      Message:      exec /usr/local/bin/framer: exec format error\n"
            "      Exit Code:    1\n"
        ),
    )
    events = _obs(
        "e1",
        "events",
        {"namespace": "render"},
        text="2m Normal Scheduled pod/ledger-5f 	Successfully assigned\n",
    )
    board = _board(events, describe)
    c = board.get(layers.APPLICATION, "framer", "framer crash loops")
    c.confidence, c.status = 0.8, "confirmed"
    other = board.get(layers.APPLICATION, "ledger", "ledger slow")
    other.confidence = 0.3
    cited_lines.cite_specific(board)
    assert _cited(c) == {"d1"}
    assert "exec format error" in c.evidence[0].fact
    assert not other.evidence  # only the leading hypothesis cites


@pytest.mark.rule("board.cited-lines")
def test_a_missing_entrypoint_in_the_events_is_cited_and_no_second_read_is_asked():
    events = _obs(
        "e2",
        "events",
        {"namespace": "jobs"},
        text=(
            "3m Warning Failed pod/stitcher-66b-9qv Error: failed to create containerd task: "
            'exec: "/opt/run.sh": stat /opt/run.sh: no such file or directory: unknown\n'
        ),
    )
    board = _board(events)
    c = board.get(layers.APPLICATION, "deployment/stitcher", "stitcher does not start")
    c.confidence = 0.7
    cited_lines.cite_specific(board)
    assert _cited(c) == {"e2"}
    call = partial(lambda tool, args, why: (tool, args))
    assert list(cited_lines.reads(board, call, {}, every_service=True)) == []


@pytest.mark.rule("board.cited-lines")
def test_a_service_cites_the_size_that_first_appears_at_the_start_not_the_old_one():
    search = _obs(
        "s1",
        "search_logs",
        {"service": "quote-engine", "query": "x"},
        result=_lines(
            "quote-engine",
            ("2030-01-01T09:40:00Z", "loaded pricing rules blob (2.1 MB) from s3"),
            ("2030-01-01T10:05:00Z", "loaded pricing rules blob (90.4 MB) from s3"),
            ("2030-01-01T10:05:30Z", "loaded pricing rules blob (90.4 MB) from s3"),
        ),
    )
    board = _board(search)
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence = 0.78
    cited_lines.cite_specific(board)
    assert _cited(c) == {"s1"}
    assert "90.4 MB" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_with_nothing_specific_read_a_service_asks_one_read_of_its_sized_lines():
    board = _board()
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence = 0.78
    calls = list(
        cited_lines.reads(
            board,
            lambda tool, args, why: (tool, args),
            {"start": "s", "end": "e"},
            every_service=False,
        )
    )
    assert len(calls) == 1
    tool, args = calls[0]
    assert tool == "search_logs" and args["service"] == "quote-engine"
    assert args["regex"] is True and "[KMGT]i?B" in args["query"]


@pytest.mark.rule("board.cited-lines")
def test_a_tls_host_cites_its_renewal_against_a_wrong_ca_url_and_reads_it_once_when_unread():
    board = _board()
    c = board.get(layers.TLS, "shop.quillmark.io", "handshake fails: unknown authority")
    c.confidence = 0.9
    calls = list(
        cited_lines.reads(
            board, lambda tool, args, why: (tool, args), {}, every_service=True
        )
    )
    assert len(calls) == 1 and "shop\\.quillmark\\.io" in calls[0][1]["query"]
    renewal = _obs(
        "r1",
        "search_logs",
        {"query": "shop"},
        result=_lines(
            "ingress-traefik",
            (
                "2030-01-01T09:58:00Z",
                "client hello from 10.1.1.1 host=shop.quillmark.io",
            ),
            (
                "2030-01-01T09:59:00Z",
                "certificate for shop.quillmark.io renewed via ca_server "
                "https://ca.test-pki.quillmark.dev/acme/directory",
            ),
        ),
    )
    board = _board(renewal)
    c = board.get(layers.TLS, "shop.quillmark.io", "handshake fails: unknown authority")
    c.confidence = 0.9
    cited_lines.cite_specific(board)
    assert _cited(c) == {"r1"}
    assert "ca.test-pki.quillmark.dev" in c.evidence[0].fact


@pytest.mark.rule("board.cited-lines")
def test_a_ruled_out_hypothesis_cites_nothing_and_long_lines_stay_linear():
    hostile = "a" * 20000 + " MB /" + "b" * 20000
    search = _obs(
        "s9",
        "search_logs",
        {"service": "quote-engine", "query": "x"},
        result=_lines("quote-engine", ("2030-01-01T10:05:00Z", hostile)),
    )
    board = _board(search)
    c = board.get(layers.APPLICATION, "quote-engine", "quote-engine stalls")
    c.confidence, c.status = 0.9, "ruled_out"
    cited_lines.cite_specific(board)
    assert not c.evidence
