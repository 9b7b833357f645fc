"""Nodes and the control plane: the platform under the workloads.

Rules:
- a node listed NotReady or Unknown cannot run its pods (its kubelet stopped posting status);
  describe's condition says why (container runtime, PLEG, network plugin);
- a kube-system pod of the control plane (scheduler, proxy, DNS, controller manager, API server,
  etcd) that is not healthy is that component down;
- a Ready node under DiskPressure, MemoryPressure or PIDPressure (describe's condition True, or the
  kubelet's EvictionThresholdMet / NodeHas*Pressure events) evicts its pods: the pressure is the
  fault, the evicted pods its victims;
- the control plane is worth reading when pods wait unscheduled with no FailedScheduling event to
  explain them, or when a node is not ready.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding

CONTROL_PLANE = re.compile(
    r"^(kube-scheduler|kube-proxy|coredns|kube-dns|kube-controller-manager|kube-apiserver|etcd)"
)
_NODE_CONDITION = re.compile(
    r"(Kubelet stopped posting node status\.?|container runtime[^\n]*|PLEG is not healthy[^\n]*|NetworkPluginNotReady[^\n]*)"
)


def node_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """Every node listed NotReady or Unknown, with describe's reason when read."""
    out: list[Finding] = []
    table = cluster.table("nodes", ns)
    for row in table.rows if table else ():
        status = row.get("STATUS", "")
        if "NotReady" not in status and status != "Unknown":
            continue
        name = row["NAME"]
        f = Finding(
            "infrastructure",
            "NodeNotReady",
            f"node/{name}",
            layers.PLATFORM,
            f"node {name} is {status}: its kubelet stopped posting status, its pods cannot run",
            ns,
        )
        f.cite(
            table.obs if table else None,
            f"get nodes: {table.line(name) if table else name}",
        )
        described = cluster.describe("nodes", ns, name)
        if described is not None:
            reason = _NODE_CONDITION.search(described.text)
            if reason:
                f.statement += f" ({reason.group(1).strip()})"
            f.cite(
                described,
                f"describe node {name}: "
                + (reason.group(1) if reason else "Ready condition not True"),
            )
        for event in cluster.warnings(ns):
            if event.reason == "NodeNotReady" or (
                event.kind == "node" and event.name == name
            ):
                f.cite(event.obs, event.fact)
        f.keywords = ["node", "NotReady", name, "kubelet"]
        out.append(f)
    return out


_PRESSURE = re.compile(r"^\s*(DiskPressure|MemoryPressure|PIDPressure)\s+True\b", re.M)
_PRESSURE_EVENTS = {
    "EvictionThresholdMet": "",
    "NodeHasDiskPressure": "DiskPressure",
    "NodeHasInsufficientMemory": "MemoryPressure",
    "NodeHasInsufficientPID": "PIDPressure",
}


def pressure_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """Every node under disk, memory or PID pressure (describe's condition True or the kubelet's events)."""
    out: list[Finding] = []
    table = cluster.table("nodes", ns)
    names = [r["NAME"] for r in table.rows if r.get("NAME")] if table else []
    events = [
        e
        for e in cluster.events.get(ns, []) + cluster.events.get("", [])
        if e.kind == "node" and e.reason in _PRESSURE_EVENTS
    ]
    for name in dict.fromkeys(names + [e.name for e in events]):
        described = cluster.describe("nodes", ns, name)
        kinds = _PRESSURE.findall(described.text) if described is not None else []
        mine = [e for e in events if e.name == name]
        kinds += [
            _PRESSURE_EVENTS[e.reason] for e in mine if _PRESSURE_EVENTS[e.reason]
        ]
        if not kinds and not mine:
            continue
        conditions = ", ".join(dict.fromkeys(kinds)) or "resource pressure"
        f = Finding(
            "infrastructure",
            "NodePressure",
            f"node/{name}",
            layers.PLATFORM,
            f"node {name} is under {conditions}: its kubelet evicts pods and refuses new ones",
            ns,
        )
        if described is not None and kinds:
            f.cite(described, f"describe node {name}: {conditions} True")
        for event in mine:
            f.cite(event.obs, event.fact)
        f.keywords = ["node", name, "Evicted", *dict.fromkeys(kinds)]
        out.append(f)
    return out


def control_plane_faults(cluster: Cluster) -> list[Finding]:
    """Every control-plane pod in kube-system that is not healthy."""
    out: list[Finding] = []
    for pod in cluster.pods("kube-system"):
        match = CONTROL_PLANE.match(pod.name)
        if match is None or pod.is_healthy:
            continue
        owner = cluster.owner("kube-system", "pod", pod.name)
        table = cluster.table("pods", "kube-system")
        f = Finding(
            "infrastructure",
            pod.status or "NotReady",
            owner,
            layers.PLATFORM,
            f"{match.group(1)} is down in kube-system ({pod.name} {pod.status}, {pod.restarts} restarts)",
            "kube-system",
        )
        f.cite(table.obs if table else None, f"get pods -n kube-system: {pod.line}")
        f.keywords = [match.group(1), pod.status, "control plane"]
        f.node = pod.node
        out.append(f)
    return out


def needs_control_plane(cluster: Cluster, ns: str) -> bool:
    """Pods pending unscheduled with no FailedScheduling to explain them, or a node not ready."""
    pending = [p for p in cluster.pods(ns) if p.status == "Pending" and not p.node]
    explained = {e.name for e in cluster.warnings(ns) if e.reason == "FailedScheduling"}
    nodes = cluster.table("nodes", ns)
    nodes_down = any(
        "NotReady" in r.get("STATUS", "") for r in (nodes.rows if nodes else ())
    )
    return (
        bool(
            cluster.has_list("pods", ns)
            and ns in cluster.events_obs
            and any(p.name not in explained for p in pending)
        )
        or nodes_down
    )
