"""Autoscaling: a HorizontalPodAutoscaler held at its maximum while what it scales is saturated.

Rule: a HorizontalPodAutoscaler at its maxReplicas (REPLICAS = MAXPODS, or `ScalingLimited True`
in its describe) whose target workload is saturated — its callers' logs show their calls to it
timing out, or its pods' probes time out — caps the capacity the load needs (`ScalingLimited`);
the target's failures and its callers' are its victims (`explains`).
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import ref
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.performance import SLOW
from reasoning.observations import Observation

_LIMITED = re.compile(r"^\s*ScalingLimited\s+True\b.*$", re.MULTILINE)
# A connection that cannot be made is the network's failure, not a busy callee's.
_NOT_CONNECTED = re.compile(r"\bdial\b|\bconnect(?:ion|ing)?\b", re.IGNORECASE)

Evidence = list[tuple[Observation, str]]


def saturated(cluster: Cluster, ns: str, path: Path) -> dict[str, Evidence]:
    """Workloads whose callers' requests to them time out (once connected) or whose pods not ready
    now fail their probes on a timeout, with what shows it."""
    out: dict[str, Evidence] = {}
    for edge in path.edges:
        if (
            edge.service is None
            or not SLOW.search(edge.line)
            or _NOT_CONNECTED.search(edge.line)
        ):
            continue
        for workload in cluster.service_workloads(ns, edge.service):
            out.setdefault(workload, []).append(
                (edge.obs, f"{edge.caller} logs: {edge.line}")
            )
    unready = {p.name for p in cluster.pods(ns) if not p.is_ready}
    for event in cluster.warnings(ns):
        if (
            event.reason == "Unhealthy"
            and SLOW.search(event.message)
            and event.name in unready
        ):
            workload = cluster.owner(ns, event.kind, event.name)
            out.setdefault(workload, []).append((event.obs, event.fact))
    return out


def _target(row: dict[str, str]) -> str:
    kind, _, name = row.get("REFERENCE", "").partition("/")
    return ref(kind, name) if name else ""


def at_maximum(row: dict[str, str]) -> bool:
    replicas, most = row.get("REPLICAS", ""), row.get("MAXPODS", "")
    return replicas.isdigit() and most.isdigit() and int(replicas) >= int(most)


def capped_autoscalers(cluster: Cluster, ns: str, path: Path) -> list[str]:
    """The listed autoscalers at their maximum whose target is saturated."""
    table = cluster.table("horizontalpodautoscalers", ns)
    busy = saturated(cluster, ns, path)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME") and at_maximum(row) and _target(row) in busy
    ]


def autoscaling_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """An autoscaler held at its maxReplicas while its target is saturated caps the capacity the load needs."""
    table = cluster.table("horizontalpodautoscalers", ns)
    if table is None:
        return []
    busy = saturated(cluster, ns, path)
    out: list[Finding] = []
    for row in table.rows:
        name, target = row.get("NAME", ""), _target(row)
        described = cluster.describe("horizontalpodautoscalers", ns, name)
        limited = _LIMITED.search(described.text) if described is not None else None
        if not name or target not in busy or not (at_maximum(row) or limited):
            continue
        f = Finding(
            "performance",
            "ScalingLimited",
            f"horizontalpodautoscaler/{name}",
            layers.PLATFORM,
            f"autoscaler {name} holds {target} at its maximum of {row.get('MAXPODS', '?')} replicas "
            f"(targets {row.get('TARGETS', '?')}) while {target} is saturated: the load needs more",
            ns,
        )
        f.cite(table.obs, f"get horizontalpodautoscalers: {table.line(name)}")
        if described is not None and limited is not None:
            f.cite(
                described,
                f"describe horizontalpodautoscaler {name}: {' '.join(limited.group(0).split())}",
            )
        for obs, fact in busy[target][:3]:
            f.cite(obs, fact)
        f.explains = [target] + [
            e.caller
            for e in path.edges
            if e.service is not None
            and target in cluster.service_workloads(ns, e.service)
        ]
        f.keywords = ["hpa", "maxReplicas", "ScalingLimited", name]
        f.chain = [f"{target} answers slowly", f.statement]
        out.append(f)
    return out
