"""Node-local Services: a traffic policy that keeps connections on the caller's node.

Rule: a Service with `internalTrafficPolicy: Local` (kube-proxy sends a pod's connections only to
the Service's endpoints on the pod's own node), or a NodePort / LoadBalancer Service with
`externalTrafficPolicy: Local` (a node without an endpoint drops what it receives), while its
ready pods run on fewer nodes than the namespace's pods use: callers on the other nodes time out
although every pod is up. When callers are seen failing to reach it (relevant when a caller is on
the incident's path, or the path names nothing in the namespace), the Service's spec is the fault
(`service_routing`, `TrafficPolicyLocal`, at the connect layer) and the callers' failures are its
victims. A Service named in a failing line is described to see its policy (`reads`).
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import PlannedCall
from reasoning.tools import DESCRIBE

_POLICY = re.compile(
    r"^(Internal|External) Traffic Policy:\s*Local\b.*$"
    r"|^\s*(internal|external)TrafficPolicy:\s*Local\b.*$",
    re.MULTILINE,
)
_TYPE = re.compile(r"^Type:\s*(\S+)", re.MULTILINE)
# A caller's line that fails to reach something.
_FAILS = re.compile(
    r"time(?:d)? ?out|deadline|refused|unavailable|TRANSIENT_FAILURE|reset|no route|"
    r"unreachable|EHOSTUNREACH|ETIMEDOUT|ECONNREFUSED",
    re.IGNORECASE,
)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def failing_lines(failing: str, service: str, ns: str) -> list[str]:
    """Lines of the failure text that fail while naming `service` as a host (name:port, name.ns…)."""
    host = re.compile(
        rf"(?<![\w.-]){re.escape(service)}(?:\.{re.escape(ns)})?(?:\.svc(?:\.cluster\.local)?)?"
        r"(?::\d+|\.svc\b|\b(?=\s))"
    )
    return [
        line.strip()
        for line in failing.splitlines()
        if host.search(line) and _FAILS.search(line)
    ]


def traffic_policy_faults(
    cluster: Cluster, ns: str, path: Path, failing: str
) -> list[Finding]:
    """A Service whose traffic policy keeps connections node-local while its ready pods run on only some of the nodes drops its callers' connections from the other nodes."""
    out: list[Finding] = []
    for service in cluster.names("services", ns):
        described = cluster.describe("services", ns, service)
        policy = _POLICY.search(described.text) if described is not None else None
        if described is None or policy is None:
            continue
        which = (policy.group(1) or policy.group(2) or "").lower()
        kind = _TYPE.search(described.text)
        if which == "external" and kind and kind.group(1) == "ClusterIP":
            continue
        backing = [
            p
            for w in cluster.service_workloads(ns, service)
            for p in cluster.pods_of(ns, w)
            if p.status == "Running" and p.is_ready and p.node
        ]
        with_endpoint = {p.node for p in backing}
        nodes = {p.node for p in cluster.pods(ns) if p.node}
        nodes |= set(cluster.names("nodes", ""))
        without = sorted(nodes - with_endpoint)
        lines = failing_lines(failing, service, ns)
        if not backing or not without or not lines:
            continue
        callers = sorted(
            {
                cluster.owner(ns, "pod", p.name)
                for p in cluster.pods(ns)
                if p.node in without
            }
        )
        f = Finding(
            "service_routing",
            "TrafficPolicyLocal",
            f"service/{service}",
            layers.CONNECT,
            f"service {service} has {which} traffic policy Local but its ready pods run on "
            f"{len(with_endpoint)} of {len(nodes)} nodes: connections from "
            f"{', '.join(without[:3])} have no local endpoint and fail "
            f"({short(lines[-1], 120)})",
            ns,
        )
        f.cite(described, f"describe service {service}: {policy.group(0).strip()}")
        table = cluster.table("pods", ns)
        for pod in backing[:3]:
            f.cite(table.obs if table else None, f"get pods: {pod.line}")
        f.explains = [
            c for c in callers if c not in cluster.service_workloads(ns, service)
        ]
        # Off a known path (the incident names nothing of this namespace), the failing callers
        # seen are the incident's: the Service is on it.
        f.is_relevant = not path.workloads or any(
            c in path.workloads for c in f.explains
        )
        f.keywords = [service, "Local", "traffic policy", *without[:2]]
        f.chain = [
            f"callers fail reaching {service}: {short(lines[-1], 100)}",
            f"{service}'s pods run on {', '.join(sorted(with_endpoint))} only",
            f.statement,
        ]
        out.append(f)
    return out


def reads(
    cluster: Cluster, ns: str, failing: str, call: Call, *, most: int = 2
) -> list[PlannedCall | None]:
    """The Services of the namespace that failing lines name as a host, described (their traffic policy)."""
    calls: list[PlannedCall | None] = []
    for service in cluster.names("services", ns):
        if len(calls) >= most:
            break
        if cluster.describe("services", ns, service) is not None:
            continue
        lines = failing_lines(failing, service, ns)
        if lines:
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "service", "name": service, "namespace": ns},
                    f"callers fail reaching service {service} ({short(lines[0], 80)}): "
                    "its endpoints and traffic policy",
                )
            )
    return calls
