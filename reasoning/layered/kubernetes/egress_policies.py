"""Egress network policies: the address blocks a NetworkPolicy lets a workload's pods reach.

Rule: a workload whose pods' logs show connections to a host outside the namespace's Services
timing out or refused, on a port that the egress NetworkPolicies selecting its pods admit only to IP
blocks (`IPBlock: CIDR`), while its logs show the address the host now resolves to (or dialled)
outside every one of those blocks, has its connections dropped by that policy: the policy is the
fault (connect layer), not the remote host (a database that failed over, a provider that moved)
nor the workload whose pool cannot connect, which is its victim. A rule admitting the port to a
pod or namespace selector, or to any destination, cannot be decided from here: no finding.
"""

import ipaddress
import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import age_seconds, parse_labels, selects
from reasoning.layered.kubernetes.logs import LOOPBACK, Edge, log_edges
from reasoning.layered.kubernetes.path import addresses
from reasoning.layered.kubernetes.policies import applies_to, read_policy
from reasoning.layered.kubernetes.system import LOOKUP_FAILED
from reasoning.layered.reading import short
from reasoning.observations import Observation

_IPV4 = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?![\w.]|/\d)")
# A line saying which address a name resolved to (a client's own note, a driver's message).
_RESOLVED = re.compile(r"resolv|\baddress\b|\bdial(?:l?ing)?\b|->|=>", re.IGNORECASE)
_SELECTS_ALL = ("<none>", "")


@dataclass
class EgressRule:
    """One rule of `Allowing egress traffic`: its ports (empty: every port) and destinations."""

    ports: set[str] = field(default_factory=set)
    cidrs: list[tuple[str, list[str]]] = field(default_factory=list)  # (CIDR, except)
    other_peers: bool = False  # a pod or namespace selector, or any destination


def egress_rules(text: str) -> list[EgressRule] | None:
    """The egress rules of a `kubectl describe networkpolicy`; None when it does not restrict egress."""
    types = re.search(r"^\s*Policy Types:\s*(.*)$", text, re.MULTILINE)
    if types is None or "Egress" not in types.group(1):
        return None
    section = text.partition("Allowing egress traffic:")[2].partition("Policy Types")[0]
    rules: list[EgressRule] = []
    for block in re.split(r"^\s*-{4,}\s*$", section, flags=re.MULTILINE):
        if "isolated for egress" in block or not block.strip():
            continue
        rule = EgressRule()
        for line in block.splitlines():
            key, _, value = line.strip().partition(":")
            value = value.strip()
            if key == "To Port":
                if not value.startswith("<any>"):
                    rule.ports.add(value.split("/")[0].strip())
            elif (key == "To" and value.startswith("<any>")) or key in (
                "PodSelector",
                "NamespaceSelector",
            ):
                rule.other_peers = True
            elif key == "CIDR":
                rule.cidrs.append((value, []))
            elif key == "Except" and rule.cidrs and value:
                rule.cidrs[-1][1].extend(
                    v.strip() for v in value.split(",") if v.strip()
                )
        if not rule.cidrs:
            rule.other_peers = True  # ports without a destination: every destination
        rules.append(rule)
    return rules


def _inside(address: str, cidrs: list[tuple[str, list[str]]]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for cidr, excepts in cidrs:
        try:
            if ip in ipaddress.ip_network(cidr, strict=False) and not any(
                ip in ipaddress.ip_network(e, strict=False) for e in excepts
            ):
                return True
        except ValueError:
            return True  # a block this reading cannot parse counts as admitting
    return False


@dataclass(frozen=True)
class Outbound:
    """A workload's failing connection to a host outside the namespace's Services."""

    workload: str
    edge: Edge
    port: str


def outbound_failures(cluster: Cluster, ns: str) -> list[Outbound]:
    """The workloads whose pods' logs fail to connect to an outside host on a stated port."""
    services = cluster.names("services", ns)
    ips = addresses(cluster, ns)
    found: list[Outbound] = []
    seen: set[tuple[str, str]] = set()
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        if space != ns:
            continue
        workload = cluster.owner(ns, "pod", pod)
        for edge in log_edges(workload, obs, obs.text, services, ns, ips):
            if (
                edge.service is not None
                or edge.kind != "connect"
                or LOOPBACK.fullmatch(edge.target)
            ):
                continue
            port = re.search(
                rf"{re.escape(edge.target)}:(\d{{2,5}})\b", edge.line, re.I
            )
            if (
                port is None
                or port.group(1) == "53"  # a resolver: the DNS policy rules' own
                or LOOKUP_FAILED.search(edge.line)
                or (workload, edge.target) in seen
            ):
                continue
            seen.add((workload, edge.target))
            found.append(Outbound(workload, edge, port.group(1)))
    return found


def egress_policies(cluster: Cluster, ns: str) -> list[str]:
    """The listed policies whose own pod selector picks the pods of a workload failing to connect
    out (not those selecting every pod: a namespace-wide deny admits nothing), the youngest first."""
    table = cluster.table("networkpolicies", ns)
    failing = {o.workload for o in outbound_failures(cluster, ns)}
    if table is None or not failing:
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
        and row.get("POD-SELECTOR", "").split(" ")[0] not in _SELECTS_ALL
        and any(
            selects(parse_labels(row.get("POD-SELECTOR", "")), own) for own in labels
        )
    ]
    rows.sort(key=lambda r: age_seconds(r.get("AGE", "")) or float("inf"))
    return [r["NAME"] for r in rows]


def _addresses(
    cluster: Cluster, ns: str, out: Outbound
) -> list[tuple[Observation, str, str]]:
    """(answer, line, address) for each address the workload's logs give the host: the target
    itself when it is one, else an address on a line naming the host's first label and saying
    what it resolved or dialled."""
    if _IPV4.fullmatch(out.edge.target):
        return [(out.edge.obs, out.edge.line, out.edge.target)]
    label = out.edge.target.split(".")[0]
    found: list[tuple[Observation, str, str]] = []
    for pod in cluster.pods_of(ns, out.workload):
        for obs, text in cluster.log_text(ns, pod.name):
            for line in text.splitlines()[-2000:]:
                if label not in line.lower() or not _RESOLVED.search(line):
                    continue
                for address in _IPV4.findall(line[:2000]):
                    if all(a != address for _, _, a in found):
                        found.append((obs, short(line.strip(), 240), address))
    return found


def egress_policy_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A NetworkPolicy that admits a workload's egress on a port only to IP blocks, while its logs fail to connect there to a host whose address lies outside those blocks, drops those connections: the policy is the fault, the workload its victim."""
    described = []
    for (kind, space, name), obs in sorted(cluster.describes.items()):
        if kind != "networkpolicies" or space != ns:
            continue
        rules = egress_rules(obs.text)
        if rules is not None:
            described.append((name, obs, read_policy(name, obs.text, ns), rules))
    if not described:
        return []
    found: dict[str, Finding] = {}
    for out in outbound_failures(cluster, ns):
        labels = [
            p.labels for p in cluster.pods_of(ns, out.workload) if p.labels is not None
        ]
        applying = [
            d for d in described if any(applies_to(d[2], own) for own in labels)
        ]
        admitting = [
            (name, obs, rule)
            for name, obs, _, rules in applying
            for rule in rules
            if not rule.ports or out.port in rule.ports
        ]
        if not admitting or any(rule.other_peers for _, _, rule in admitting):
            continue
        where = _addresses(cluster, ns, out)
        blocks = [c for _, _, rule in admitting for c in rule.cidrs]
        outside = [(o, line, a) for o, line, a in where if not _inside(a, blocks)]
        if not where or len(outside) != len(where):
            continue
        name, obs, _ = admitting[0]
        cidrs = ", ".join(c for c, _ in blocks) or "no block"
        component = f"networkpolicy/{name}"
        f = found.get(component)
        if f is None:
            f = Finding(
                "service_routing",
                "NetworkPolicyEgressDenied",
                component,
                layers.CONNECT,
                f"network policy {name} lets {out.workload} reach port {out.port} only in "
                f"{cidrs}; {out.edge.target} is now at {outside[0][2]}, outside it: its "
                "connections there are dropped",
                ns,
            )
            f.cite(
                obs,
                f"describe networkpolicy {name}: egress to port {out.port} only to IPBlock {cidrs}",
            )
            table = cluster.table("networkpolicies", ns)
            if table is not None and table.row(name) is not None:
                f.cite(table.obs, f"get networkpolicies: {table.line(name)}")
            f.keywords = ["networkpolicy", "egress", name, out.edge.target, out.port]
            f.chain = [
                f"{out.workload} fails connecting to {out.edge.target}: "
                f"{short(out.edge.line, 100)}",
                f"{out.edge.target} resolves to {outside[0][2]}",
                f.statement,
            ]
            found[component] = f
        f.cite(out.edge.obs, f"{out.workload} logs: {out.edge.line}")
        f.cite(outside[0][0], f"{out.workload} logs: {outside[0][1]}")
        if out.workload not in f.explains:
            f.explains.append(out.workload)
    return list(found.values())
