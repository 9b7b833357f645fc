"""One workload as the lifecycle stages see it: its pods, its warning events by reason, its tables.

`workload_view` gathers it from the cluster once; each stage (`stages/`) reads the view and
returns its `Finding`, or None when the workload passes that stage.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import STAGE_LAYERS, Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod, Table


@dataclass
class WorkloadView:
    """What the stages need of one workload (`kind/name`) in one namespace."""

    cluster: Cluster
    namespace: str
    workload: str
    pods: list[Pod] = field(default_factory=list)
    pods_table: Table | None = None
    # The warnings about the workload, its replica sets and its pods, by reason.
    by_reason: dict[str, list[Event]] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.workload.partition("/")[0]

    @property
    def name(self) -> str:
        return self.workload.partition("/")[2]

    def events(self, *reasons: str) -> list[Event]:
        """The warnings with these reasons, in the order the reasons are given."""
        return [e for r in reasons for e in self.by_reason.get(r, [])]

    def pods_with(self, statuses: Iterable[str]) -> list[Pod]:
        wanted = set(statuses)
        return [p for p in self.pods if p.status in wanted]

    def owner_table(self) -> Table | None:
        """The deployments' or stateful sets' list, for a deployment or a stateful set."""
        if self.kind not in ("deployment", "statefulset"):
            return None
        return self.cluster.table(self.kind + "s", self.namespace)

    def finding(self, stage: str, reason: str, statement: str) -> Finding:
        f = Finding(
            stage, reason, self.workload, STAGE_LAYERS[stage], statement, self.namespace
        )
        f.keywords = [reason, stage, self.name]
        return f

    def cite_events(self, f: Finding, reasons: Iterable[str]) -> None:
        for e in self.events(*reasons):
            f.cite(e.obs, e.fact)

    def cite_pods(self, f: Finding, selected: list[Pod]) -> None:
        """The pods' rows in the list and, when read, their describes (three at most)."""
        for pod in selected[:3]:
            f.cite(
                self.pods_table.obs if self.pods_table else None,
                f"get pods: {pod.line}",
            )
            described = self.cluster.describe("pods", self.namespace, pod.name)
            if described is not None:
                f.cite(described, f"describe pod {pod.name}: {pod.status}")

    def cite_describes(self, f: Finding, marker: str, what: str) -> None:
        """Every describe in the namespace whose object is named like the workload and shows `marker`."""
        for (kind, ns, name), obs in self.cluster.describes.items():
            if ns == self.namespace and marker in obs.text and self.name in name:
                f.cite(obs, f"describe {kind[:-1]} {name}: {what}")


def workload_view(cluster: Cluster, ns: str, workload: str) -> WorkloadView:
    by_reason: dict[str, list[Event]] = {}
    for e in cluster.warnings(ns):
        if cluster.owner(ns, e.kind, e.name) == workload:
            by_reason.setdefault(e.reason, []).append(e)
    return WorkloadView(
        cluster=cluster,
        namespace=ns,
        workload=workload,
        pods=cluster.pods_of(ns, workload),
        pods_table=cluster.table("pods", ns),
        by_reason=by_reason,
    )
