"""Target ports: what a Service sends to versus what its pods' processes say they listen on.

Rule: a Service whose endpoints list Ready pods on a target port that none of those pods' own
logs names among the ports its servers listen on (`http server listening addr=:9090`, `Tomcat
started on port(s): 9090`, `Listening on http://0.0.0.0:9090`), while its callers' connections to
it are refused, sends them to a closed port: the Service's targetPort is the fault
(`TargetPortMismatch`, connect), not the callers nor the pods, which serve on another port (their
probes may use an admin port, so they stay Ready). A declared containerPort proves nothing here:
it is a label, the process decides where it listens. A named targetPort that no container port of
the pods carries (a port name mismatch) is the same fault.
"""

import re
from collections.abc import Sequence

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import describe_field
from reasoning.layered.reading import error_classes, short
from reasoning.observations import Observation

# A line where a server says it listens, and the port it names.
_LISTENING = re.compile(
    r"\b(?:listen(?:ing|s)?|running on|started on|serving on|serving at|bound to|bind(?:ing)? to"
    r"|server started|ServerConnector)\b",
    re.IGNORECASE,
)
_PORT = re.compile(
    r"\bport(?:\(s\)|s)?[\s:=]+(\d{2,5})\b"
    r"|(?:^|[\s=(\"'\[{/@,])(?:[a-z0-9.-]*|\[[0-9a-f:]*\])?:(\d{2,5})(?![\d:.])",
    re.IGNORECASE,
)
_TARGET = re.compile(r"^TargetPort:[ \t]*(\S+?)(?:/\w+)?[ \t]*$", re.MULTILINE)
_CONTAINER_PORT = re.compile(r"^\s*Port:\s*(\d+)/\w+(?:\s*\(([\w-]+)\))?", re.MULTILINE)
_REFUSED = re.compile(
    r"connection refused|ECONNREFUSED|Connection refused", re.IGNORECASE
)


def listened_ports(text: str) -> list[tuple[str, str]]:
    """(port, line) for each port a log's lines say a server listens on (the last 2000 lines)."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines()[-2000:]:
        head = line[:600]
        if not _LISTENING.search(head):
            continue
        for m in _PORT.finditer(head):
            port = m.group(1) or m.group(2)
            colon = m.start(2) - 1
            if m.group(2) and re.search(r"\w[\"']$", head[max(0, colon - 2) : colon]):
                continue  # a JSON key's value (`"level":30`), not an address
            if 0 < int(port) < 65536 and all(p != port for p, _ in out):
                out.append((port, line.strip()))
    return out


def _declared_ports(cluster: Cluster, ns: str, workload: str) -> dict[str, str]:
    """Container port name → number, from the workload's (or a pod's) describe."""
    kind, _, name = workload.partition("/")
    texts = [cluster.describe(f"{kind}s", ns, name)]
    texts += [
        cluster.describe("pods", ns, p.name) for p in cluster.pods_of(ns, workload)
    ]
    named: dict[str, str] = {}
    for obs in texts:
        if obs is None:
            continue
        for number, port_name in _CONTAINER_PORT.findall(obs.text):
            if port_name:
                named.setdefault(port_name, number)
    return named


def _refused_line(
    failing: Sequence[tuple[Observation | None, str]],
    service: str,
    ns: str,
    addresses: set[str],
    port: str,
) -> tuple[Observation | None, str] | None:
    """A caller's line refused at one of the service's endpoints on `port`, or through its name."""
    name = re.compile(
        rf"(?:^|[^\w.-]){re.escape(service)}(?:\.{re.escape(ns)}(?:\.svc[\w.]*)?)?(?:[:/\s\"'\\]|$)"
    )
    for obs, text in failing:
        for line in text.splitlines()[:5000]:
            head = line[:2000]
            if not _REFUSED.search(head):
                continue
            if any(f"{a}:{port}" in head for a in addresses) or (
                name.search(head) and layers.CONNECT in error_classes(head)
            ):
                return obs, line.strip()
    return None


def listen_port_faults(
    cluster: Cluster,
    ns: str,
    failing: Sequence[tuple[Observation | None, str]] = (),
) -> list[Finding]:
    """A Service whose target port none of its Ready pods' servers listen on (by their own logs),
    or a named one no container port carries, while its callers are refused: its targetPort is the fault."""
    out: list[Finding] = []
    for service in cluster.names("services", ns):
        described = cluster.describe("services", ns, service)
        if described is None:
            continue
        targets = _TARGET.findall(described.text)
        endpoints = describe_field("\n" + described.text, "Endpoints")
        addresses = set(re.findall(r"\b(\d{1,3}(?:\.\d{1,3}){3}):\d+", endpoints))
        if not targets or not addresses:
            continue  # no ready pod behind it: another rule's case
        workloads = cluster.service_workloads(ns, service)
        pods = [
            p for w in workloads for p in cluster.pods_of(ns, w) if p.ip in addresses
        ]
        heard: list[tuple[str, str, str, Observation]] = []  # (port, line, pod, obs)
        for pod in pods:
            for obs, text in cluster.log_text(ns, pod.name):
                heard += [
                    (port, ln, pod.name, obs) for port, ln in listened_ports(text)
                ]
        declared: dict[str, str] = {}
        for w in workloads:
            declared |= _declared_ports(cluster, ns, w)
        for target in targets:
            port = target
            if not target.isdigit():
                if target in declared:
                    port = declared[target]
                elif declared and _any_refused(failing, service, ns, addresses):
                    out.append(
                        _named_mismatch(
                            service, ns, target, declared, described, failing, addresses
                        )
                    )
                    break
                else:
                    continue
            if not heard or any(p == port for p, _, _, _ in heard):
                continue
            refused = _refused_line(failing, service, ns, addresses, port)
            if refused is None:
                continue
            out.append(_mismatch(cluster, ns, service, port, heard, refused, described))
            break
    return out


def _any_refused(
    failing: Sequence[tuple[Observation | None, str]],
    service: str,
    ns: str,
    addresses: set[str],
) -> bool:
    return any(
        _REFUSED.search(text) and (service in text or any(a in text for a in addresses))
        for _, text in failing
    )


def _mismatch(
    cluster: Cluster,
    ns: str,
    service: str,
    port: str,
    heard: list[tuple[str, str, str, Observation]],
    refused: tuple[Observation | None, str],
    described: Observation,
) -> Finding:
    ports = sorted({p for p, _, _, _ in heard}, key=int)
    f = Finding(
        "service_routing",
        "TargetPortMismatch",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} sends its callers to port {port} (targetPort) of its Ready pods, "
        f"but their servers listen on {', '.join(ports)}: every connection is refused",
        ns,
    )
    obs, line = refused
    f.cite(obs, f"a caller of {service} is refused: {short(line, 200)}")
    f.cite(
        described,
        f"describe service {service}: TargetPort {port}, Endpoints on :{port}",
    )
    for p, ln, pod, pod_obs in heard[:2]:
        f.cite(pod_obs, f"{pod} logs (listens on {p}): {short(ln, 160)}")
    endpoints = cluster.table("endpoints", ns)
    if endpoints is not None and endpoints.row(service) is not None:
        f.cite(endpoints.obs, f"get endpoints: {endpoints.line(service)}")
    f.keywords = ["targetPort", "port", service, port, *ports[:2], "connection refused"]
    f.chain = [
        f"callers of {service} are refused on :{port}",
        f"its pods listen on {', '.join(ports)}",
        f.statement,
    ]
    f.is_relevant = True
    return f


def _named_mismatch(
    service: str,
    ns: str,
    target: str,
    declared: dict[str, str],
    described: Observation,
    failing: Sequence[tuple[Observation | None, str]],
    addresses: set[str],
) -> Finding:
    f = Finding(
        "service_routing",
        "TargetPortMismatch",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} targets the port named {target}, which no container of its pods "
        f"declares (they name {', '.join(sorted(declared))}): its connections are refused",
        ns,
    )
    f.cite(described, f"describe service {service}: TargetPort {target}")
    for obs, text in failing:
        for line in text.splitlines()[:5000]:
            if _REFUSED.search(line[:2000]) and (
                service in line or any(a in line for a in addresses)
            ):
                f.cite(
                    obs, f"a caller of {service} is refused: {short(line.strip(), 200)}"
                )
                break
        if len(f.evidence) > 1:
            break
    f.keywords = ["targetPort", "port name", service, target]
    f.chain = [f"callers of {service} are refused", f.statement]
    f.is_relevant = True
    return f
