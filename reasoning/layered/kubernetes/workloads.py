"""Per workload, the earliest lifecycle stage that blocks it: admission → scheduling → startup → runtime.

The stages are the rules table's `workload` rules (`reasoning.layered.rules`), run in its order over
one `WorkloadView`; the first stage that returns a finding is the workload's fault (a later stage's symptom is the earlier stage's consequence). A workload that
passes every stage but is scaled to zero replicas is a fault too: nothing serves it.
"""

# The table imports this package's rule modules: read it at call time (import order either way).
from reasoning.layered import rules
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.view import workload_view


def workload_fault(cluster: Cluster, ns: str, workload: str) -> Finding | None:
    """The earliest stage that blocks one workload, or None when every stage passes."""
    view = workload_view(cluster, ns, workload)
    for stage in rules.at_stage(rules.WORKLOAD):
        finding: Finding | None = stage.function(view)
        if finding is not None:
            return finding
    return None


def all_workloads(cluster: Cluster, ns: str) -> list[str]:
    """The listed workloads, then the owners of pods and of warned objects not listed (a cron job
    warned that it cannot create its jobs among them)."""
    found = cluster.workloads(ns)
    for pod in cluster.pods(ns):
        owner = cluster.owner(ns, "pod", pod.name)
        if owner not in found:
            found.append(owner)
    for event in cluster.warnings(ns):
        if event.kind in (
            "replicaset",
            "statefulset",
            "deployment",
            "pod",
            "job",
            "cronjob",
        ):
            owner = cluster.owner(ns, event.kind, event.name)
            if owner not in found:
                found.append(owner)
    return found
