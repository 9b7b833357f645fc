"""Every fault the kubectl answers show, per chosen namespace, victims marked, the path flagged.

Per namespace: the nodes (not ready, under a condition, a network table full, a network adapter
resetting), each workload's
earliest blocking stage, an autoscaler that shrank what its pods may use, the volume or the preemptor a waiting workload's events blame, CPU
starvation (which replaces a probe or readiness finding on the same workload: the starving is the
fault), the cron jobs and jobs (a hung run, a failed job, a suspended schedule), a ServiceAccount
refused a permission, the routing, an ingress's missing TLS secret or class, the network policies, a
pod spec's resolver or pinned address its failing lookups or connections go to, an ingress or route
whose path match lets its requests fall through, a webhook whose certificate the API server does not
trust, an object a workload's refusal names (a quota, a LimitRange, a Secret's key), a service taking in a second
workload's failing pods, the cluster DNS forwarding upstream in vain or too strained for its load, the autoscalers, a
replica failing alone, a noisy neighbour, a disruption budget blocking a drain, the control plane, a
namespace stuck Terminating; then `links.link` says which lie on the incident's path,
which are victims and which are stale.
"""

from dataclasses import dataclass, field
from datetime import datetime

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.affinity import (
    affinity_faults,
    pinned_connection_faults,
)
from reasoning.layered.kubernetes.autoscaling import autoscaling_faults, saturated
from reasoning.layered.kubernetes.blockers import blocked_by_named
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.csi_drivers import csi_driver_faults
from reasoning.layered.kubernetes.declared import declare
from reasoning.layered.kubernetes.disruptions import disruption_faults
from reasoning.layered.kubernetes.dns_upstream import slow_dns_faults, upstream_faults
from reasoning.layered.kubernetes.egress_policies import egress_policy_faults
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.flapping import flapping_faults
from reasoning.layered.kubernetes.headless_callers import stale_headless_faults
from reasoning.layered.kubernetes.headless_records import headless_record_faults
from reasoning.layered.kubernetes.ingress_class import ingress_class_faults
from reasoning.layered.kubernetes.ingress_hosts import host_path_faults
from reasoning.layered.kubernetes.ingress_paths import path_match_faults
from reasoning.layered.kubernetes.ingress_protocol import protocol_faults
from reasoning.layered.kubernetes.ingress_rewrite import rewrite_faults
from reasoning.layered.kubernetes.ingress_tls import ingress_tls_faults
from reasoning.layered.kubernetes.jobs import job_faults
from reasoning.layered.kubernetes.kernel import (
    cpu_starved_faults,
    filesystem_faults,
    kernel_faults,
    lockup_faults,
    nic_faults,
)
from reasoning.layered.kubernetes.links import link
from reasoning.layered.kubernetes.listen_ports import listen_port_faults
from reasoning.layered.kubernetes.loading import loading_faults
from reasoning.layered.kubernetes.metrics_api import (
    failing_scalers,
    metrics_api_faults,
)
from reasoning.layered.kubernetes.namespace_lifecycle import namespace_faults
from reasoning.layered.kubernetes.namespaces import chosen_namespaces
from reasoning.layered.kubernetes.neighbours import hog_faults, neighbour_faults
from reasoning.layered.kubernetes.node_confined import node_confined_faults
from reasoning.layered.kubernetes.node_logs import kubelet_reasons
from reasoning.layered.kubernetes.nodes import (
    control_plane_faults,
    node_faults,
    pressure_faults,
)
from reasoning.layered.kubernetes.object_settings import (
    failing_texts,
    per_pod_key_faults,
    stopped_work_named,
    unscalable_faults,
)
from reasoning.layered.kubernetes.path import Path, incident_path
from reasoning.layered.kubernetes.performance import SLOW, throttled
from reasoning.layered.kubernetes.permissions import permission_faults
from reasoning.layered.kubernetes.policies import dns_policy_faults, policy_faults
from reasoning.layered.kubernetes.preemption import preemption_faults
from reasoning.layered.kubernetes.replicas import replica_faults
from reasoning.layered.kubernetes.resizing import resizing_faults
from reasoning.layered.kubernetes.routing import (
    failure_text,
    overlap_faults,
    routing_faults,
    stale_manual_endpoints,
)
from reasoning.layered.kubernetes.spec_references import (
    host_alias_faults,
    host_network_dns_faults,
    resolver_faults,
)
from reasoning.layered.kubernetes.topology_routing import topology_faults
from reasoning.layered.kubernetes.traffic_policy import traffic_policy_faults
from reasoning.layered.kubernetes.volumes import volume_faults
from reasoning.layered.kubernetes.waits import waited_on
from reasoning.layered.kubernetes.webhook_tls import webhook_tls_faults
from reasoning.layered.kubernetes.webhooks import webhook_faults
from reasoning.layered.kubernetes.workloads import all_workloads, workload_fault
from reasoning.layered.reading import incident_text
from reasoning.observations import Investigation


@dataclass
class Diagnosis:
    """The findings, and what they were read from: the cluster and each namespace's path."""

    cluster: Cluster
    findings: list[Finding] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)


def diagnose(inv: Investigation, facts: Facts) -> list[Finding]:
    """Every fault the kubectl answers show, victims marked, the incident's path flagged."""
    return diagnosis(inv, facts).findings


def diagnosis(inv: Investigation, facts: Facts) -> Diagnosis:
    """`diagnose`, keeping the cluster read and the namespaces' paths (the dependency graph's)."""
    cluster = Cluster.read(inv.observations)
    result = Diagnosis(cluster)
    out: dict[str, Finding] = {}
    for ns in diagnosed_namespaces(inv, cluster):
        path = incident_path(inv, facts, cluster, ns)
        result.paths[ns] = path
        for f in _namespace_faults(inv, facts, cluster, ns, path):
            # A system pod's fault is found from every namespace: the one it explains wins.
            current = out.get(f.component)
            if current is None or (f.is_relevant and not current.is_relevant):
                out[f.component] = f
    result.findings = list(out.values())
    waited_on(inv, facts, result.findings)
    return result


def diagnosed_namespaces(inv: Investigation, cluster: Cluster) -> list[str]:
    """The chosen namespaces, then any other the diagnosis read in full (the survey reads every
    namespace with unhealthy pods when nothing else explained the incident)."""
    chosen = [
        ns for ns in chosen_namespaces(inv, cluster) if cluster.has_list("pods", ns)
    ]
    surveyed = [
        ns
        for ns in cluster.namespaces or ()
        if ns not in chosen
        and cluster.has_list("pods", ns)
        and cluster.has_list("deployments", ns)
    ]
    return chosen + surveyed


def _namespace_faults(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, path: Path
) -> list[Finding]:
    found: dict[str, Finding] = {}
    for node in node_faults(cluster, ns):
        found[node.component] = node
    for node in pressure_faults(cluster, ns):
        found.setdefault(node.component, node)
    for node in kernel_faults(inv, cluster, ns):
        found.setdefault(node.component, node)
    for node in nic_faults(inv, facts, cluster, ns):
        found.setdefault(node.component, node)
    for node in cpu_starved_faults(inv, facts, cluster, ns):
        found.setdefault(node.component, node)
    for node in lockup_faults(inv, facts, cluster, ns):
        found.setdefault(node.component, node)
    for node in filesystem_faults(inv, facts, cluster, ns):
        found.setdefault(node.component, node)
    for node in node_confined_faults(cluster, ns):
        found.setdefault(node.component, node)
    kubelet_reasons(inv, cluster, list(found.values()))
    for workload in all_workloads(cluster, ns):
        finding = workload_fault(cluster, ns, workload)
        if finding is not None:
            found.setdefault(finding.component, finding)
    for finding in resizing_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in volume_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in csi_driver_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in preemption_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in throttled(inv, cluster, ns):
        current = found.get(finding.component)
        if current is None or current.reason in ("Unhealthy", "NotReady"):
            # Probes that time out on a starved container: the starving is the fault.
            if current is not None:
                finding.evidence += current.evidence
            found[finding.component] = finding
    words = {inv.incident.service, *incident_text(inv).split()}
    jobs = job_faults(cluster, ns, path, words)
    stopped_work_named(jobs, failing_texts(facts, incident_text(inv)))
    for finding in jobs:
        found.setdefault(finding.component, finding)
    for finding in permission_faults(cluster, ns, path, window_seconds(inv)):
        found.setdefault(finding.component, finding)
    failing = failure_text(inv, facts, cluster, ns)
    for finding in routing_faults(cluster, ns, path, failing):
        found.setdefault(finding.component, finding)
    for finding in headless_record_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    errors = [(e.obs, g.text) for e, g in facts.error_texts()]
    for finding in listen_port_faults(cluster, ns, [*errors, *cluster.log_texts(ns)]):
        found.setdefault(finding.component, finding)
    for finding in stale_headless_faults(
        cluster, ns, [*errors, *cluster.log_texts(ns)]
    ):
        found.setdefault(finding.component, finding)
    for finding in overlap_faults(cluster, ns, path, failing):
        # A workload serving a service it was not meant for: that says more than its symptom.
        current = found.get(finding.component)
        if current is None or current.stage in ("runtime", "performance"):
            if current is not None:
                finding.evidence += current.evidence
            found[finding.component] = finding
    for finding in stale_manual_endpoints(cluster, ns, failing, errors):
        found.setdefault(finding.component, finding)
    for finding in affinity_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in pinned_connection_faults(cluster, ns, path, facts):
        found.setdefault(finding.component, finding)
    for finding in traffic_policy_faults(cluster, ns, path, failing):
        found.setdefault(finding.component, finding)
    for finding in topology_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in ingress_tls_faults(cluster, facts, ns):
        found.setdefault(finding.component, finding)
    for finding in rewrite_faults(cluster, facts, ns, failing):
        found.setdefault(finding.component, finding)
    for finding in ingress_class_faults(cluster, facts, ns):
        found.setdefault(finding.component, finding)
    for finding in protocol_faults(cluster, facts, ns):
        found.setdefault(finding.component, finding)
    for finding in host_path_faults(inv, cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in path_match_faults(cluster, facts, ns, failing):
        # A rule's match type is why its path's requests reach the wrong backend.
        current = found.get(finding.component)
        if current is None or current.reason == "wrong_service":
            found[finding.component] = finding
    for finding in policy_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in dns_policy_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in egress_policy_faults(cluster, ns):
        found.setdefault(finding.component, finding)
    for finding in [
        *resolver_faults(cluster, facts, ns),
        *host_alias_faults(cluster, facts, ns),
        *host_network_dns_faults(cluster, facts, ns),
    ]:
        # The workload's spec sends its traffic astray: that says more than a runtime symptom
        # (on the node's network no cluster name resolves, whether or not it is spelled right).
        current = found.get(finding.component)
        if (
            current is None
            or current.stage in ("runtime", "performance")
            or (
                finding.reason == "HostNetworkDNSPolicy"
                and current.reason == "wrong_service_name"
            )
        ):
            if current is not None:
                finding.evidence += current.evidence
            found[finding.component] = finding
    for finding in upstream_faults(cluster, facts, ns, path, failing):
        found.setdefault(finding.component, finding)
    if not any(
        f.layer == layers.DNS and f.reason != "wrong_service_name"
        for f in found.values()
    ):
        # No policy, resolver or forward explains the lookups: the cluster DNS's own strain may.
        for finding in slow_dns_faults(cluster, facts, ns, path, failing):
            found.setdefault(finding.component, finding)
    for finding in autoscaling_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in unscalable_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in per_pod_key_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in flapping_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in loading_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in metrics_api_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in failing_scalers(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in webhook_faults(cluster, ns):
        current = found.get(finding.component)
        if current is not None:
            # The webhook's back end failing in this namespace: why it fails is its evidence too.
            finding.evidence += current.evidence
        found[finding.component] = finding
    for finding in webhook_tls_faults(cluster, facts, ns):
        found.setdefault(finding.component, finding)
    for finding in blocked_by_named(cluster, facts, ns, found):
        found.setdefault(finding.component, finding)
    for finding in replica_faults(cluster, ns, path):
        found.setdefault(finding.component, finding)
    for finding in neighbour_faults(cluster, ns, window_seconds(inv)):
        found.setdefault(finding.component, finding)
    if is_slow(inv, cluster, ns, path):
        for finding in hog_faults(cluster, ns, path.workloads[:4], window_seconds(inv)):
            found.setdefault(finding.component, finding)
    for finding in disruption_faults(cluster, ns, path, inv):
        found.setdefault(finding.component, finding)
    for finding in control_plane_faults(cluster):
        current = found.get(finding.component)
        if current is None or current.namespace == "kube-system":
            # A system pod's own fault says more than its workload's stage.
            found[finding.component] = finding
    for finding in namespace_faults(facts, cluster):
        found.setdefault(finding.component, finding)
    link(cluster, ns, path, found, window_seconds(inv))
    declare(cluster, ns, found)
    return list(found.values())


def is_slow(inv: Investigation, cluster: Cluster, ns: str, path: Path) -> bool:
    """The incident says slow, or the path's callers time out on a workload (or its probes do)."""
    return bool(SLOW.search(incident_text(inv))) or bool(saturated(cluster, ns, path))


def window_seconds(inv: Investigation) -> float | None:
    """How long the incident's window is (kubectl's ages count back from its end), when it says."""
    start, end = inv.incident.window_start, inv.incident.window_end
    if not start or not end:
        return None
    try:
        span = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except ValueError:
        return None
    return span.total_seconds()
