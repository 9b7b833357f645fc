"""Issue 21 class 6: a connect-layer fault cites the packet filter's own line that blocked the
connection, not only its callers' timeouts (reasoning/layered/filter_lines.py).

Names and wordings are invented: an nftables and an iptables drop on a queue host; near misses: a
block line of an unrelated host among several, a leading hypothesis of another layer.
"""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.filter_lines import filter_lines, is_block_line
from reasoning.observations import IncidentBrief, Investigation, Observation

_BRIEF = IncidentBrief(
    title="orders stuck in pending",
    service="orders",
    severity="sev2",
    symptoms=(),
    window_start="2030-01-01T10:00:00Z",
    window_end="2030-01-01T11:00:00Z",
)
NFT_DROP = (
    "[NFT DROP] IN=eth1 OUT= SRC=10.4.2.7 DST=10.4.9.12 PROTO=TCP SPT=50122 DPT=6380"
)
IPT_DROP = "iptables DROP IN=eth0 SRC=10.4.2.8 DST=10.4.7.3 PROTO=TCP DPT=9092"


def _warnings(service, *samples):
    return Observation(
        span_id=f"w-{service}",
        agent="a",
        server="logs-mcp",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={
            "top": [],
            "warnings": [{"sample": s, "signature": s, "count": 9} for s in samples],
        },
        text="",
    )


def _board(*observations, layer=layers.CONNECT, host="queue-b.internal"):
    inv = Investigation(incident=_BRIEF, tools=(), observations=list(observations))
    board = Board(inv, Facts.read(inv.observations))
    top = board.get(layer, host, f"{host} times out")
    top.confidence = 0.9
    return board, top


@pytest.mark.rule("board.filter-lines")
def test_the_hosts_own_filter_line_is_cited():
    board, top = _board(
        _warnings("queue-b-kernel", NFT_DROP), _warnings("edge-fw", IPT_DROP)
    )

    filter_lines(board)

    assert any("NFT DROP" in e.fact for e in top.evidence)
    assert not any("iptables" in e.fact for e in top.evidence)


@pytest.mark.rule("board.filter-lines")
def test_the_only_service_logging_blocks_is_cited_whatever_its_name():
    board, top = _board(_warnings("fw-agent", IPT_DROP))

    filter_lines(board)

    assert any("iptables DROP" in e.fact for e in top.evidence)


@pytest.mark.rule("board.filter-lines")
def test_no_citation_for_another_layer_or_unrelated_hosts():
    board, top = _board(_warnings("queue-b-kernel", NFT_DROP), layer=layers.HTTP)
    filter_lines(board)
    assert not top.evidence

    board, top = _board(_warnings("fw-one", NFT_DROP), _warnings("fw-two", IPT_DROP))
    filter_lines(board)
    assert not top.evidence


def test_block_lines_need_a_verdict_and_packet_fields():
    assert is_block_line(NFT_DROP) and is_block_line(IPT_DROP)
    assert not is_block_line("request DENIED by policy engine for user 4")
    assert not is_block_line("SRC=10.0.0.1 DST=10.0.0.2 accepted")


@pytest.mark.rule("board.filter-lines")
@pytest.mark.timeout(60)
def test_huge_and_malformed_answers_are_read_safely():
    huge = "[BLOCK " + "A" * 2_000_000 + "] DPT=1"
    malformed = Observation(
        span_id="bad",
        agent="a",
        server="logs-mcp",
        tool="search_logs",
        arguments={"query": "x"},
        is_ok=True,
        result={"lines": [None, "x", {"message": None}, {"message": huge * 2}]},
        text="",
    )
    board, top = _board(_warnings("queue-b-kernel", huge), malformed)

    filter_lines(board)

    assert all(len(e.fact) < 10_000 for e in top.evidence)
