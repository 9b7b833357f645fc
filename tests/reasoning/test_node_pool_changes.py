"""A workload that loses its node's instance-metadata credentials after its node group changed is
that group's platform fault (`node_pool_changes`). Names and wordings invented."""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.node_pool_changes import QUERY, node_pool_changes, searches
from reasoning.observations import IncidentBrief, Investigation, Observation

IMDS_FAIL = (
    "sync failed: get credentials: failed to refresh cached credentials, no EC2 IMDS role "
    "found, operation error ec2imds: GetMetadata, context deadline exceeded"
)
CHANGE = (
    "UpdateNodegroupVersion cluster=blue nodegroup=pool-batch-7 launchTemplate=lt-0abc "
    "version 3 (MetadataOptions HttpPutResponseHopLimit=1)"
)


def _inv(failure, change_lines):
    errors = Observation(
        "1" * 16,
        "logs",
        "logs",
        "top_errors",
        {"service": "ledger-sync"},
        True,
        result={
            "service": "ledger-sync",
            "error_lines": 40,
            "patterns": 1,
            "warnings": [],
            "top": [
                {
                    "signature": failure,
                    "sample": failure,
                    "count": 40,
                    "first_seen": "2026-03-02T10:00:00Z",
                    "before": 0,
                }
            ],
        },
    )
    search = Observation(
        "2" * 16,
        "logs",
        "logs",
        "search_logs",
        {"query": QUERY, "regex": True},
        True,
        result={
            "lines": [
                {"time": t, "level": "info", "message": m, "service": "audit"}
                for t, m in change_lines
            ]
        },
    )
    incident = IncidentBrief(
        title="ledger exports missing", service="ledger", severity="sev2", symptoms=()
    )
    return Investigation(incident=incident, tools=[], observations=[errors, search])


def _board(failure, change_lines):
    inv = _inv(failure, change_lines)
    facts = Facts.read(inv.observations)
    board = Board(inv, facts)
    board.get(layers.APPLICATION, "ledger-sync", "ledger-sync fails").confidence = 0.8
    node_pool_changes(board)
    return board, facts


@pytest.mark.rule("board.node-pool-change")
def test_credentials_lost_after_a_node_group_change_blame_the_group():
    board, facts = _board(IMDS_FAIL, [("2026-03-02T09:40:00Z", CHANGE)])

    group = board.candidates["platform:pool-batch-7"]
    assert group.status == "confirmed"
    assert any("no EC2 IMDS role found" in e.fact for e in group.evidence)
    assert any("UpdateNodegroupVersion" in e.fact for e in group.evidence)
    assert board.candidates["application:ledger-sync"].confidence <= 0.4
    asked = searches(
        facts, lambda tool, args, why: (tool, args), {"end": "2026-03-02T11:00:00Z"}
    )
    assert asked and asked[0][1]["query"] == QUERY


@pytest.mark.rule("board.node-pool-change")
def test_no_change_a_stale_change_or_another_failure_blames_no_group():
    no_change, _ = _board(IMDS_FAIL, [])
    stale, _ = _board(IMDS_FAIL, [("2026-03-01T20:00:00Z", CHANGE)])
    other, facts = _board(
        "sync failed: permission denied on ledger/2026",
        [("2026-03-02T09:40:00Z", CHANGE)],
    )

    for board in (no_change, stale, other):
        assert not any(c.layer == layers.PLATFORM for c in board.candidates.values())
    assert searches(facts, lambda *a: a, {"end": "2026-03-02T11:00:00Z"}) == []


@pytest.mark.timeout(60)
@pytest.mark.rule("board.node-pool-change")
def test_huge_and_malformed_lines_are_read_in_bounded_time():
    huge = "nodegroup=" + "x" * 2_000_000 + " updated"
    board, _ = _board(
        IMDS_FAIL + " " + "(" * 500_000,
        [
            ("2026-03-02T09:40:00Z", huge),
            ("not a time", CHANGE),
            ("", "\x00" * 100_000),
        ],
    )

    assert all(len(c) < 200 for c in board.candidates)
