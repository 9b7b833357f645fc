"""Disruption budgets: a PodDisruptionBudget that allows no eviction holds up a node's drain.

Rule: a pod whose eviction the events show refused for its disruption budget (`EvictionBlocked`,
or "would violate the pod's disruption budget") is held by the PodDisruptionBudget that selects it
and allows 0 disruptions (its minAvailable equals the pods it counts, or some are unready): that
budget blocks the drain of the pod's node (an upgrade, a scale-in), and is the fault
(`EvictionBlocked`) — relevant when the pod's workload is on the incident's path, or when the
evidence shows the drain itself (the pod's node cordoned: `SchedulingDisabled` in the nodes list,
`Unschedulable: true` in its describe) and the incident's service is no workload of the
namespace (what fails is the drain, not a service). The incident's words decide nothing.

A drain run from outside the cluster (a managed node group upgrade, Karpenter, a pipeline's
`kubectl drain`) often leaves no event: only the drainer's own lines say the eviction was refused.
So once a budget allowing 0 disruptions holds a pod that still runs on a cordoned node, every
service's lines saying "disruption budget" are searched once (`searches`); a line naming the pod
is the refusal, as an event would be, and is cited. The cordoned nodes' lost capacity is what other pods meet: a workload's
pods Pending because nodes "were unschedulable" are the budget's victims (`explains`), and make it
relevant when that workload is on the incident's path or the incident's service is no workload of
the namespace.
"""

import re
from collections.abc import Callable
from typing import Any

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
from reasoning.layered.log_search import search_once
from reasoning.layered.reading import as_dict, as_list
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

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


# What a drainer logs when a budget refuses an eviction (one regex for the search, RE2).
SEARCH = r"disruption budget"
_SEARCH = re.compile(SEARCH, re.IGNORECASE)
# A scheduler's words for nodes that are cordoned.
_UNSCHEDULABLE_NODES = re.compile(r"\d+ node\(s\) were unschedulable", re.IGNORECASE)


def held_on_cordoned(cluster: Cluster, ns: str) -> list[tuple[str, str]]:
    """(budget, pod) for each budget allowing no disruption over a pod that runs on a cordoned node."""
    out: list[tuple[str, str]] = []
    for budget in exhausted_budgets(cluster, ns):
        for pod in cluster.pods(ns):
            if (
                pod.node
                and pod.status == "Running"
                and is_cordoned(cluster, ns, pod.node)
                and _guards(cluster, ns, budget, pod.name)
            ):
                out.append((budget, pod.name))
                break
    return out


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    cluster: Cluster,
    ns: str,
) -> list[PlannedCall | None]:
    """Once a budget allowing no disruption holds a pod on a cordoned node: every service's lines (a drainer's among them) saying an eviction met a disruption budget."""
    held = held_on_cordoned(cluster, ns)
    if not held:
        return []
    budget, pod = held[0]
    return search_once(
        inv,
        call,
        SEARCH,
        limit=20,
        why=f"budget {budget} allows no disruption and {pod} runs on a cordoned node: "
        "does a drain log its eviction refused",
    )


def refusal_lines(inv: Investigation | None, pod: str) -> list[tuple[Observation, str]]:
    """The searched lines saying an eviction of `pod` met its disruption budget."""
    out: list[tuple[Observation, str]] = []
    for obs in inv.observations if inv is not None and pod else ():
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or obs.arguments.get("query") != SEARCH
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if pod in message and _SEARCH.search(message):
                out.append(
                    (obs, f"{line.get('service') or 'a service'} logs: {message}")
                )
    return out


def _pending_for_cordon(cluster: Cluster, ns: str) -> list[Event]:
    """The namespace's scheduling warnings that count nodes as unschedulable (cordoned)."""
    return [
        e
        for e in cluster.warnings(ns)
        if e.kind == "pod"
        and e.reason == "FailedScheduling"
        and _UNSCHEDULABLE_NODES.search(e.message)
    ]


def disruption_faults(
    cluster: Cluster, ns: str, path: Path, inv: Investigation | None = None
) -> list[Finding]:
    """A PodDisruptionBudget allowing no disruption over a pod whose eviction was refused, or that runs on a cordoned node, blocks its node's drain."""
    table = cluster.table("poddisruptionbudgets", ns)
    blocked = blocked_evictions(cluster, ns)
    cordoned = held_on_cordoned(cluster, ns)
    if table is None or not (blocked or cordoned):
        return []
    nodes = cluster.table("nodes", ns)
    out: list[Finding] = []
    for budget in exhausted_budgets(cluster, ns):
        held = [e for e in blocked if _guards(cluster, ns, budget, e.name)]
        on_cordoned = next((p for b, p in cordoned if b == budget), "")
        # Refused in the events, or in a drainer's own lines about a pod on a cordoned node.
        if not held and not refusal_lines(inv, on_cordoned):
            continue
        held_pod = held[0].name if held else on_cordoned
        pod = next((p for p in cluster.pods(ns) if p.name == held_pod), None)
        node = pod.node if pod is not None else ""
        owner = cluster.owner(ns, "pod", held_pod)
        row = table.row(budget) or {}
        f = Finding(
            "infrastructure",
            "EvictionBlocked",
            f"poddisruptionbudget/{budget}",
            layers.PLATFORM,
            f"PodDisruptionBudget {budget} allows 0 disruptions (min available "
            f"{row.get('MIN AVAILABLE', '?')}, max unavailable {row.get('MAX UNAVAILABLE', '?')}): "
            f"{held_pod} cannot be evicted"
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
        refused = refusal_lines(inv, held_pod)
        for obs, fact in refused[:2]:
            f.cite(obs, fact)
        drained = is_cordoned(cluster, ns, node)
        if drained and nodes is not None and "SchedulingDisabled" in nodes.line(node):
            f.cite(
                nodes.obs, f"get nodes: {nodes.line(node)} (cordoned, being drained)"
            )
        f.is_relevant = owner in path.workloads or (drained and not path.resolved)
        f.depth = path.depth.get(owner, 0) + 1 if owner in path.workloads else 1
        if drained and (held or refused):
            # The cordoned nodes the drain cannot finish are capacity lost to other pods.
            for event in _pending_for_cordon(cluster, ns)[:1]:
                victim = cluster.owner(ns, "pod", event.name)
                f.explains.append(victim)
                f.cite(event.obs, event.fact)
                f.chain.append(f"{victim}: {event.message[:120]}")
        f.keywords = ["PodDisruptionBudget", "drain", "eviction", budget]
        f.chain = [
            f"the drain of node {node or '?'} cannot evict {held_pod}",
            *f.chain,
            f.statement,
        ]
        out.append(f)
    return out
