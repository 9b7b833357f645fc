"""A workload that fails because its own volume is full (issue 21 class 4): the full volume is a platform fault, not the workload's code.

When a hypothesis blames a workload whose own cited lines say its writes fail for lack of space
(`no space left on device`, ENOSPC, `filled its storage volume`, `disk full`) and the cluster's
answers show a PersistentVolumeClaim its pods mount (a StatefulSet's claim `<template>-<pod>`, or a
claim a warning event of the namespace names while the workload is failing), the fault sits in
the volume: its size, a storage class that cannot grow it, or what fills it. The hypothesis moves
to the platform layer, keeps the workload's name (what the logs and the incident know) and cites
the claim and the event that says it is full. A workload out of space with no claim in view (a
node's or a VM's disk) is left to the rules of hosts (`host_exhaustion`).
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import short

DISK_FULL: Final = re.compile(
    r"no space left on device|\bENOSPC\b|\berrno[ =:]{0,3}28\b|disk (?:is )?full|"
    r"filled (?:its|the) (?:storage|disk|volume)|volume (?:is )?full",
    re.IGNORECASE,
)
_FACT_CHARS: Final = 4000  # a cited fact is short; the match is near its start


def _is_out_of_space(c: Candidate) -> bool:
    return any(DISK_FULL.search(e.fact[:_FACT_CHARS]) for e in c.evidence)


def _claims(cluster: Cluster, workload: str) -> list[tuple[str, str]]:
    """(namespace, claim) of the workload's pods: claims named `<template>-<pod>` for one of its pods."""
    found: list[tuple[str, str]] = []
    for ns in {ns for (_, ns) in cluster.tables}:
        pods = [
            p.name
            for p in cluster.pods(ns)
            if cluster.owner(ns, "pod", p.name).split("/")[-1] == workload
        ]
        if not pods:
            continue
        for claim in cluster.names("persistentvolumeclaims", ns):
            if any(claim.endswith(f"-{pod}") for pod in pods):
                found.append((ns, claim))
    return found


def full_volumes(board: Board) -> None:
    """A hypothesis blaming a workload whose cited lines say it is out of space, when the cluster shows a claim its pods mount, is the full volume's platform fault."""
    if board.cluster is None:
        return
    cluster = board.cluster.cluster
    moved: dict[str, Candidate] = {}
    for key, c in board.candidates.items():
        if (
            c.layer != layers.APPLICATION
            or c.status == "ruled_out"
            or not _is_out_of_space(c)
        ):
            moved[key] = c
            continue
        claims = _claims(cluster, c.component)
        if not claims:
            moved[key] = c
            continue
        warned = [
            (ns, e)
            for ns, claim in claims
            for e in cluster.warnings(ns)
            if e.kind == "persistentvolumeclaim" and e.name == claim
        ]
        ns, claim = (warned[0][0], warned[0][1].name) if warned else sorted(claims)[0]
        table = cluster.table("persistentvolumeclaims", ns)
        if table is not None:
            c.cite(table.obs, f"get persistentvolumeclaims: {table.line(claim)}")
        if warned:
            c.cite(warned[0][1].obs, short(warned[0][1].fact, 300))
        c.layer = layers.PLATFORM
        c.keywords = [*c.keywords, claim, "volume full", "persistentvolumeclaim"]
        c.statement += (
            f"; its volume persistentvolumeclaim/{claim} is full: the platform's fault "
            "(the claim's size, a class that cannot grow it, or what fills it)"
        )
        c.chain.append(f"{c.component} writes to persistentvolumeclaim/{claim}: full")
        moved.setdefault(c.id, c)
    board.candidates = moved
