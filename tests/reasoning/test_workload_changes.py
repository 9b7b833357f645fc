"""A hypothesis about a Kubernetes workload cites the change record its object carries
(`workload_changes`). Names and wordings invented."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.workload_changes import reads, workload_changes
from tests.reasoning.kubernetes.test_infrastructure import (
    deployments,
    describe,
    investigation,
)

NS = "shop"


def _described(annotations):
    return describe(
        "deployment",
        NS,
        "quote-api",
        "Name:                   quote-api\n"
        f"Namespace:              {NS}\n"
        "Labels:                 app=quote-api\n"
        f"Annotations:            {annotations}\n"
        "Selector:               app=quote-api\n"
        "Replicas:               4 desired | 4 updated | 4 total | 4 available\n",
    )


def _board(*observations):
    inv = investigation(deployments(NS, ("quote-api", "4/4")), *observations)
    facts = Facts.read(inv.observations)
    board = Board(inv, facts)
    board.cluster = kubernetes.diagnosis(inv, facts)
    c = board.get(layers.APPLICATION, "quote-api", "quote-api is slow")
    c.confidence = 0.8
    return board, c


@pytest.mark.rule("board.workload-change-record")
def test_the_blamed_workloads_change_record_is_asked_for_and_cited():
    board, c = _board()
    asked = reads(board, lambda tool, args, why: (tool, args))
    assert asked == [
        ("describe", {"kind": "deployment", "name": "quote-api", "namespace": NS})
    ]

    board, c = _board(
        _described(
            "deployment.kubernetes.io/revision: 12\n"
            "                        kubernetes.io/change-cause: ticket 88 limits.memory 1Gi -> 256Mi"
        )
    )
    workload_changes(board)

    assert any("limits.memory 1Gi -> 256Mi" in e.fact for e in c.evidence)
    assert "limits.memory" in c.keywords
    assert reads(board, lambda *a: a) == []


@pytest.mark.rule("board.workload-change-record")
def test_annotations_without_a_before_and_after_are_not_cited():
    board, c = _board(
        _described(
            "deployment.kubernetes.io/revision: 12\n"
            "                        checksum/config: 9f2c1e"
        )
    )
    workload_changes(board)

    assert not any(e.tool == "describe" for e in c.evidence)


@pytest.mark.timeout(60)
@pytest.mark.rule("board.workload-change-record")
def test_a_huge_malformed_describe_is_read_in_bounded_time():
    board, c = _board(_described("a/b: " + "x -> " * 400_000 + "\x00" * 100_000))
    workload_changes(board)

    assert all(len(e.fact) < 2000 for e in c.evidence)
