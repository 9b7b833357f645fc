"""Dependencies still loading: a callee that answers "not ready yet" keeps its callers unready.

Rule: a caller whose failing log line says the service it calls is still loading or starting
(Redis `LOADING`, "is loading the dataset", "warming up", "is starting up", "in recovery") has a
dependency that is up but not serving: the workload behind that service is the fault (stage
runtime, reason `Loading`, however ready Kubernetes shows it: its own probe may only check that
it listens), and the caller's failures are its victims (`links` makes a caller failing on a
faulty callee its victim). The callee's own log lines about its loading join the evidence.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short

# What a client says when its dependency answers but is not ready to serve.
STILL_LOADING = re.compile(
    r"\bLOADING\b|is loading\b|loading the dataset|warming up|is starting up|"
    r"not yet ready|in recovery mode|the database system is starting up",
    re.IGNORECASE,
)
# What the dependency itself logs while it loads.
_OWN_LOADING = re.compile(
    r"\bloading\b|warming|recover(?:y|ing)|replaying", re.IGNORECASE
)


def loading_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """The workloads behind services their callers' lines say are still loading."""
    found: dict[str, Finding] = {}
    for edge in path.edges:
        if edge.service is None or not STILL_LOADING.search(edge.line):
            continue
        for workload in cluster.service_workloads(ns, edge.service):
            if workload == edge.caller:
                continue
            f = found.get(workload)
            if f is None:
                f = Finding(
                    "runtime",
                    "Loading",
                    workload,
                    layers.APPLICATION,
                    f"{workload} is up but still loading: its callers are answered that it is not "
                    f"ready ({short(edge.line, 160)})",
                    ns,
                )
                _cite_own_logs(cluster, ns, workload, f)
                f.keywords = ["loading", "not ready", workload.partition("/")[2]]
                f.chain = [f.statement]
                found[workload] = f
            f.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
    return list(found.values())


def _cite_own_logs(cluster: Cluster, ns: str, workload: str, f: Finding) -> None:
    """The last line of the workload's own logs that says it is loading."""
    for pod in cluster.pods_of(ns, workload)[:2]:
        for obs, text in cluster.log_text(ns, pod.name):
            lines = [line for line in text.splitlines() if _OWN_LOADING.search(line)]
            if lines:
                f.cite(obs, f"logs {pod.name}: {short(lines[-1].strip(), 200)}")
