"""The cluster's own services in kube-system, and the application pods that suffer when they fail.

Rules:
- cluster DNS (CoreDNS, kube-dns) failing is a DNS-layer fault; a workload whose pods' logs (or
  the error groups its path edges were read from) show name lookups failing (no such host, a
  lookup timing out against the cluster resolver on :53) is its victim, and it is relevant when
  such a workload is on the incident's path; a lookup asked of another resolver than the cluster
  DNS Service's address (when both are known) is not its;
- a node agent (kube-proxy, the CNI agent, NodeLocal DNSCache) failing on a node leaves that node
  without what it provides (Service rules, pod networking, name lookups): a workload on the
  incident's path with a pod there makes it relevant, and the faults of workloads with pods there
  are its victims; the warnings about those pods that show the agent's failure (a sandbox or
  pod network not set up, a message naming the agent) are its evidence.
"""

import re
from typing import TYPE_CHECKING

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.kubernetes.logs import DNS_FAIL
from reasoning.layered.kubernetes.nodes import CONTROL_PLANE, NODE_AGENTS, agent_owner
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short

if TYPE_CHECKING:
    from reasoning.observations import Observation

CLUSTER_DNS = frozenset({"coredns", "kube-dns"})
# A lookup that failed, as Go, glibc, Node and the JVM log it (a timeout against a resolver on :53 too).
LOOKUP_FAILED = re.compile(
    rf"{DNS_FAIL.pattern}|\blookup \S+ on \S+:53\b|\blookup \S+: i/o timeout|"
    r"\bread udp \S+->\S+:53\b|EAI_AGAIN|UnknownHostException",
    re.IGNORECASE,
)
_VICTIM_STAGES = ("runtime", "startup", "scheduling")


def system_component(f: Finding) -> str | None:
    """Which cluster service a kube-system finding is about (coredns, kube-proxy …), if any."""
    if f.namespace != "kube-system":
        return None
    match = CONTROL_PLANE.match(f.component.partition("/")[2])
    return match.group(1) if match else None


def system_victims(
    cluster: Cluster, ns: str, path: Path, found: dict[str, Finding]
) -> None:
    """Cluster DNS and node agent faults: their victims in the namespace, and their relevance."""
    for f in list(found.values()):
        component = system_component(f)
        if component in CLUSTER_DNS:
            dns_victims(cluster, ns, path, found, f)
        if component in NODE_AGENTS:
            proxy_victims(cluster, ns, path, found, f)


def dns_victims(
    cluster: Cluster, ns: str, path: Path, found: dict[str, Finding], dns: Finding
) -> None:
    """The workloads whose pods (or error groups) log failed name lookups are the cluster DNS's victims."""
    resolver = cluster_dns_address(cluster)
    failed: list[tuple[str, Observation, str, str]] = []
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        if space != ns:
            continue
        line = next(
            (ln for ln in obs.text.splitlines() if cluster_lookup(ln, resolver)), None
        )
        if line is not None:
            failed.append((cluster.owner(ns, "pod", pod), obs, pod, line))
    # What the path's workloads were seen failing to reach (their error groups, when their pods'
    # logs were not read): a lookup that failed is the cluster DNS's too.
    for edge in path.edges:
        if cluster_lookup(edge.line, resolver):
            name = edge.caller.partition("/")[2]
            failed.append((edge.caller, edge.obs, name, edge.line))
    seen: set[str] = set()
    for owner, obs, who, line in failed:
        if owner in seen:
            continue
        seen.add(owner)
        _blame(dns, found.get(owner), owner, path)
        fact = f"{who} logs: {short(line.strip(), 200)}"
        if not any(f == fact for _, f in dns.context):
            dns.context.append((obs, fact))
            dns.chain.insert(0, f"{owner} cannot resolve names: {short(line, 100)}")


# The resolver a failed lookup was asked (`lookup x on 10.0.0.10:53`, `->10.0.0.10:53`).
_RESOLVER = re.compile(r"(?:\bon |->)(\d{1,3}(?:\.\d{1,3}){3}):53\b")


def cluster_dns_address(cluster: Cluster) -> str | None:
    """The cluster IP of the cluster DNS's Service in kube-system (kube-dns, coredns), when listed."""
    table = cluster.table("services", "kube-system")
    for row in table.rows if table else ():
        if row.get("NAME") in CLUSTER_DNS and row.get("CLUSTER-IP", "None") != "None":
            return row["CLUSTER-IP"]
    return None


def cluster_lookup(line: str, resolver: str | None) -> bool:
    """A failed lookup asked of the cluster DNS: a lookup failing, against no resolver another
    than the cluster DNS's address (when both are known)."""
    if not LOOKUP_FAILED.search(line):
        return False
    asked = _RESOLVER.search(line)
    return resolver is None or asked is None or asked.group(1) == resolver


def proxy_victims(
    cluster: Cluster, ns: str, path: Path, found: dict[str, Finding], proxy: Finding
) -> None:
    """The workloads with a pod on a node where a node agent (kube-proxy, CNI, node-local DNS) fails are its victims, and their pods' warnings that show its failure (no sandbox, no pod network, the agent named) its evidence."""
    broken = {
        p.node
        for p in cluster.pods("kube-system")
        if p.node
        and not p.is_healthy
        and agent_owner(cluster, p.name) == proxy.component
    }
    table = cluster.table("pods", ns)
    agent = system_component(proxy) or proxy.component.partition("/")[2]
    for pod in cluster.pods(ns):
        if pod.node not in broken:
            continue
        owner = cluster.owner(ns, "pod", pod.name)
        _blame(proxy, found.get(owner), owner, path)
        for event in agent_failures(cluster, ns, pod.name, agent):
            proxy.cite(event.obs, event.fact)
        if owner in path.workloads:
            fact = f"{pod.name} ({owner}) runs on {pod.node}, where {proxy.component} fails"
            proxy.context.append((table.obs, fact)) if table else None
            proxy.chain.insert(0, fact)


# Warnings a pod gets when its node's network agent is missing: no sandbox, no pod network.
_AGENT_REASONS = frozenset(
    {"FailedCreatePodSandBox", "NetworkNotReady", "FailedKillPodSandBox"}
)


def agent_failures(cluster: Cluster, ns: str, pod: str, agent: str) -> list[Event]:
    """The warnings about `pod` that show a node agent's failure: a sandbox or the pod network not
    set up, or a message naming the agent (`agent`, as kube-system names it)."""
    return [
        e
        for e in cluster.warnings(ns)
        if e.kind == "pod"
        and e.name == pod
        and (e.reason in _AGENT_REASONS or agent.lower() in e.message.lower())
    ]


def _blame(cause: Finding, victim: Finding | None, owner: str, path: Path) -> None:
    if owner in path.workloads:
        cause.is_relevant = True
        cause.depth = max(cause.depth, path.depth.get(owner, 0) + 1)
    if (
        victim is not None
        and victim is not cause
        and victim.stage in _VICTIM_STAGES
        and victim.victim_of is None
    ):
        victim.victim_of = cause.component
