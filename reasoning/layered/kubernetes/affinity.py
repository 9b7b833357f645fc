"""Load skew across replicas from the Service's routing: session affinity pins every caller to one pod.

Rule: a Service with `Session Affinity: ClientIP` sends every request of one client address to
the same pod. When the workload behind it has a minority of its pods failing (restarted, OOM-killed,
unready) while their siblings run ready — and the failures do not follow a node — the skew is the
Service's: its few callers (a router or proxy with one replica is one client address) are pinned
to the hot pod while the others idle. The Service is the fault at the connect layer
(`SessionAffinity`); the workload's own failures and its callers' are its victims. The Services in
front of such a skewed workload are described, and an idle sibling's logs read (`reads`).
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Pod
from reasoning.layered.kubernetes.nodes import node_bound_failures
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import PlannedCall
from reasoning.tools import DESCRIBE, POD_LOGS

_AFFINITY = re.compile(r"^Session Affinity:\s*ClientIP\b.*$", re.MULTILINE)
_AFFINITY_CONFIG = re.compile(r"^Session Affinity Config:.*$", re.MULTILINE)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def skewed(cluster: Cluster, ns: str) -> dict[str, tuple[list[Pod], list[Pod]]]:
    """Workloads with a minority of pods failing while the others run ready (not following a
    node): per workload, (its hot pods, its idle ones)."""
    on_node = {
        w for owners in node_bound_failures(cluster, ns).values() for w in owners
    }
    out: dict[str, tuple[list[Pod], list[Pod]]] = {}
    for workload in cluster.workloads(ns):
        pods = [p for p in cluster.pods_of(ns, workload) if p.status != "Pending"]
        hot = [p for p in pods if not p.is_healthy and p.status == "Running"]
        idle = [p for p in pods if p.is_healthy and p.status == "Running"]
        if (
            workload in on_node
            or workload.startswith(("job/", "cronjob/", "pod/"))
            or not hot
            or len(idle) < 2
            or 2 * len(hot) >= len(pods)
        ):
            continue
        out[workload] = (hot, idle)
    return out


def _services_of(cluster: Cluster, ns: str, workload: str) -> list[str]:
    return [
        s
        for s in cluster.names("services", ns)
        if workload in cluster.service_workloads(ns, s)
    ]


def reads(cluster: Cluster, ns: str, call: Call) -> list[PlannedCall | None]:
    """A workload with one hot pod among idle siblings: the Services in front of it described (their session affinity), and, when one pins its callers, an idle sibling's logs."""
    calls: list[PlannedCall | None] = []
    for workload, (hot, idle) in list(skewed(cluster, ns).items())[:1]:
        for service in _services_of(cluster, ns, workload)[:2]:
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "service", "name": service, "namespace": ns},
                    f"{hot[0].name} fails while {len(idle)} siblings run ready: does service "
                    f"{service} pin its callers to one pod (session affinity)",
                )
            )
        pinned = any(
            (described := cluster.describe("services", ns, s)) is not None
            and _AFFINITY.search(described.text)
            for s in _services_of(cluster, ns, workload)
        )
        if pinned and not any(
            n == idle[0].name and s == ns for s, n, _, _ in cluster.logs
        ):
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": idle[0].name, "namespace": ns, "tail": 200},
                    f"{hot[0].name} fails behind a pinning service: is its sibling "
                    f"{idle[0].name} as busy",
                )
            )
    return calls


def _callers(cluster: Cluster, ns: str, path: Path, service: str) -> list[str]:
    return list(
        dict.fromkeys(e.caller for e in path.edges if e.service == service and e.caller)
    )


def affinity_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A Service with ClientIP session affinity in front of a workload whose few hot pods fail while their siblings idle pins its callers to those pods: the Service's routing is the fault, the workload its victim."""
    out: list[Finding] = []
    table = cluster.table("pods", ns)
    for workload, (hot, idle) in skewed(cluster, ns).items():
        for service in _services_of(cluster, ns, workload):
            described = cluster.describe("services", ns, service)
            pinned = _AFFINITY.search(described.text) if described else None
            if described is None or pinned is None:
                continue
            callers = _callers(cluster, ns, path, service)
            few = [
                c
                for c in callers
                if 0
                < len([p for p in cluster.pods_of(ns, c) if p.status == "Running"])
                <= 1
            ]
            f = Finding(
                "service_routing",
                "SessionAffinity",
                f"service/{service}",
                layers.CONNECT,
                f"service {service} pins each client address to one pod (Session Affinity: "
                f"ClientIP): {', '.join(p.name for p in hot)} take the load and fail while "
                f"{len(idle)} siblings of {workload} idle",
                ns,
            )
            if few:
                f.statement += (
                    f"; its caller {few[0]} runs one replica, one client address"
                )
            f.cite(
                described,
                f"describe service {service}: {' '.join(pinned.group(0).split())}",
            )
            config = _AFFINITY_CONFIG.search(described.text)
            if config is not None:
                f.cite(
                    described,
                    f"describe service {service}: {' '.join(config.group(0).split())}",
                )
            if table is not None:
                for pod in [*hot[:1], *idle[:1]]:
                    f.cite(table.obs, f"get pods: {pod.line}")
            for pod in [*hot[:1], *idle[:1]]:
                for (space, name, previous, _), obs in cluster.logs.items():
                    if space == ns and name == pod.name and not previous:
                        lines = [ln for ln in obs.text.splitlines() if ln.strip()]
                        if lines:
                            f.cite(obs, f"logs {pod.name}: {short(lines[-1], 160)}")
                        break
            f.explains = [workload, *[c for c in callers if c != workload]]
            f.keywords = ["session affinity", "ClientIP", service, hot[0].name]
            f.chain = [
                f"{hot[0].name} fails while its siblings idle",
                f"service {service} has Session Affinity: ClientIP",
                f.statement,
            ]
            out.append(f)
    return out
