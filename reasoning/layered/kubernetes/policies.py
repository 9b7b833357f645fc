"""Network policies: which callers a NetworkPolicy admits to the pods it selects.

Rule: a NetworkPolicy that selects a service's pods and whose ingress rules admit none of a
caller's pods, while the caller's logs show its connections to that service timing out or refused,
drops the caller's traffic (`NetworkPolicy`); the caller's failure is its victim (`explains`).
A rule that cannot be decided from the describe (an IP block, another namespace's selector) counts
as admitting: no finding without a rule shown to leave the caller out.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import parse_labels, selects
from reasoning.layered.kubernetes.logs import Edge
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short

_SELECTS_ALL = ("<none>", "")


@dataclass
class Policy:
    """What a NetworkPolicy's describe says about ingress."""

    name: str
    selector: dict[str, str]  # the pods it applies to ({} with `is_all`: every pod)
    is_all: bool = False
    restricts_ingress: bool = True
    any_source: bool = False  # `From: <any>`
    pod_peers: list[dict[str, str]] = field(default_factory=list)  # {}: every pod
    undecided: bool = (
        False  # a peer this reading cannot decide (IP block, other namespaces)
    )
    peers_text: list[str] = field(default_factory=list)


def read_policy(name: str, text: str, namespace: str) -> Policy:
    """The policy's pod selector and its ingress peers, from `kubectl describe networkpolicy`."""
    selector_text = _field(text, "PodSelector")
    policy = Policy(
        name,
        parse_labels(selector_text),
        is_all=selector_text.split(" ")[0] in _SELECTS_ALL,
    )
    if re.search(r"Not affecting ingress traffic", text):
        policy.restricts_ingress = False
        return policy
    section = text.partition("Allowing ingress traffic:")[2]
    for line in section.splitlines()[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= 2:
            break  # the next part of the spec (egress, policy types)
        key, _, value = line.strip().partition(":")
        value = value.strip()
        if key == "From" and value.startswith("<any>"):
            policy.any_source = True
        elif key == "PodSelector":
            peer = {} if value.split(" ")[0] in _SELECTS_ALL else parse_labels(value)
            policy.pod_peers.append(peer)
            policy.peers_text.append(f"PodSelector: {value}")
        elif key == "NamespaceSelector":
            own = parse_labels(value).get("kubernetes.io/metadata.name")
            if own != namespace:
                policy.undecided = True
            policy.peers_text.append(f"NamespaceSelector: {value}")
        elif key in ("IPBlock", "CIDR"):
            policy.undecided = True
    return policy


def _field(text: str, name: str) -> str:
    match = re.search(rf"^\s*{name}:[ \t]*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def admits(policy: Policy, labels: dict[str, str]) -> bool:
    """Whether the policy lets a pod with these labels (same namespace) in."""
    if not policy.restricts_ingress or policy.any_source or policy.undecided:
        return True
    return any(not peer or selects(peer, labels) for peer in policy.pod_peers)


def applies_to(policy: Policy, labels: dict[str, str]) -> bool:
    return policy.is_all or selects(policy.selector, labels)


def unreached_services(cluster: Cluster, ns: str, path: Path) -> list[str]:
    """The services the path's callers time out or are refused on while their pods are all ready."""
    out: list[str] = []
    for edge in path.edges:
        if edge.kind != "connect" or edge.service is None or edge.service in out:
            continue
        pods = [
            p
            for w in cluster.service_workloads(ns, edge.service)
            for p in cluster.pods_of(ns, w)
        ]
        if pods and all(p.is_ready for p in pods):
            out.append(edge.service)
    return out


def selecting_policies(cluster: Cluster, ns: str, service: str) -> list[str]:
    """The listed policies whose pod selector names labels the service's pods carry."""
    table = cluster.table("networkpolicies", ns)
    labels = _service_labels(cluster, ns, service)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME")
        and any(
            selects(parse_labels(row.get("POD-SELECTOR", "")), own) for own in labels
        )
    ]


def _service_labels(cluster: Cluster, ns: str, service: str) -> list[dict[str, str]]:
    return [
        p.labels
        for w in cluster.service_workloads(ns, service)
        for p in cluster.pods_of(ns, w)
        if p.labels is not None
    ]


def _caller_labels(cluster: Cluster, ns: str, caller: str) -> list[dict[str, str]]:
    return [p.labels for p in cluster.pods_of(ns, caller) if p.labels is not None]


def policy_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A NetworkPolicy whose ingress rules admit none of a caller's pods, while the caller's calls to the pods it selects fail, drops that caller's traffic."""
    described = [
        (name, obs, read_policy(name, obs.text, ns))
        for (kind, space, name), obs in cluster.describes.items()
        if kind == "networkpolicies" and space == ns
    ]
    found: dict[str, Finding] = {}
    for edge in path.edges:
        if edge.kind != "connect" or edge.service is None:
            continue
        callee = _service_labels(cluster, ns, edge.service)
        caller = _caller_labels(cluster, ns, edge.caller)
        if not callee or not caller:
            continue
        applying = [
            (name, obs, p)
            for name, obs, p in described
            if any(applies_to(p, own) for own in callee)
        ]
        if any(admits(p, own) for _, _, p in applying for own in caller):
            continue
        for name, _, policy in applying:
            if policy.is_all:
                continue  # a namespace-wide deny: the policy meant to admit is the one to name
            f = found.get(name) or _finding(cluster, ns, policy, edge)
            found[name] = f
            if edge.caller not in f.explains:
                f.explains.append(edge.caller)
            f.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
    return list(found.values())


def _finding(cluster: Cluster, ns: str, policy: Policy, edge: Edge) -> Finding:
    name = policy.name
    peers = ", ".join(policy.peers_text) or "no source"
    selector = ",".join(f"{k}={v}" for k, v in policy.selector.items())
    f = Finding(
        "service_routing",
        "NetworkPolicy",
        f"networkpolicy/{name}",
        layers.CONNECT,
        f"network policy {name} admits to the pods of {edge.service} ({selector}) only {peers}: "
        f"{edge.caller}'s connections to {edge.target} are dropped",
        ns,
    )
    f.cite(
        cluster.describe("networkpolicies", ns, name),
        f"describe networkpolicy {name}: PodSelector {selector}; ingress from {peers}",
    )
    table = cluster.table("networkpolicies", ns)
    if table is not None and table.row(name) is not None:
        f.cite(table.obs, f"get networkpolicies: {table.line(name)}")
    f.keywords = ["networkpolicy", "ingress", name, edge.service or "", "i/o timeout"]
    f.chain = [
        f"{edge.caller} fails calling {edge.target}: {short(edge.line, 100)}",
        f.statement,
    ]
    return f
