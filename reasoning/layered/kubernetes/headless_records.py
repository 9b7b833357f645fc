"""A headless Service that publishes no record for pods not ready: peers that must find each other by name before they are ready never can.

A StatefulSet's pods reach each other by their per-pod names under the headless Service that
governs them (`<pod>.<service>.<namespace>.svc.cluster.local`). The cluster DNS publishes those
records for ready pods only, unless the Service sets `publishNotReadyAddresses: true`. When the
pods' readiness needs their peers (a quorum, a cluster join), a Service without it leaves every pod
unready and every peer name unresolvable: after all of them restart (a node rotation, a re-created
chart) no quorum ever forms. When a pod log of the namespace says a per-pod name under a headless
Service (CLUSTER-IP None) does not resolve, and that Service lists no endpoint, the Service is the
fault (dns), not the pods that crash or fail their probes waiting for each other nor what calls
them; its `-o yaml`, when read, shows whether the setting is there (then this is not the fault).
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster, service_of_host
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.logs import DNS_FAIL, line_targets
from reasoning.layered.reading import short

# A lookup that got no answer in time: the resolver's trouble, not a missing record.
_TEMPORARY = re.compile(
    r"EAI_AGAIN|i/o timeout|timed out|temporary failure|try again", re.IGNORECASE
)
_PUBLISHES = re.compile(r"publishNotReadyAddresses:\s*true", re.IGNORECASE)


def _headless(cluster: Cluster, ns: str) -> list[str]:
    table = cluster.table("services", ns)
    return [
        r["NAME"]
        for r in (table.rows if table else ())
        if r.get("NAME") and r.get("CLUSTER-IP", "").lower() == "none"
    ]


def peer_service(name: str, headless: list[str], ns: str) -> str | None:
    """The headless Service a per-pod name is under (`web-2.web-peers`, `web-2.web-peers.shop.svc…`)."""
    labels = name.lower().rstrip(".").split(".")
    if len(labels) < 2 or labels[1] not in headless:
        return None
    if len(labels) == 2 or labels[2] in (ns, "svc"):
        return labels[1]
    return None


def headless_record_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A per-pod name under a headless Service with no endpoint that a pod cannot resolve: the Service publishes no record of a pod not ready (no `publishNotReadyAddresses`), so peers that need each other to get ready never find each other."""
    headless = _headless(cluster, ns)
    if not headless:
        return []
    found: dict[str, Finding] = {}
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        if space != ns:
            continue
        caller = cluster.owner(ns, "pod", pod)
        for line in (obs.text or "").splitlines():
            if not DNS_FAIL.search(line) or _TEMPORARY.search(line):
                continue
            for target in line_targets(line, []):
                service = peer_service(target, headless, ns)
                if service is None:
                    continue
                finding = found.get(service) or _finding(cluster, ns, service)
                if finding is None:
                    continue
                found[service] = finding
                fact = f"{pod} logs: {short(line.strip(), 200)}"
                if len(finding.evidence) < 4:
                    finding.cite(obs, fact)
                if caller not in finding.explains:
                    finding.explains.append(caller)
                if not finding.chain:
                    finding.chain = [
                        f"{caller} cannot resolve its peer {target}",
                        finding.statement,
                    ]
    for finding in found.values():
        _callers(cluster, ns, finding)
    return list(found.values())


def _callers(cluster: Cluster, ns: str, finding: Finding) -> None:
    """The workloads whose logs name a service in front of the same pods (never ready, so none of
    those services has an endpoint either): what they fail at is this."""
    backing = set(finding.explains)
    services = cluster.names("services", ns)
    fronts = {
        s
        for s in services
        if backing
        & set(cluster.service_workloads(ns, s) or cluster.intended_workloads(ns, s))
    }
    for (space, pod, _, _), obs in sorted(cluster.logs.items()):
        caller = cluster.owner(ns, "pod", pod)
        if space != ns or caller in backing or caller in finding.explains:
            continue
        for line in (obs.text or "").splitlines():
            named = {
                service_of_host(t.lower(), services, ns) for t in line_targets(line, [])
            }
            if named & fronts:
                finding.explains.append(caller)
                finding.context.append((obs, f"{pod} logs: {short(line.strip(), 200)}"))
                break


def _finding(cluster: Cluster, ns: str, service: str) -> Finding | None:
    cell = cluster.endpoints(ns, service)
    if cell not in (None, "", "<none>"):
        return None  # some pod has its record: the missing one is that pod's own matter
    spec = cluster.yamls.get(("services", ns, service))
    if spec is not None and _PUBLISHES.search(spec.text or ""):
        return None
    f = Finding(
        "service_routing",
        "headless_records_unpublished",
        f"service/{service}",
        layers.DNS,
        f"headless service {service} publishes no DNS record for its pods while they are not ready "
        "(no publishNotReadyAddresses), so its pods cannot resolve each other's names and never get ready",
        ns,
    )
    services_table = cluster.table("services", ns)
    if services_table is not None:
        f.context.append(
            (services_table.obs, f"get services: {services_table.line(service)}")
        )
    endpoints_table = cluster.table("endpoints", ns)
    if endpoints_table is not None:
        f.context.append(
            (endpoints_table.obs, f"get endpoints: {endpoints_table.line(service)}")
        )
    if spec is not None:
        f.cite(
            spec,
            f"get service {service} -o yaml: clusterIP None, no publishNotReadyAddresses",
        )
    for workload in cluster.intended_workloads(ns, service):
        if workload not in f.explains:
            f.explains.append(workload)
    f.keywords = ["headless", "publishNotReadyAddresses", service, "dns", "UnknownHost"]
    return f
