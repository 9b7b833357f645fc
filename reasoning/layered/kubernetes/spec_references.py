"""Faults in what a pod spec refers to: the resolvers it names, the addresses it pins host names to.

Rules (over the pod specs read with `-o yaml`, `pod_spec`):
- a workload whose spec names its own resolvers (`dnsConfig.nameservers`) while its logs show
  lookups failing against one of them (the line names the resolver's address), or, with
  `dnsPolicy: None` (those resolvers are the only ones), lookups of two names or more failing,
  sends its lookups where nothing answers: the spec's resolver is the fault (layer dns), not the
  hosts it looks up nor the callers that miss its work. A resolver that is the cluster's own DNS
  Service is left to the cluster DNS rules.
- a workload whose spec pins a host name to an address (`hostAliases`) while its logs show
  connections to that address, or to that host, failing never asks DNS for the host: the pinned
  address is the fault (layer connect), the spec line cited; the remote host and the callers are
  not.
The finding is the workload's, citing the spec's line and the failing log lines; its keywords carry
the resolver or the pinned address and host.
"""

import re

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.logs import CONNECT_FAIL, FAILING, LOOPBACK, log_edges
from reasoning.layered.kubernetes.path import addresses, workload_texts
from reasoning.layered.kubernetes.pod_spec import PodSpec, pod_specs, spec_line
from reasoning.layered.kubernetes.system import LOOKUP_FAILED
from reasoning.layered.reading import short
from reasoning.observations import Observation

_LOOKUP_NAME = re.compile(
    r"\blookup ([a-z0-9][a-z0-9.-]*)|UnknownHostException:? ?([a-z0-9][a-z0-9.-]*)|"
    r"(?:resolve|resolving) (?:host )?'?([a-z0-9][a-z0-9.-]*)",
    re.IGNORECASE,
)
Line = tuple[Observation, str]


def _token(address: str) -> re.Pattern[str]:
    """`address` as a whole token of a line (not a part of a longer address)."""
    return re.compile(rf"(?<![\w.]){re.escape(address)}(?![\w]|\.\d)", re.IGNORECASE)


def _lines(facts: Facts, cluster: Cluster, ns: str, workload: str) -> list[Line]:
    """Each distinct line the workload logged (its pods' logs, the logs server's groups)."""
    seen: set[str] = set()
    out: list[Line] = []
    for obs, text in workload_texts(facts, cluster, ns, workload):
        for line in text.splitlines():
            stripped = line.strip()
            if stripped and stripped not in seen:
                seen.add(stripped)
                out.append((obs, stripped))
    return out


def outside_failures(
    facts: Facts, cluster: Cluster, ns: str, workload: str
) -> list[str]:
    """The hosts outside the namespace's Services that the workload's logs fail to look up or
    connect to (what its pod spec's resolvers or pinned addresses may decide)."""
    services = cluster.names("services", ns)
    ips = addresses(cluster, ns)
    found: list[str] = []
    for obs, text in workload_texts(facts, cluster, ns, workload):
        for edge in log_edges(workload, obs, text, services, ns, ips):
            if (
                edge.service is None
                and edge.kind in ("dns", "connect")
                and not LOOPBACK.fullmatch(edge.target)
                and edge.target not in found
            ):
                found.append(edge.target)
    return found


def _cluster_dns_ips(cluster: Cluster) -> set[str]:
    """The cluster IPs of kube-system's DNS Services, when listed."""
    table = cluster.table("services", "kube-system")
    return {
        row.get("CLUSTER-IP", "")
        for row in (table.rows if table else ())
        if row.get("NAME") in ("kube-dns", "coredns")
    }


def _looked_up(line: str) -> str:
    match = _LOOKUP_NAME.search(line)
    return next((g for g in match.groups() if g), "") if match else ""


def resolver_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """A workload whose pod spec names its own resolvers (`dnsConfig.nameservers`) while its logs show lookups failing against one of them (or, with `dnsPolicy: None`, failing for several names) sends every lookup where nothing answers: the spec's resolver is the fault, not the hosts looked up."""
    out: list[Finding] = []
    ignored = _cluster_dns_ips(cluster)
    for spec in pod_specs(cluster, ns):
        resolvers = [ip for ip in spec.nameservers if ip not in ignored]
        if not resolvers:
            continue
        failing = [
            (obs, line)
            for obs, line in _lines(facts, cluster, ns, spec.workload)
            if LOOKUP_FAILED.search(line)
        ]
        named = [
            (obs, line, ip)
            for obs, line in failing
            for ip in resolvers
            if _token(ip).search(line)
        ]
        names = {n for _, line in failing if (n := _looked_up(line))}
        only = spec.dns_policy == "None"
        if not named and not (only and len(names) > 1):
            continue
        resolver = named[0][2] if named else resolvers[0]
        out.append(_resolver_finding(spec, ns, resolver, named, failing, names))
    return out


def _resolver_finding(
    spec: PodSpec,
    ns: str,
    resolver: str,
    named: list[tuple[Observation, str, str]],
    failing: list[Line],
    names: set[str],
) -> Finding:
    only = spec.dns_policy == "None"
    lines = [(obs, line) for obs, line, _ in named] or failing
    looked = sorted(names)
    f = Finding(
        "service_routing",
        "dnsConfig",
        spec.workload,
        layers.DNS,
        f"{spec.workload}'s pod spec sends its name lookups to {', '.join(spec.nameservers)} "
        f"(dnsConfig.nameservers{', dnsPolicy: None: no other resolver' if only else ''}), and "
        f"they fail there ({short(lines[0][1], 160)})"
        + (f" for {', '.join(looked[:3])}" if looked else "")
        + f": the resolver {resolver} its spec names does not answer, not the hosts it looks up",
        ns,
    )
    name = spec.workload.partition("/")[2]
    f.cite(spec.obs, spec.resolvers_fact(f"[{', '.join(spec.nameservers)}]"))
    for obs, line in lines[:3]:
        f.cite(obs, f"{name} logs: {line}")
    f.keywords = [
        resolver,
        f"{resolver}:53",
        "dnsConfig",
        "dnsPolicy",
        name,
        *looked[:3],
    ]
    f.chain = [
        f"{name}'s lookups fail: {short(lines[0][1], 100)}",
        f"{spec.workload}: {spec_line(spec, 'dnsPolicy') or 'dnsConfig'}; "
        f"nameservers {', '.join(spec.nameservers)}",
        f.statement,
    ]
    return f


def host_alias_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """A workload whose pod spec pins a host name to an address (`hostAliases`) while its logs show connections to that address or host failing never asks DNS for the host: the pinned address in its spec is the fault, not the remote host."""
    out: list[Finding] = []
    for spec in pod_specs(cluster, ns):
        if not spec.host_aliases:
            continue
        lines = [
            (obs, line)
            for obs, line in _lines(facts, cluster, ns, spec.workload)
            if FAILING.search(line)
        ]
        for alias in spec.host_aliases:
            address = _token(alias.ip)
            hosts = [_token(h) for h in alias.hostnames]
            failing = [
                (obs, line)
                for obs, line in lines
                if address.search(line)
                or (CONNECT_FAIL.search(line) and any(h.search(line) for h in hosts))
            ]
            if failing:
                out.append(_alias_finding(spec, ns, alias.ip, alias.hostnames, failing))
                break
    return out


def _alias_finding(
    spec: PodSpec, ns: str, ip: str, hostnames: tuple[str, ...], failing: list[Line]
) -> Finding:
    name = spec.workload.partition("/")[2]
    hosts = ", ".join(hostnames)
    f = Finding(
        "service_routing",
        "hostAliases",
        spec.workload,
        layers.CONNECT,
        f"{spec.workload}'s pod spec pins {hosts} to {ip} (hostAliases), so its pods never ask "
        f"DNS for it, and connections there fail ({short(failing[0][1], 160)}): the address "
        "pinned in its spec is stale, not the remote host",
        ns,
    )
    f.cite(spec.obs, spec.alias_fact(hosts, ip))
    for obs, line in failing[:3]:
        f.cite(obs, f"{name} logs: {line}")
    f.keywords = [ip, *hostnames, "hostAliases", name]
    f.chain = [
        f"{name} cannot connect: {short(failing[0][1], 100)}",
        f"{spec.workload}: hostAliases {hosts} -> {ip}",
        f.statement,
    ]
    return f
