"""Every rule the layered engine applies, as one table: its id, where it runs, its layers, its function.

A rule's statement is the first paragraph of its function's docstring (one sentence): the function
owns the words, this table owns the rest. `stage` says where the engine applies the rule, and the
table's order is the order it runs in:

- `workload` — per Kubernetes workload, the lifecycle stages in order; the first that returns a
  finding is the workload's fault (`kubernetes.workloads.workload_fault` runs them from here);
- `namespace` — per namespace, the faults of nodes, routing and the quiet objects
  (`kubernetes.faults`);
- `links` — how Kubernetes findings relate: on the incident's path, victims of another, stale
  (`kubernetes.links`, `kubernetes.system`, `kubernetes.waits`);
- `board` — facts and findings to hypotheses on one board (`analysis.Analysis` runs them from here);
- `probe` — applied by the `network` rule to each probe it sorts;
- `resolution` — the incident's service name onto what the data knows (`resolution.RULES` owns the
  order and titles; this table lists them).

`classes` names the kinds of miss of issue 21 a rule was written for (`CLASSES`); the rules the
engine had before it carry none. Each rule id is exercised by at least one unit test marked
`@pytest.mark.rule("<id>")`; tests/reasoning/test_rules.py checks that, the statements, the doc's
table (docs/engine.md, written by `python -m scripts.rules_doc`) and that no rule is left out.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reasoning import layers
from reasoning.layered import resolution
from reasoning.layered.account_paused import account_paused
from reasoning.layered.account_quota import account_quota
from reasoning.layered.address_conflict import address_conflict
from reasoning.layered.application import applications, healthy_services
from reasoning.layered.backend_ceiling import backend_ceiling
from reasoning.layered.backend_gauges import depleted_resource, replica_lag
from reasoning.layered.cache_ceiling import cache_ceiling
from reasoning.layered.cache_hits import cache_hits_collapsed
from reasoning.layered.candidates import excluded
from reasoning.layered.certificates import (
    issuer_failed_at_start,
    refused_own_certificate,
    trust_store_lacks_root,
)
from reasoning.layered.changes import changes
from reasoning.layered.cited_lines import cite_specific
from reasoning.layered.clock_skew import clock_skew
from reasoning.layered.connection_ceiling import connection_ceiling
from reasoning.layered.controller_actions import controller_actions
from reasoning.layered.controller_objects import controller_objects
from reasoning.layered.cors import cors
from reasoning.layered.credentials import expired_credentials
from reasoning.layered.cut_bodies import cut_bodies
from reasoning.layered.denied_access import denied_access
from reasoning.layered.dns_facts import dnssec_mismatch, negative_cache, zero_weight
from reasoning.layered.dns_records import deleted_records, pushed_deletions
from reasoning.layered.dns_repointed import repointed_records
from reasoning.layered.dns_search import search_domain_capture
from reasoning.layered.dns_zones import shadowing_zone
from reasoning.layered.dropping_policy import dropping_policy
from reasoning.layered.echoed_errors import echoed_errors
from reasoning.layered.edge_filters import edge_filters
from reasoning.layered.egress_allowance import egress_allowance
from reasoning.layered.egress_proxy import egress_proxy
from reasoning.layered.emptied_pools import emptied_pools
from reasoning.layered.expiry import expired_while_traffic_fell
from reasoning.layered.expiry_wave import expiry_wave
from reasoning.layered.fan_out import fan_out
from reasoning.layered.fault_class_lines import fault_class_lines
from reasoning.layered.fault_lines import cite_fault_lines
from reasoning.layered.filter_lines import filter_lines
from reasoning.layered.flag_quota import flag_quota
from reasoning.layered.full_volumes import full_volumes
from reasoning.layered.gateway import gateway
from reasoning.layered.host_exhaustion import host_exhaustion
from reasoning.layered.host_facts import (
    cpu_steal,
    descriptor_limit,
    nat_ports,
    noexec_mount,
    unsynced_clock,
)
from reasoning.layered.http_symptoms import http_symptoms
from reasoning.layered.immediate_retries import immediate_retries
from reasoning.layered.issuer_refusal import issuer_refused
from reasoning.layered.kind_prefix import kind_prefix
from reasoning.layered.kubernetes.affinity import (
    affinity_faults,
    pinned_connection_faults,
)
from reasoning.layered.kubernetes.autoscaling import autoscaling_faults
from reasoning.layered.kubernetes.blockers import blocked_by_named
from reasoning.layered.kubernetes.csi_drivers import csi_driver_faults
from reasoning.layered.kubernetes.declared import declare
from reasoning.layered.kubernetes.disruptions import disruption_faults
from reasoning.layered.kubernetes.dns_upstream import slow_dns_faults, upstream_faults
from reasoning.layered.kubernetes.egress_policies import egress_policy_faults
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
from reasoning.layered.kubernetes.links import (
    caller_victims,
    explained_victims,
    is_stale,
    node_victims,
    place_on_path,
)
from reasoning.layered.kubernetes.listen_ports import listen_port_faults
from reasoning.layered.kubernetes.loading import loading_faults
from reasoning.layered.kubernetes.metrics_api import (
    failing_scalers,
    metrics_api_faults,
)
from reasoning.layered.kubernetes.namespace_lifecycle import namespace_faults
from reasoning.layered.kubernetes.neighbours import hog_faults, neighbour_faults
from reasoning.layered.kubernetes.node_confined import node_confined_faults
from reasoning.layered.kubernetes.node_logs import kubelet_reasons
from reasoning.layered.kubernetes.nodes import (
    control_plane_faults,
    node_faults,
    pressure_faults,
)
from reasoning.layered.kubernetes.object_settings import (
    per_pod_key_faults,
    stopped_work_named,
    unscalable_faults,
)
from reasoning.layered.kubernetes.performance import throttled
from reasoning.layered.kubernetes.permissions import permission_faults
from reasoning.layered.kubernetes.policies import dns_policy_faults, policy_faults
from reasoning.layered.kubernetes.preemption import preemption_faults
from reasoning.layered.kubernetes.replicas import replica_faults
from reasoning.layered.kubernetes.resizing import resizing_faults
from reasoning.layered.kubernetes.routing import (
    overlap_faults,
    routing_faults,
    stale_manual_endpoints,
)
from reasoning.layered.kubernetes.spec_references import (
    host_alias_faults,
    host_network_dns_faults,
    resolver_faults,
)
from reasoning.layered.kubernetes.stages.admission import admission
from reasoning.layered.kubernetes.stages.initialization import initialization
from reasoning.layered.kubernetes.stages.runtime import runtime
from reasoning.layered.kubernetes.stages.scheduling import scheduling
from reasoning.layered.kubernetes.stages.startup import startup
from reasoning.layered.kubernetes.stages.zero_replicas import zero_replicas
from reasoning.layered.kubernetes.system import dns_victims, proxy_victims
from reasoning.layered.kubernetes.topology_routing import topology_faults
from reasoning.layered.kubernetes.traffic_policy import traffic_policy_faults
from reasoning.layered.kubernetes.volumes import volume_faults
from reasoning.layered.kubernetes.waits import waited_on
from reasoning.layered.kubernetes.webhook_tls import webhook_tls_faults
from reasoning.layered.kubernetes.webhooks import webhook_faults
from reasoning.layered.kubernetes_findings import (
    kubernetes_findings,
    named_by_callers,
    workload_victims,
)
from reasoning.layered.lb_draining import lb_draining
from reasoning.layered.link_saturation import link_saturated
from reasoning.layered.local_exhaustion import local_exhaustion
from reasoning.layered.lock_holders import lock_holders
from reasoning.layered.log_sources import log_sources
from reasoning.layered.logged_delay import logged_delay
from reasoning.layered.logged_paths import logged_paths
from reasoning.layered.lookup_victims import lookup_victims
from reasoning.layered.loopback_bind import listens_on_loopback
from reasoning.layered.lost_position import lost_position
from reasoning.layered.lowered_limit import lowered_limit
from reasoning.layered.mesh_mtls import mesh_mtls
from reasoning.layered.mesh_subsets import mesh_subsets
from reasoning.layered.metric_trends import metric_trends
from reasoning.layered.missing_destination import missing_destination
from reasoning.layered.namespace_lines import namespace_lines
from reasoning.layered.network import corroborate, mcp_endpoint, network
from reasoning.layered.network_delay import injected_delay, network_delay
from reasoning.layered.new_messages import new_messages
from reasoning.layered.node_pool_changes import node_pool_changes
from reasoning.layered.own_limiter import own_limiter
from reasoning.layered.own_refusal import refusals_quoted
from reasoning.layered.path_elements import path_elements
from reasoning.layered.policy_lookups import policy_lookups
from reasoning.layered.pool_limit import pool_limit_reached
from reasoning.layered.proxy_queue import proxy_queue
from reasoning.layered.quiet_backend import quiet_backend
from reasoning.layered.quiet_changes import quiet_changes
from reasoning.layered.rate_jumps import rate_jumps
from reasoning.layered.reasoned_leads import reasoned_leads
from reasoning.layered.refused_load import refused_load
from reasoning.layered.refusing_front import dropped_credential, refusing_front
from reasoning.layered.rerouted_path import rerouted_path
from reasoning.layered.resource_names import resource_names
from reasoning.layered.retry_storms import retry_storms
from reasoning.layered.role_selectors import role_selectors
from reasoning.layered.route_backends import route_backend
from reasoning.layered.runtime_choice import runtime_choice
from reasoning.layered.runtime_limits import runtime_limits
from reasoning.layered.secret_sync import stale_secret
from reasoning.layered.service_hosts import service_hosts
from reasoning.layered.shared_backend import shared_backend
from reasoning.layered.shared_capacity import shared_capacity
from reasoning.layered.shared_limits import shared_limits
from reasoning.layered.signed_lifetime import signed_lifetime
from reasoning.layered.silent_lines import offset_reset, traffic_split
from reasoning.layered.slow_callee import slow_callee
from reasoning.layered.slow_lookups import slow_lookups
from reasoning.layered.space_holders import space_holders
from reasoning.layered.stale_pool import stale_pool
from reasoning.layered.stalled_output import stalled_output
from reasoning.layered.start_failures import cannot_start
from reasoning.layered.statement_errors import statement_errors
from reasoning.layered.stopped_consumer import stopped_consumer
from reasoning.layered.storage_quota import storage_quota
from reasoning.layered.strongest_lines import strongest_lines
from reasoning.layered.token_clock import token_clock
from reasoning.layered.tool_failures import (
    backend_relevance,
    backend_support,
    tool_failures,
)
from reasoning.layered.unit_exec import missing_unit_executable
from reasoning.layered.unresolved_names import unresolved_names
from reasoning.layered.upstream_producer import upstream_producer
from reasoning.layered.warning_leads import warning_leads
from reasoning.layered.workload_changes import workload_changes

WORKLOAD: Final = "workload"
NAMESPACE: Final = "namespace"
LINKS: Final = "links"
BOARD: Final = "board"
PROBE: Final = "probe"
RESOLUTION: Final = "resolution"
STAGES: Final = (RESOLUTION, WORKLOAD, NAMESPACE, LINKS, BOARD, PROBE)

# The kinds of miss issue 21 names ("fix the class, not the case").
CLASSES: Final = {
    1: "it never read what its rules did not anticipate",
    2: "it read only error-level logs and no baseline",
    3: "it stopped when the incident's name was unknown",
    4: "it blamed the loudest object",
    5: "its confidence followed the wording, not the evidence",
    6: "it named the component but did not cite the line that carries its fault",
}

_ALL: Final = (*layers.LAYERS,)


@dataclass(frozen=True)
class Rule:
    """One rule: its id, where the engine applies it, the layers it concludes at, its function."""

    id: str
    stage: str
    layers: tuple[str, ...]
    function: Callable[..., Any]
    classes: tuple[int, ...] = ()

    @property
    def statement(self) -> str:
        """The first paragraph of the function's docstring, on one line."""
        return statement_of(self.function)

    @property
    def where(self) -> str:
        """module:function, as the doc names it."""
        module = self.function.__module__.removeprefix("reasoning.layered.")
        return f"{module}.{self.function.__name__}"


def statement_of(function: Callable[..., Any]) -> str:
    """The first paragraph of `function`'s docstring, its lines joined ("" without one)."""
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def _resolution_rules() -> tuple[Rule, ...]:
    """The resolution rules in resolution.RULES' order (that tuple owns their order and titles)."""
    return tuple(
        Rule(f"resolve.{name.replace('_', '-')}", RESOLUTION, (), function, (3,))
        for name, _, function in resolution.RULES
    )


RULES: Final[tuple[Rule, ...]] = (
    *_resolution_rules(),
    # Per workload, the earliest stage that blocks it (the order Kubernetes runs them in).
    Rule("k8s.admission", WORKLOAD, (layers.PLATFORM,), admission, (1,)),
    Rule("k8s.scheduling", WORKLOAD, (layers.PLATFORM,), scheduling),
    Rule("k8s.startup", WORKLOAD, (layers.PLATFORM,), startup, (1,)),
    Rule(
        "k8s.init-waits-missing-target",
        WORKLOAD,
        (layers.APPLICATION,),
        initialization,
        (1, 4),
    ),
    Rule(
        "k8s.runtime", WORKLOAD, (layers.APPLICATION, layers.PLATFORM), runtime, (1, 4)
    ),
    Rule("k8s.zero-replicas", WORKLOAD, (layers.APPLICATION,), zero_replicas),
    # Per namespace.
    Rule("k8s.node-not-ready", NAMESPACE, (layers.PLATFORM,), node_faults),
    Rule("k8s.node-pressure", NAMESPACE, (layers.PLATFORM,), pressure_faults, (1,)),
    Rule(
        "k8s.node-network-table-full",
        NAMESPACE,
        (layers.CONNECT, layers.PLATFORM),
        kernel_faults,
        (1, 4),
    ),
    Rule(
        "k8s.node-network-adapter-resets",
        NAMESPACE,
        (layers.PLATFORM,),
        nic_faults,
        (1, 4),
    ),
    Rule(
        "k8s.node-cpu-starved",
        NAMESPACE,
        (layers.PLATFORM,),
        cpu_starved_faults,
        (1, 4),
    ),
    Rule(
        "k8s.node-kernel-lockup",
        NAMESPACE,
        (layers.PLATFORM,),
        lockup_faults,
        (1, 4),
    ),
    Rule(
        "k8s.node-filesystem-failed",
        NAMESPACE,
        (layers.PLATFORM,),
        filesystem_faults,
        (1, 4),
    ),
    Rule(
        "k8s.node-confined-failure",
        NAMESPACE,
        (layers.PLATFORM,),
        node_confined_faults,
        (1, 4),
    ),
    Rule("k8s.node-kubelet-logs", NAMESPACE, (layers.PLATFORM,), kubelet_reasons, (1,)),
    Rule(
        "k8s.autoscaler-shrank-memory",
        NAMESPACE,
        (layers.PLATFORM,),
        resizing_faults,
        (1, 4),
    ),
    Rule("k8s.volume-attach", NAMESPACE, (layers.PLATFORM,), volume_faults, (1, 4)),
    Rule(
        "k8s.csi-driver-not-registered",
        NAMESPACE,
        (layers.PLATFORM,),
        csi_driver_faults,
        (1, 4),
    ),
    Rule("k8s.preemption", NAMESPACE, (layers.PLATFORM,), preemption_faults, (1, 4)),
    Rule("k8s.cpu-throttling", NAMESPACE, (layers.APPLICATION,), throttled),
    Rule("k8s.cron-jobs", NAMESPACE, (layers.APPLICATION,), job_faults, (1,)),
    Rule(
        "k8s.permission-denied",
        NAMESPACE,
        (layers.PLATFORM,),
        permission_faults,
        (1, 4),
    ),
    Rule("k8s.routing", NAMESPACE, (layers.CONNECT, layers.DNS), routing_faults, (1,)),
    Rule(
        "k8s.headless-records-unpublished",
        NAMESPACE,
        (layers.DNS,),
        headless_record_faults,
        (1, 4),
    ),
    Rule(
        "k8s.target-port-not-listened",
        NAMESPACE,
        (layers.CONNECT,),
        listen_port_faults,
        (1, 4),
    ),
    Rule(
        "k8s.headless-stale-addresses",
        NAMESPACE,
        (layers.CONNECT,),
        stale_headless_faults,
        (1, 4),
    ),
    Rule(
        "k8s.service-selector-overlap",
        NAMESPACE,
        (layers.CONNECT,),
        overlap_faults,
        (1, 4),
    ),
    Rule(
        "k8s.stale-manual-endpoints",
        NAMESPACE,
        (layers.CONNECT,),
        stale_manual_endpoints,
        (1, 4),
    ),
    Rule("k8s.session-affinity", NAMESPACE, (layers.CONNECT,), affinity_faults, (1, 4)),
    Rule(
        "k8s.connection-pinning",
        NAMESPACE,
        (layers.CONNECT,),
        pinned_connection_faults,
        (1, 4),
    ),
    Rule(
        "k8s.traffic-policy-local",
        NAMESPACE,
        (layers.CONNECT,),
        traffic_policy_faults,
        (1, 4),
    ),
    Rule(
        "k8s.topology-aware-routing",
        NAMESPACE,
        (layers.CONNECT,),
        topology_faults,
        (1, 4),
    ),
    Rule(
        "k8s.ingress-tls-secret-missing",
        NAMESPACE,
        (layers.TLS,),
        ingress_tls_faults,
        (1, 4),
    ),
    Rule(
        "k8s.ingress-rewrite",
        NAMESPACE,
        (layers.CONNECT,),
        rewrite_faults,
        (1, 4),
    ),
    Rule(
        "k8s.ingress-class-missing",
        NAMESPACE,
        (layers.CONNECT,),
        ingress_class_faults,
        (1, 4),
    ),
    Rule(
        "k8s.ingress-backend-protocol",
        NAMESPACE,
        (layers.CONNECT,),
        protocol_faults,
        (1, 4),
    ),
    Rule(
        "k8s.ingress-host-path-claimed",
        NAMESPACE,
        (layers.CONNECT,),
        host_path_faults,
        (1, 4),
    ),
    Rule(
        "k8s.route-path-match",
        NAMESPACE,
        (layers.CONNECT,),
        path_match_faults,
        (1, 4),
    ),
    Rule("k8s.network-policy", NAMESPACE, (layers.CONNECT,), policy_faults, (1, 4)),
    Rule(
        "k8s.network-policy-blocks-dns",
        NAMESPACE,
        (layers.DNS,),
        dns_policy_faults,
        (1, 4),
    ),
    Rule(
        "k8s.network-policy-egress-block",
        NAMESPACE,
        (layers.CONNECT,),
        egress_policy_faults,
        (1, 4),
    ),
    Rule("k8s.pod-spec-resolver", NAMESPACE, (layers.DNS,), resolver_faults, (1, 4)),
    Rule(
        "k8s.pod-spec-host-alias",
        NAMESPACE,
        (layers.CONNECT,),
        host_alias_faults,
        (1, 4),
    ),
    Rule(
        "k8s.host-network-dns-policy",
        NAMESPACE,
        (layers.DNS,),
        host_network_dns_faults,
        (1, 4),
    ),
    Rule(
        "k8s.cluster-dns-upstream",
        NAMESPACE,
        (layers.DNS,),
        upstream_faults,
        (1, 4),
    ),
    Rule(
        "k8s.cluster-dns-slow",
        NAMESPACE,
        (layers.DNS,),
        slow_dns_faults,
        (1, 4),
    ),
    Rule(
        "k8s.autoscaler-at-max",
        NAMESPACE,
        (layers.PLATFORM,),
        autoscaling_faults,
        (1, 4),
    ),
    Rule(
        "k8s.autoscaler-target-out-of-range",
        NAMESPACE,
        (layers.APPLICATION,),
        unscalable_faults,
        (1, 4),
    ),
    Rule(
        "k8s.configmap-per-pod-shared-key",
        NAMESPACE,
        (layers.APPLICATION,),
        per_pod_key_faults,
        (1, 4),
    ),
    Rule(
        "k8s.autoscaler-flapping",
        NAMESPACE,
        (layers.PLATFORM,),
        flapping_faults,
        (1, 4),
    ),
    Rule(
        "k8s.dependency-loading",
        NAMESPACE,
        (layers.APPLICATION,),
        loading_faults,
        (1, 4),
    ),
    Rule("k8s.metrics-api", NAMESPACE, (layers.PLATFORM,), metrics_api_faults, (1, 4)),
    Rule("k8s.scaler-failed", NAMESPACE, (layers.PLATFORM,), failing_scalers, (1, 4)),
    Rule(
        "k8s.admission-webhook", NAMESPACE, (layers.PLATFORM,), webhook_faults, (1, 4)
    ),
    Rule(
        "k8s.admission-webhook-tls",
        NAMESPACE,
        (layers.TLS, layers.PLATFORM),
        webhook_tls_faults,
        (1, 4),
    ),
    Rule(
        "k8s.refusal-names-blocker",
        NAMESPACE,
        (layers.PLATFORM,),
        blocked_by_named,
        (1, 4),
    ),
    Rule("k8s.replica-failing", NAMESPACE, (layers.APPLICATION,), replica_faults),
    Rule(
        "k8s.noisy-neighbour", NAMESPACE, (layers.PLATFORM,), neighbour_faults, (1, 4)
    ),
    Rule(
        "k8s.noisy-neighbour-node-wide",
        NAMESPACE,
        (layers.PLATFORM,),
        hog_faults,
        (1, 4),
    ),
    Rule(
        "k8s.disruption-budget",
        NAMESPACE,
        (layers.PLATFORM,),
        disruption_faults,
        (1,),
    ),
    Rule(
        "k8s.control-plane",
        NAMESPACE,
        (layers.PLATFORM, layers.DNS),
        control_plane_faults,
        (1,),
    ),
    Rule(
        "k8s.namespace-terminating",
        NAMESPACE,
        (layers.PLATFORM,),
        namespace_faults,
        (1, 4),
    ),
    # How the findings relate (blame propagation).
    Rule("k8s.on-path", LINKS, (), place_on_path),
    Rule("k8s.node-victims", LINKS, (layers.PLATFORM,), node_victims, (4,)),
    Rule("k8s.caller-victims", LINKS, (), caller_victims, (4,)),
    Rule("k8s.cluster-dns-victims", LINKS, (layers.DNS,), dns_victims, (1, 4)),
    Rule("k8s.kube-proxy-victims", LINKS, (layers.PLATFORM,), proxy_victims, (1, 4)),
    Rule("k8s.explained-victims", LINKS, (), explained_victims, (4,)),
    Rule("k8s.stale", LINKS, (), is_stale, (2,)),
    Rule("k8s.declared-failure", LINKS, (), declare, (5,)),
    Rule("k8s.waiting-work", LINKS, (), waited_on, (4,)),
    Rule("k8s.named-by-failing-callers", LINKS, (), named_by_callers, (4,)),
    Rule("k8s.stopped-job-named", LINKS, (), stopped_work_named, (1, 4)),
    # The board, in the order it runs.
    Rule("board.kubernetes", BOARD, _ALL, kubernetes_findings),
    Rule(
        "board.tool-failures", BOARD, (layers.TOOL_BACKEND, layers.MCP), tool_failures
    ),
    Rule("board.application", BOARD, (layers.APPLICATION,), applications),
    Rule("board.backend-support", BOARD, (layers.TOOL_BACKEND,), backend_support),
    Rule("board.network", BOARD, (*layers.NETWORK_LAYERS, layers.MCP), network),
    Rule("board.network-delay", BOARD, (layers.CONNECT,), network_delay, (1,)),
    Rule("board.cut-bodies", BOARD, (layers.HTTP,), cut_bodies, (5,)),
    Rule("board.lb-draining", BOARD, (layers.HTTP,), lb_draining, (1, 4)),
    Rule("board.namespace-lines", BOARD, (layers.PLATFORM,), namespace_lines, (1, 4)),
    Rule(
        "board.logged-paths",
        BOARD,
        (layers.DNS, layers.CONNECT, layers.TLS),
        logged_paths,
        (1,),
    ),
    Rule("board.slow-lookups", BOARD, (layers.DNS,), slow_lookups, (1, 2)),
    Rule("board.warning-leads", BOARD, (layers.APPLICATION,), warning_leads, (2,)),
    Rule("board.rate-jumps", BOARD, (layers.APPLICATION,), rate_jumps, (2,)),
    Rule("board.metric-trends", BOARD, (layers.APPLICATION,), metric_trends, (2,)),
    Rule(
        "board.local-exhaustion", BOARD, (layers.APPLICATION,), local_exhaustion, (2,)
    ),
    Rule("board.token-clock", BOARD, (layers.APPLICATION,), token_clock, (4,)),
    Rule(
        "board.expired-credential",
        BOARD,
        (layers.APPLICATION,),
        expired_credentials,
        (1, 4),
    ),
    Rule("board.echoed-errors", BOARD, (layers.APPLICATION,), echoed_errors, (4,)),
    Rule("board.space-holders", BOARD, (layers.APPLICATION,), space_holders, (4,)),
    Rule("board.egress-proxy", BOARD, (layers.CONNECT,), egress_proxy, (1, 4)),
    Rule("board.address-conflict", BOARD, (layers.CONNECT,), address_conflict, (1, 4)),
    Rule("board.retry-storms", BOARD, (layers.APPLICATION,), retry_storms, (2, 4)),
    Rule("board.shared-capacity", BOARD, (layers.APPLICATION,), shared_capacity, (4,)),
    Rule(
        "board.depleted-resource",
        BOARD,
        (layers.APPLICATION,),
        depleted_resource,
        (1, 4),
    ),
    Rule("board.replica-lag", BOARD, (layers.APPLICATION,), replica_lag, (1, 4)),
    Rule("board.offset-reset", BOARD, (layers.APPLICATION,), offset_reset, (1, 4)),
    Rule("board.traffic-split", BOARD, (layers.APPLICATION,), traffic_split, (1, 4)),
    Rule(
        "board.http-symptoms",
        BOARD,
        (layers.APPLICATION, layers.HTTP),
        http_symptoms,
        (4,),
    ),
    Rule(
        "board.new-messages", BOARD, (layers.APPLICATION,), new_messages, (1, 2, 4, 5)
    ),
    Rule(
        "board.immediate-retries",
        BOARD,
        (layers.APPLICATION,),
        immediate_retries,
        (2, 4),
    ),
    Rule("board.fan-out", BOARD, (layers.APPLICATION,), fan_out, (2, 4)),
    Rule(
        "board.connection-ceiling",
        BOARD,
        (layers.APPLICATION,),
        connection_ceiling,
        (1, 4),
    ),
    Rule("board.policy-lookups", BOARD, (layers.DNS,), policy_lookups, (1, 4)),
    Rule(
        "board.statement-errors",
        BOARD,
        (layers.APPLICATION,),
        statement_errors,
        (4,),
    ),
    Rule("board.own-refusal", BOARD, (layers.APPLICATION,), refusals_quoted, (4, 5)),
    Rule(
        "board.stopped-consumer", BOARD, (layers.APPLICATION,), stopped_consumer, (3, 4)
    ),
    Rule("board.own-rate-limiter", BOARD, (layers.HTTP,), own_limiter, (1, 4)),
    Rule("board.proxy-queue", BOARD, (layers.HTTP,), proxy_queue, (1, 4)),
    Rule("board.slow-callee", BOARD, (layers.APPLICATION,), slow_callee, (5,)),
    Rule(
        "board.signed-lifetime",
        BOARD,
        (layers.APPLICATION,),
        signed_lifetime,
        (1, 4),
    ),
    Rule("board.stale-pool", BOARD, (layers.APPLICATION,), stale_pool, (5,)),
    Rule("board.lock-holders", BOARD, (layers.APPLICATION,), lock_holders, (1, 4)),
    Rule("board.lost-position", BOARD, (layers.APPLICATION,), lost_position, (1, 4)),
    Rule("board.shared-backend", BOARD, (layers.APPLICATION,), shared_backend, (4,)),
    Rule("board.dropping-policy", BOARD, (layers.APPLICATION,), dropping_policy, (4,)),
    Rule("board.expiry-wave", BOARD, (layers.APPLICATION,), expiry_wave, (4,)),
    Rule(
        "board.missing-destination",
        BOARD,
        (layers.APPLICATION,),
        missing_destination,
        (4,),
    ),
    Rule("board.quiet-backend", BOARD, (layers.APPLICATION,), quiet_backend, (1, 4)),
    Rule(
        "board.upstream-producer",
        BOARD,
        (layers.APPLICATION,),
        upstream_producer,
        (1, 4),
    ),
    Rule("board.logged-delay", BOARD, (layers.CONNECT,), logged_delay, (1,)),
    Rule("board.injected-delay", BOARD, (layers.CONNECT,), injected_delay, (1, 4)),
    Rule("board.link-saturated", BOARD, (layers.CONNECT,), link_saturated, (1, 4)),
    Rule("board.path-element-down", BOARD, (layers.CONNECT,), path_elements, (1, 4)),
    Rule(
        "board.egress-over-allowance",
        BOARD,
        (layers.CONNECT,),
        egress_allowance,
        (1, 4),
    ),
    Rule("board.shared-rate-limit", BOARD, (layers.HTTP,), shared_limits, (1, 4)),
    Rule("board.storage-quota", BOARD, (layers.PLATFORM,), storage_quota, (1, 4)),
    Rule("board.denied-access", BOARD, (layers.HTTP,), denied_access, (1, 4)),
    Rule("board.account-paused", BOARD, (layers.HTTP,), account_paused, (1, 4)),
    Rule(
        "board.stalled-producer", BOARD, (layers.APPLICATION,), stalled_output, (2, 4)
    ),
    Rule("board.rerouted-path", BOARD, (layers.CONNECT,), rerouted_path, (1, 4)),
    Rule("board.route-backend", BOARD, (layers.HTTP,), route_backend, (1, 4)),
    Rule("board.changes", BOARD, _ALL, changes, (4,)),
    Rule("board.refused-load", BOARD, (layers.HTTP,), refused_load, (4,)),
    Rule("board.shadowing-zone", BOARD, (layers.DNS,), shadowing_zone, (1, 4)),
    Rule("board.deleted-record", BOARD, (layers.DNS,), deleted_records, (1, 4)),
    Rule("board.pushed-deletion", BOARD, (layers.DNS,), pushed_deletions, (4,)),
    Rule("board.repointed-record", BOARD, (layers.DNS,), repointed_records, (1, 4)),
    Rule("board.negative-cache", BOARD, (layers.DNS,), negative_cache, (1, 4)),
    Rule("board.dnssec-mismatch", BOARD, (layers.DNS,), dnssec_mismatch, (1, 4)),
    Rule("board.zero-weight", BOARD, (layers.DNS,), zero_weight, (1, 4)),
    Rule("board.loopback-bind", BOARD, (layers.CONNECT,), listens_on_loopback, (1, 6)),
    Rule("board.cannot-start", BOARD, (layers.CONNECT,), cannot_start, (1, 4, 6)),
    Rule(
        "board.search-domain-capture",
        BOARD,
        (layers.DNS,),
        search_domain_capture,
        (1, 4),
    ),
    Rule(
        "board.quiet-changes",
        BOARD,
        (layers.APPLICATION, layers.CONNECT, layers.HTTP),
        quiet_changes,
        (1, 4),
    ),
    Rule("board.lowered-limit", BOARD, (layers.APPLICATION,), lowered_limit, (1, 4)),
    Rule("board.edge-filters", BOARD, (layers.HTTP,), edge_filters, (1, 4)),
    Rule(
        "board.emptied-pool",
        BOARD,
        (layers.CONNECT, layers.HTTP),
        emptied_pools,
        (1, 4),
    ),
    Rule(
        "board.refusing-front",
        BOARD,
        (layers.APPLICATION,),
        refusing_front,
        (1, 4, 6),
    ),
    Rule("board.dropped-credential", BOARD, (layers.HTTP,), dropped_credential, (1, 4)),
    Rule(
        "board.backend-ceiling",
        BOARD,
        (layers.APPLICATION,),
        backend_ceiling,
        (1, 4, 6),
    ),
    Rule("board.cors", BOARD, (layers.HTTP,), cors, (1, 4)),
    Rule("board.mesh-mtls", BOARD, (layers.TLS,), mesh_mtls, (1, 4)),
    Rule("board.mesh-subset", BOARD, (layers.CONNECT,), mesh_subsets, (1, 4)),
    Rule(
        "board.own-certificate-refused",
        BOARD,
        (layers.TLS,),
        refused_own_certificate,
        (1, 4),
    ),
    Rule(
        "board.issuer-failed-at-start",
        BOARD,
        (layers.TLS,),
        issuer_failed_at_start,
        (1, 4),
    ),
    Rule(
        "board.trust-store-lacks-root",
        BOARD,
        (layers.TLS,),
        trust_store_lacks_root,
        (1, 4),
    ),
    Rule("board.issuer-refused", BOARD, (layers.TLS,), issuer_refused, (1, 4)),
    Rule(
        "board.unit-executable-missing",
        BOARD,
        (layers.APPLICATION,),
        missing_unit_executable,
        (1, 4, 6),
    ),
    Rule(
        "board.pool-limit-reached",
        BOARD,
        (layers.APPLICATION,),
        pool_limit_reached,
        (2, 4, 6),
    ),
    Rule("board.runtime-choice", BOARD, (layers.APPLICATION,), runtime_choice, (2, 4)),
    Rule(
        "board.cache-hits-collapsed",
        BOARD,
        (layers.APPLICATION,),
        cache_hits_collapsed,
        (1, 2, 4),
    ),
    Rule("board.lookup-victims", BOARD, (layers.DNS,), lookup_victims, (4,)),
    Rule("board.unresolved-name", BOARD, (layers.DNS,), unresolved_names, (4,)),
    Rule("board.role-selector", BOARD, (layers.CONNECT,), role_selectors, (1, 4)),
    Rule(
        "board.stale-secret",
        BOARD,
        (layers.CONNECT, layers.DNS, layers.APPLICATION),
        stale_secret,
        (1, 4),
    ),
    Rule("board.workload-victims", BOARD, (), workload_victims, (4,)),
    Rule("board.healthy-services", BOARD, (layers.APPLICATION,), healthy_services),
    Rule(
        "board.backend-relevance",
        BOARD,
        (layers.TOOL_BACKEND,),
        backend_relevance,
        (5,),
    ),
    Rule("board.clock-skew", BOARD, (layers.PLATFORM,), clock_skew, (4,)),
    Rule("board.account-quota", BOARD, (layers.PLATFORM,), account_quota, (1, 4)),
    Rule("board.host-exhaustion", BOARD, (layers.PLATFORM,), host_exhaustion, (1, 4)),
    Rule("board.noexec-mount", BOARD, (layers.PLATFORM,), noexec_mount, (1, 4, 6)),
    Rule("board.unsynced-clock", BOARD, (layers.PLATFORM,), unsynced_clock, (1, 4)),
    Rule("board.cpu-steal", BOARD, (layers.PLATFORM,), cpu_steal, (1, 4)),
    Rule(
        "board.descriptor-limit", BOARD, (layers.PLATFORM,), descriptor_limit, (1, 4, 6)
    ),
    Rule("board.nat-ports", BOARD, (layers.CONNECT,), nat_ports, (1, 4)),
    Rule("board.cache-ceiling", BOARD, (layers.APPLICATION,), cache_ceiling, (1, 4)),
    Rule("board.full-volume", BOARD, (layers.PLATFORM,), full_volumes, (4,)),
    Rule("board.flag-quota", BOARD, (layers.APPLICATION,), flag_quota, (1, 4)),
    Rule("board.runtime-limits", BOARD, (layers.PLATFORM,), runtime_limits, (4,)),
    Rule(
        "board.node-pool-change",
        BOARD,
        (layers.PLATFORM,),
        node_pool_changes,
        (4,),
    ),
    Rule("board.log-sources", BOARD, (layers.APPLICATION,), log_sources, (4,)),
    Rule("board.service-hosts", BOARD, (layers.CONNECT,), service_hosts, (5,)),
    Rule(
        "board.controller-actions",
        BOARD,
        (layers.PLATFORM,),
        controller_actions,
        (1, 4),
    ),
    Rule(
        "board.controller-objects",
        BOARD,
        (layers.CONNECT, layers.TLS, layers.PLATFORM),
        controller_objects,
        (4,),
    ),
    Rule("board.excluded", BOARD, _ALL, excluded),
    Rule("board.resource-names", BOARD, (), resource_names, (3,)),
    Rule("board.workload-change-record", BOARD, (), workload_changes, (6,)),
    Rule(
        "board.fault-class-lines",
        BOARD,
        (layers.APPLICATION,),
        fault_class_lines,
        (6,),
    ),
    Rule(
        "board.cited-lines",
        BOARD,
        (layers.APPLICATION, layers.DNS, layers.TLS),
        cite_specific,
        (6,),
    ),
    Rule(
        "board.reasoned-lead",
        BOARD,
        (layers.APPLICATION,),
        reasoned_leads,
        (4,),
    ),
    Rule(
        "board.strongest-line",
        BOARD,
        (layers.APPLICATION, layers.HTTP),
        strongest_lines,
        (1, 2),
    ),
    Rule("board.filter-lines", BOARD, (layers.CONNECT,), filter_lines, (6,)),
    Rule("board.fault-lines", BOARD, _ALL, cite_fault_lines, (6,)),
    Rule("board.kind-prefix", BOARD, _ALL, kind_prefix, (3,)),
    # Applied by `network` to each probe.
    Rule("probe.gateway-pass-through", PROBE, (layers.HTTP,), gateway, (4,)),
    Rule("probe.mcp-endpoint", PROBE, (layers.MCP,), mcp_endpoint),
    Rule("probe.corroborate", PROBE, layers.NETWORK_LAYERS, corroborate),
    Rule(
        "probe.certificate-expired",
        PROBE,
        (layers.TLS,),
        expired_while_traffic_fell,
        (1,),
    ),
)

BY_ID: Final = {rule.id: rule for rule in RULES}


def at_stage(stage: str) -> tuple[Rule, ...]:
    """The rules the engine applies at `stage`, in the order it applies them."""
    return tuple(rule for rule in RULES if rule.stage == stage)
