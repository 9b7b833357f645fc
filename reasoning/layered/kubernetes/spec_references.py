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


# A pod template's network and DNS policy, as describe prints them or as the YAML spells them.
_HOST_NETWORK = re.compile(
    r"^\s*(?:Host Network|hostNetwork):\s*true\s*$", re.IGNORECASE
)
_POLICY = re.compile(r"^\s*(?:DNS Policy|dnsPolicy):\s*(\S+)\s*$", re.IGNORECASE)
_WORKLOAD_KINDS = ("deployments", "daemonsets", "statefulsets", "replicasets", "pods")
# A name only the cluster's DNS knows: a Service's `name.namespace.svc[.cluster.local]`.
_CLUSTER_NAME = re.compile(r"\.svc(?:\.[a-z0-9-]{1,63}){0,4}$|\.cluster\.local$")


def _network_spec(text: str) -> tuple[bool, str, str]:
    """(hostNetwork, the DNS policy or "", the lines that say so) of a describe or `-o yaml` answer."""
    host = False
    policy = ""
    said: list[str] = []
    for line in text.splitlines()[:3000]:
        if len(line) > 500:
            continue
        if _HOST_NETWORK.match(line):
            host = True
            said.append(line.strip())
        elif (m := _POLICY.match(line)) and not policy:
            policy = m.group(1).strip("'\"")
            said.append(line.strip())
    return host, policy, "; ".join(said)


def _host_network_specs(
    cluster: Cluster, ns: str
) -> dict[str, tuple[Observation, str]]:
    """Per workload, the answer (describe or YAML) showing its pods on the node's network with the
    cluster-first DNS policy (said or by default), and the lines that say so."""
    found: dict[str, tuple[Observation, str]] = {}
    answers = [*sorted(cluster.describes.items()), *sorted(cluster.yamls.items())]
    for (plural, space, name), obs in answers:
        if plural not in _WORKLOAD_KINDS or space != ns or not obs.text:
            continue
        host, policy, said = _network_spec(obs.text)
        if not host or policy not in ("", "ClusterFirst"):
            continue
        workload = cluster.owner(ns, plural, name)
        found.setdefault(
            workload,
            (obs, said + ("" if policy else "; dnsPolicy: (default) ClusterFirst")),
        )
    # No spec read: a pod whose address is its node's own runs on the node's network.
    nodes = cluster.table("nodes", "")
    pods = cluster.table("pods", ns)
    node_ips = {
        row.get("NAME", ""): row.get("INTERNAL-IP", "")
        for row in (nodes.rows if nodes else ())
    }
    for pod in cluster.pods(ns):
        if pods is None or not pod.ip or node_ips.get(pod.node) != pod.ip:
            continue
        workload = cluster.owner(ns, "pod", pod.name)
        found.setdefault(
            workload,
            (
                pods.obs,
                f"pod {pod.name} has its node {pod.node}'s own address {pod.ip} "
                "(hostNetwork: true; dnsPolicy not read: ClusterFirst unless set)",
            ),
        )
    return found


def host_network_dns_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """A workload whose pods run on the node's network (`hostNetwork: true`) with the DNS policy `ClusterFirst` resolves through the node's resolver, which knows no cluster Service names: its lookups of them fail, and its DNS policy (not `ClusterFirstWithHostNet`) is the fault, not the names nor the cluster DNS."""
    out: list[Finding] = []
    for workload, (spec_obs, said) in _host_network_specs(cluster, ns).items():
        failing = [
            (obs, line, name)
            for obs, line in _lines(facts, cluster, ns, workload)
            if LOOKUP_FAILED.search(line)
            and (name := _looked_up(line).lower().rstrip("."))
            and _CLUSTER_NAME.search(name)
        ]
        if not failing:
            continue
        names = sorted({n for _, _, n in failing})
        short_name = workload.partition("/")[2]
        f = Finding(
            "service_routing",
            "HostNetworkDNSPolicy",
            workload,
            layers.DNS,
            f"{workload}'s pods run on the node's network (hostNetwork: true) with dnsPolicy "
            f"ClusterFirst, so they resolve through the node's resolver, which knows no cluster "
            f"Service names: lookups of {', '.join(names[:3])} fail "
            f"({short(failing[0][1], 140)}); its DNS policy is the fault (ClusterFirstWithHostNet), "
            "not the names it looks up",
            ns,
        )
        f.cite(spec_obs, f"{workload}: {said}")
        for obs, line, _ in failing[:2]:
            f.cite(obs, f"{short_name} logs: {line}")
        f.keywords = [
            short_name,
            "hostNetwork",
            "dnsPolicy",
            "ClusterFirst",
            "ClusterFirstWithHostNet",
            *names[:3],
        ]
        f.chain = [
            f"{short_name}'s lookups fail: {short(failing[0][1], 100)}",
            f"{workload}: {said}",
            f.statement,
        ]
        out.append(f)
    return out
