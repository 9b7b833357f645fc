"""Cluster DNS forwarding a zone to upstream servers that do not answer: its configuration, not its pods;
or cluster DNS too small for its load: its deployment, though its pods run.

Rule: when pods' name lookups fail (EAI_AGAIN, `server misbehaving`, a lookup timing out against
the cluster resolver) while the cluster DNS pods (CoreDNS, kube-dns) run ready and their own lines
show the queries they forward failing upstream (`read udp <pod>-><upstream>:53: i/o timeout`,
`no healthy upstream`, a refused or unreachable forwarder), the fault is where the forward targets
are written — the cluster DNS's ConfigMap (a Corefile `forward` or stub domain) — at the DNS layer
(`service_routing`, `UpstreamDNSUnreachable`), naming the zone (the failing names' common suffix)
and the upstream addresses; the workloads whose lookups fail are its victims. Upstream failures
for other names than the hosts looked up in vain (another zone, a stale line) explain nothing: the
lookups fail elsewhere (the client's own resolver, the name's own servers). Once lookups are seen
failing, a cluster DNS pod's logs and its ConfigMap are read (`reads`).

Rule: when lookups asked of the cluster DNS (its Service's address, when listed) time out while
its pods run ready, forward nothing that fails upstream, and say they cannot keep up (health checks
slow, probes past their deadline, throttling, too many concurrent queries), the cluster DNS
deployment is the fault (`infrastructure`, `LookupTimeouts`, DNS layer): too few replicas or too
little CPU for the cluster it serves; the workloads whose lookups time out are its victims.
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import read_containers
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.system import (
    CLUSTER_DNS,
    LOOKUP_FAILED,
    cluster_dns_address,
    cluster_lookup,
)
from reasoning.layered.reading import hosts_in, short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import GET_YAML, POD_LOGS

_SYSTEM = "kube-system"
# The cluster DNS and the node-local cache in front of it (both forward by a ConfigMap of their name).
_DNS_POD = re.compile(r"^(coredns|kube-dns|node-local-dns)-")
_FORWARDERS = CLUSTER_DNS | {"node-local-dns"}
# A forwarded query failing upstream, as CoreDNS's errors and forward plugins log it.
_UPSTREAM = re.compile(
    r"(?:read|dial|write) (?:udp|tcp) (?:\S+->)?(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]):53\b"
    r"[^\n]*?(?:i/o timeout|connection refused|no route to host|network is unreachable)"
    r"|\bno healthy upstream\b|plugin/forward\b[^\n]*\b(?:timeout|unreachable|refused)",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"->(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]):53\b")
# The name a CoreDNS error line is about: `2 <name>. <type>:`.
_QUERY = re.compile(
    r"\b\d+ ([a-z0-9][a-z0-9.-]*[a-z0-9])\.? (?:A|AAAA|SRV|MX|TXT|PTR|CNAME|NS|SOA)\b",
    re.IGNORECASE,
)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def dns_pods(cluster: Cluster) -> list[str]:
    return [p.name for p in cluster.pods(_SYSTEM) if _DNS_POD.match(p.name)]


def _upstream_lines(cluster: Cluster, facts: Facts) -> list[tuple[Observation, str]]:
    """The cluster DNS's own lines (its pods' logs, its service's error groups) that fail upstream."""
    out: list[tuple[Observation, str]] = []
    for (space, pod, _, _), obs in cluster.logs.items():
        if space == _SYSTEM and _DNS_POD.match(pod):
            out += [
                (obs, f"{pod} logs: {ln.strip()}")
                for ln in obs.text.splitlines()
                if _UPSTREAM.search(ln)
            ]
    for service, errors in facts.errors.items():
        if service.lower() in _FORWARDERS:
            for group in (*errors.groups, *errors.warnings):
                if _UPSTREAM.search(group.sample or group.signature):
                    out.append((errors.obs, errors.fact(group)))
    return out


def _domains(names: list[str]) -> set[str]:
    """The registrable-looking domains (last two labels) of the names."""
    return {
        ".".join(n.lower().rstrip(".").split(".")[-2:])
        for n in names
        if n.count(".") >= 1
    }


def _zone(names: list[str]) -> str:
    """The longest common suffix (whole labels) of the failing names; one name: its parent."""
    split = [n.lower().rstrip(".").split(".") for n in names if "." in n]
    if not split:
        return ""
    common: list[str] = []
    for labels in zip(*(reversed(s) for s in split), strict=False):
        if len(set(labels)) != 1:
            break
        common.insert(0, labels[0])
    if len(split) == 1 or len(common) == len(split[0]):
        common = split[0][1:]
    return ".".join(common) if len(common) >= 2 else ""


def upstream_faults(
    cluster: Cluster, facts: Facts, ns: str, path: Path, failing: str
) -> list[Finding]:
    """Lookups failing while the cluster DNS's own lines show the queries it forwards timing out upstream make its ConfigMap's forwarding the fault, at the DNS layer."""
    pods = [p for p in cluster.pods(_SYSTEM) if _DNS_POD.match(p.name)]
    if not pods or any(not p.is_healthy for p in pods):
        return []  # a cluster DNS pod down is the control plane's fault (`nodes`)
    lookups = [ln.strip() for ln in failing.splitlines() if LOOKUP_FAILED.search(ln)]
    upstream = _upstream_lines(cluster, facts)
    if not lookups or not upstream:
        return []
    # The forwarder whose own lines fail upstream (the node-local cache or the cluster DNS).
    said = [m.group(1) for _, fact in upstream if (m := _DNS_POD.match(fact))]
    said += [
        errors.service.lower()
        for _, fact in upstream
        for errors in facts.errors.values()
        if fact.startswith(f"top_errors({errors.service})")
        and errors.service.lower() in _FORWARDERS
    ]
    prefix = _DNS_POD.match(pods[0].name)
    name = said[0] if said else prefix.group(1) if prefix else "coredns"
    names = [m.group(1) for _, fact in upstream for m in _QUERY.finditer(fact)]
    zone = _zone(names)
    if not _concerns(names, zone, lookups):
        return []  # it fails upstream for other names than the ones looked up in vain
    servers = sorted(
        {m.group(1) for _, fact in upstream for m in _ADDRESS.finditer(fact)}
    )
    f = Finding(
        "service_routing",
        "UpstreamDNSUnreachable",
        f"configmap/{name}",
        layers.DNS,
        f"cluster DNS ({name}) forwards "
        + (f"zone {zone}" if zone else "queries")
        + (
            f" to {', '.join(servers[:3])}, which do"
            if servers
            else " to upstream servers that do"
        )
        + f" not answer ({short(upstream[-1][1], 120)}): the forwarding in ConfigMap {name} is the "
        f"fault, its pods run; lookups fail ({short(lookups[-1], 100)})",
        ns,
    )
    for obs, fact in upstream[:2]:
        f.cite(obs, fact)
    config = cluster.yamls.get(("configmaps", _SYSTEM, name))
    if config is not None:
        block = _forward_of(config.text, zone)
        if block:
            f.cite(config, f"configmap {name}: {block}")
    victims: list[str] = []
    for (space, pod, _, _), obs in cluster.logs.items():
        if space == ns and any(
            LOOKUP_FAILED.search(ln) for ln in obs.text.splitlines()
        ):
            owner = cluster.owner(ns, "pod", pod)
            if owner not in victims:
                victims.append(owner)
    workloads = {w.partition("/")[2]: w for w in cluster.workloads(ns)}
    for service, errors in facts.errors.items():
        workload = workloads.get(service)
        if (
            workload
            and workload not in victims
            and any(
                LOOKUP_FAILED.search(g.sample or g.signature) for g in errors.groups
            )
        ):
            victims.append(workload)
            f.context.append((errors.obs, f"{service}'s lookups fail"))
    f.explains = victims
    # Names of several unrelated domains failing upstream at once: the one resolver they share
    # (the root `forward`) fails every outside lookup, on whatever path the incident takes.
    wide = not zone and len(_domains(names)) >= 2
    f.is_relevant = (
        wide or not path.workloads or any(v in path.workloads for v in victims)
    )
    f.keywords = [name, *([zone] if zone else []), *servers[:2], "forward"]
    f.chain = [
        f"lookups fail: {short(lookups[-1], 100)}",
        f"{name} fails upstream: {short(upstream[-1][1], 100)}",
        f.statement,
    ]
    return [f]


def _concerns(names: list[str], zone: str, lookups: list[str]) -> bool:
    """The upstream failures can explain the failing lookups: they name no query, the lookups
    name no host, or a host looked up is one of the names that failed upstream or in their zone."""
    hosts = {h.rstrip(".") for line in lookups for h in hosts_in(line)}
    asked = {n.lower().rstrip(".") for n in names}
    if not asked or not hosts:
        return True
    return any(
        h in asked or (zone and (h == zone or h.endswith("." + zone))) for h in hosts
    )


def _forward_of(corefile: str, zone: str) -> str:
    """The server block line and forward line for `zone` (or the first forward), on one line."""
    lines = corefile.splitlines()
    for i, line in enumerate(lines):
        if zone and line.strip().startswith(zone):
            forward = next(
                (ln.strip() for ln in lines[i + 1 : i + 12] if "forward" in ln), ""
            )
            return f"{line.strip()} {forward}".strip()
    return ""


def reads(
    cluster: Cluster, ns: str, failing: str, call: Call
) -> list[PlannedCall | None]:
    """Once pods' lookups fail: a cluster DNS pod's logs, and its ConfigMap (forward targets, stub domains)."""
    if not any(LOOKUP_FAILED.search(ln) for ln in failing.splitlines()):
        return []
    pods = dns_pods(cluster)
    if not pods:
        return []
    prefix = _DNS_POD.match(pods[0])
    name = prefix.group(1) if prefix else "coredns"
    return [
        call(
            POD_LOGS,
            {"pod": pods[0], "namespace": _SYSTEM, "tail": 200},
            f"lookups fail in {ns}: does the cluster DNS ({pods[0]}) fail upstream",
        ),
        call(
            GET_YAML,
            {"kind": "configmap", "name": name, "namespace": _SYSTEM},
            f"lookups fail in {ns}: where the cluster DNS forwards (ConfigMap {name})",
        ),
    ]


# A lookup that got no answer in time (not a name that does not exist).
_TIMED_OUT = re.compile(
    r"i/o timeout|timed? ?out|EAI_AGAIN|deadline exceeded|try again", re.IGNORECASE
)
# The cluster DNS saying it cannot keep up: slow health, throttling, too many queries in flight.
_STRAINED = re.compile(
    r"took (?:more|longer) than|\bslow\b|deadline exceeded|throttl|overload|"
    r"concurrent queries exceeded|max_concurrent|too many|queue full",
    re.IGNORECASE,
)


def slow_dns_faults(
    cluster: Cluster, facts: Facts, ns: str, path: Path, failing: str
) -> list[Finding]:
    """Lookups timing out against the cluster DNS while its pods run but say they cannot keep up (slow health, probes timing out, throttling, too many queries) make the cluster DNS deployment the fault, though no pod of it is down."""
    pods = [p for p in cluster.pods(_SYSTEM) if _DNS_POD.match(p.name)]
    if not pods or any(not p.is_healthy for p in pods):
        return []  # a cluster DNS pod down is the control plane's fault (`nodes`)
    resolver = cluster_dns_address(cluster)
    lookups = [
        ln.strip()
        for ln in failing.splitlines()
        if cluster_lookup(ln, resolver) and _TIMED_OUT.search(ln)
    ]
    if not lookups or _upstream_lines(cluster, facts):
        return []  # forwarding that fails upstream is its ConfigMap's (`upstream_faults`)
    strained = _strained(cluster, facts, {p.name for p in pods})
    if not strained:
        return []
    owner = cluster.owner(_SYSTEM, "pod", pods[0].name)
    name = owner.partition("/")[2]
    described = next(
        (d for p in pods if (d := cluster.describe("pods", _SYSTEM, p.name))), None
    ) or cluster.describe("deployments", _SYSTEM, name)
    limit = read_containers(described.text).limits_cpu if described else ""
    f = Finding(
        "infrastructure",
        "LookupTimeouts",
        owner,
        layers.DNS,
        f"cluster DNS ({name}, {len(pods)} pod{'s' if len(pods) != 1 else ''}"
        + (f", CPU limit {limit}" if limit else "")
        + f") cannot keep up: its pods run but {short(strained[0][1], 140)}; lookups asked "
        f"of it time out ({short(lookups[-1], 120)})",
        _SYSTEM,
    )
    for obs, fact in strained[:3]:
        f.cite(obs, fact)
    if described is not None and limit:
        f.cite(described, f"describe {name}: Limits cpu {limit}")
    f.keywords = [name, "cluster DNS", "i/o timeout", *([resolver] if resolver else [])]
    f.chain = [f"lookups time out: {short(lookups[-1], 100)}", f.statement]
    return [f]


def _strained(
    cluster: Cluster, facts: Facts, pods: set[str]
) -> list[tuple[Observation, str]]:
    """What the cluster DNS says of its own strain: its pods' warnings (probes timing out), its
    log lines and its service's logged groups that say it is slow, throttled or overloaded."""
    out: list[tuple[Observation, str]] = [
        (e.obs, e.fact)
        for e in cluster.warnings(_SYSTEM)
        if e.kind == "pod" and e.name in pods and _STRAINED.search(e.message)
    ]
    for (space, pod, _, _), obs in cluster.logs.items():
        if space == _SYSTEM and pod in pods:
            lines = [ln.strip() for ln in obs.text.splitlines() if _STRAINED.search(ln)]
            if lines:
                out.append((obs, f"{pod} logs: {short(lines[-1], 200)}"))
    for service, errors in facts.errors.items():
        if service.lower() in CLUSTER_DNS:
            for group in (*errors.groups, *errors.warnings):
                if _STRAINED.search(group.sample or group.signature):
                    out.append((errors.obs, errors.fact(group)))
                    break
    return out
