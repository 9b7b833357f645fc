"""Network policies: which callers a NetworkPolicy admits to the pods it selects.

Rule: a NetworkPolicy that selects a service's pods and whose ingress rules admit none of a
caller's pods, while the caller's logs show its connections to that service timing out or refused,
drops the caller's traffic (`NetworkPolicy`); the caller's failure is its victim (`explains`).
A rule that cannot be decided from the describe (an IP block, another namespace's selector) counts
as admitting: no finding without a rule shown to leave the caller out. Each ingress rule is read
with its ports: a rule opening only other ports (`To Port: 4222/TCP` while the caller dials 6222)
does not admit the call, and a workload's replicas dialling one another's pod addresses (a
cluster's routes, gossip, replication) are callers of their own pods.

Rule: a NetworkPolicy that restricts egress (`Policy Types: Egress`) with no egress rule to port 53
stops the name lookups of every pod it selects (cluster DNS is then "down" for them alone): the
workloads whose logs show lookups timing out are its victims, at the DNS layer.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import age_seconds, parse_labels, selects
from reasoning.layered.kubernetes.logs import Edge, target_port
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.system import LOOKUP_FAILED
from reasoning.layered.reading import short
from reasoning.observations import Observation

_SELECTS_ALL = ("<none>", "")


@dataclass
class IngressRule:
    """One rule of `Allowing ingress traffic`: the ports it opens and the sources it admits."""

    ports: set[str] | None = None  # None: every port (no `To Port`, or `<any>`)
    any_source: bool = False  # `From: <any>`
    pod_peers: list[dict[str, str]] = field(default_factory=list)  # {}: every pod
    undecided: bool = (
        False  # a peer this reading cannot decide (IP block, other namespaces)
    )

    def admits(self, labels: dict[str, str], port: str | None) -> bool:
        if (
            port is not None
            and self.ports is not None
            and port not in self.ports
            and all(p.isdigit() for p in self.ports)
        ):
            return False  # only other ports (a named port cannot be compared: admitted)
        if self.any_source or self.undecided:
            return True
        return any(not peer or selects(peer, labels) for peer in self.pod_peers)


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
    rules: list[IngressRule] = field(default_factory=list)
    ports_text: list[str] = field(default_factory=list)


def read_policy(name: str, text: str, namespace: str) -> Policy:
    """The policy's pod selector and its ingress rules (ports, peers), from `kubectl describe networkpolicy`."""
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
    rule: IngressRule | None = None
    # The `From:` block being read: whether it named another namespace, and its pod selector.
    block: list[str] = []

    def close_block() -> None:
        # A `From:` block naming only this namespace admits all its pods.
        if rule is not None and block == ["own-namespace"]:
            rule.pod_peers.append({})
            policy.pod_peers.append({})
        block.clear()

    for line in section.splitlines()[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= 2:
            break  # the next part of the spec (egress, policy types)
        key, _, value = line.strip().partition(":")
        value = value.strip()
        if key.startswith("----------"):
            close_block()
            rule = None
            continue
        if rule is None and (key in ("To Port", "From") or key.endswith("Selector")):
            rule = IngressRule()
            policy.rules.append(rule)
        if rule is None:
            continue
        if key == "To Port":
            port = value.split("/")[0].strip()
            if port.startswith("<any>") or not port:
                rule.ports = None
            else:
                rule.ports = (rule.ports or set()) | {port}
                policy.ports_text.append(value)
        elif key == "From":
            close_block()
            if value.startswith("<any>"):
                policy.any_source = rule.any_source = True
        elif key == "PodSelector":
            peer = {} if value.split(" ")[0] in _SELECTS_ALL else parse_labels(value)
            if block == ["own-namespace"]:
                block.clear()
            block.append("pods")
            policy.pod_peers.append(peer)
            rule.pod_peers.append(peer)
            policy.peers_text.append(f"PodSelector: {value}")
        elif key == "NamespaceSelector":
            own = parse_labels(value).get("kubernetes.io/metadata.name")
            if own != namespace:
                policy.undecided = rule.undecided = True
            elif not block:
                block.append("own-namespace")
            policy.peers_text.append(f"NamespaceSelector: {value}")
        elif key in ("IPBlock", "CIDR"):
            policy.undecided = rule.undecided = True
    close_block()
    for r in policy.rules:
        if not r.pod_peers and not r.undecided and not r.any_source:
            r.any_source = True  # a rule naming ports and no source admits every source
    return policy


def _field(text: str, name: str) -> str:
    match = re.search(rf"^\s*{name}:[ \t]*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def admits(policy: Policy, labels: dict[str, str], port: str | None = None) -> bool:
    """Whether the policy lets a pod with these labels (same namespace) in, on `port` when known."""
    if not policy.restricts_ingress:
        return True
    if policy.rules:
        return any(rule.admits(labels, port) for rule in policy.rules)
    if policy.any_source or policy.undecided:
        return True
    return any(not peer or selects(peer, labels) for peer in policy.pod_peers)


def applies_to(policy: Policy, labels: dict[str, str]) -> bool:
    return policy.is_all or selects(policy.selector, labels)


def unreached_services(cluster: Cluster, ns: str, path: Path) -> list[str]:
    """The services the path's callers (or their own replicas, dialling one another) time out or are refused on while their pods are all ready."""
    out: list[str] = []
    for edge in [*path.edges, *path.peer_edges]:
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
    """A NetworkPolicy whose ingress rules admit none of a caller's pods on the port it dials (a replica dialling its peers included), while those calls to the pods it selects fail, drops that traffic."""
    described = [
        (name, obs, read_policy(name, obs.text, ns))
        for (kind, space, name), obs in cluster.describes.items()
        if kind == "networkpolicies" and space == ns
    ]
    found: dict[str, Finding] = {}
    for edge in [*path.edges, *path.peer_edges]:
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
        port = target_port(edge)
        if any(admits(p, own, port) for _, _, p in applying for own in caller):
            continue
        for name, _, policy in applying:
            if policy.is_all:
                continue  # a namespace-wide deny: the policy meant to admit is the one to name
            f = found.get(name) or _finding(cluster, ns, policy, edge, port)
            found[name] = f
            if edge.caller not in f.explains:
                f.explains.append(edge.caller)
            f.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
    return list(found.values())


def _finding(
    cluster: Cluster, ns: str, policy: Policy, edge: Edge, port: str | None = None
) -> Finding:
    name = policy.name
    peers = ", ".join(policy.peers_text) or "no source"
    if port is not None and policy.ports_text:
        peers += f" on ports {', '.join(policy.ports_text)} (not {port})"
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


# A rule of `Allowing egress traffic` that lets name lookups out: to port 53 (or named dns), or
# to every port.
_DNS_PORT = re.compile(
    r"^\s*To Port:\s*(?:53\b|dns\b|<any>)", re.IGNORECASE | re.MULTILINE
)


def blocks_dns(text: str) -> bool:
    """A policy restricting egress (`Policy Types: … Egress`) none of whose egress rules admit port 53."""
    types = _field(text, "Policy Types")
    if "Egress" not in types:
        return False
    section = text.partition("Allowing egress traffic:")[2].partition("Policy Types")[0]
    return _DNS_PORT.search(section) is None


def lookup_failures(cluster: Cluster, ns: str) -> dict[str, tuple[Observation, str]]:
    """The workloads whose pods' logs show failed name lookups, each with one such line."""
    out: dict[str, tuple[Observation, str]] = {}
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        if space != ns:
            continue
        line = next(
            (ln for ln in obs.text.splitlines() if LOOKUP_FAILED.search(ln)), None
        )
        if line is not None:
            out.setdefault(cluster.owner(ns, "pod", pod), (obs, line.strip()))
    return out


def dns_policies(cluster: Cluster, ns: str) -> list[str]:
    """The listed policies that select the pods whose logs show failed lookups (a policy selecting
    every pod included), the youngest first."""
    failing = lookup_failures(cluster, ns)
    table = cluster.table("networkpolicies", ns)
    if not failing or table is None:
        return []
    labels = [
        p.labels
        for w in failing
        for p in cluster.pods_of(ns, w)
        if p.labels is not None
    ]
    rows = [
        row
        for row in table.rows
        if row.get("NAME")
        and (
            row.get("POD-SELECTOR", "").split(" ")[0] in _SELECTS_ALL
            or any(
                selects(parse_labels(row.get("POD-SELECTOR", "")), own)
                for own in labels
            )
        )
    ]
    rows.sort(key=lambda r: age_seconds(r.get("AGE", "")) or float("inf"))
    return [r["NAME"] for r in rows]


def dns_policy_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A NetworkPolicy restricting egress with no rule to port 53 makes every name lookup of the pods it selects time out: the workloads whose logs show failed lookups are its victims."""
    failing = lookup_failures(cluster, ns)
    out: list[Finding] = []
    for (kind, space, name), obs in sorted(cluster.describes.items()):
        if kind != "networkpolicies" or space != ns or not blocks_dns(obs.text):
            continue
        policy = read_policy(name, obs.text, ns)
        victims = [
            w
            for w in failing
            if any(
                p.labels is not None and applies_to(policy, p.labels)
                for p in cluster.pods_of(ns, w)
            )
        ]
        if not victims:
            continue
        selector = (
            "every pod"
            if policy.is_all
            else ",".join(f"{k}={v}" for k, v in policy.selector.items())
        )
        f = Finding(
            "service_routing",
            "NetworkPolicy",
            f"networkpolicy/{name}",
            layers.DNS,
            f"network policy {name} restricts the egress of {selector} in {ns} and admits "
            f"no DNS (port 53): name lookups of {', '.join(victims)} time out",
            ns,
        )
        f.cite(
            obs,
            f"describe networkpolicy {name}: PodSelector {selector}; Policy Types "
            f"{_field(obs.text, 'Policy Types')}; no egress rule to port 53",
        )
        table = cluster.table("networkpolicies", ns)
        if table is not None and table.row(name) is not None:
            f.cite(table.obs, f"get networkpolicies: {table.line(name)}")
        for w in victims:
            logs, line = failing[w]
            f.cite(logs, f"{w} logs: {line}")
        f.explains = victims
        f.keywords = ["networkpolicy", "egress", name, "dns", "i/o timeout"]
        f.chain = [
            f"{victims[0]} cannot resolve names: {short(failing[victims[0]][1], 100)}",
            f.statement,
        ]
        out.append(f)
    return out
