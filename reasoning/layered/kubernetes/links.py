"""How findings relate: which lie on the incident's path, and which are victims of another.

Rules:
- a finding about a workload on the path, a service the path calls, or an ingress in front of it
  (any ingress when the path has no workload) is relevant, at its depth along the path;
- a node not ready (or under a condition such as DiskPressure) is relevant when a workload on the
  path has a pod there, or when the condition's taint keeps a workload of the path pending; the
  failures of the workloads with pods there, and of those a condition's taint keeps pending, are
  its victims;
- a control-plane pod on a node that is down is that node's victim;
- control-plane faults are relevant when the namespace shows the symptom they cause (pods pending
  unexplained, a node not ready);
- a caller failing (at runtime) to reach a service whose pods or routing fail is that fault's
  victim; the caller's failing line joins the cause's evidence and chain;
- cluster DNS and kube-proxy failing in kube-system have their own victims (`system`);
- a fault that explains others (`Finding.explains`: a policy dropping a caller's traffic, an
  autoscaler capping a saturated workload) makes their findings its victims, and is relevant, one
  hop deeper, when one of them lies on the path;
- a workload's fault whose pods all run ready now and last restarted before the incident's
  window, or more than twice the kubelet's longest crash back-off ago, is stale (`is_stale`): it
  happened, it is not what fails now.
"""

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.nodes import CONDITION_TAINT, needs_control_plane
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.system import system_victims
from reasoning.layered.reading import short


def link(
    cluster: Cluster,
    ns: str,
    path: Path,
    found: dict[str, Finding],
    window_s: float | None = None,
) -> None:
    """Relevance along the path, and victims: a failure caused by what it calls, by its node, or
    by what explains it; stale faults (over before a window of `window_s` seconds) marked."""
    for f in found.values():
        place_on_path(f, path)
    for f in list(found.values()):
        if f.stage == "infrastructure" and f.component.startswith("node/"):
            node_victims(cluster, ns, path, found, f)
    for f in found.values():
        node_fault = found.get(f"node/{f.node}") if f.node else None
        if node_fault is not None and node_fault is not f:
            f.victim_of = node_fault.component
    if needs_control_plane(cluster, ns):
        for f in found.values():
            if f.namespace == "kube-system" or (
                f.stage == "infrastructure" and not f.component.startswith("node/")
            ):
                f.is_relevant = True
                f.depth = max(path.depth.values(), default=0) + 1
    caller_victims(cluster, ns, path, found)
    system_victims(cluster, ns, path, found)
    explained_victims(path, found)
    if window_s is not None:
        for f in found.values():
            f.is_stale = is_stale(cluster, ns, f, window_s)


def place_on_path(f: Finding, path: Path) -> None:
    """A finding about a workload on the path, a service it calls or an ingress in front of it is relevant, at its depth."""
    f.depth = path.depth.get(f.component, 0)
    kind, _, name = f.component.partition("/")
    if f.component in path.workloads:
        f.is_relevant = True
    elif kind == "service" and name in path.services:
        f.is_relevant = True
        f.depth = 1 + max(
            (path.depth.get(e.caller, 0) for e in path.edges if e.service == name),
            default=0,
        )
    elif kind == "ingress" and (name in path.ingresses or not path.workloads):
        f.is_relevant = True


def node_victims(
    cluster: Cluster, ns: str, path: Path, found: dict[str, Finding], node: Finding
) -> None:
    """A node down is relevant when a pod of the path runs there (or its condition's taint keeps one pending), and the faults of the pods there (or kept off) are its victims."""
    name = node.component[5:]
    for pod in cluster.pods(ns):
        if pod.node != name:
            continue
        owner = cluster.owner(ns, "pod", pod.name)
        if owner in path.workloads:
            node.is_relevant = True
            node.depth = max(node.depth, path.depth.get(owner, 0) + 1)
        victim = found.get(owner)
        if (
            victim is not None
            and victim is not node
            and victim.stage in ("runtime", "scheduling", "startup")
        ):
            victim.victim_of = node.component
    if node.reason == "NodePressure":
        # Pods a node condition's taint keeps off the node wait in scheduling: its victims too.
        for event in cluster.warnings(ns):
            if event.reason == "FailedScheduling" and CONDITION_TAINT.search(
                event.message
            ):
                owner = cluster.owner(ns, "pod", event.name)
                victim = found.get(owner)
                if victim is not None and victim.stage == "scheduling":
                    victim.victim_of = node.component
                if owner in path.workloads and _holds_taint(node, event.message):
                    # The path's pods wait because the condition keeps them off the node.
                    node.is_relevant = True
                    node.depth = max(node.depth, path.depth.get(owner, 0) + 1)


def _holds_taint(node: Finding, message: str) -> bool:
    """The scheduling failure names the taint of a condition the node is under."""
    taints = {m.group(1) for m in CONDITION_TAINT.finditer(message)}
    kinds = {
        "disk-pressure": "DiskPressure",
        "memory-pressure": "MemoryPressure",
        "pid-pressure": "PIDPressure",
        "network-unavailable": "NetworkUnavailable",
    }
    return any(kinds[t] in node.keywords for t in taints)


def caller_victims(
    cluster: Cluster, ns: str, path: Path, found: dict[str, Finding]
) -> None:
    """A caller failing to reach a service whose pods (or routing) fail is that fault's victim."""
    for edge in path.edges:
        if edge.kind == "auth" or edge.service is None:
            continue
        caller = found.get(edge.caller)
        if caller is None or caller.stage not in ("runtime",):
            continue
        causes = [found.get(f"service/{edge.service}")] + [
            found.get(w)
            for w in cluster.service_workloads(ns, edge.service)
            or cluster.intended_workloads(ns, edge.service)
        ]
        cause = next((c for c in causes if c is not None and c is not caller), None)
        if cause is None:
            continue
        caller.victim_of = cause.component
        cause.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
        cause.context.append((edge.obs, f"{edge.caller} logs: {edge.line}"))
        cause.chain.insert(
            0, f"{edge.caller} fails calling {edge.target}: {short(edge.line, 100)}"
        )


def explained_victims(path: Path, found: dict[str, Finding]) -> None:
    """What a fault explains is its victim; the fault is relevant when one of them is on the path."""
    for cause in found.values():
        for component in cause.explains:
            if component in path.workloads:
                cause.is_relevant = True
                cause.depth = max(cause.depth, path.depth.get(component, 0) + 1)
            victim = found.get(component)
            if victim is not None and victim is not cause and victim.victim_of is None:
                victim.victim_of = cause.component


# Twice the kubelet's longest crash back-off (5 min): a pod ready since is not crash-looping.
RECOVERED_S = 600.0


def is_stale(cluster: Cluster, ns: str, f: Finding, window_s: float) -> bool:
    """A runtime fault is stale when every pod of the workload runs ready now and its restarts all precede the window or are older than twice the kubelet's longest back-off."""
    if f.stage != "runtime":
        return False
    pods = cluster.pods_of(ns, f.component)
    restarted = [p.restarted_s for p in pods if p.restarts > 0]
    return (
        bool(restarted)
        and all(p.status == "Running" and p.is_ready for p in pods)
        and all(r is not None and r > min(window_s, RECOVERED_S) for r in restarted)
    )
