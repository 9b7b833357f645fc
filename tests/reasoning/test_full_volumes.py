"""A workload out of space on its own claim is the full volume's platform fault (`full_volumes`).
Names and wordings invented."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.full_volumes import full_volumes
from reasoning.observations import Observation
from tests.reasoning.kubernetes.test_infrastructure import (
    events,
    investigation,
    listing,
    pods,
)

NS = "queues"
FULL = "write /var/lib/spool/seg-0042.log: no space left on device"
PVC_HEADER = (
    "NAME",
    "STATUS",
    "VOLUME",
    "CAPACITY",
    "ACCESS MODES",
    "STORAGECLASS",
    "AGE",
)
LOGS = Observation("1" * 16, "logs", "logs", "top_errors", {}, True)


def _board(line, *, claims=("spool-relayq-0", "spool-relayq-1"), event_rows=()):
    inv = investigation(
        pods(
            NS,
            ("relayq-0", "1/1", "Running", "0", "n-1", "app=relayq"),
            ("relayq-1", "1/1", "Running", "0", "n-2", "app=relayq"),
        ),
        listing("statefulsets", NS, ("NAME", "READY", "AGE"), ("relayq", "2/2", "40d")),
        listing(
            "persistentvolumeclaims",
            NS,
            PVC_HEADER,
            *((c, "Bound", f"pv-{c}", "5Gi", "RWO", "std", "40d") for c in claims),
        ),
        events(NS, *event_rows),
        service="relayq",
    )
    facts = Facts.read(inv.observations)
    board = Board(inv, facts)
    board.cluster = kubernetes.diagnosis(inv, facts)
    c = board.get(layers.APPLICATION, "relayq", "relayq blocks every client")
    c.confidence = 0.8
    c.cite(LOGS, f"top_errors(relayq): 90 lines: {line}")
    return board


@pytest.mark.rule("board.full-volume")
def test_a_workload_out_of_space_on_its_claim_is_the_volumes_platform_fault():
    board = _board(
        FULL,
        event_rows=[
            (
                "Warning",
                "VolumeUsageHigh",
                "PersistentVolumeClaim/spool-relayq-1",
                "usage 99%",
            )
        ],
    )

    full_volumes(board)

    c = board.candidates["platform:relayq"]
    assert "persistentvolumeclaim/spool-relayq-1" in c.statement
    assert any("spool-relayq-1" in e.fact for e in c.evidence)
    assert "application:relayq" not in board.candidates


@pytest.mark.rule("board.full-volume")
def test_no_claim_of_its_pods_or_another_error_leaves_the_workload_as_it_is():
    no_claim = _board(FULL, claims=("cache-other-0",))
    other_error = _board("write /var/lib/spool/seg-0042.log: permission denied")

    for board in (no_claim, other_error):
        full_volumes(board)
        assert "application:relayq" in board.candidates
        assert "platform:relayq" not in board.candidates


@pytest.mark.timeout(60)
@pytest.mark.rule("board.full-volume")
def test_a_huge_malformed_line_is_read_in_bounded_time():
    board = _board("\x00" * 500_000 + "(" * 500_000 + FULL)

    full_volumes(board)

    assert "application:relayq" in board.candidates
