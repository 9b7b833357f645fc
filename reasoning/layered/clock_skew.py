"""A node's clock off (issue 21 class 4): requests refused as skewed blame the node the failing pods run on.

A signed request (S3's `RequestTimeTooSkewed`, a token `used before issued`, a certificate `not yet
valid`, a Kerberos `clock skew too great`) fails when the sender's clock is wrong, and a pod has the
clock of its node. When only some replicas fail that way, the rules that compare replicas blame
the pod; the fault is its node's clock, which a time daemon's lines (chrony `Can't synchronise`,
`no selectable sources`, ntpd with no server reachable, `System clock synchronized: no`) confirm.
The pods' and services' hypotheses built on the skew errors are explained by the node.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Errors
from reasoning.layered.host_facts import SKEWED, UNSYNCED
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import short

CONFIRMED: Final = 0.95  # a skewed pod's node, its time daemon saying it cannot sync
SKEWED_NODE: Final = 0.93  # a skewed pod's node, no time daemon's line read


def _skew_groups(board: Board, pattern: re.Pattern[str]) -> list[tuple[Errors, str]]:
    found: list[tuple[Errors, str]] = []
    for errors in board.facts.errors.values():
        for g in (*errors.groups, *errors.warnings):
            if pattern.search(g.text[:4000]):
                found.append((errors, errors.fact(g)))
    return found


def _skewed_pods(board: Board) -> list[Candidate]:
    return [
        c
        for c in board.candidates.values()
        if c.component.startswith("pod/")
        and c.status != "ruled_out"
        and any(SKEWED.search(e.fact[:4000]) for e in c.evidence)
    ]


def clock_skew(board: Board) -> None:
    """Requests refused as clock-skewed (RequestTimeTooSkewed, token used before issued) from pods of one node blame that node's clock, confirmed by its time daemon failing to synchronise; the pods and services failing so are explained by it."""
    skews = _skew_groups(board, SKEWED)
    pods = _skewed_pods(board)
    if not skews or not pods:
        return
    cluster = (
        board.cluster.cluster if board.cluster else Cluster.read(board.inv.observations)
    )
    names = {c.component.split("/", 1)[1] for c in pods}
    nodes: list[str] = []
    for table_key in list(cluster.tables):
        if table_key[0] != "pods":
            continue
        for pod in cluster.pods(table_key[1]):
            if pod.name in names and pod.node and pod.node not in nodes:
                nodes.append(pod.node)
    if len(nodes) != 1:
        return
    node = nodes[0]
    unsynced = _skew_groups(board, UNSYNCED)
    c = board.get(
        layers.PLATFORM,
        f"node/{node}",
        f"node {node}'s clock is off: the pods on it sign requests refused as skewed"
        + (
            f" and its time daemon says {short(unsynced[0][1], 100)}"
            if unsynced
            else ""
        ),
    )
    for errors, fact in (*unsynced[:2], *skews[:1]):
        c.cite(errors.obs, fact)
    c.confidence = max(c.confidence, CONFIRMED if unsynced else SKEWED_NODE)
    c.keywords += [k for k in ("clock", "ntp", "chrony", "skew") if k not in c.keywords]
    skewed_services = {errors.service for errors, _ in skews}
    for other in list(board.candidates.values()):
        if other is c:
            continue
        if other in pods or (
            other.layer == layers.APPLICATION and other.component in skewed_services
        ):
            other.explained_by(c, f"its requests are refused as skewed ({c.id})")
