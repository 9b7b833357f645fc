"""The incident's path: its service's workloads, then what their logs fail to reach, hop by hop.

The seeds are the workloads behind the incident's service (by its service's selector, by name,
by pod name) and behind any service the incident's words name or the survey of an unresolved name
found unhealthy, and the jobs and cron jobs the incident's words name. From each, the failing
lines of its pods' logs (and of the error groups the logs server gave) name services; their
workloads join the path one hop further. Ingresses join when they route to a service on the path,
or the incident names them or their hosts.
"""

import re
from dataclasses import dataclass, field

from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.logs import Edge, log_edges
from reasoning.layered.reading import incident_text
from reasoning.observations import Investigation, Observation


@dataclass
class Path:
    """The incident's path: its service's workloads first, then what their pods fail to reach."""

    workloads: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)  # services named on the path
    depth: dict[str, int] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    # A workload's failed connections to its own replicas' addresses (not followed: no new service).
    peer_edges: list[Edge] = field(default_factory=list)
    # Services with no pods to offer → the workloads meant to back them.
    backing: dict[str, list[str]] = field(default_factory=dict)
    ingresses: list[str] = field(default_factory=list)  # ingresses in front of the path
    # The incident's own service resolved to workloads here (by its Service, name or pods), not
    # only to what its words or the survey named.
    resolved: bool = False


def incident_path(inv: Investigation, facts: Facts, cluster: Cluster, ns: str) -> Path:
    """The path through namespace `ns`: seeds, what their logs fail to reach, the ingresses in front."""
    seeds, seed_services, resolved = _seed(inv, cluster, ns)
    path = Path(workloads=list(seeds), services=list(seed_services), resolved=resolved)
    for w in seeds:
        path.depth[w] = 0
    _follow(facts, cluster, ns, path, list(seeds))
    path.ingresses = _ingresses(inv, cluster, ns, path)
    return path


def _seed(
    inv: Investigation, cluster: Cluster, ns: str
) -> tuple[list[str], list[str], bool]:
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
    resolved = bool(seeds)
    # Names the incident's words give (a service the symptoms name).
    words = set(re.findall(r"[a-z0-9][a-z0-9-]*", incident_text(inv).lower()))
    words.update(s.lower() for s in inv.incident.starting_services)
    for name in services:
        if name in words and name not in seed_services:
            seed_services.append(name)
            seeds += [w for w in cluster.service_workloads(ns, name) if w not in seeds]
    # Jobs and cron jobs have no service: the incident names them by their words ("ledger export").
    text = incident_text(inv).lower()
    for pod in cluster.pods(ns):
        owner = cluster.owner(ns, "pod", pod.name)
        kind, _, name = owner.partition("/")
        spoken = re.escape(name).replace(r"\-", "[- ]")
        if (
            kind in ("cronjob", "job")
            and owner not in seeds
            and re.search(rf"(?<![\w-]){spoken}(?![\w-])", text)
        ):
            seeds.append(owner)
    return seeds, seed_services, resolved


def workload_texts(
    facts: Facts, cluster: Cluster, ns: str, workload: str
) -> list[tuple[Observation, str]]:
    """What a workload logged: its pods' logs, the error groups the logs server gave for it, and
    the lines a log search found for it (any level)."""
    texts: list[tuple[Observation, str]] = []
    for pod in cluster.pods_of(ns, workload):
        texts += cluster.log_text(ns, pod.name)
    errors = facts.errors.get(workload.split("/", 1)[1])
    if errors is not None:
        texts.append((errors.obs, "\n".join(g.text for g in errors.groups)))
    texts += facts.searched.get(workload.split("/", 1)[1], [])
    return texts


def _follow(
    facts: Facts, cluster: Cluster, ns: str, path: Path, queue: list[str]
) -> None:
    """Breadth first from the seeds along the services their logs fail to reach."""
    services = cluster.names("services", ns)
    ips = addresses(cluster, ns)
    while queue:
        workload = queue.pop(0)
        for obs, text in workload_texts(facts, cluster, ns, workload):
            for edge in log_edges(
                workload, obs, text, services, ns, ips, path.peer_edges
            ):
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


def _ingresses(inv: Investigation, cluster: Cluster, ns: str, path: Path) -> list[str]:
    """Ingresses in front of the path: routing to a service on it, or named by the incident."""
    services = set(cluster.names("services", ns))
    text = incident_text(inv).lower()
    on_path = {inv.incident.service.lower(), *path.services}
    found: list[str] = []
    for ingress in cluster.names("ingresses", ns):
        described = cluster.describe("ingresses", ns, ingress)
        body = described.text.lower() if described is not None else ""
        routed = set(re.findall(r"\s([a-z0-9][a-z0-9-]*):\S+\s+\(", body))
        routed |= {
            m
            for p in re.findall(r"\s(/\S*)\s", body)
            if (m := service_for_path(p, services)) is not None
        }
        hosts = set(re.findall(r"\b([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b", body))
        if ingress in text or routed & on_path or any(h in text for h in hosts):
            found.append(ingress)
    return found


def addresses(cluster: Cluster, ns: str) -> dict[str, str]:
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


# Path segments that name no service: an API's prefix and its version (/api/v1/exports → exports).
_GENERIC_SEGMENT = re.compile(
    r"(?:api|apis|v\d+(?:beta\d*|alpha\d*)?|rest|public|internal)"
)


def path_word(path: str) -> str:
    """A path's first segment past an API prefix and version (/api/v1/exports → exports)."""
    segments = [s.lower() for s in path.strip("/").split("/")] if path else [""]
    return next(
        (s for s in segments[:-1] if not _GENERIC_SEGMENT.fullmatch(s)), segments[-1]
    )


def service_for_path(path: str, services: set[str]) -> str | None:
    """The service a path's first segment names (/cart → cart, cart-service, cartservice …), else
    the one its first segment past an API prefix and version names (/api/v1/exports → exports-api)."""
    first = path.strip("/").split("/")[0].lower() if path else ""
    for segment in dict.fromkeys((first, path_word(path))):
        if len(segment) < 3:
            continue
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
