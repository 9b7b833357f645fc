"""Disruption budgets: a PodDisruptionBudget that allows no eviction holds up a node's drain.

Rule: a pod whose eviction the events show refused for its disruption budget (`EvictionBlocked`,
or "would violate the pod's disruption budget") is held by the PodDisruptionBudget that selects it
and allows 0 disruptions (its minAvailable equals the pods it counts, or some are unready): that
budget blocks the drain of the pod's node (an upgrade, a scale-in), and is the fault
(`EvictionBlocked`) — relevant when the pod's workload is on the incident's path, or when the
evidence shows the drain itself (the pod's node cordoned: `SchedulingDisabled` in the nodes list,
`Unschedulable: true` in its describe) and the incident's service is no workload of the
namespace (what fails is the drain, not a service). The incident's words decide nothing.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import (
    Event,
    describe_field,
    parse_labels,
    selects,
)
from reasoning.layered.kubernetes.path import Path

_BLOCKED = re.compile(r"disruption budget", re.IGNORECASE)
_ALLOWED = re.compile(r"^\s*Allowed disruptions:\s*(\d+)", re.MULTILINE)
_UNSCHEDULABLE = re.compile(
    r"^\s*Unschedulable:\s*true\b", re.MULTILINE | re.IGNORECASE
)


def blocked_evictions(cluster: Cluster, ns: str) -> list[Event]:
    """The namespace's warnings that a pod's eviction was refused for its disruption budget."""
    return [
        e
        for e in cluster.warnings(ns)
        if e.kind == "pod"
        and (e.reason == "EvictionBlocked" or _BLOCKED.search(e.message))
    ]


def exhausted_budgets(cluster: Cluster, ns: str) -> list[str]:
    """The listed budgets that allow no disruption now."""
    table = cluster.table("poddisruptionbudgets", ns)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME") and row.get("ALLOWED DISRUPTIONS") == "0"
    ]


def _guards(cluster: Cluster, ns: str, budget: str, pod: str) -> bool:
    """The budget selects the pod: by describe's Selector and the pod's labels, else by the name
    of the pod's workload."""
    described = cluster.describe("poddisruptionbudgets", ns, budget)
    selector = (
        parse_labels(describe_field("\n" + described.text, "Selector"))
        if described is not None
        else {}
    )
    labels = next((p.labels for p in cluster.pods(ns) if p.name == pod), None)
    if selector and labels is not None:
        return selects(selector, labels)
    return cluster.owner(ns, "pod", pod).split("/", 1)[1] == budget


def is_cordoned(cluster: Cluster, ns: str, node: str) -> bool:
    """The node is cordoned (being drained): `SchedulingDisabled` in the nodes list, or
    `Unschedulable: true` in its describe."""
    nodes = cluster.table("nodes", ns)
    if node and nodes is not None and "SchedulingDisabled" in nodes.line(node):
        return True
    described = cluster.describe("nodes", ns, node) if node else None
    return described is not None and _UNSCHEDULABLE.search(described.text) is not None


def disruption_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A PodDisruptionBudget allowing no disruption over a pod whose eviction was refused blocks its node's drain."""
    table = cluster.table("poddisruptionbudgets", ns)
    blocked = blocked_evictions(cluster, ns)
    if table is None or not blocked:
        return []
    nodes = cluster.table("nodes", ns)
    out: list[Finding] = []
    for budget in exhausted_budgets(cluster, ns):
        held = [e for e in blocked if _guards(cluster, ns, budget, e.name)]
        if not held:
            continue
        pod = next((p for p in cluster.pods(ns) if p.name == held[0].name), None)
        node = pod.node if pod is not None else ""
        owner = cluster.owner(ns, "pod", held[0].name)
        row = table.row(budget) or {}
        f = Finding(
            "infrastructure",
            "EvictionBlocked",
            f"poddisruptionbudget/{budget}",
            layers.PLATFORM,
            f"PodDisruptionBudget {budget} allows 0 disruptions (min available "
            f"{row.get('MIN AVAILABLE', '?')}, max unavailable {row.get('MAX UNAVAILABLE', '?')}): "
            f"{held[0].name} cannot be evicted"
            + (f", so node {node} cannot be drained" if node else "")
            + f" ({owner} has no pod to spare)",
            ns,
        )
        f.cite(table.obs, f"get poddisruptionbudgets: {table.line(budget)}")
        described = cluster.describe("poddisruptionbudgets", ns, budget)
        if described is not None:
            allowed = _ALLOWED.search(described.text)
            f.cite(
                described,
                f"describe poddisruptionbudget {budget}: Allowed disruptions "
                f"{allowed.group(1) if allowed else '0'}",
            )
        for event in held[:2]:
            f.cite(event.obs, event.fact)
        drained = is_cordoned(cluster, ns, node)
        if drained and nodes is not None and "SchedulingDisabled" in nodes.line(node):
            f.cite(
                nodes.obs, f"get nodes: {nodes.line(node)} (cordoned, being drained)"
            )
        f.is_relevant = owner in path.workloads or (drained and not path.resolved)
        f.depth = path.depth.get(owner, 0) + 1 if owner in path.workloads else 1
        f.keywords = ["PodDisruptionBudget", "drain", "eviction", budget]
        f.chain = [
            f"the drain of node {node or '?'} cannot evict {held[0].name}",
            f.statement,
        ]
        out.append(f)
    return out
