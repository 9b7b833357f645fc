"""Initialization: the pods are scheduled and created, but an init container never lets them start.

Rule: pods held in their init containers (`Init:N/M`) whose describe shows an init container
waiting for a host (`nc -z HOST PORT`, `nslookup HOST`, `wait-for-it HOST:PORT`, `pg_isready -h
HOST`, a URL, `getent hosts HOST` …) that no Service of the namespace is named, or that the init
container's own logs say does not resolve, wait for something that does not exist: the workload's
spec refers to a stale name (a renamed or removed Service). The finding is the workload's (layer
application: its own spec is wrong, not the platform), citing the init container's command, its
logs and the Services that do exist (those sharing a word with the missing name first: what it was
probably renamed to). A target that exists is left to the faults of what backs it.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import InitContainer, Pod, init_containers
from reasoning.layered.kubernetes.logs import DNS_FAIL
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short
from reasoning.observations import Observation

# Words of a waiting command that are never the host it waits for.
_NOT_HOSTS = frozenset(
    {
        "sh",
        "bash",
        "until",
        "do",
        "done",
        "while",
        "echo",
        "sleep",
        "true",
        "false",
        "then",
        "if",
        "fi",
        "exit",
        "waiting",
        "for",
        "hosts",
        "localhost",
    }
)
_HOST = r"([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)"
# How a waiting command names its target, each capturing the host.
_TARGETS = (
    re.compile(
        rf"\b(?:nc|ncat|netcat|telnet)\s+(?:-[a-z]+\s+(?:\d+\s+)?)*{_HOST}\s+\d+", re.I
    ),
    re.compile(
        rf"\b(?:nslookup|dig|host|ping|getent\s+a?hosts)\s+(?:-\S+\s+(?:\d+\s+)?)*{_HOST}",
        re.I,
    ),
    # `-h HOST` as pg_isready and mysqladmin take it (case kept: curl's -H is a header).
    re.compile(rf"(?:\s-h\s*|--host[= ])'?{_HOST}"),
    re.compile(rf"\bwait-for(?:-it)?(?:\.sh)?\s+(?:-\S+\s+)*{_HOST}:\d+", re.I),
    # A scheme starts where a word does: tried at every letter of a long token, it is quadratic.
    re.compile(rf"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://(?:[^@/\s]+@)?{_HOST}", re.I),
    re.compile(rf"(?<![\w./:-]){_HOST}:\d{{2,5}}\b", re.I),
)
_UNRESOLVED = re.compile(
    rf"{DNS_FAIL.pattern}|bad address|can't resolve|cannot resolve|server can't find|"
    r"could not translate host name|NXDOMAIN",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")


def targets(command: str) -> list[str]:
    """The hosts a waiting command waits for, as written, in order."""
    found: list[str] = []
    for pattern in _TARGETS:
        for match in pattern.finditer(command):
            host = match.group(1).rstrip(".").lower()
            if host in _NOT_HOSTS or host.isdigit() or re.fullmatch(r"[\d.]+", host):
                continue
            if host not in found:
                found.append(host)
    return found


def _in_namespace(host: str, ns: str) -> str | None:
    """The Service name a host means in `ns` (`db`, `db.ns`, `db.ns.svc…`), None for another
    namespace's or an outside host."""
    labels = host.split(".")
    if len(labels) == 1:
        return labels[0]
    if labels[1] == ns and (len(labels) == 2 or labels[2] == "svc"):
        return labels[0]
    return None


def _init_logs(
    cluster: Cluster, ns: str, pod: str, container: str
) -> list[tuple[Observation, str]]:
    return [
        (obs, obs.text)
        for (space, name, _, named), obs in cluster.logs.items()
        if space == ns and name == pod and named == container
    ]


def _similar(missing: str, services: list[str]) -> list[str]:
    words = set(_WORD.findall(missing))
    return sorted(services, key=lambda s: -len(words & set(_WORD.findall(s))))


def _waits(
    view: WorkloadView, pod: Pod, services: list[str] | None
) -> tuple[InitContainer, str, Observation, list[tuple[Observation, str]]] | None:
    """The init container of `pod` waiting for a host that does not exist, with the host."""
    described = view.cluster.describe("pods", view.namespace, pod.name)
    if described is None:
        return None
    for container in init_containers(described.text):
        if container.state == "Terminated":
            continue
        logs = _init_logs(view.cluster, view.namespace, pod.name, container.name)
        for host in targets(container.command):
            unresolved = [
                (obs, line.strip())
                for obs, text in logs
                for line in text.splitlines()
                if host in line.lower() and _UNRESOLVED.search(line)
            ]
            name = _in_namespace(host, view.namespace)
            missing = services is not None and name is not None and name not in services
            if unresolved or missing:
                return container, host, described, unresolved
    return None


def initialization(view: WorkloadView) -> Finding | None:
    """Pods held in `Init:` by an init container that waits for a host no Service of the namespace is named (or that its logs say does not resolve) never start: the init container's stale reference is the workload's fault."""
    waiting = [p for p in view.pods if p.status.startswith("Init:")]
    if not waiting:
        return None
    table = view.cluster.table("services", view.namespace)
    services = view.cluster.names("services", view.namespace) if table else None
    found = next(
        (
            (pod, hit)
            for pod in waiting
            if (hit := _waits(view, pod, services)) is not None
        ),
        None,
    )
    if found is None:
        return None
    pod, (container, host, described, unresolved) = found
    reason = pod.status
    service = _in_namespace(host, view.namespace)
    absent = services is not None and service is not None and service not in services
    exists = (
        f"no Service {service} in {view.namespace} (its Services: "
        f"{', '.join(_similar(service, services or [])[:4]) or 'none'})"
        if absent and service is not None
        else f"{host} does not resolve"
    )
    f = view.finding(
        "startup",
        reason,
        f"{view.workload}'s pods wait in {reason}: init container {container.name} waits for "
        f"{host} ({short(container.command, 120)}), and {exists}"
        + (f" ({short(unresolved[-1][1], 100)})" if unresolved else "")
        + ": its spec refers to a name that no longer exists, so the pods never start",
    )
    f.layer = layers.APPLICATION
    view.cite_pods(f, waiting)
    f.cite(
        described,
        f"describe pod {pod.name}: init container {container.name} ({container.state or 'waiting'}): "
        f"{container.command}",
    )
    for obs, line in unresolved[-2:]:
        f.cite(obs, f"logs {pod.name} -c {container.name}: {line}")
    if table is not None and absent:
        f.cite(table.obs, f"get services: {', '.join(services or [])} (no {service})")
    f.keywords += [
        *([service] if service and service != host else []),
        host,
        container.name,
        "init container",
        *(line for _, line in unresolved[-1:]),
    ]
    f.chain = [
        f"{view.workload}: {len(waiting)} of {len(view.pods)} pods in {reason}",
        f"init container {container.name} waits for {host}: {exists}",
        f.statement,
    ]
    return f
