"""The Kubernetes agent: what to read with kubectl, and which lifecycle stage fails where.

Planning (`reads`): from the incident's service and namespace (`namespaces`), the lists, the
events and the nodes; then describes and logs of what is unhealthy, and of what the incident's
path (`path`) calls.

Diagnosis (`faults`): per workload the earliest stage that blocks it (the `workload` rules of `reasoning.layered.rules`:
admission → scheduling → startup → runtime, then zero replicas; one module each under `stages/`),
per service its routing (`routing`), per node its readiness and the control plane (`nodes`), CPU
starvation (`performance`), network policies leaving a caller out (`policies`), autoscalers held
at their maximum (`autoscaling`), one replica failing alone (`replicas`), a pod without a CPU limit
starving its node's other pods (`neighbours`), a disruption budget blocking a drain
(`disruptions`). Symptoms spread along
dependencies: a workload whose logs show it failing to reach a service whose pods have their own
fault is a victim of that fault, and so is what a quiet object explains (a policy's dropped
caller, an autoscaler's saturated target), so the cause ranks first; a fault over before the
incident's window is stale (`links`). Faults off the incident's path (not its service, nor
anything its service's pods are shown to call) stay leads, not conclusions.

kubectl's text is read by `kubectl` (tables, events, describes) and gathered per namespace by
`cluster` (readers keyed by tool, owners keyed by kind). `diagnosis` keeps the cluster and each
namespace's path with the findings; `topology` turns them into the dependency graph's edges.
"""

from reasoning.layered.kubernetes.faults import Diagnosis, diagnose, diagnosis
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.namespaces import (
    named_namespaces,
    scanned_namespaces,
)
from reasoning.layered.kubernetes.reads import plan, survey

__all__ = [
    "Diagnosis",
    "Finding",
    "diagnose",
    "diagnosis",
    "named_namespaces",
    "plan",
    "scanned_namespaces",
    "survey",
]
