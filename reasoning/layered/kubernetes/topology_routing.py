"""Topology-aware routing that sends a Service's traffic to the pods of the callers' zone only.

Rule: a Service with topology-aware routing on (the annotation `service.kubernetes.io/topology-mode:
Auto`, the older `service.kubernetes.io/topology-aware-hints: auto`, or `trafficDistribution:
PreferClose`) has kube-proxy send each caller's connections to the endpoints hinted for the caller's
zone. When its callers all sit in one zone (an ingress node group, a batch pool), the pods in that
zone take all the traffic and the others idle: the pods on some nodes restart or go unready (probes
time out under load) while the same workload's pods on the other nodes are healthy and never
restarted. The Service's routing setting is the fault (`service_routing`,
`TopologyAwareRoutingImbalance`, at the connect layer), not the workload whose busy pods fail: they
are its victims. The zones are named when the nodes' describes give them.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Pod
from reasoning.layered.kubernetes.path import Path

TOPOLOGY = re.compile(
    r"service\.kubernetes\.io/topology-(?:mode|aware-hints):\s*\"?auto\b|"
    r"\btraffic ?distribution:\s*\"?PreferClose\b",
    re.IGNORECASE,
)
_ZONE = re.compile(r"topology\.kubernetes\.io/zone=([\w.-]{1,63})")


def _setting(text: str) -> str:
    """The line of a describe or YAML answer turning topology-aware routing on, "" when none."""
    for line in text.splitlines()[:400]:
        if len(line) <= 400 and (match := TOPOLOGY.search(line)):
            return line[match.start() :].strip()
    return ""


def _zone(cluster: Cluster, node: str) -> str:
    described = cluster.describe("nodes", "", node)
    match = _ZONE.search(described.text[:20000]) if described is not None else None
    return match.group(1) if match else ""


def _strained(pod: Pod) -> bool:
    return pod.restarts > 0 or not pod.is_ready


def topology_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A Service with topology-aware routing whose pods on some nodes (the callers' zone) restart or go unready while its pods on the other nodes are healthy and idle sends all its traffic to one zone's pods: its routing setting is the fault, not the busy pods."""
    out: list[Finding] = []
    for service in cluster.names("services", ns):
        described = cluster.describe("services", ns, service)
        setting = _setting(described.text) if described is not None else ""
        if described is None or not setting:
            continue
        workloads = cluster.service_workloads(ns, service)
        pods = [
            p
            for w in workloads
            for p in cluster.pods_of(ns, w)
            if p.status == "Running" and p.node
        ]
        busy = [p for p in pods if _strained(p)]
        idle = [p for p in pods if not _strained(p)]
        busy_nodes = {p.node for p in busy}
        idle_nodes = {p.node for p in idle}
        if not busy or not idle or busy_nodes & idle_nodes:
            continue
        zones = sorted({z for n in busy_nodes if (z := _zone(cluster, n))})
        idle_zones = sorted({z for n in idle_nodes if (z := _zone(cluster, n))})
        if zones and set(zones) & set(idle_zones):
            continue  # the strain does not follow the zones
        where = f"zone {', '.join(zones)}" if zones else ", ".join(sorted(busy_nodes))
        f = Finding(
            "service_routing",
            "TopologyAwareRoutingImbalance",
            f"service/{service}",
            layers.CONNECT,
            f"service {service} routes by topology ({setting}): its callers' connections go "
            f"only to the pods in their own zone, so its {len(busy)} pods in {where} take all "
            f"the traffic and fail (restarts, probes) while its {len(idle)} other pods idle",
            ns,
        )
        f.cite(described, f"describe service {service}: {setting}")
        table = cluster.table("pods", ns)
        for pod in [*busy[:2], *idle[:1]]:
            f.cite(table.obs if table else None, f"get pods: {pod.line}")
        f.explains = list(workloads)
        f.is_relevant = not path.workloads or any(
            w in path.workloads for w in workloads
        )
        f.keywords = [service, "topology-mode", "topology aware routing", *zones[:2]]
        f.chain = [
            f"{service}'s pods on {', '.join(sorted(busy_nodes))} restart or are unready; "
            f"those on {', '.join(sorted(idle_nodes))} are healthy",
            f"service {service}: {setting}",
            f.statement,
        ]
        out.append(f)
    return out
