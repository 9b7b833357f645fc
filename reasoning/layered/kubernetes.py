"""The Kubernetes agent: what to read with kubectl, and which lifecycle stage fails where.

Planning, from the incident's service and namespace: the namespaces; pods (wide, labels), their
owners (replica sets, deployments, stateful sets), services and endpoints, events, nodes and claims;
then `describe` of what is unhealthy and the previous logs of what restarts; then what those logs
name (the services a pod calls, and the pods behind them).

Diagnosis, per workload, the earliest stage that blocks it (admission → scheduling → startup →
runtime), per service its routing, per node its readiness. Symptoms spread along dependencies: a
workload whose logs show it failing to reach a service whose pods have their own fault is a victim
of that fault, so the dependency's fault ranks first. Faults off the incident's path (not its
service, nor anything its service's pods are shown to call) stay leads, not conclusions.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from reasoning import layers
from reasoning.layered.facts import FACT_CHARS, Facts
from reasoning.layered.kubectl import (
    Cluster,
    Event,
    Pod,
    read_containers,
    service_of_host,
)
from reasoning.layered.reading import as_dict, as_list, incident_text, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import (
    DESCRIBE,
    EVENTS,
    GET_RESOURCES,
    POD_LOGS,
    QUERY_METRIC,
)

SYSTEM_NAMESPACES = frozenset(
    {"kube-system", "kube-public", "kube-node-lease", "default"}
)
# Stage → layer (service_routing's layer depends on the finding: connect, dns or http).
STAGE_LAYERS = {
    "admission": layers.PLATFORM,
    "scheduling": layers.PLATFORM,
    "startup": layers.PLATFORM,
    "runtime": layers.APPLICATION,
    "performance": layers.APPLICATION,
    "infrastructure": layers.PLATFORM,
}
# The lists an engineer reads for a namespace, in that order (as `capture` records them).
LISTS: tuple[tuple[str, bool], ...] = (
    ("deployments", True),
    ("replicasets", True),
    ("statefulsets", True),
    ("services", True),
    ("endpoints", False),
    ("persistentvolumeclaims", False),
    ("ingresses", False),
)
_STARTUP_STATUSES = frozenset(
    {
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)
_RUNTIME_STATUSES = frozenset({"CrashLoopBackOff", "OOMKilled", "Error"})
_CONTROL_PLANE = re.compile(
    r"^(kube-scheduler|kube-proxy|coredns|kube-dns|kube-controller-manager|kube-apiserver|etcd)"
)
_NAMESPACE_IN_TEXT = (
    re.compile(
        r"\bnamespaces?\s*[:=]?\s*[`'\"]?([a-z0-9][a-z0-9-]{0,62})", re.IGNORECASE
    ),
    re.compile(r"(?<!\S)-n\s+([a-z0-9][a-z0-9-]{0,62})"),
    re.compile(r"\b([a-z0-9][a-z0-9-]{0,62})\s+namespace\b", re.IGNORECASE),
)
# Namespaces the platform's own tools live in: read after the applications' ones.
_PLATFORM_NAMESPACE = re.compile(
    r"system|monitoring|logging|observability|cert-manager|ingress|istio|linkerd|argo|flux|"
    r"velero|vault|gatekeeper|kyverno|calico|tigera|metallb|prometheus|grafana|loki|jaeger|tempo"
)
_NOT_NAMESPACES = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "same",
        "each",
        "every",
        "its",
        "in",
        "of",
        "on",
        "for",
        "to",
        "from",
        "into",
        "per",
        "our",
        "their",
        "whole",
        "any",
        "all",
        "other",
        "one",
        "another",
        "another",
        "kubernetes",
        "k8s",
        "cluster",
        "is",
        "was",
    ]
)
# How a log line says a call failed; which layer the words talk about.
_DNS_FAIL = re.compile(
    r"no such host|nxdomain|could not resolve|name or service not known|"
    r"temporary failure in name resolution|getaddrinfo|unknown host|name resolution",
    re.IGNORECASE,
)
_CONNECT_FAIL = re.compile(
    r"connection refused|econnrefused|connect(?:ion)? timed? ?out|i/o timeout|no route to host|"
    r"connection reset|unreachable|cannot connect|can't connect|could not connect|unable to connect|"
    r"failed to connect|dial tcp|no healthy upstream|upstream connect error|no endpoints|"
    r"does not have any active endpoint|timed out|timeout",
    re.IGNORECASE,
)
_AUTH_FAIL = re.compile(
    r"password authentication failed|authentication failed|access denied for user|NOAUTH|WRONGPASS|"
    r"invalid (?:credentials|password|username)|unauthorized|login failed",
    re.IGNORECASE,
)
_FAILING = re.compile(
    r"error|fail|fatal|refused|timeout|timed out|unreachable|unavailable|denied|panic|exception|"
    r"cannot|can't|could not|unable|no such host|not known|reset",
    re.IGNORECASE,
)
_HOST_PORT = re.compile(
    r"(?<![\w./-])((?:[a-z][a-z0-9-]*)(?:\.[a-z0-9-]+)*|\d{1,3}(?:\.\d{1,3}){3}):(\d{2,5})\b"
)
_URL_HOST = re.compile(
    r"[a-z][a-z0-9+.-]*://(?:[^@/\s]+@)?([a-z0-9][a-z0-9.-]*)", re.IGNORECASE
)
_LOOKUP_HOST = re.compile(r"\blookup ([a-z0-9][a-z0-9.-]*)", re.IGNORECASE)
_SLOW = re.compile(
    r"slow|latency|p99|p95|timed? ?out|timeout|deadline exceeded|\b504\b", re.IGNORECASE
)
# A container throttled in this share of its CFS periods is starved of CPU.
THROTTLED_SHARE = 0.25
_OOM = re.compile(
    r"OOMKilled|OOMKilling|out of memory|Memory cgroup out of memory", re.IGNORECASE
)
_PROBE = re.compile(r"(Liveness|Readiness|Startup) probe failed", re.IGNORECASE)


@dataclass
class Finding:
    """One object's fault at one lifecycle stage, with the spans that show it."""

    stage: str
    reason: str
    component: str  # kind/name
    layer: str
    statement: str
    namespace: str
    evidence: list[tuple[Observation, str]] = field(default_factory=list)
    context: list[tuple[Observation, str]] = field(
        default_factory=list
    )  # cited, not support
    victim_of: str | None = None  # the component whose fault explains this one
    is_relevant: bool = False  # on the incident's path
    depth: int = 0  # hops from the incident's service along what its pods call
    node: str = ""  # a control-plane pod's node
    chain: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)

    def cite(self, obs: Observation | None, fact: str) -> None:
        if obs is not None and not any(
            o.span_id == obs.span_id and f == fact for o, f in self.evidence
        ):
            self.evidence.append((obs, short(fact, FACT_CHARS)))


@dataclass(frozen=True)
class Edge:
    """A workload's logs show it failing to reach something (a service, a host, an address)."""

    caller: str  # kind/name
    target: str  # the host or service name as the line says it
    service: str | None  # the namespace's service it means, if any
    kind: str  # dns | connect | auth | other
    obs: Observation
    line: str


Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


# --- which namespace -------------------------------------------------------------------------


def named_namespaces(text: str) -> list[str]:
    """Namespaces the incident names ('namespace shop', 'shop namespace', '-n shop')."""
    found: list[str] = []
    for pattern in _NAMESPACE_IN_TEXT:
        for match in pattern.finditer(text):
            name = match.group(1).lower()
            if name not in _NOT_NAMESPACES and name not in found:
                found.append(name)
    return found


def scanned_namespaces(inv: Investigation, cluster: Cluster) -> list[str]:
    """Where to look for the incident's service: named ones first, else the non-system ones.

    Application namespaces before the platform's own (monitoring, ingress, cert-manager …), three
    at a time: the next three only once those read hold nothing of the service.
    """
    text = incident_text(inv)
    named = named_namespaces(text)
    if cluster.namespaces is None:
        refused = any(
            o.tool == GET_RESOURCES
            and str(o.arguments.get("kind")) == "namespaces"
            and not o.is_ok
            for o in inv.observations
        )
        # Namespaces not listable (RBAC, an older server): the named one, else default.
        return named[:2] or (["default"] if refused else [])
    listed = cluster.namespaces
    words = set(re.findall(r"[a-z0-9][a-z0-9-]*", text.lower()))
    chosen = [n for n in named if n in listed]
    chosen += [
        n
        for n in listed
        if n in words and n not in SYSTEM_NAMESPACES and n not in chosen
    ]
    if chosen:
        return chosen[:2]
    others = sorted(
        (n for n in listed if n not in SYSTEM_NAMESPACES),
        key=lambda n: _PLATFORM_NAMESPACE.search(n) is not None,
    )
    scanned: list[str] = []
    for start in range(0, len(others), 3):
        batch = others[start : start + 3]
        scanned += batch
        if not all(_pods_read(cluster, ns) for ns in batch) or any(
            _holds(inv, cluster, ns) for ns in batch
        ):
            break
    return scanned


def _pods_read(cluster: Cluster, ns: str) -> bool:
    return cluster.has_list("pods", ns) or (
        ("pods", ns, True) in cluster.missing and ("pods", ns, False) in cluster.missing
    )


def _holds(inv: Investigation, cluster: Cluster, ns: str) -> bool:
    service = inv.incident.service.lower()
    return any(p.name.startswith(service) for p in cluster.pods(ns)) or (
        service in cluster.names("services", ns)
    )


def chosen_namespaces(inv: Investigation, cluster: Cluster) -> list[str]:
    """The namespaces read in full: where the service's pods are, else the scanned ones."""
    scanned = scanned_namespaces(inv, cluster)
    if len(scanned) <= 1:
        return scanned
    holding = [ns for ns in scanned if _holds(inv, cluster, ns)]
    if holding:
        return holding[:1]
    if all(cluster.has_list("pods", ns) for ns in scanned):
        return scanned[:2]
    return []


# --- the plan ----------------------------------------------------------------------------------


def plan(
    inv: Investigation, facts: Facts, call: Call, *, max_details: int = 10
) -> list[PlannedCall | None]:
    """The kubectl reads worth asking now (the planner drops the ones already asked)."""
    cluster = Cluster.read(inv.observations)
    calls: list[PlannedCall | None] = [
        call(
            GET_RESOURCES,
            {"kind": "namespaces", "namespace": "default"},
            "which namespaces the cluster has",
        )
    ]
    scanned = scanned_namespaces(inv, cluster)
    anywhere = any(cluster.has_list("pods", ns) for ns in scanned)
    for ns in scanned:
        calls.append(_pods_call(cluster, ns, call, labels_only=anywhere))
    for ns in chosen_namespaces(inv, cluster):
        for kind, wide in LISTS:
            calls.append(
                call(
                    GET_RESOURCES,
                    {"kind": kind, "namespace": ns, **({"wide": True} if wide else {})},
                    f"the {kind} of namespace {ns}",
                )
            )
        calls.append(
            call(
                EVENTS,
                {"namespace": ns},
                f"the events of namespace {ns} (reasons such as FailedScheduling, BackOff)",
            )
        )
        calls.append(
            call(
                GET_RESOURCES,
                {"kind": "nodes", "namespace": ns, "wide": True},
                "the nodes and their readiness",
            )
        )
        calls += _details(inv, facts, cluster, ns, call)[:max_details]
        if _SLOW.search(incident_text(inv)) or any(
            _SLOW.search(e.message)
            for e in cluster.warnings(ns)
            if e.reason == "Unhealthy"
        ):
            calls.append(
                call(
                    QUERY_METRIC,
                    {
                        "promql": throttling_query(ns),
                        "start": "now-1h",
                        "end": "now",
                        "step": "60s",
                    },
                    f"slow answers or probe timeouts in {ns}: are its containers CPU-throttled",
                )
            )
    return calls


def throttling_query(ns: str) -> str:
    """The share of CFS periods in which each container of the namespace was throttled."""
    sel = f'{{namespace="{ns}"}}'
    return (
        f"sum by (container) (rate(container_cpu_cfs_throttled_periods_total{sel}[5m]))"
        f" / sum by (container) (rate(container_cpu_cfs_periods_total{sel}[5m]))"
    )


def _pods_call(
    cluster: Cluster, ns: str, call: Call, *, labels_only: bool
) -> PlannedCall | None:
    # The capture records pods wide with labels; a snapshot without labels answers wide only
    # (asked only while no namespace answered with labels).
    with_labels = labels_only or ("pods", ns, True) not in cluster.missing
    return call(
        GET_RESOURCES,
        {
            "kind": "pods",
            "namespace": ns,
            "wide": True,
            **({"show_labels": True} if with_labels else {}),
        },
        f"the pods of namespace {ns}: status, restarts, node"
        + (", labels" if with_labels else ""),
    )


def _details(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, call: Call
) -> list[PlannedCall | None]:
    """Describes and logs, the incident's path first."""
    if not cluster.has_list("pods", ns):
        return []
    path = _path(inv, facts, cluster, ns)
    order = {w: i for i, w in enumerate(path.workloads)}

    def rank(pod: Pod) -> int:
        return order.get(cluster.owner(ns, "pod", pod.name), len(order))

    calls: list[PlannedCall | None] = []
    pods = sorted(cluster.pods(ns), key=rank)
    seen_owners: set[str] = set()
    for pod in pods:
        owner = cluster.owner(ns, "pod", pod.name)
        if pod.is_healthy or owner in seen_owners:
            continue
        seen_owners.add(owner)
        calls.append(
            call(
                DESCRIBE,
                {"kind": "pod", "name": pod.name, "namespace": ns},
                f"why {pod.name} is {pod.status} ({'/'.join(map(str, pod.ready))} ready, {pod.restarts} restarts)",
            )
        )
        if pod.restarts > 0 or pod.status in _RUNTIME_STATUSES:
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": pod.name, "namespace": ns, "previous": True, "tail": 200},
                    f"what {pod.name} logged before its last restart",
                )
            )
        if pod.status == "Running" and not pod.is_ready:
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": pod.name, "namespace": ns, "tail": 200},
                    f"what {pod.name} logs while not ready",
                )
            )
    # What the path's healthy pods log: whom they call and fail to reach.
    for workload in path.workloads[:4]:
        running = [p for p in cluster.pods_of(ns, workload) if p.status == "Running"]
        if running and workload not in seen_owners:
            pod = running[0]
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": pod.name, "namespace": ns, "tail": 200},
                    f"what {pod.name} ({workload}, on the incident's path) logs",
                )
            )
    for kind in ("deployments", "statefulsets"):
        table = cluster.table(kind, ns)
        for row in table.rows if table else ():
            ready = re.fullmatch(r"(\d+)/(\d+)", row.get("READY", ""))
            if ready and int(ready.group(1)) < int(ready.group(2)):
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": kind[:-1], "name": row["NAME"], "namespace": ns},
                        f"{kind[:-1]} {row['NAME']} has {row['READY']} ready",
                    )
                )
    table = cluster.table("replicasets", ns)
    for row in table.rows if table else ():
        desired, current = row.get("DESIRED", "0"), row.get("CURRENT", "0")
        if desired.isdigit() and current.isdigit() and int(current) < int(desired):
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "replicaset", "name": row["NAME"], "namespace": ns},
                    f"replica set {row['NAME']} created {current} of {desired} pods",
                )
            )
    for event in cluster.warnings(ns):
        if event.reason == "FailedCreate" and "quota" in event.message.lower():
            quota = re.search(r"exceeded quota: ([a-z0-9][a-z0-9.-]*)", event.message)
            if quota:
                calls.append(
                    call(
                        DESCRIBE,
                        {
                            "kind": "resourcequota",
                            "name": quota.group(1),
                            "namespace": ns,
                        },
                        f"the quota {event.object} exceeds",
                    )
                )
    nodes = cluster.table("nodes", ns)
    for row in nodes.rows if nodes else ():
        if "NotReady" in row.get("STATUS", "") or "Unknown" in row.get("STATUS", ""):
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "node", "name": row["NAME"], "namespace": ns},
                    f"why node {row['NAME']} is {row['STATUS']}",
                )
            )
    pvcs = cluster.table("persistentvolumeclaims", ns)
    for row in pvcs.rows if pvcs else ():
        if row.get("STATUS") not in ("Bound", None, ""):
            calls.append(
                call(
                    DESCRIBE,
                    {
                        "kind": "persistentvolumeclaim",
                        "name": row["NAME"],
                        "namespace": ns,
                    },
                    f"claim {row['NAME']} is {row.get('STATUS')}",
                )
            )
    for service in path.services[:4]:
        calls.append(
            call(
                DESCRIBE,
                {"kind": "service", "name": service, "namespace": ns},
                f"service {service}: selector, ports, endpoints",
            )
        )
        for workload in cluster.service_workloads(ns, service)[:1]:
            pods_of = cluster.pods_of(ns, workload)
            if pods_of:
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": "pod", "name": pods_of[0].name, "namespace": ns},
                        f"the ports and probes of {workload}, behind service {service}",
                    )
                )
    for ingress in cluster.names("ingresses", ns)[:2]:
        calls.append(
            call(
                DESCRIBE,
                {"kind": "ingress", "name": ingress, "namespace": ns},
                f"where ingress {ingress} routes",
            )
        )
    if _needs_control_plane(cluster, ns) and "kube-system" in (
        cluster.namespaces or []
    ):
        calls.append(
            call(
                GET_RESOURCES,
                {"kind": "pods", "namespace": "kube-system", "wide": True},
                "pods pending with no scheduling event or nodes not ready: is the control plane up",
            )
        )
    return calls


def _needs_control_plane(cluster: Cluster, ns: str) -> bool:
    pending = [p for p in cluster.pods(ns) if p.status == "Pending" and not p.node]
    explained = {e.name for e in cluster.warnings(ns) if e.reason == "FailedScheduling"}
    nodes = cluster.table("nodes", ns)
    not_ready = any(
        "NotReady" in r.get("STATUS", "") for r in (nodes.rows if nodes else ())
    )
    return (
        bool(
            cluster.has_list("pods", ns)
            and ns in cluster.events_obs
            and any(p.name not in explained for p in pending)
        )
        or not_ready
    )


# --- the incident's path -------------------------------------------------------------------------


@dataclass
class Path:
    """The incident's path: its service's workloads first, then what their pods fail to reach."""

    workloads: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)  # services named on the path
    depth: dict[str, int] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    # Services with no pods to offer → the workloads meant to back them.
    backing: dict[str, list[str]] = field(default_factory=dict)
    ingresses: list[str] = field(default_factory=list)  # ingresses in front of the path


def _seed(inv: Investigation, cluster: Cluster, ns: str) -> tuple[list[str], list[str]]:
    service = inv.incident.service.lower()
    workloads = cluster.workloads(ns)
    services = cluster.names("services", ns)
    seeds: list[str] = []
    seed_services: list[str] = []
    if service in services:
        seed_services.append(service)
        seeds += cluster.service_workloads(ns, service)
    seeds += [w for w in workloads if w.split("/", 1)[1] == service and w not in seeds]
    if not seeds:
        seeds += [w for w in workloads if w.split("/", 1)[1].startswith(service)]
    if not seeds:
        for pod in cluster.pods(ns):
            if pod.name.startswith(service):
                owner = cluster.owner(ns, "pod", pod.name)
                if owner not in seeds:
                    seeds.append(owner)
    # Names the incident's words give (a service the symptoms name).
    words = set(re.findall(r"[a-z0-9][a-z0-9-]*", incident_text(inv).lower()))
    for name in services:
        if name in words and name not in seed_services:
            seed_services.append(name)
            seeds += [w for w in cluster.service_workloads(ns, name) if w not in seeds]
    return seeds, seed_services


def log_edges(
    caller: str,
    obs: Observation,
    text: str,
    services: list[str],
    namespace: str,
    ips: dict[str, str],
) -> list[Edge]:
    """What the failing lines of a log say the caller could not reach."""
    out: list[Edge] = []
    seen: set[tuple[str, str]] = set()
    for line in text.splitlines():
        if not _FAILING.search(line):
            continue
        kind = (
            "dns"
            if _DNS_FAIL.search(line)
            else "auth"
            if _AUTH_FAIL.search(line)
            else "connect"
            if _CONNECT_FAIL.search(line)
            else "other"
        )
        targets: list[str] = []
        targets += [m.group(1) for m in _LOOKUP_HOST.finditer(line)]
        targets += [m.group(1) for m in _URL_HOST.finditer(line)]
        targets += [m.group(1) for m in _HOST_PORT.finditer(line)]
        lowered = line.lower()
        targets += [
            s
            for s in services
            if re.search(rf"(?<![\w.-]){re.escape(s)}(?![\w-])", lowered)
        ]
        for target in targets:
            target = target.lower().rstrip(".")
            service = ips.get(target) or service_of_host(target, services, namespace)
            if service is not None and f"/{service}" == caller[caller.index("/") :]:
                continue  # its own name (its own listen address, its own logger)
            if (target, kind) in seen:
                continue
            seen.add((target, kind))
            out.append(
                Edge(caller, target, service, kind, obs, short(line.strip(), 240))
            )
    return out


def _path(inv: Investigation, facts: Facts, cluster: Cluster, ns: str) -> Path:
    seeds, seed_services = _seed(inv, cluster, ns)
    services = cluster.names("services", ns)
    ips = _addresses(cluster, ns)
    path = Path(workloads=list(seeds), services=list(seed_services))
    for w in seeds:
        path.depth[w] = 0
    queue = list(seeds)
    while queue:
        workload = queue.pop(0)
        name = workload.split("/", 1)[1]
        texts: list[tuple[Observation, str]] = []
        for pod in cluster.pods_of(ns, workload):
            texts += cluster.log_text(ns, pod.name)
        errors = facts.errors.get(name)
        if errors is not None:
            texts.append((errors.obs, "\n".join(g.text for g in errors.groups)))
        for obs, text in texts:
            for edge in log_edges(workload, obs, text, services, ns, ips):
                path.edges.append(edge)
                if edge.service is None:
                    continue
                if edge.service not in path.services:
                    path.services.append(edge.service)
                for target in cluster.service_workloads(
                    ns, edge.service
                ) or cluster.intended_workloads(ns, edge.service):
                    if target not in path.workloads:
                        path.workloads.append(target)
                        path.depth[target] = path.depth.get(workload, 0) + 1
                        queue.append(target)
    text = incident_text(inv).lower()
    on_path = {inv.incident.service.lower(), *path.services}
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        body = described.text.lower() if described is not None else ""
        routed = set(re.findall(r"\s([a-z0-9][a-z0-9-]*):\S+\s+\(", body))
        routed |= {
            m
            for p in re.findall(r"\s(/\S*)\s", body)
            if (m := _service_for_path(p, set(services))) is not None
        }
        hosts = set(re.findall(r"\b([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b", body))
        if ingress in text or routed & on_path or any(h in text for h in hosts):
            path.ingresses.append(ingress)
    return path


def _addresses(cluster: Cluster, ns: str) -> dict[str, str]:
    """Cluster IPs (and pod IPs) → the service they belong to."""
    out: dict[str, str] = {}
    table = cluster.table("services", ns)
    for row in table.rows if table else ():
        ip = row.get("CLUSTER-IP", "")
        if ip and ip != "None":
            out[ip] = row["NAME"]
    for service in cluster.names("services", ns):
        for workload in cluster.service_workloads(ns, service):
            for pod in cluster.pods_of(ns, workload):
                if pod.ip:
                    out.setdefault(pod.ip, service)
    return out


# --- the diagnosis -------------------------------------------------------------------------------


def diagnose(inv: Investigation, facts: Facts) -> list[Finding]:
    """Every fault the kubectl answers show, victims marked, the incident's path flagged."""
    cluster = Cluster.read(inv.observations)
    out: list[Finding] = []
    for ns in chosen_namespaces(inv, cluster):
        if not cluster.has_list("pods", ns):
            continue
        path = _path(inv, facts, cluster, ns)
        found: dict[str, Finding] = {}
        for node in _nodes(cluster, ns):
            found[node.component] = node
        for workload in _all_workloads(cluster, ns):
            finding = _workload(cluster, ns, workload)
            if finding is not None:
                found.setdefault(finding.component, finding)
        for finding in _performance(inv, cluster, ns):
            current = found.get(finding.component)
            if current is None or current.reason in ("Unhealthy", "NotReady"):
                # Probes that time out on a starved container: the starving is the fault.
                if current is not None:
                    finding.evidence += current.evidence
                found[finding.component] = finding
        for finding in _routing(
            cluster, ns, path, _failure_text(inv, facts, cluster, ns)
        ):
            found.setdefault(finding.component, finding)
        for finding in _control_plane(cluster):
            found.setdefault(finding.component, finding)
        _link(cluster, ns, path, found)
        out += found.values()
    return out


def _all_workloads(cluster: Cluster, ns: str) -> list[str]:
    found = cluster.workloads(ns)
    for pod in cluster.pods(ns):
        owner = cluster.owner(ns, "pod", pod.name)
        if owner not in found:
            found.append(owner)
    for event in cluster.warnings(ns):
        if event.kind in ("replicaset", "statefulset", "deployment", "pod"):
            owner = cluster.owner(ns, event.kind, event.name)
            if owner not in found:
                found.append(owner)
    return found


def _nodes(cluster: Cluster, ns: str) -> list[Finding]:
    out: list[Finding] = []
    table = cluster.table("nodes", ns)
    for row in table.rows if table else ():
        status = row.get("STATUS", "")
        if "NotReady" not in status and status != "Unknown":
            continue
        name = row["NAME"]
        f = Finding(
            "infrastructure",
            "NodeNotReady",
            f"node/{name}",
            layers.PLATFORM,
            f"node {name} is {status}: its kubelet stopped posting status, its pods cannot run",
            ns,
        )
        f.cite(
            table.obs if table else None,
            f"get nodes: {table.line(name) if table else name}",
        )
        described = cluster.describe("nodes", ns, name)
        if described is not None:
            reason = re.search(
                r"(Kubelet stopped posting node status\.?|container runtime[^\n]*|PLEG is not healthy[^\n]*|NetworkPluginNotReady[^\n]*)",
                described.text,
            )
            if reason:
                f.statement += f" ({reason.group(1).strip()})"
            f.cite(
                described,
                f"describe node {name}: "
                + (reason.group(1) if reason else "Ready condition not True"),
            )
        for event in cluster.warnings(ns):
            if event.reason == "NodeNotReady" or (
                event.kind == "node" and event.name == name
            ):
                f.cite(event.obs, event.fact)
        f.keywords = ["node", "NotReady", name, "kubelet"]
        out.append(f)
    return out


def _performance(inv: Investigation, cluster: Cluster, ns: str) -> list[Finding]:
    """Containers CPU-throttled in a large share of their periods (the metrics' cAdvisor series)."""
    out: list[Finding] = []
    for obs in inv.observations:
        result = as_dict(obs.result)
        promql = str(obs.arguments.get("promql") or "")
        if obs.tool != QUERY_METRIC or not obs.is_ok or "cfs_throttled" not in promql:
            continue
        if f'namespace="{ns}"' not in promql:
            continue
        for series in as_list(result.get("series")):
            labels = as_dict(as_dict(series).get("metric"))
            values = [
                float(v[1])
                for v in as_list(as_dict(series).get("values"))
                if isinstance(v, list) and len(v) == 2 and _number(v[1])
            ]
            container = str(labels.get("container") or "")
            if not container or not values:
                continue
            recent = values[-5:]
            share = sum(recent) / len(recent)
            if share < THROTTLED_SHARE:
                continue
            workload = _workload_of_container(cluster, ns, container)
            f = Finding(
                "performance",
                "cpu_throttling",
                workload,
                layers.APPLICATION,
                f"{workload} is CPU-throttled in {share:.0%} of its CFS periods (container {container}): "
                "its CPU limit starves it, requests slow down and probes time out",
                ns,
            )
            f.cite(
                obs,
                f"query_metric container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total: "
                f"{container} throttled {share:.0%} of periods",
            )
            limits = [
                (o, read_containers(o.text).limits_cpu)
                for (kind, space, name), o in cluster.describes.items()
                if space == ns
                and kind in ("deployments", "pods")
                and name.startswith(workload.split("/", 1)[1])
            ]
            for o, limit in limits[:2]:
                if limit:
                    f.cite(o, f"describe: Limits cpu {limit}")
            f.keywords = ["cpu", "throttling", "limits", container]
            f.chain = [f"{workload} answers slowly", f.statement]
            out.append(f)
    return out


def _number(value: object) -> bool:
    try:
        return float(str(value)) == float(str(value))  # not NaN
    except ValueError:
        return False


def _workload_of_container(cluster: Cluster, ns: str, container: str) -> str:
    """The workload named like the container, else the only one running a container so named."""
    named: list[str] = []
    holding: list[str] = []
    for kind in ("deployments", "statefulsets", "daemonsets"):
        table = cluster.table(kind, ns)
        for row in table.rows if table else ():
            workload = f"{kind[:-1]}/{row['NAME']}"
            if row.get("NAME") == container:
                named.append(workload)
            elif container in row.get("CONTAINERS", "").split(","):
                holding.append(workload)
    if named:
        return named[0]
    return holding[0] if len(holding) == 1 else f"deployment/{container}"


def _control_plane(cluster: Cluster) -> list[Finding]:
    out: list[Finding] = []
    for pod in cluster.pods("kube-system"):
        match = _CONTROL_PLANE.match(pod.name)
        if match is None or pod.is_healthy:
            continue
        owner = cluster.owner("kube-system", "pod", pod.name)
        table = cluster.table("pods", "kube-system")
        f = Finding(
            "infrastructure",
            pod.status or "NotReady",
            owner,
            layers.PLATFORM,
            f"{match.group(1)} is down in kube-system ({pod.name} {pod.status}, {pod.restarts} restarts)",
            "kube-system",
        )
        f.cite(table.obs if table else None, f"get pods -n kube-system: {pod.line}")
        f.keywords = [match.group(1), pod.status, "control plane"]
        f.node = pod.node
        out.append(f)
    return out


def _workload(cluster: Cluster, ns: str, workload: str) -> Finding | None:
    """The earliest stage that blocks one workload: admission, scheduling, startup, runtime."""
    kind, _, name = workload.partition("/")
    pods = cluster.pods_of(ns, workload)
    pods_table = cluster.table("pods", ns)
    events = [
        e for e in cluster.warnings(ns) if cluster.owner(ns, e.kind, e.name) == workload
    ]
    by_reason: dict[str, list[Event]] = {}
    for e in events:
        by_reason.setdefault(e.reason, []).append(e)

    def finding(
        stage: str, reason: str, statement: str, layer: str | None = None
    ) -> Finding:
        f = Finding(
            stage, reason, workload, layer or STAGE_LAYERS[stage], statement, ns
        )
        f.keywords = [reason, stage, name]
        return f

    def cite_events(f: Finding, reasons: Iterable[str]) -> None:
        for r in reasons:
            for e in by_reason.get(r, []):
                f.cite(e.obs, e.fact)

    def cite_pods(f: Finding, selected: list[Pod]) -> None:
        for pod in selected[:3]:
            f.cite(pods_table.obs if pods_table else None, f"get pods: {pod.line}")
            described = cluster.describe("pods", ns, pod.name)
            if described is not None:
                f.cite(described, f"describe pod {pod.name}: {pod.status}")

    # Admission: the controller cannot create the pods.
    if "FailedCreate" in by_reason:
        message = by_reason["FailedCreate"][0].message
        what = (
            "exceeded quota"
            if "quota" in message.lower()
            else "serviceaccount"
            if "serviceaccount" in message.lower()
            else "admission refused"
        )
        f = finding(
            "admission",
            "FailedCreate",
            f"{workload} cannot create its pods ({what}): {short(message, 200)}",
        )
        cite_events(f, ["FailedCreate"])
        for key, obs in cluster.describes.items():
            if key[1] == ns and "FailedCreate" in obs.text and (name in key[2]):
                f.cite(obs, f"describe {key[0][:-1]} {key[2]}: FailedCreate")
        quota = re.search(r"exceeded quota: ([a-z0-9][a-z0-9.-]*)", message)
        if quota:
            described = cluster.describe("resourcequotas", ns, quota.group(1))
            if described is not None:
                f.cite(
                    described,
                    f"describe resourcequota {quota.group(1)}: used at the hard limit",
                )
            f.keywords += ["quota", quota.group(1)]
        f.chain = [f"{workload} has fewer pods than it wants", f.statement]
        return f
    # Scheduling: pods exist but no node takes them.
    if "FailedScheduling" in by_reason:
        message = by_reason["FailedScheduling"][-1].message
        pending = [p for p in pods if p.status == "Pending"]
        f = finding(
            "scheduling",
            "FailedScheduling",
            f"{workload}'s pods cannot be scheduled: {short(message, 220)}",
        )
        cite_events(f, ["FailedScheduling"])
        cite_pods(f, pending or pods)
        claim = re.search(r"unbound (?:immediate )?PersistentVolumeClaims", message)
        if claim:
            f.keywords += ["PersistentVolumeClaim", "unbound"]
            for key, obs in cluster.describes.items():
                if key[0] == "persistentvolumeclaims" and key[1] == ns:
                    f.cite(obs, f"describe persistentvolumeclaim {key[2]}: not bound")
        for word in (
            "Insufficient cpu",
            "Insufficient memory",
            "taint",
            "affinity",
            "node selector",
            "unschedulable",
        ):
            if word.lower() in message.lower():
                f.keywords.append(word)
        f.chain = [f"{workload}: pods Pending", f.statement]
        return f
    # Startup: scheduled, but the containers cannot be created or their images pulled.
    starting = [p for p in pods if p.status in _STARTUP_STATUSES]
    mounts = by_reason.get("FailedMount", [])
    pulls = [
        e
        for e in by_reason.get("Failed", []) + by_reason.get("BackOff", [])
        if re.search(r"pull|image", e.message, re.IGNORECASE)
    ]
    config = [
        e
        for e in by_reason.get("Failed", [])
        if "CreateContainerConfigError" in e.message
        or re.search(r"(secret|configmap) \"[^\"]+\" not found", e.message)
    ]
    if (
        starting
        or pulls
        or config
        or (
            mounts
            and any(
                p.status in ("ContainerCreating", "Pending", "Init:0/1") for p in pods
            )
        )
    ):
        if starting:
            reason = starting[0].status
        elif config:
            reason = "CreateContainerConfigError"
        elif pulls:
            reason = (
                "ImagePullBackOff"
                if any(
                    "BackOff" in e.reason or "ImagePullBackOff" in e.message
                    for e in pulls
                )
                else "ErrImagePull"
            )
        else:
            reason = "FailedMount"
        detail = next((e.message for e in (config or pulls or mounts)), "")
        f = finding(
            "startup",
            reason,
            f"{workload}'s containers do not start ({reason})"
            + (f": {short(detail, 220)}" if detail else ""),
        )
        cite_pods(f, starting or pods)
        cite_events(
            f, ["Failed", "FailedMount", "BackOff", "ErrImagePull", "InspectFailed"]
        )
        missing = re.search(r"(secret|configmap) \"([^\"]+)\" not found", detail)
        if missing:
            f.keywords += [missing.group(1), missing.group(2)]
        if re.search(r"no such host|lookup|dial tcp", detail):
            f.keywords.append("registry")
        f.chain = [f"{workload}: pods not running", f.statement]
        return f
    # Runtime: the containers start and then fail (crash, OOM, probes), or there are none.
    crashing = [p for p in pods if p.status in _RUNTIME_STATUSES or p.restarts > 0]
    unready = [p for p in pods if p.status == "Running" and not p.is_ready]
    # A probe that failed while a pod started and passes now is no fault: only pods not ready
    # or restarting make the probes' failures count.
    probes = [
        e
        for e in by_reason.get("Unhealthy", [])
        if _PROBE.search(e.message) and (crashing or unready)
    ]
    if crashing or probes or unready:
        selected = crashing or unready or pods
        oom = any(p.status == "OOMKilled" for p in selected)
        terminated: list[str] = []
        describes = []
        for pod in selected:
            described = cluster.describe("pods", ns, pod.name)
            if described is not None:
                describes.append(described)
                terminated += read_containers(described.text).terminated
        oom = oom or "OOMKilled" in terminated or bool(by_reason.get("OOMKilling"))
        crash_looping = any(p.status == "CrashLoopBackOff" for p in selected)
        liveness = any("Liveness" in e.message for e in probes)
        if oom:
            reason = "OOMKilled"
        elif probes and (liveness or not crash_looping):
            reason = "Unhealthy"
        elif crash_looping:
            reason = "CrashLoopBackOff"
        elif selected[0].status not in ("Running", ""):
            reason = selected[0].status
        elif crashing:
            # Running again after restarts: what ended the last run, as Kubernetes says it.
            reason = next(
                (t for t in terminated if t not in ("Completed",)),
                "BackOff" if by_reason.get("BackOff") else "Error",
            )
        else:
            reason = "NotReady"
        statement = {
            "OOMKilled": f"{workload}'s containers are killed for exceeding their memory limit (OOMKilled)",
            "Unhealthy": f"{workload}'s probes fail: {short(probes[0].message, 200) if probes else 'not ready'}",
            "CrashLoopBackOff": f"{workload}'s containers crash and restart (CrashLoopBackOff)",
        }.get(reason, f"{workload}'s pods are {reason}")
        f = finding("runtime", reason, statement)
        cite_pods(f, selected)
        for described in describes:
            if reason == "OOMKilled" and "OOMKilled" in described.text:
                f.cite(described, "describe: Last State Terminated, Reason: OOMKilled")
        cite_events(f, ["BackOff", "Unhealthy", "OOMKilling", "Killing"])
        for pod in selected[:2]:
            for obs, text in cluster.log_text(ns, pod.name):
                tail = [line for line in text.splitlines() if _FAILING.search(line)]
                if tail:
                    f.cite(obs, f"logs {pod.name}: {tail[-1]}")
                    f.keywords.append(short(tail[-1], 60))
                    if _AUTH_FAIL.search(tail[-1]):
                        f.statement += f": a back end refuses its credentials ({short(tail[-1], 120)})"
        f.chain = [
            f"{workload}: {len(selected)} of {len(pods)} pods failing",
            f.statement,
        ]
        return f
    # Zero replicas: nothing runs, nothing fails.
    table = (
        cluster.table(kind + "s", ns) if kind in ("deployment", "statefulset") else None
    )
    row = table.row(name) if table else None
    if row is not None and re.fullmatch(r"0/0", row.get("READY", "")):
        f = finding(
            "runtime",
            "zero_replicas",
            f"{workload} is scaled to 0 replicas: no pod serves it",
        )
        f.cite(
            table.obs if table else None,
            f"get {kind}s: {table.line(name) if table else name}",
        )
        f.chain = [f"{workload} has no pods", f.statement]
        return f
    return None


def _routing(cluster: Cluster, ns: str, path: Path, failing: str = "") -> list[Finding]:
    """Services on the path that reach no pod, or the wrong port; names that do not resolve; ingresses."""
    out: list[Finding] = []
    services = cluster.names("services", ns)
    endpoints_table = cluster.table("endpoints", ns)
    services_table = cluster.table("services", ns)
    for service in services:
        cell = cluster.endpoints(ns, service)
        if cell is None:
            continue
        selected = cluster.service_workloads(ns, service)
        selector = cluster.service_selector(ns, service)
        intended = cluster.intended_workloads(ns, service)
        if cell in ("<none>", "") and not selected and intended:
            # Its workload has no pod to offer: that workload's fault (or its zero replicas).
            path.backing.setdefault(service, intended)
            continue
        if cell in ("<none>", "") and not selected and selector:
            f = Finding(
                "service_routing",
                "no_endpoints",
                f"service/{service}",
                layers.CONNECT,
                f"service {service} has no endpoints: its selector {','.join(f'{k}={v}' for k, v in selector.items())} matches no pod",
                ns,
            )
            f.cite(
                endpoints_table.obs if endpoints_table else None,
                f"get endpoints: {endpoints_table.line(service) if endpoints_table else service} (no endpoints)",
            )
            f.cite(
                services_table.obs if services_table else None,
                f"get services: {services_table.line(service) if services_table else service}",
            )
            described = cluster.describe("services", ns, service)
            if described is not None:
                f.cite(described, f"describe service {service}: Endpoints: <none>")
            f.keywords = ["service", "selector", "no endpoints", service]
            f.chain = [f"calls to {service} find no backend", f.statement]
            out.append(f)
            continue
        mismatch = _target_port_mismatch(cluster, ns, service, selected)
        if mismatch is not None:
            out.append(mismatch)
    known = set(services)
    for edge in path.edges:
        if edge.kind != "dns" or edge.service is not None:
            continue
        first = edge.target.split(".")[0]
        if first in known or re.fullmatch(r"[\d.]+", edge.target):
            continue
        if "." in edge.target and not re.search(
            r"\.(svc|cluster\.local|local|internal)\b|\." + re.escape(ns) + r"\b",
            edge.target,
        ):
            continue  # an outside name: not the cluster's routing
        f = Finding(
            "service_routing",
            "wrong_service_name",
            edge.caller,
            layers.DNS,
            f"{edge.caller} calls {edge.target}, a name no service in {ns} has (DNS cannot resolve it): its configuration points at the wrong name",
            ns,
        )
        f.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
        f.cite(
            services_table.obs if services_table else None,
            f"get services -n {ns}: no service named {first}",
        )
        f.keywords = ["dns", "no such host", edge.target, "service name"]
        f.chain = [f"{edge.caller} cannot resolve {edge.target}", f.statement]
        out.append(f)
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        if described is None:
            continue
        for prefix, backend, port, detail in re.findall(
            r"(/\S*)?\s+([a-z0-9][a-z0-9-]*):(\S+)\s+\(([^)]*\)?)\)", described.text
        ):
            meant = _service_for_path(prefix, known)
            # Only when requests there are seen failing (a 404 or 502 for that path).
            misrouted = re.search(
                rf"\b(?:404|502|503)\b[^\n]*{re.escape(prefix)}|{re.escape(prefix)}\S*[^\n]*\b(?:404|502|503)\b",
                failing,
            )
            if meant is not None and meant != backend and misrouted:
                f = Finding(
                    "service_routing",
                    "wrong_service",
                    f"ingress/{ingress}",
                    layers.HTTP,
                    f"ingress {ingress} routes {prefix} to {backend}:{port}, not to service {meant}",
                    ns,
                )
                f.cite(
                    described,
                    f"describe ingress {ingress}: {prefix} → {backend}:{port} ({detail})",
                )
                f.keywords = ["ingress", "backend", backend, meant]
                f.chain = [f"requests to {prefix} reach {backend}", f.statement]
                out.append(f)
                break
            if backend not in known or "error" in detail or "<none>" in detail:
                f = Finding(
                    "service_routing",
                    "wrong_service",
                    f"ingress/{ingress}",
                    layers.HTTP,
                    f"ingress {ingress} routes to {backend}:{port}, which "
                    + (
                        "is not a service"
                        if backend not in known
                        else "has no endpoints"
                    )
                    + f" ({short(detail, 100)})",
                    ns,
                )
                f.cite(
                    described,
                    f"describe ingress {ingress}: backend {backend}:{port} ({detail})",
                )
                f.keywords = ["ingress", "backend", backend]
                f.chain = [f"requests through {ingress} fail", f.statement]
                out.append(f)
                break
    return out


def _failure_text(inv: Investigation, facts: Facts, cluster: Cluster, ns: str) -> str:
    """The incident's words, the error groups and the pods' logs, for rules that need a failure seen."""
    parts = [incident_text(inv)]
    parts += [g.text for _, g in facts.error_texts()]
    parts += [obs.text for (space, _, _), obs in cluster.logs.items() if space == ns]
    return "\n".join(parts)


def _service_for_path(path: str, services: set[str]) -> str | None:
    """The service a path's first segment names (/cart → cart, cart-service, cartservice …)."""
    segment = path.strip("/").split("/")[0].lower() if path else ""
    if len(segment) < 3:
        return None
    for name in (
        segment,
        f"{segment}service",
        f"{segment}-service",
        f"{segment}-api",
        f"{segment}-svc",
    ):
        if name in services:
            return name
    return None


def _target_port_mismatch(
    cluster: Cluster, ns: str, service: str, selected: list[str]
) -> Finding | None:
    described = cluster.describe("services", ns, service)
    if described is None:
        return None
    targets = re.findall(
        r"^TargetPort:\s*(\S+?)(?:/\w+)?\s*$", described.text, re.MULTILINE
    )
    ports: list[str] = []
    pod_obs: Observation | None = None
    for workload in selected:
        for pod in cluster.pods_of(ns, workload):
            pod_desc = cluster.describe("pods", ns, pod.name)
            if pod_desc is not None:
                ports += [p.split("/")[0] for p in read_containers(pod_desc.text).ports]
                pod_obs = pod_desc
    wrong = [t for t in targets if t.isdigit() and ports and t not in ports]
    if not wrong or pod_obs is None:
        return None
    f = Finding(
        "service_routing",
        "target_port_mismatch",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} sends traffic to port {wrong[0]}, where no container of its pods listens (they listen on {', '.join(sorted(set(ports)))})",
        ns,
    )
    f.cite(described, f"describe service {service}: TargetPort {wrong[0]}")
    f.cite(pod_obs, f"describe pod: container ports {', '.join(sorted(set(ports)))}")
    f.keywords = ["targetPort", "port", service, "connection refused"]
    f.chain = [f"connections to {service} are refused", f.statement]
    return f


def _link(cluster: Cluster, ns: str, path: Path, found: dict[str, Finding]) -> None:
    """Relevance along the path, and victims: a failure caused by what it calls, or by its node."""
    on_path = set(path.workloads)
    for f in found.values():
        f.depth = path.depth.get(f.component, 0)
        if f.component in on_path:
            f.is_relevant = True
        elif f.component.startswith("service/") and f.component[8:] in path.services:
            f.is_relevant = True
            f.depth = 1 + max(
                (
                    path.depth.get(e.caller, 0)
                    for e in path.edges
                    if e.service == f.component[8:]
                ),
                default=0,
            )
        elif f.component.startswith("ingress/") and (
            f.component[8:] in path.ingresses or not path.workloads
        ):
            f.is_relevant = True
    # Nodes: the pods that run (or ran) there.
    for f in list(found.values()):
        if f.stage != "infrastructure" or not f.component.startswith("node/"):
            continue
        node = f.component[5:]
        for pod in cluster.pods(ns):
            if pod.node != node:
                continue
            owner = cluster.owner(ns, "pod", pod.name)
            if owner in on_path:
                f.is_relevant = True
                f.depth = max(f.depth, path.depth.get(owner, 0) + 1)
            victim = found.get(owner)
            if (
                victim is not None
                and victim is not f
                and victim.stage in ("runtime", "scheduling", "startup")
            ):
                victim.victim_of = f.component
    # A control-plane pod on a node that is down is that node's victim.
    for f in found.values():
        node_fault = found.get(f"node/{f.node}") if f.node else None
        if node_fault is not None and node_fault is not f:
            f.victim_of = node_fault.component
    # Control plane: relevant when the namespace shows the symptom it causes.
    for f in found.values():
        if (
            f.namespace == "kube-system"
            or (f.stage == "infrastructure" and not f.component.startswith("node/"))
        ) and _needs_control_plane(cluster, ns):
            f.is_relevant = True
            f.depth = max(path.depth.values(), default=0) + 1
    # A caller failing to reach a service whose pods (or routing) fail is that fault's victim.
    for edge in path.edges:
        if edge.kind == "auth" or edge.service is None:
            continue
        caller = found.get(edge.caller)
        if caller is None or caller.stage not in ("runtime",):
            continue
        causes = [found.get(f"service/{edge.service}")] + [
            found.get(w)
            for w in cluster.service_workloads(ns, edge.service)
            or cluster.intended_workloads(ns, edge.service)
        ]
        cause = next((c for c in causes if c is not None and c is not caller), None)
        if cause is None:
            continue
        caller.victim_of = cause.component
        cause.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
        cause.context.append((edge.obs, f"{edge.caller} logs: {edge.line}"))
        cause.chain.insert(
            0, f"{edge.caller} fails calling {edge.target}: {short(edge.line, 100)}"
        )


def stage_layer(stage: str) -> str:
    return STAGE_LAYERS.get(stage, layers.CONNECT)
