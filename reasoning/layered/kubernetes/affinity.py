"""Load skew across replicas from the Service's routing: its callers stay pinned to a few pods.

Rules, for a workload with a minority of its pods failing (restarted, OOM-killed, unready, named by
a failing probe) while their siblings run ready — the failures not following a node:
- a Service with `Session Affinity: ClientIP` in front of it sends every request of one client
  address to the same pod: its few callers (a router or proxy with one replica is one client
  address) are pinned to the hot pod while the others idle (`SessionAffinity`);
- a Service with a virtual IP (type ClusterIP, not headless) in front of it whose traffic is
  long-lived multiplexed connections (gRPC, HTTP/2: a port named so, or the workload's or its
  callers' lines speaking it; a gRPC client's errors name no host, so the path's workloads failing
  with them are its callers when no line names the Service) is balanced per connection, not per
  request: each caller's one
  connection stays on the pod it first reached, so the pods added later (a scale-out) get none
  while the first ones hit their stream limits (`ConnectionPinning`). A headless Service would
  give the callers every pod's address to balance over themselves.
The Service is the fault at the connect layer; the workload's own failures and its callers' are
its victims. The Services in front of such a skewed workload are described, and an idle sibling's
logs read (`reads`).
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Pod, describe_field
from reasoning.layered.kubernetes.nodes import (
    failing_pods,
    node_bound_failures,
    node_faults,
    pressure_faults,
)
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation, PlannedCall, only_tool
from reasoning.tools import DESCRIBE, POD_LOGS, TOP_ERRORS

_AFFINITY = re.compile(r"^Session Affinity:\s*ClientIP\b.*$", re.MULTILINE)
_AFFINITY_CONFIG = re.compile(r"^Session Affinity Config:.*$", re.MULTILINE)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def skewed(
    cluster: Cluster, ns: str, *, through_healthy_nodes: bool = False
) -> dict[str, tuple[list[Pod], list[Pod]]]:
    """Workloads with a minority of pods failing while the others run ready (not following a
    node): per workload, (its hot pods, its idle ones). With `through_healthy_nodes`, failures
    that follow a node count too when no node or pressure fault is found there (a pinned client
    lands on whichever pod, and two hot pods may share a node by chance)."""
    bound = node_bound_failures(cluster, ns)
    if through_healthy_nodes:
        sick = {
            f.component.partition("/")[2]
            for f in [*node_faults(cluster, ns), *pressure_faults(cluster, ns)]
        }
        bound = {node: owners for node, owners in bound.items() if node in sick}
    on_node = {w for owners in bound.values() for w in owners}
    failing = failing_pods(cluster, ns)
    out: dict[str, tuple[list[Pod], list[Pod]]] = {}
    for workload in cluster.workloads(ns):
        pods = [p for p in cluster.pods_of(ns, workload) if p.status != "Pending"]
        hot = [p for p in pods if p.name in failing and p.status == "Running"]
        idle = [p for p in pods if p.name not in failing and p.status == "Running"]
        if (
            workload in on_node
            or workload.startswith(("job/", "cronjob/", "pod/"))
            or not hot
            or len(idle) < 2
            or 2 * len(hot) >= len(pods)
        ):
            continue
        out[workload] = (hot, idle)
    return out


def _services_of(cluster: Cluster, ns: str, workload: str) -> list[str]:
    return [
        s
        for s in cluster.names("services", ns)
        if workload in cluster.service_workloads(ns, s)
    ]


def reads(
    cluster: Cluster,
    ns: str,
    call: Call,
    inv: Investigation | None = None,
    facts: Facts | None = None,
) -> list[PlannedCall | None]:
    """A workload with one hot pod among idle siblings: the Services in front of it described (their session affinity), and, when one pins its callers, an idle sibling's logs; with a virtual IP in front, the workload's own top errors (what its hot pods say)."""
    calls: list[PlannedCall | None] = []
    for workload, (hot, idle) in list(skewed(cluster, ns).items())[:1]:
        name = workload.partition("/")[2]
        virtual = any(
            (described := cluster.describe("services", ns, s)) is not None
            and describe_field("\n" + described.text, "Type") == "ClusterIP"
            and describe_field("\n" + described.text, "IP").lower() not in ("", "none")
            for s in _services_of(cluster, ns, workload)
        )
        if (
            virtual
            and inv is not None
            and facts is not None
            and name not in facts.errors
        ):
            calls.append(_own_errors(inv, call, name, hot[0].name))
        for service in _services_of(cluster, ns, workload)[:2]:
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "service", "name": service, "namespace": ns},
                    f"{hot[0].name} fails while {len(idle)} siblings run ready: does service "
                    f"{service} pin its callers to one pod (session affinity, or one virtual "
                    "IP holding long-lived connections)",
                )
            )
        pinned = any(
            (described := cluster.describe("services", ns, s)) is not None
            and _AFFINITY.search(described.text)
            for s in _services_of(cluster, ns, workload)
        )
        if pinned and not any(
            n == idle[0].name and s == ns for s, n, _, _ in cluster.logs
        ):
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": idle[0].name, "namespace": ns, "tail": 200},
                    f"{hot[0].name} fails behind a pinning service: is its sibling "
                    f"{idle[0].name} as busy",
                )
            )
    return calls


def _own_errors(
    inv: Investigation, call: Call, service: str, hot: str
) -> PlannedCall | None:
    """top_errors of the skewed workload's own service in the window (its warnings apart and the
    hour before as a baseline where the logs server offers them)."""
    tool = only_tool(inv, TOP_ERRORS)
    if tool is None:
        return None
    arguments: dict[str, Any] = {"service": service}
    if inv.incident.window_start and inv.incident.window_end:
        arguments |= {
            "start": inv.incident.window_start,
            "end": inv.incident.window_end,
        }
    offered = tool.input_schema.get("properties")
    offered = offered if isinstance(offered, dict) else {}
    if "warnings" in offered:
        arguments["warnings"] = True
    if "baseline_s" in offered:
        arguments["baseline_s"] = 3600
    return call(
        TOP_ERRORS,
        arguments,
        f"{hot} fails while its siblings idle behind a virtual IP: what do its own lines say",
    )


def _callers(cluster: Cluster, ns: str, path: Path, service: str) -> list[str]:
    return list(
        dict.fromkeys(e.caller for e in path.edges if e.service == service and e.caller)
    )


def affinity_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A Service with ClientIP session affinity in front of a workload whose few hot pods fail while their siblings idle pins its callers to those pods: the Service's routing is the fault, the workload its victim."""
    out: list[Finding] = []
    table = cluster.table("pods", ns)
    for workload, (hot, idle) in skewed(
        cluster, ns, through_healthy_nodes=True
    ).items():
        for service in _services_of(cluster, ns, workload):
            described = cluster.describe("services", ns, service)
            pinned = _AFFINITY.search(described.text) if described else None
            if described is None or pinned is None:
                continue
            callers = _callers(cluster, ns, path, service)
            few = [
                c
                for c in callers
                if 0
                < len([p for p in cluster.pods_of(ns, c) if p.status == "Running"])
                <= 1
            ]
            f = Finding(
                "service_routing",
                "SessionAffinity",
                f"service/{service}",
                layers.CONNECT,
                f"service {service} pins each client address to one pod (Session Affinity: "
                f"ClientIP): {', '.join(p.name for p in hot)} take the load and fail while "
                f"{len(idle)} siblings of {workload} idle",
                ns,
            )
            if few:
                f.statement += (
                    f"; its caller {few[0]} runs one replica, one client address"
                )
            f.cite(
                described,
                f"describe service {service}: {' '.join(pinned.group(0).split())}",
            )
            config = _AFFINITY_CONFIG.search(described.text)
            if config is not None:
                f.cite(
                    described,
                    f"describe service {service}: {' '.join(config.group(0).split())}",
                )
            if table is not None:
                for pod in [*hot[:1], *idle[:1]]:
                    f.cite(table.obs, f"get pods: {pod.line}")
            for pod in [*hot[:1], *idle[:1]]:
                for (space, name, previous, _), obs in cluster.logs.items():
                    if space == ns and name == pod.name and not previous:
                        lines = [ln for ln in obs.text.splitlines() if ln.strip()]
                        if lines:
                            f.cite(obs, f"logs {pod.name}: {short(lines[-1], 160)}")
                        break
            f.explains = [workload, *[c for c in callers if c != workload]]
            f.keywords = ["session affinity", "ClientIP", service, hot[0].name]
            f.chain = [
                f"{hot[0].name} fails while its siblings idle",
                f"service {service} has Session Affinity: ClientIP",
                f.statement,
            ]
            out.append(f)
    return out


# Long-lived multiplexed connections: gRPC and HTTP/2 by a port's name or a line's words.
_MULTIPLEXED_PORT = re.compile(
    r"^(?:Port|TargetPort):[ \t]*(?:grpc|h2c?|http2)(?:-[\w-]*)?[ \t]+\d+/TCP",
    re.MULTILINE | re.IGNORECASE,
)
_MULTIPLEXED_WORDS = re.compile(
    r"\bgrpc\b|\bhttp/?2\b|\bh2c\b|max_concurrent_streams|\bGOAWAY\b|\bStatusRuntimeException\b",
    re.IGNORECASE,
)


def _speaks_multiplexed(facts: Facts | None, described: str, names: list[str]) -> str:
    """Why the Service's traffic is long-lived multiplexed connections: its port's name, else the
    first line of the workload or its callers (their error and warning groups) speaking gRPC or
    HTTP/2; "" when nothing says so."""
    port = _MULTIPLEXED_PORT.search(described)
    if port is not None:
        return f"its port is {' '.join(port.group(0).split())}"
    for name in names:
        errors = facts.errors.get(name) if facts is not None else None
        for group in (*errors.groups, *errors.warnings) if errors else ():
            text = group.sample or group.signature
            if _MULTIPLEXED_WORDS.search(text):
                return f"{name} logs {short(text, 100)}"
    return ""


def _own_lines(facts: Facts | None, workload: str) -> list[tuple[Observation, str]]:
    """The workload's own new error and warning groups, as its top errors gave them (two at most)."""
    errors = facts.errors.get(workload.partition("/")[2]) if facts else None
    if errors is None:
        return []
    return [
        (errors.obs, errors.fact(g))
        for g in (*errors.groups, *errors.warnings)
        if g.is_new
    ][:2]


def _protocol_callers(facts: Facts | None, path: Path, workload: str) -> list[str]:
    """The path's workloads (not `workload`) whose own error groups are gRPC / HTTP/2 client
    failures: such a client's errors (UNAVAILABLE, DEADLINE_EXCEEDED) name no host, so they are the
    callers of the multiplexed Service when no line names it."""
    out = []
    for other in path.workloads:
        errors = facts.errors.get(other.partition("/")[2]) if facts else None
        if (
            other != workload
            and errors is not None
            and any(
                _MULTIPLEXED_WORDS.search(g.sample or g.signature)
                for g in errors.groups
            )
        ):
            out.append(other)
    return out


def pinned_connection_faults(
    cluster: Cluster, ns: str, path: Path, facts: Facts | None = None
) -> list[Finding]:
    """A Service with a virtual IP (not headless) in front of a workload whose long-lived multiplexed connections (gRPC, HTTP/2) fail on a few hot pods while their siblings idle balances connections, not requests: each caller stays pinned to the pod it first reached, so the Service's type is the fault and the workload its victim."""
    out: list[Finding] = []
    table = cluster.table("pods", ns)
    for workload, (hot, idle) in skewed(cluster, ns).items():
        for service in _services_of(cluster, ns, workload):
            described = cluster.describe("services", ns, service)
            if described is None or _AFFINITY.search(described.text):
                continue  # not read, or pinned by its session affinity (`affinity_faults`)
            block = "\n" + described.text
            kind = describe_field(block, "Type")
            address = describe_field(block, "IP")
            if kind != "ClusterIP" or not address or address.lower() == "none":
                continue
            callers = _callers(cluster, ns, path, service) or _protocol_callers(
                facts, path, workload
            )
            why = _speaks_multiplexed(
                facts,
                described.text,
                [workload.partition("/")[2], *(c.partition("/")[2] for c in callers)],
            )
            if not why:
                continue
            young = [
                p
                for p in idle
                if p.age_s is not None
                and all(h.age_s is not None and h.age_s > p.age_s for h in hot)
            ]
            f = Finding(
                "service_routing",
                "ConnectionPinning",
                f"service/{service}",
                layers.CONNECT,
                f"service {service} is a ClusterIP ({address}, not headless) in front of "
                f"long-lived multiplexed connections ({why}): it balances connections, not "
                f"requests, so each caller stays on the pod it first reached: "
                f"{', '.join(p.name for p in hot)} take the load and fail while "
                f"{len(idle)} siblings of {workload} idle",
                ns,
            )
            if young:
                f.statement += (
                    f" ({len(young)} started after them and get no connection)"
                )
            f.cite(
                described, f"describe service {service}: Type: {kind}, IP: {address}"
            )
            port = _MULTIPLEXED_PORT.search(described.text)
            if port is not None:
                f.cite(
                    described,
                    f"describe service {service}: {' '.join(port.group(0).split())}",
                )
            for obs, fact in _own_lines(facts, workload):
                f.cite(obs, fact)
            if table is not None:
                for pod in [*hot[:1], *(young or idle)[:1]]:
                    f.cite(table.obs, f"get pods: {pod.line}")
            f.explains = [workload, *[c for c in callers if c != workload]]
            f.keywords = ["clusterip", "headless", service, hot[0].name, "connection"]
            f.chain = [
                f"{hot[0].name} fails while its siblings idle",
                f"service {service} is a ClusterIP: one connection per caller, one pod",
                f.statement,
            ]
            out.append(f)
    return out
