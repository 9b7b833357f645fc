"""Failures confined to one node: the same pod template fails there and serves everywhere else.

Rule: when two or more pods of one ReplicaSet (the same pod template: same image, same config)
fail on one node — crash-looping, erroring, restarting — while every other pod of that ReplicaSet
runs ready on other nodes and none of its pods on that node is healthy, the difference is the
node (a kernel limit such as inotify instances, pids or conntrack, a runtime, an AMI), not the
workload: the node is the fault (`infrastructure`, `NodeLocalFailure`, at the platform layer) and
the workload's failure is its victim (`links.node_victims`). Names and wording are read from the
pod table only; the node's describe and the failing pods' last logs are cited when read.

A pod that never gets past `ContainerCreating` on the node counts as failing there too when a
warning event of a pod there says the node could not build its sandbox (`FailedCreatePodSandBox`): the pod
sandbox (the pause container, its network) is the node runtime's own work, the same for any
workload; that event is cited, since it carries what the node lacks.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod
from reasoning.layered.kubernetes.logs import FAILING
from reasoning.layered.reading import short

# A pod that fails where it runs (not one still waiting to be scheduled or pulled).
_FAILING_STATUS = re.compile(
    r"CrashLoopBackOff|^Error$|RunContainerError|OOMKilled|StartError|ContainerCannotRun"
)
# A pod still being created on its node (its sandbox or containers not built yet).
_CREATING: Final = re.compile(r"^(?:ContainerCreating|PodInitializing)$")
# A warning event that the node's runtime could not build a pod's sandbox.
_SANDBOX: Final = re.compile(r"^FailedCreatePodSandBox$")
# At least this many of the template's pods fail on the node: one alone may be its own fault.
MIN_FAILING = 2
# A node group's or an image's label on a node's describe (named beside the node).
_GROUP = re.compile(
    r"(?:eks\.amazonaws\.com/nodegroup|karpenter\.sh/nodepool|cloud\.google\.com/gke-nodepool"
    r"|kubernetes\.azure\.com/agentpool|node\.kubernetes\.io/nodegroup|nodegroup|nodepool)=(\S+)"
)


def _template(pod: Pod) -> str:
    """The pod's template: its pod-template-hash label, else its name without the pod suffix."""
    if pod.labels and pod.labels.get("pod-template-hash"):
        return pod.labels["pod-template-hash"]
    return pod.name.rsplit("-", 1)[0]


def _is_failing(pod: Pod, sandbox_nodes: set[str]) -> bool:
    return (
        bool(_FAILING_STATUS.search(pod.status))
        or (pod.status == "Running" and not pod.is_ready and pod.restarts > 0)
        or (bool(_CREATING.match(pod.status)) and pod.node in sandbox_nodes)
    )


def _sandbox_events(cluster: Cluster, ns: str) -> dict[str, Event]:
    """The pods of `ns` a warning event (of the namespace or the pod's describe) says the node
    could not build a sandbox for, each with that event."""
    out: dict[str, Event] = {}
    for event in cluster.warnings(ns):
        if event.kind == "pod" and _SANDBOX.match(event.reason):
            out.setdefault(event.name, event)
    for pod in cluster.pods(ns):
        described = cluster.describe("pod", ns, pod.name)
        if pod.name in out or described is None:
            continue
        for line in (described.text or "")[:200_000].splitlines():
            fields = line.split(None, 4)
            if (
                len(fields) == 5
                and fields[0] == "Warning"
                and _SANDBOX.match(fields[1])
            ):
                message = line.split("  ")[-1].strip()
                out[pod.name] = Event(
                    described, "Warning", fields[1], "pod", pod.name, message
                )
                break
    return out


def node_confined_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """Pods of one ReplicaSet failing only on one node while their siblings run ready on other nodes make that node the fault."""
    out: dict[str, Finding] = {}
    sandbox = _sandbox_events(cluster, ns)
    sandbox_nodes = {p.node for p in cluster.pods(ns) if p.name in sandbox and p.node}
    by_template: dict[tuple[str, str], list[Pod]] = {}
    for pod in cluster.pods(ns):
        if pod.node:
            owner = cluster.owner(ns, "pod", pod.name)
            by_template.setdefault((owner, _template(pod)), []).append(pod)
    for (workload, _), pods in by_template.items():
        failing = [p for p in pods if _is_failing(p, sandbox_nodes)]
        nodes = {p.node for p in failing}
        if len(failing) < MIN_FAILING or len(nodes) != 1:
            continue
        node = next(iter(nodes))
        others = [p for p in pods if p not in failing]
        healthy = [p for p in others if p.status == "Running" and p.is_ready]
        if (
            not healthy
            or len(healthy) != len(others)
            or any(p.node == node for p in others)
        ):
            continue
        finding = out.get(f"node/{node}") or _finding(cluster, ns, node)
        _add(cluster, ns, finding, workload, failing, healthy)
        event = next((sandbox[p.name] for p in failing if p.name in sandbox), None)
        if event is not None:
            finding.cite(
                event.obs,
                f"{event.object}: {event.reason}: {short(event.message, 300)}",
            )
        out[finding.component] = finding
    return list(out.values())


def _finding(cluster: Cluster, ns: str, node: str) -> Finding:
    f = Finding(
        "infrastructure",
        "NodeLocalFailure",
        f"node/{node}",
        layers.PLATFORM,
        "",
        ns,
    )
    described = cluster.describe("node", ns, node)
    group = _GROUP.search(described.text) if described is not None else None
    if described is not None:
        f.cite(
            described,
            f"describe node {node}"
            + (f": node group {group.group(1)}" if group else ""),
        )
    f.keywords = ["node", node, *([group.group(1)] if group else [])]
    return f


def _add(
    cluster: Cluster,
    ns: str,
    f: Finding,
    workload: str,
    failing: list[Pod],
    healthy: list[Pod],
) -> None:
    node = f.component[5:]
    elsewhere = sorted({p.node for p in healthy})
    line = _last_failing_line(cluster, ns, failing)
    f.statement = (
        f"every pod of {workload} on node {node} fails ({failing[0].status}"
        + (f": {short(line, 120)}" if line else "")
        + f") while the same pods run ready on {', '.join(elsewhere)}: the node is the fault, "
        "not the workload"
    )
    table = cluster.table("pods", ns)
    for pod in [*failing, *healthy[:1]]:
        f.cite(table.obs if table else None, f"get pods: {pod.line}")
    if line:
        for (space, name, _, _), obs in cluster.logs.items():
            if space == ns and name in {p.name for p in failing} and line in obs.text:
                f.cite(obs, f"logs {name}: {line}")
                break
    f.explains.append(workload)
    f.keywords.append(workload)
    f.chain = [
        f"{workload}: {len(failing)} pods fail, all on {node}",
        f"{workload}: {len(healthy)} pods run ready on other nodes",
        f.statement,
    ]


def _last_failing_line(cluster: Cluster, ns: str, failing: list[Pod]) -> str:
    names = {p.name for p in failing}
    for (space, name, _, _), obs in cluster.logs.items():
        if space == ns and name in names:
            lines = [ln for ln in obs.text.splitlines() if FAILING.search(ln)]
            if lines:
                return lines[-1].strip()
    return ""
