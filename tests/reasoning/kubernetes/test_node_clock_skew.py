"""A node's clock off (`clock_skew`): requests refused as skewed from the pods of one node blame that
node, confirmed by its time daemon. Names and wordings invented."""

import pytest

from reasoning.layered.candidates import Board
from reasoning.layered.clock_skew import SKEWED, UNSYNCED, clock_skew
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation
from reasoning.report import Evidence

from .answers import listing

POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
SKEW = "upload 77 failed: SignatureDoesNotMatch: RequestTimeTooSkewed: request time too skewed"
TOKEN = "login refused: JWT not valid yet (iat 12:04:10 is after now 11:51:02)"
CHRONY = "chronyd[412]: Can't synchronise: no selectable sources"
NTPD = "ntpd[88]: no servers reachable"


def _errors(service, message, span, *, warning=False):
    group = {
        "signature": message,
        "sample": message,
        "count": 12,
        "first_seen": "2031-05-04T09:05:00Z",
        "before": 0,
    }
    return Observation(
        span_id=span,
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={
            "service": service,
            "top": [] if warning else [group],
            "warnings": [group] if warning else [],
        },
        text="",
    )


def _board(failing, daemon_line):
    pods = listing(
        "pods",
        POD_HEADER,
        (
            "vault-ui-7d-a1",
            "1/1",
            "Running",
            "0",
            "2h",
            "10.9.0.1",
            "rack3-n07",
            "app=vault-ui",
        ),
        (
            "vault-ui-7d-b2",
            "1/1",
            "Running",
            "0",
            "2h",
            "10.9.0.2",
            "rack1-n02",
            "app=vault-ui",
        ),
    )
    observations = [pods, _errors("vault-ui", failing, "e1")]
    if daemon_line:
        observations.append(_errors("timesyncd", daemon_line, "e2", warning=True))
    incident = IncidentBrief(
        title="uploads fail for some users",
        service="vault-ui",
        severity="sev2",
        symptoms=(),
        window_start="2031-05-04T09:00:00Z",
        window_end="2031-05-04T09:40:00Z",
    )
    inv = Investigation(incident=incident, tools=[], observations=observations)
    board = Board(inv, Facts.read(inv.observations))
    pod = board.get("application", "pod/vault-ui-7d-a1", "pod vault-ui-7d-a1 fails")
    pod.confidence = 0.92
    pod.evidence.append(Evidence("e1", "logs", "top_errors", f"logs: {failing}"))
    return board


@pytest.mark.rule("board.clock-skew")
@pytest.mark.parametrize(
    ("failing", "daemon"), [(SKEW, CHRONY), (TOKEN, NTPD), (SKEW, None)]
)
def test_skewed_requests_from_one_nodes_pod_blame_that_node(failing, daemon):
    board = _board(failing, daemon)
    clock_skew(board)

    node = board.candidates["platform:node/rack3-n07"]
    assert (
        node.confidence > board.candidates["application:pod/vault-ui-7d-a1"].confidence
    )
    if daemon:
        assert any(daemon in e.fact for e in node.evidence)


@pytest.mark.rule("board.clock-skew")
def test_a_pod_failing_for_another_reason_blames_no_node():
    board = _board("upload 77 failed: AccessDenied", CHRONY)
    clock_skew(board)

    assert not any(k.startswith("platform:node/") for k in board.candidates)


def test_clock_wordings():
    for line in (
        SKEW,
        TOKEN,
        "kinit: Clock skew too great while getting initial credentials",
    ):
        assert SKEWED.search(line), line
    for line in (CHRONY, NTPD, "System clock synchronized: no"):
        assert UNSYNCED.search(line), line
    assert not SKEWED.search("p99 skewed by one slow shard")
    assert not UNSYNCED.search("replica synchronised with primary")


@pytest.mark.timeout(60)
def test_huge_lines_are_read_in_bounded_time():
    text = "clock " * 40000 + "not " * 20000 + "x" * 100000
    SKEWED.search(text[:4000])
    UNSYNCED.search(text[:4000])
