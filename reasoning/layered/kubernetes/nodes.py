"""Nodes and the control plane: the platform under the workloads.

Rules:
- a node listed NotReady or Unknown cannot run its pods (its kubelet stopped posting status);
  describe's condition says why (container runtime, PLEG, network plugin);
- a kube-system pod of the control plane (scheduler, proxy, DNS, controller manager, API server,
  etcd) that is not healthy is that component down; when its describe shows its last run
  Terminated: OOMKilled, the reason is OOMKilled (its memory limit said), not the crash loop;
- a Ready node under DiskPressure, MemoryPressure, PIDPressure or NetworkUnavailable (describe's
  condition True, or the kubelet's EvictionThresholdMet / NodeHas*Pressure events) evicts its pods
  and is tainted NoSchedule/NoExecute: the condition is the fault, the pods evicted from it and the
  pods a scheduling failure keeps off it by that taint are its victims; the condition's reason and
  message (NoRouteCreated …) and the node's own warnings (a controller failing to set it up) say
  what is at fault;
- when only a scheduling failure names a condition's taint (`N node(s) had untolerated taint
  {node.kubernetes.io/network-unavailable}`), the N nodes worth a describe are those that run
  none of the namespace's pods, the youngest first (`tainted_suspects`);
- the control plane is worth reading when pods wait unscheduled with no FailedScheduling event to
  explain them, or when a node is not ready;
- a failure that follows a node (every failing pod of one template on one node, a sibling serving
  on another) is the node's or a neighbour's there, not the template's: that node is worth a
  describe for its conditions, even while it is Ready.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import (
    Event,
    Pod,
    age_seconds,
    read_containers,
)
from reasoning.layered.reading import short

CONTROL_PLANE = re.compile(
    r"^(kube-scheduler|kube-proxy|coredns|kube-dns|kube-controller-manager|kube-apiserver|etcd"
    r"|cilium(?!-operator)|calico-node|aws-node|kube-flannel|weave-net|antrea-agent"
    r"|node-local-dns|nodelocaldns)"
)
# The per-node agents of kube-system (a DaemonSet pod on each node): what they provide fails on their node only.
NODE_AGENTS = frozenset(
    {
        "kube-proxy",
        "cilium",
        "calico-node",
        "aws-node",
        "kube-flannel",
        "weave-net",
        "antrea-agent",
        "node-local-dns",
        "nodelocaldns",
    }
)
NODE_DNS = frozenset({"coredns", "kube-dns", "node-local-dns", "nodelocaldns"})
_MEMORY_LIMIT = re.compile(
    r"Limits:[ \t]*\n(?:[ \t]+\S+:.*\n)*?[ \t]+memory:[ \t]*(\S+)"
)
_NODE_CONDITION = re.compile(
    r"(Kubelet stopped posting node status\.?|container runtime[^\n]*|PLEG is not healthy[^\n]*|NetworkPluginNotReady[^\n]*)"
)


def node_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A node listed NotReady or Unknown cannot run its pods (describe's condition says why, when read)."""
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


_PRESSURE = re.compile(
    r"^\s*(DiskPressure|MemoryPressure|PIDPressure|NetworkUnavailable)\s+True\b", re.M
)
# The taints the node lifecycle controller puts on a node for a condition (not for readiness).
CONDITION_TAINT = re.compile(
    r"node\.kubernetes\.io/(disk-pressure|memory-pressure|pid-pressure|network-unavailable)"
)
_TAINTS = re.compile(r"^Taints:\s*(.*(?:\n\s{2,}\S.*)*)", re.M)
_PRESSURE_EVENTS = {
    "EvictionThresholdMet": "",
    "NodeHasDiskPressure": "DiskPressure",
    "NodeHasInsufficientMemory": "MemoryPressure",
    "NodeHasInsufficientPID": "PIDPressure",
}


def pressure_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A Ready node under disk, memory or PID pressure (describe's condition True, or the kubelet's events) is the fault of the pods it evicts or keeps off."""
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
            f"node {name} is under {conditions}: "
            + (
                "its pod network is not set up, its taint keeps new pods off"
                if set(kinds) == {"NetworkUnavailable"}
                else "its processes cannot fork (containers fail to start threads), its "
                "kubelet evicts pods and refuses new ones"
                if "PIDPressure" in kinds
                else "its kubelet evicts pods and refuses new ones"
            ),
            ns,
        )
        if described is not None and kinds:
            taints = _TAINTS.search(described.text)
            why = condition_reasons(described.text)
            f.cite(
                described,
                f"describe node {name}: {conditions} True"
                + (f" ({'; '.join(why)})" if why else "")
                + (f"; Taints: {' '.join(taints.group(1).split())}" if taints else ""),
            )
            if why:
                f.statement += f" ({'; '.join(why)})"
        for event in mine:
            f.cite(event.obs, event.fact)
        # What the node's own warnings say (a controller failing to set it up names the culprit).
        for event in cluster.warnings(ns):
            if event.kind == "node" and event.name == name and event not in mine:
                f.cite(event.obs, event.fact)
                if not f.chain:
                    f.chain = [f"node {name}: {event.reason}: {event.message[:200]}"]
        for event in _condition_symptoms(cluster, ns, name):
            f.cite(event.obs, event.fact)
        f.keywords = ["node", name, "Evicted", *dict.fromkeys(kinds)]
        out.append(f)
    return out


_CONDITIONS = frozenset(
    {"DiskPressure", "MemoryPressure", "PIDPressure", "NetworkUnavailable"}
)


def condition_reasons(described: str) -> list[str]:
    """`<condition>: <Reason> (<Message>)` for each condition a node's describe shows True (its
    row: type, status, heartbeat, transition, reason, message, two spaces or more apart)."""
    out: list[str] = []
    for line in described.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 3 or cells[0] not in _CONDITIONS or cells[1] != "True":
            continue
        reason, message = cells[-2], cells[-1]
        if len(cells) == 3:  # reason and message one space apart
            reason, _, message = cells[2].partition(" ")
        out.append(f"{cells[0]}: {reason} ({short(message, 200)})")
    return out


def _condition_symptoms(cluster: Cluster, ns: str, node: str) -> list[Event]:
    """The namespace's warnings a node condition explains: evictions of pods on the node, and
    scheduling failures that name a condition's taint."""
    on_node = {p.name for p in cluster.pods(ns) if p.node == node}
    return [
        e
        for e in cluster.warnings(ns)
        if (e.reason == "Evicted" and e.name in on_node)
        or (e.reason == "FailedScheduling" and CONDITION_TAINT.search(e.message))
    ]


# Warnings that say a pod fails now: its probes, its restarts, its container's start.
_FAILING_NOW = ("Unhealthy", "BackOff", "Failed")


def failing_pods(cluster: Cluster, ns: str) -> set[str]:
    """The pods failing now: unhealthy in the list, or named by a probe, back-off or start warning."""
    names = {p.name for p in cluster.pods(ns) if not p.is_healthy}
    return names | {
        e.name
        for e in cluster.warnings(ns)
        if e.kind == "pod" and e.reason in _FAILING_NOW
    }


def node_bound_failures(cluster: Cluster, ns: str) -> dict[str, list[str]]:
    """The nodes failures follow, each with the workloads whose pods fail there: every failing pod
    of one template (the name's prefix before its last `-`) runs on that one node, and a pod of
    the same template serves on another node."""
    failing = failing_pods(cluster, ns)
    templates: dict[str, list[Pod]] = {}
    for pod in cluster.pods(ns):
        if pod.node:
            templates.setdefault(pod.name.rsplit("-", 1)[0], []).append(pod)
    found: dict[str, list[str]] = {}
    for pods in templates.values():
        bad = {p.node for p in pods if p.name in failing}
        good = {p.node for p in pods if p.name not in failing and p.status == "Running"}
        if len(bad) == 1 and good and not bad & good:
            owner = cluster.owner(ns, "pod", pods[0].name)
            found.setdefault(bad.pop(), []).append(owner)
    return found


def condition_nodes(cluster: Cluster, ns: str, *, most: int = 3) -> dict[str, str]:
    """The nodes worth a describe for their conditions, each with why: where pods were evicted,
    what the kubelet's pressure events name, where a workload's failures follow the node; when
    only a scheduling failure names a condition's taint, the listed nodes (at most `most`)."""
    found: dict[str, str] = {}
    for node, owners in node_bound_failures(cluster, ns).items():
        found[node] = f"{owners[0]} fails only on this node, its pods elsewhere serve"
    pods = {p.name: p for p in cluster.pods(ns)}
    for pod in pods.values():
        if pod.status == "Evicted" and pod.node:
            found.setdefault(pod.node, f"{pod.name} was evicted there")
    tainted = False
    for event in cluster.warnings(ns):
        evicted = pods.get(event.name) if event.kind == "pod" else None
        if event.reason == "Evicted" and evicted is not None and evicted.node:
            found.setdefault(evicted.node, f"{evicted.name} was evicted there")
        elif event.kind == "node" and event.reason in _PRESSURE_EVENTS:
            found.setdefault(event.name, event.reason)
        elif (
            event.kind == "pod"
            and event.reason == "NodeNotReady"
            and event.name in pods
            and pods[event.name].node
        ):
            # A pod's own event says its node went not ready (the node may be Ready again now).
            found.setdefault(
                pods[event.name].node, f"{event.name} saw its node go not ready"
            )
        tainted = tainted or bool(CONDITION_TAINT.search(event.message))
    if tainted and not found:
        for name in tainted_suspects(cluster, ns, most=most):
            found[name] = "a scheduling failure names a node condition's taint"
    return {n: why for n, why in found.items() if n in cluster.names("nodes", ns)}


# `2 node(s) had untolerated taint {node.kubernetes.io/network-unavailable: }`.
_TAINTED_COUNT = re.compile(
    r"(\d{1,5}) node\(s\) had (?:untolerated )?taints? \{node\.kubernetes\.io/"
    r"(?:disk-pressure|memory-pressure|pid-pressure|network-unavailable)"
)


def tainted_suspects(cluster: Cluster, ns: str, *, most: int = 3) -> list[str]:
    """The listed nodes most likely under the condition a scheduling failure's taint names, as
    many as the failure counts (at most `most`): first those that run none of the namespace's pods
    (its pods cannot go there), the youngest first (a node that joined and never became usable)."""
    counts = [
        int(m.group(1))
        for e in cluster.warnings(ns)
        if e.reason == "FailedScheduling"
        for m in _TAINTED_COUNT.finditer(e.message)
    ]
    table = cluster.table("nodes", ns)
    rows = [r for r in table.rows if r.get("NAME")] if table else []
    used = {p.node for p in cluster.pods(ns) if p.node}

    def rank(row: dict[str, str]) -> tuple[bool, float]:
        age = age_seconds(row.get("AGE", ""))
        return (row["NAME"] in used, age if age is not None else float("inf"))

    wanted = min(max(counts, default=most), most)
    return [r["NAME"] for r in sorted(rows, key=rank)][:wanted]


def agent_owner(cluster: Cluster, pod: str) -> str:
    """What owns a kube-system pod; a node agent's pod (`kube-proxy-x7k2p`) whose owner was not
    listed is its DaemonSet's, which node agents always are."""
    owner = cluster.owner("kube-system", "pod", pod)
    match = CONTROL_PLANE.match(pod)
    if (
        owner.startswith("pod/")
        and match is not None
        and match.group(1) in NODE_AGENTS
        and re.fullmatch(rf"{re.escape(match.group(1))}-[a-z0-9]{{5}}", pod)
    ):
        return f"daemonset/{match.group(1)}"
    return owner


def control_plane_faults(cluster: Cluster) -> list[Finding]:
    """A control-plane component or node agent in kube-system (scheduler, kube-proxy, CoreDNS, CNI, node-local DNS …) with a pod that is not healthy is down (OOMKilled when its last run was killed for its memory)."""
    out: dict[str, Finding] = {}
    table = cluster.table("pods", "kube-system")
    for pod in cluster.pods("kube-system"):
        match = CONTROL_PLANE.match(pod.name)
        if match is None or pod.is_healthy:
            continue
        owner = agent_owner(cluster, pod.name)
        f = out.get(owner)
        described = cluster.describe("pods", "kube-system", pod.name)
        oom = described is not None and (
            "OOMKilled" in read_containers(described.text).terminated
        )
        # Running but not ready: it answers late or not at all (its probes say why).
        unready = pod.status == "Running" and not pod.is_ready and not oom
        if f is None:
            limit = _MEMORY_LIMIT.search(described.text) if oom and described else None
            f = out[owner] = Finding(
                "infrastructure",
                "OOMKilled"
                if oom
                else "NotReady"
                if unready
                else pod.status or "NotReady",
                owner,
                layers.DNS if match.group(1) in NODE_DNS else layers.PLATFORM,
                f"{match.group(1)} is {'not ready' if unready else 'down'} in kube-system ({pod.name} {pod.status}"
                + (f" {pod.ready[0]}/{pod.ready[1]} ready" if unready else "")
                + f", {pod.restarts} restarts"
                + (
                    f"; its last run was OOMKilled, memory limit {limit.group(1) if limit else 'set'})"
                    if oom
                    else ")"
                ),
                "kube-system",
            )
            f.keywords = [match.group(1), pod.status, "control plane"]
            f.node = pod.node
        f.cite(table.obs if table else None, f"get pods -n kube-system: {pod.line}")
        if oom and described is not None:
            f.cite(
                described,
                f"describe pod {pod.name} -n kube-system: Last State Terminated, Reason: OOMKilled",
            )
        for event in cluster.warnings("kube-system"):
            if event.kind == "pod" and event.name == pod.name:
                f.cite(event.obs, event.fact)
        last_words = _cite_why(cluster, pod.name, f)
        if last_words and not f.chain:
            f.statement += f": {last_words[:160]}"
            f.chain = [f"{pod.name} exits: {last_words[:160]}"]
    return list(out.values())


_LAST_WORDS = re.compile(r"\b(?:error|fatal|failed|panic|not an? )|^[EF]\d{4} ", re.I)


def _cite_why(cluster: Cluster, pod: str, f: Finding) -> str | None:
    """A failing system pod's describe, and the line its logs (the previous run's first) end on;
    that line, when the logs were read."""
    described = cluster.describe("pods", "kube-system", pod)
    if described is not None:
        f.cite(described, f"describe pod {pod} -n kube-system: {f.reason}")
    for previous in (True, False):
        logs = cluster.logs.get(("kube-system", pod, previous, ""))
        lines = (
            [ln.strip() for ln in logs.text.splitlines() if ln.strip()] if logs else []
        )
        failing = [ln for ln in lines if _LAST_WORDS.search(ln)] or lines[-1:]
        if logs is not None and failing:
            which = "previous" if previous else "current"
            f.cite(logs, f"{pod} logs ({which}): {failing[-1]}")
            return failing[-1]
    return None


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
