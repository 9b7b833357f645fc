"""Replicas: one pod of several failing while its siblings serve.

Rule: when a workload's pods all run and one pod's logs show failing lines while a sibling's logs
(read too) show none, the fault is that replica's own — its state, its connections, its node —
and the pod is named (`ReplicaFailing`), not the workload nor what both call.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Pod
from reasoning.layered.kubernetes.logs import FAILING
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import Observation

# A line its logger marks informational reports no failure, whatever its words ("pool reset").
_INFORMATIONAL = re.compile(
    r"\blevel=(?:info|debug|trace)\b|\b(?:INFO|DEBUG|TRACE)\b|\"level\":\s*\"(?:info|debug)\""
)


def failing_lines(
    cluster: Cluster, ns: str, pod: Pod
) -> tuple[Observation | None, list[str]]:
    """The current logs of a pod (None when not read) and their failing lines (not informational)."""
    for (space, name, previous, _), obs in cluster.logs.items():
        if space == ns and name == pod.name and not previous:
            return obs, [
                line
                for line in obs.text.splitlines()
                if FAILING.search(line) and not _INFORMATIONAL.search(line)
            ]
    return None, []


def replica_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """One pod failing in its logs while a sibling of the same workload (logs read) does not is that replica's own fault."""
    out: list[Finding] = []
    for workload in dict.fromkeys(
        cluster.owner(ns, "pod", p.name) for p in cluster.pods(ns)
    ):
        pods = cluster.pods_of(ns, workload)
        if len(pods) < 2 or not all(p.status == "Running" for p in pods):
            continue
        read = [(p, *failing_lines(cluster, ns, p)) for p in pods]
        read = [(p, obs, lines) for p, obs, lines in read if obs is not None]
        clean = [(p, obs) for p, obs, lines in read if not lines]
        failing = [(p, obs, lines) for p, obs, lines in read if lines]
        if len(failing) != 1 or not clean:
            continue
        pod, obs, lines = failing[0]
        sibling, sibling_obs = clean[0]
        f = Finding(
            "runtime",
            "ReplicaFailing",
            f"pod/{pod.name}",
            layers.APPLICATION,
            f"pod {pod.name} of {workload} fails ({short(lines[-1], 140)}) while its sibling "
            f"{sibling.name} serves without errors: the fault is that replica's own",
            ns,
        )
        f.cite(obs, f"logs {pod.name}: {lines[-1]}")
        f.cite(sibling_obs, f"logs {sibling.name}: no failing line")
        table = cluster.table("pods", ns)
        f.cite(table.obs if table else None, f"get pods: {pod.line}")
        f.is_relevant = workload in path.workloads
        f.keywords = ["replica", pod.name, short(lines[-1], 60)]
        f.chain = [f"{workload}: {pod.name} fails in its logs", f.statement]
        out.append(f)
    return out
