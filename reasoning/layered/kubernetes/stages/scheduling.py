"""Scheduling: the pods exist but no node takes them.

Rule: a `FailedScheduling` warning means the scheduler found no node for the workload's pods —
too little CPU or memory, a node selector, affinity or taint that excludes every node, cordoned
nodes, or a PersistentVolumeClaim that is not bound.
"""

import re

from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short

# The scheduler's words for why no node fits, kept as keywords.
CAUSES = (
    "Insufficient cpu",
    "Insufficient memory",
    "taint",
    "affinity",
    "node selector",
    "unschedulable",
)
_UNBOUND_CLAIM = re.compile(r"unbound (?:immediate )?PersistentVolumeClaims")


def scheduling(view: WorkloadView) -> Finding | None:
    """A FailedScheduling warning means no node takes the workload's pods (the last message says why)."""
    if "FailedScheduling" not in view.by_reason:
        return None
    message = view.by_reason["FailedScheduling"][-1].message
    workload = view.workload
    pending = view.pods_with(["Pending"])
    f = view.finding(
        "scheduling",
        "FailedScheduling",
        f"{workload}'s pods cannot be scheduled: {short(message, 220)}",
    )
    view.cite_events(f, ["FailedScheduling"])
    view.cite_pods(f, pending or view.pods)
    if _UNBOUND_CLAIM.search(message):
        f.keywords += ["PersistentVolumeClaim", "unbound"]
        for (kind, ns, name), obs in view.cluster.describes.items():
            if kind == "persistentvolumeclaims" and ns == view.namespace:
                f.cite(obs, f"describe persistentvolumeclaim {name}: not bound")
    f.keywords += [word for word in CAUSES if word.lower() in message.lower()]
    f.chain = [f"{workload}: pods Pending", f.statement]
    return f
