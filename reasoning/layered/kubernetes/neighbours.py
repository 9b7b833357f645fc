"""Noisy neighbours: a pod without a CPU limit that takes its node's CPU from the pods beside it.

Rule: when a workload's pods fail their probes on a timeout only on one node while its pods on
other nodes serve (`nodes.node_bound_failures`), a running pod of another owner on that node with
no CPU limit (QoS BestEffort, or no `cpu` under Limits), started after them and no earlier than
`BEFORE_WINDOW_S` before the incident's window, starves them: its owner (a CronJob's job, a
deployment) is the fault (`NoisyNeighbour`), the starved workload its victim (`explains`).

Node-wide (`hog_faults`): when the incident is slow, a running pod without a CPU limit of another
namespace, or of a job of the slow workload's own namespace, started within the window on the
nodes of the slow workload's pods, is the fault; its limits come from its describe or, when that
is not there, from its row under its node's `Non-terminated Pods` (CPU Limits 0).
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod, read_containers, ref
from reasoning.layered.kubernetes.nodes import failing_pods, node_bound_failures
from reasoning.layered.kubernetes.performance import SLOW
from reasoning.observations import Observation

# A neighbour started this long before the incident's window may still be what starts it.
BEFORE_WINDOW_S = 600.0
_BEST_EFFORT = re.compile(r"^QoS Class:\s*BestEffort\b", re.MULTILINE)


def starved(cluster: Cluster, ns: str) -> dict[str, dict[str, list[Event]]]:
    """Per node its failures follow, the workloads whose pods there fail probes on a timeout,
    with those probe warnings."""
    failing = failing_pods(cluster, ns)
    on_node = {p.name: p.node for p in cluster.pods(ns)}
    out: dict[str, dict[str, list[Event]]] = {}
    for node, owners in node_bound_failures(cluster, ns).items():
        for event in cluster.warnings(ns):
            owner = cluster.owner(ns, "pod", event.name)
            if (
                event.kind == "pod"
                and event.reason == "Unhealthy"
                and SLOW.search(event.message)
                and event.name in failing
                and on_node.get(event.name) == node
                and owner in owners
            ):
                out.setdefault(node, {}).setdefault(owner, []).append(event)
    return out


def neighbours(cluster: Cluster, ns: str, *, most: int = 2) -> list[Pod]:
    """The running pods of other owners on the nodes where pods starve, youngest first."""
    out: list[Pod] = []
    for node, victims in starved(cluster, ns).items():
        beside = [
            p
            for p in cluster.pods(ns)
            if p.node == node
            and p.status == "Running"
            and cluster.owner(ns, "pod", p.name) not in victims
        ]
        out += sorted(beside, key=lambda p: p.age_s if p.age_s is not None else 1e12)
    return out[:most]


def _unlimited(text: str) -> str:
    """Why a pod's describe shows no CPU limit ('' when it has one)."""
    if _BEST_EFFORT.search(text):
        return "QoS BestEffort: no CPU request or limit"
    if not read_containers(text).limits_cpu:
        return "no CPU limit"
    return ""


def neighbour_faults(
    cluster: Cluster, ns: str, window_s: float | None = None
) -> list[Finding]:
    """A pod without a CPU limit, started just before, on the one node where another workload's pods time out starves them."""
    out: dict[str, Finding] = {}
    table = cluster.table("pods", ns)
    starving = starved(cluster, ns)
    for pod in neighbours(cluster, ns, most=10):
        described = cluster.describe("pods", ns, pod.name)
        why = _unlimited(described.text) if described is not None else ""
        victims = starving.get(pod.node, {})
        victim_ages = [
            p.age_s
            for w in victims
            for p in cluster.pods_of(ns, w)
            if p.node == pod.node and p.age_s is not None
        ]
        if (
            described is None
            or not why
            or pod.age_s is None
            or any(pod.age_s >= age for age in victim_ages)
            or (window_s is not None and pod.age_s > window_s + BEFORE_WINDOW_S)
        ):
            continue
        owner = cluster.owner(ns, "pod", pod.name)
        names = ", ".join(victims)
        f = out.get(owner)
        if f is None:
            f = out[owner] = Finding(
                "performance",
                "NoisyNeighbour",
                owner,
                layers.PLATFORM,
                f"{owner} ({pod.name}, {why}) started on node {pod.node} just before {names}'s "
                f"pods there began to time out, while their pods on other nodes serve: it takes "
                "the node's CPU from them",
                ns,
            )
            f.explains = list(victims)
            f.keywords = ["noisy neighbour", "cpu", pod.name, pod.node]
            f.chain = [
                f"{names} time out only on node {pod.node}",
                f"{owner} runs there without a CPU limit",
                f.statement,
            ]
        f.cite(table.obs if table else None, f"get pods: {pod.line}")
        f.cite(described, f"describe pod {pod.name}: {why}")
        for workload, events in victims.items():
            for event in events[:2]:
                f.cite(event.obs, event.fact)
            serving = [
                p
                for p in cluster.pods_of(ns, workload)
                if p.node != pod.node and p.is_healthy
            ]
            if serving and table is not None:
                f.context.append(
                    (table.obs, f"get pods: {serving[0].line} (serves on another node)")
                )
    return list(out.values())


# --- node-wide neighbours: a recent pod without a CPU limit beside a slow workload on its nodes --

_CONTROLLED = re.compile(r"^Controlled By:\s*(\w+)/(\S+)", re.MULTILINE)
_WARNED = re.compile(r"\b(?:warn(?:ing)?|error|fail(?:ed|ing)?)\b", re.IGNORECASE)


def _owner_of(cluster: Cluster, ns: str, pod: Pod) -> str:
    """A pod's workload: its describe's controller when that is not a replica set, a DaemonSet's
    pod (`pod-template-generation` label) its set, else what the lists say."""
    described = cluster.describe("pods", ns, pod.name)
    controller = _CONTROLLED.search(described.text) if described is not None else None
    if controller is not None and controller.group(1) != "ReplicaSet":
        return ref(controller.group(1), controller.group(2))
    if "pod-template-generation" in (pod.labels or {}):
        return f"daemonset/{pod.name.rsplit('-', 1)[0]}"
    return cluster.owner(ns, "pod", pod.name)


def _batch(cluster: Cluster, ns: str, pod: Pod, workloads: list[str]) -> bool:
    """A pod of the slow workloads' own namespace that a job runs (batch work takes what CPU it
    can; a service's pods there are on the path)."""
    owner = cluster.owner(ns, "pod", pod.name)
    return owner not in workloads and owner.startswith(("job/", "cronjob/"))


# A node describe's `Non-terminated Pods` row: namespace/name (or the two columns), CPU requests,
# CPU limits.
_NODE_POD_ROW = re.compile(
    r"^\s*(?:\S+/|\S+\s+)?(?P<pod>\S+)\s+(?P<req>\S+) \(\d+%\)\s+(?P<lim>\S+) \(\d+%\)",
    re.MULTILINE,
)


def _node_row(cluster: Cluster, ns: str, pod: Pod) -> tuple[Observation | None, str]:
    """The pod's row in its node's describe, and "no CPU limit" when its CPU limit there is 0."""
    described = cluster.describe("nodes", ns, pod.node)
    if described is None:
        return None, ""
    for row in _NODE_POD_ROW.finditer(described.text[:200_000]):
        if row.group("pod") in (pod.name, f"{ns}/{pod.name}"):
            return described, "no CPU limit" if row.group("lim") == "0" else ""
    return None, ""


def _kind_of(obs: Observation) -> str:
    return str(obs.arguments.get("kind") or "pod").removesuffix("s")


def _name_of(obs: Observation) -> str:
    return str(obs.arguments.get("name") or "")


def hogs(
    cluster: Cluster,
    ns: str,
    workloads: list[str],
    window_s: float | None,
    *,
    most: int = 1,
) -> list[Pod]:
    """The running pods of other namespaces (not kube-system), and of the same namespace's jobs,
    on the nodes of `workloads`' pods, started within the window (or `BEFORE_WINDOW_S` before) and after those workloads'
    oldest pod there, one per owner, youngest first."""
    victims = [p for w in workloads for p in cluster.pods_of(ns, w) if p.node]
    oldest: dict[str, float] = {}
    for p in victims:
        if p.age_s is not None:
            oldest[p.node] = max(oldest.get(p.node, 0.0), p.age_s)
    out: dict[str, Pod] = {}
    for space in cluster.namespaces or ():
        if space == "kube-system":
            continue
        for pod in cluster.pods(space):
            if space == ns and not _batch(cluster, ns, pod, workloads):
                continue
            if (
                pod.status != "Running"
                or pod.node not in oldest
                or pod.age_s is None
                or pod.age_s >= oldest[pod.node]
                or window_s is None
                or pod.age_s > window_s + BEFORE_WINDOW_S
            ):
                continue
            current = out.get(_owner_of(cluster, space, pod))
            if current is None or pod.age_s < (current.age_s or 0.0):
                out[_owner_of(cluster, space, pod)] = pod
    return sorted(out.values(), key=lambda p: p.age_s or 0.0)[:most]


def hog_faults(
    cluster: Cluster,
    ns: str,
    workloads: list[str],
    window_s: float | None,
) -> list[Finding]:
    """A pod without a CPU limit (by its describe, or its row in its node's), started just before, beside the slow incident's workload on its nodes (of another namespace, or a job of its own), takes their CPU: its owner is the fault, the slow workload its victim."""
    out: list[Finding] = []
    for pod in hogs(cluster, ns, workloads, window_s, most=3):
        space = pod.namespace
        described = cluster.describe("pods", space, pod.name)
        why = _unlimited(described.text) if described is not None else ""
        if described is None:
            described, why = _node_row(cluster, space, pod)
        if described is None or not why:
            continue
        owner = _owner_of(cluster, space, pod)
        victims = [
            w
            for w in workloads
            if any(p.node == pod.node for p in cluster.pods_of(ns, w))
        ]
        siblings = [
            p for p in cluster.pods(space) if _owner_of(cluster, space, p) == owner
        ]
        nodes = sorted({p.node for p in siblings if p.node})
        f = Finding(
            "performance",
            "NoisyNeighbour",
            owner,
            layers.PLATFORM,
            f"{owner} ({pod.name}, {why}) started {len(siblings)} pod(s) on node(s) "
            f"{', '.join(nodes[:3])} just before {', '.join(victims)} slowed down there: it "
            "takes the nodes' CPU from them",
            space,
        )
        table = cluster.table("pods", space)
        if table is not None:
            f.cite(table.obs, f"get pods -n {space}: {pod.line}")
        f.cite(
            described, f"describe {_kind_of(described)} {_name_of(described)}: {why}"
        )
        for (s, name, previous, _), obs in cluster.logs.items():
            if s == space and name == pod.name and not previous:
                warned = [ln for ln in obs.text.splitlines() if _WARNED.search(ln)]
                for line in warned[-2:]:
                    f.cite(obs, f"logs {pod.name}: {line.strip()}")
        f.explains = list(victims)
        f.keywords = ["noisy neighbour", "cpu", pod.name, owner.partition("/")[2]]
        f.chain = [
            f"{', '.join(victims)} slow on the nodes {owner} runs on",
            f"{owner} runs there without a CPU limit, started just before",
            f.statement,
        ]
        out.append(f)
    return out
