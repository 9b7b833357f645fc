"""Preemption: a workload of higher priority took the place of another's pods.

Rule: a `Preempted` (or `Preempting`) event on a pod says the scheduler evicted it for a pod of
higher priority ("Preempted by pod <uid or namespace/name> on node <node>"); the preemptor is the
pod the message names, or, named by its uid only, a pod of another workload on that node that
started no earlier than the preemption (within `SLACK_S`). The workload most of the preemptions
point to is the object to blame, not the evicted workload whose pods now wait: its finding
explains the victims' (`explains`) and cites the events, the preemptor's pods and the node.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.event_reasons import PREEMPTOR, READINGS
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod

_BY = re.compile(r"preempted by (?:pod )?(\S+?) on node (\S+?)\.?$", re.IGNORECASE)
_PRIORITY_CLASS = re.compile(r"^Priority Class Name:\s*(\S+)", re.MULTILINE)
# How much sooner than the preemption's event a preemptor's pod may show as started (clock, rounding).
SLACK_S = 120.0


@dataclass
class Preemptor:
    """One workload that preempted others' pods: where, and what it evicted."""

    namespace: str
    workload: str
    events: list[Event] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    victims: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)


def _pod_lists(cluster: Cluster) -> list[str]:
    return [ns for kind, ns in cluster.tables if kind == "pods"]


def _named(cluster: Cluster, ref: str) -> list[Pod]:
    ns, _, name = ref.partition("/")
    return [p for p in cluster.pods(ns) if p.name == name]


def _started_after(cluster: Cluster, event: Event, node: str, victim: str) -> list[Pod]:
    """Pods of other workloads on `node` that started no earlier than the event (its preemptors)."""
    if event.seen_s is None:
        return []
    return [
        p
        for ns in _pod_lists(cluster)
        for p in cluster.pods(ns)
        if p.node == node
        and p.age_s is not None
        and p.age_s <= event.seen_s + SLACK_S
        and cluster.owner(ns, "pod", p.name) != victim
    ]


def preemptors(cluster: Cluster, ns: str) -> list[Preemptor]:
    """The workloads whose pods preempted pods in `ns`, the one most preemptions point to first."""
    reasons = {r for r, reading in READINGS.items() if reading.blames == PREEMPTOR}
    found: dict[tuple[str, str], Preemptor] = {}
    seen: set[tuple[str, str]] = set()
    for event in cluster.events.get(ns, []):
        said = _BY.search(event.message.strip())
        if event.reason not in reasons or event.kind != "pod" or said is None:
            continue
        if (event.name, event.message) in seen:
            continue
        seen.add((event.name, event.message))
        victim = cluster.owner(ns, "pod", event.name)
        ref, node = said.groups()
        pods = (
            _named(cluster, ref)
            if "/" in ref
            else _started_after(cluster, event, node, victim)
        )
        owners = {
            (p.namespace, cluster.owner(p.namespace, "pod", p.name)) for p in pods
        }
        if len(owners) != 1:
            continue  # none, or several that could be it: the event does not say which
        key = owners.pop()
        p = found.setdefault(key, Preemptor(*key))
        p.events.append(event)
        p.pods += [pod for pod in pods if pod not in p.pods]
        if victim not in p.victims:
            p.victims.append(victim)
        if node not in p.nodes:
            p.nodes.append(node)
    return sorted(found.values(), key=lambda p: -len(p.events))


def preemption_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """Pods evicted for a pod of higher priority blame the preemptor's workload, not the evicted workload that now waits."""
    out: list[Finding] = []
    for p in preemptors(cluster, ns):
        nodes = sorted(p.nodes)
        f = Finding(
            "scheduling",
            "Preempted",
            p.workload,
            layers.PLATFORM,
            f"{p.workload} (namespace {p.namespace}) preempted {len(p.events)} pod(s) of "
            f"{', '.join(p.victims)}: its pods of higher priority took their place on "
            f"{', '.join(nodes)}",
            p.namespace,
        )
        name = p.workload.partition("/")[2]
        f.keywords = ["Preempted", "preemption", "priority", name]
        for event in p.events:
            f.cite(event.obs, event.fact)
        table = cluster.table("pods", p.namespace)
        for pod in p.pods[:3]:
            f.cite(
                table.obs if table else None, f"get pods -n {p.namespace}: {pod.line}"
            )
            described = cluster.describe("pods", p.namespace, pod.name)
            priority = _PRIORITY_CLASS.search(described.text) if described else None
            if described is not None and priority is not None:
                f.cite(described, f"describe pod {pod.name}: {priority.group(0)}")
                f.keywords.append(priority.group(1))
        for node in nodes:
            described = cluster.describe("nodes", "", node)
            if described is not None and name in described.text:
                f.cite(described, f"describe node {node}: runs {name}'s pods")
        f.explains = list(p.victims)
        f.chain = [
            f"{', '.join(p.victims)}: pods preempted, their replacements wait",
            f.statement,
        ]
        out.append(f)
    return out
