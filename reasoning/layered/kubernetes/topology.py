"""What the cluster shows depends on what: the Kubernetes edges of the dependency graph.

Rules (each edge carries the span that showed it):
- an Ingress routes to the Services its rules name (its describe's backends);
- a Service selects the workloads whose pods its selector matches (or, with no pod, those meant
  to back it);
- a workload runs on the nodes its pods are scheduled to (the pods list's NODE);
- a workload calls what its pods' failing log lines name (the path's log edges: a Service, else
  the host or address as written);
- a workload is configured to call the Services its pods' environment variables name (a
  described pod's `Environment:` values naming a host of the namespace);
- a workload depends on what its pod spec refers to: the resolvers its `dnsConfig` names
  (`resolves_with`), the addresses its `hostAliases` pin host names to (`pins`), the hosts (a
  Service of the namespace, else the host as written) its pods' init containers wait for
  (`waits_for`);
- a finding's victims depend on their cause (`victim_of`, and what a quiet object explains: a
  policy's dropped caller, an autoscaler's saturated target).
"""

from typing import TYPE_CHECKING

from reasoning.layered.graph import Graph
from reasoning.layered.kubernetes.cluster import Cluster, service_of_host
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import init_containers, read_containers
from reasoning.layered.kubernetes.logs import line_targets
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.pod_spec import pod_specs
from reasoning.layered.kubernetes.routing import ingress_backends
from reasoning.layered.kubernetes.stages.initialization import targets
from reasoning.layered.reading import short

if TYPE_CHECKING:
    # Typing only: faults imports the rules table, which imports the graph builders.
    from reasoning.layered.kubernetes.faults import Diagnosis

_NO_NODE = ("", "<none>", "none")


def kind_of(component: str) -> str:
    """A Kubernetes component's kind (`deployment/x` → deployment); `service` for a bare name."""
    return component.partition("/")[0] if "/" in component else "service"


def add_cluster(graph: Graph, result: "Diagnosis") -> None:
    """The edges the cluster's answers show, per diagnosed namespace, then the findings' links."""
    cluster = result.cluster
    for ns, path in result.paths.items():
        _routes(graph, cluster, ns)
        _selects(graph, cluster, ns)
        _runs_on(graph, cluster, ns)
        _calls(graph, path)
        _configured(graph, cluster, ns)
        _spec_references(graph, cluster, ns)
    by_component = {f.component: f for f in result.findings}
    for f in result.findings:
        for victim in f.explains:
            _depends(graph, victim, f)
        cause = by_component.get(f.victim_of or "")
        if cause is not None:
            _depends(graph, f.component, cause)


def _depends(graph: Graph, victim: str, cause: Finding) -> None:
    """The victim depends on the cause, shown by the cause's first evidence."""
    if not cause.evidence or victim == cause.component:
        return
    obs, fact = cause.evidence[0]
    graph.link(
        victim,
        cause.component,
        "fails_through",
        obs.span_id,
        fact,
        caller_kind=kind_of(victim),
        callee_kind=kind_of(cause.component),
    )


def _routes(graph: Graph, cluster: Cluster, ns: str) -> None:
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        if described is None:
            continue
        for prefix, backend, port in ingress_backends(described.text):
            graph.link(
                f"ingress/{ingress}",
                f"service/{backend}",
                "routes",
                described.span_id,
                f"describe ingress {ingress}: {prefix or '/'} → {backend}:{port}",
                caller_kind="ingress",
            )


def _selects(graph: Graph, cluster: Cluster, ns: str) -> None:
    table = cluster.table("services", ns)
    if table is None:
        return
    for service in cluster.names("services", ns):
        workloads = cluster.service_workloads(
            ns, service
        ) or cluster.intended_workloads(ns, service)
        for workload in workloads:
            graph.link(
                f"service/{service}",
                workload,
                "selects",
                table.obs.span_id,
                f"get services: {short(table.line(service), 160)}",
                callee_kind=kind_of(workload),
            )


def _runs_on(graph: Graph, cluster: Cluster, ns: str) -> None:
    table = cluster.table("pods", ns)
    if table is None:
        return
    for pod in cluster.pods(ns):
        if pod.node in _NO_NODE:
            continue
        owner = cluster.owner(ns, "pod", pod.name)
        graph.link(
            owner,
            f"node/{pod.node}",
            "runs_on",
            table.obs.span_id,
            f"get pods: {short(pod.line, 160)}",
            caller_kind=kind_of(owner),
            callee_kind="node",
        )


def _calls(graph: Graph, path: Path) -> None:
    for edge in path.edges:
        callee = f"service/{edge.service}" if edge.service else edge.target
        graph.link(
            edge.caller,
            callee,
            "calls",
            edge.obs.span_id,
            f"{edge.caller} logs ({edge.kind}): {short(edge.line, 160)}",
            caller_kind=kind_of(edge.caller),
            callee_kind="service" if edge.service else "host",
        )


def _configured(graph: Graph, cluster: Cluster, ns: str) -> None:
    services = cluster.names("services", ns)
    for (kind, space, name), obs in cluster.describes.items():
        if kind != "pods" or space != ns:
            continue
        owner = cluster.owner(ns, "pod", name)
        for variable, value in read_containers(obs.text).env.items():
            for target in line_targets(value, services):
                service = service_of_host(target.lower(), services, ns)
                if service is None or f"/{service}" == owner[owner.index("/") :]:
                    continue
                graph.link(
                    owner,
                    f"service/{service}",
                    "configured",
                    obs.span_id,
                    f"describe pod {name}: {variable}={short(value, 120)}",
                    caller_kind=kind_of(owner),
                )


def _spec_references(graph: Graph, cluster: Cluster, ns: str) -> None:
    for spec in pod_specs(cluster, ns):
        kind = spec.workload.partition("/")[0]
        for ip in spec.nameservers:
            graph.link(
                spec.workload,
                ip,
                "resolves_with",
                spec.obs.span_id,
                spec.resolvers_fact(ip),
                caller_kind=kind,
                callee_kind="host",
            )
        for alias in spec.host_aliases:
            graph.link(
                spec.workload,
                alias.ip,
                "pins",
                spec.obs.span_id,
                spec.alias_fact(", ".join(alias.hostnames), alias.ip),
                caller_kind=kind,
                callee_kind="host",
            )
    services = cluster.names("services", ns)
    for (plural, space, pod), obs in cluster.describes.items():
        if plural != "pods" or space != ns:
            continue
        owner = cluster.owner(ns, "pod", pod)
        for init in init_containers(obs.text):
            for host in targets(init.command):
                service = service_of_host(host, services, ns)
                graph.link(
                    owner,
                    f"service/{service}" if service else host,
                    "waits_for",
                    obs.span_id,
                    f"describe pod {pod}: init container {init.name}: {short(init.command, 120)}",
                    caller_kind=kind_of(owner),
                    callee_kind="service" if service else "host",
                )
