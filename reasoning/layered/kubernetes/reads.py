"""What to read next with kubectl: the lists of the namespaces, then the details worth a describe or logs.

Planning, from the incident's service and namespace: the namespaces; pods (wide, labels), every
other kind in one multi-kind read where the server takes a kind list (else their owners, services,
endpoints, claims and ingresses one by one), events and nodes;
then `describe` of what is unhealthy and the previous logs of what restarts; then what those logs
name (the services a pod calls, and the pods behind them). Each kind of detail has its reader
(`DETAILS`, in the order they are asked); the planner drops the calls already asked.
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import (
    affinity,
    blockers,
    csi_drivers,
    disruptions,
    dns_upstream,
    flapping,
    ingress_hosts,
    kernel,
    namespace_lifecycle,
    node_logs,
    traffic_policy,
)
from reasoning.layered.kubernetes.autoscaling import capped_autoscalers, saturated
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.disruptions import (
    blocked_evictions,
    exhausted_budgets,
)
from reasoning.layered.kubernetes.egress_policies import egress_policies
from reasoning.layered.kubernetes.faults import is_slow, window_seconds
from reasoning.layered.kubernetes.ingress_class import (
    undescribed_classes,
    wants_classes,
)
from reasoning.layered.kubernetes.ingress_paths import wants_routes
from reasoning.layered.kubernetes.ingress_tls import wants_secrets
from reasoning.layered.kubernetes.jobs import (
    FAILED_JOB,
    created_pods,
    prepared_workloads,
)
from reasoning.layered.kubernetes.kubectl import (
    Pod,
    init_containers,
    pod_containers,
    resource,
)
from reasoning.layered.kubernetes.metrics_api import (
    blind_autoscalers,
    failing_metrics_servers,
)
from reasoning.layered.kubernetes.namespaces import (
    chosen_namespaces,
    is_application,
    scanned_namespaces,
)
from reasoning.layered.kubernetes.neighbours import hogs, neighbours
from reasoning.layered.kubernetes.nodes import (
    CONTROL_PLANE,
    condition_nodes,
    needs_control_plane,
)
from reasoning.layered.kubernetes.object_settings import setting_reads
from reasoning.layered.kubernetes.path import Path, incident_path
from reasoning.layered.kubernetes.performance import SLOW, throttling_query
from reasoning.layered.kubernetes.permissions import denials
from reasoning.layered.kubernetes.policies import (
    dns_policies,
    selecting_policies,
    unreached_services,
)
from reasoning.layered.kubernetes.preemption import preemptors
from reasoning.layered.kubernetes.replicas import failing_lines
from reasoning.layered.kubernetes.resizing import resized, wants_autoscalers
from reasoning.layered.kubernetes.routing import failure_text
from reasoning.layered.kubernetes.spec_references import outside_failures
from reasoning.layered.kubernetes.stages.admission import QUOTA
from reasoning.layered.kubernetes.stages.runtime import STATUSES as CRASHING
from reasoning.layered.kubernetes.volumes import blamed_claims
from reasoning.layered.kubernetes.webhooks import backend_workloads, webhook_refusals
from reasoning.layered.reading import as_dict, incident_text
from reasoning.observations import Investigation, PlannedCall, only_tool
from reasoning.tools import (
    DESCRIBE,
    EVENTS,
    GET_RESOURCES,
    GET_YAML,
    POD_LOGS,
    QUERY_METRIC,
)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]
Calls = list[PlannedCall | None]
# The lists an engineer reads for a namespace, in that order (as `capture` records them).
LISTS: tuple[tuple[str, bool], ...] = (
    ("deployments", True),
    ("replicasets", True),
    ("statefulsets", True),
    ("services", True),
    ("endpoints", False),
    ("persistentvolumeclaims", False),
    ("ingresses", False),
)
# Kinds whose settings, not their pods, stop or throttle work (object_settings, jobs).
SETTING_KINDS: tuple[str, ...] = ("cronjobs", "jobs")
# Every namespaced kind of the kubernetes server's table but pods (read on their own, with labels),
# events (their own tool) and secrets (listed alone, only for an ingress's TLS; often not
# readable): listed in one multi-kind `kubectl get … -o wide` where the server takes a kind list
# (issue 21: survey every kind).
SURVEY_KINDS: tuple[str, ...] = (
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "cronjobs",
    "services",
    "endpoints",
    "endpointslices",
    "ingresses",
    "networkpolicies",
    "horizontalpodautoscalers",
    "poddisruptionbudgets",
    "persistentvolumeclaims",
    "configmaps",
    "resourcequotas",
    "limitranges",
    "serviceaccounts",
)


def plan(
    inv: Investigation, facts: Facts, call: Call, *, max_details: int = 10
) -> Calls:
    """The kubectl reads worth asking now (the planner drops the ones already asked)."""
    cluster = Cluster.read(inv.observations)
    calls: Calls = [
        call(
            GET_RESOURCES,
            {"kind": "namespaces", "namespace": "default"},
            "which namespaces the cluster has",
        ),
        *cluster_reads(cluster, call),
    ]
    scanned = scanned_namespaces(inv, cluster)
    anywhere = any(cluster.has_list("pods", ns) for ns in scanned)
    for ns in scanned:
        calls.append(_pods_call(cluster, ns, call, labels_only=anywhere))
    for ns in chosen_namespaces(inv, cluster):
        calls += _namespace_lists(inv, cluster, ns, call)
        calls += _details(inv, facts, cluster, ns, call)[:max_details]
        calls += _explaining_objects(inv, facts, cluster, ns, call)
        calls += _pod_specs(inv, facts, cluster, ns, call)
        calls += kernel.searches(
            inv, call, [*condition_nodes(cluster, ns)], kernel.unplaced(facts)
        )
        calls += node_logs.searches(inv, call, node_logs.not_ready_nodes(cluster, ns))
        calls += disruptions.searches(inv, call, cluster, ns)
        calls += flapping.reads(cluster, ns, call)
        calls += affinity.reads(cluster, ns, call, inv, facts)
        calls += csi_drivers.reads(cluster, ns, call)
        failing = failure_text(inv, facts, cluster, ns)
        calls += traffic_policy.reads(cluster, ns, failing, call)
        calls += dns_upstream.reads(cluster, ns, failing, call)
        calls += _hogs(inv, facts, cluster, ns, call)
        calls += _changed_workloads(inv, facts, cluster, ns, call)
        calls += ingress_hosts.reads(inv, cluster, ns, call)
        if _slow(inv, cluster, ns):
            calls.append(
                call(
                    QUERY_METRIC,
                    {
                        "promql": throttling_query(ns),
                        "start": "now-1h",
                        "end": "now",
                        "step": "60s",
                    },
                    f"slow answers or probe timeouts in {ns}: are its containers CPU-throttled",
                )
            )
    return calls


# Never read by the survey: nothing runs there.
_EMPTY_NAMESPACES = frozenset({"kube-public", "kube-node-lease"})


def survey(
    inv: Investigation,
    facts: Facts,
    call: Call,
    *,
    max_details: int = 6,
    max_quiet: int = 2,
) -> Calls:
    """Nothing read so far explains the incident: the pods of every namespace (the system's
    too: CoredNS and kube-proxy live there), then the lists and details of each namespace whose
    pods are unhealthy, and what fails around the healthy pods of (at most `max_quiet`)
    application namespaces: ingresses and their TLS secrets, network policies (issue 21: survey
    everything, not only where the named service runs)."""
    cluster = Cluster.read(inv.observations)
    if cluster.namespaces is None:
        return []
    listed = [n for n in cluster.namespaces if n not in _EMPTY_NAMESPACES]
    calls: Calls = [
        _pods_call(cluster, ns, call, labels_only=True)
        for ns in listed
        if not _pods_listed(cluster, ns)
    ]
    quiet = 0
    for ns in listed:
        pods = cluster.pods(ns)
        if any(not p.is_healthy for p in pods):
            calls += _namespace_lists(inv, cluster, ns, call)
            calls += _details(inv, facts, cluster, ns, call)[:max_details]
            calls += _explaining_objects(inv, facts, cluster, ns, call)
        elif pods and is_application(ns) and quiet < max_quiet:
            quiet += 1
            calls += _quiet_objects(inv, cluster, ns, call)
    return calls


def _quiet_objects(inv: Investigation, cluster: Cluster, ns: str, call: Call) -> Calls:
    """An application namespace whose pods all run ready: what fails around healthy pods (its
    ingresses and network policies; in one read of every kind where the server takes a kind
    list), the ingresses that terminate TLS described, and then their secrets."""
    calls: Calls = []
    if takes_kind_list(inv):
        if not _surveyed(inv, ns):
            calls.append(
                call(
                    GET_RESOURCES,
                    {"kinds": list(SURVEY_KINDS), "namespace": ns, "wide": True},
                    f"every pod of {ns} runs ready: every kind of it in one read (ingresses, "
                    "policies … fail around healthy pods)",
                )
            )
    else:
        calls += [
            call(
                GET_RESOURCES,
                {"kind": kind, "namespace": ns},
                f"every pod of {ns} runs ready: its {kind}",
            )
            for kind in ("ingresses", "networkpolicies")
            if cluster.wants_list(kind, ns, wide=False)
        ]
    ingresses = cluster.table("ingresses", ns)
    calls += [
        call(
            DESCRIBE,
            {"kind": "ingress", "name": row["NAME"], "namespace": ns},
            f"ingress {row['NAME']} terminates TLS: with which secret, for which hosts",
        )
        for row in (ingresses.rows if ingresses else ())
        if row.get("NAME") and "443" in row.get("PORTS", "")
    ][:2]
    return [
        *calls,
        *_tls_secrets(cluster, ns, call),
        *_ingress_classes(cluster, ns, call),
    ]


def _resizing_autoscalers(cluster: Cluster, ns: str, call: Call) -> Calls:
    """The VerticalPodAutoscalers, once a pod of `ns` was resized or evicted by one, and the one
    its annotation names described (its mode, its recommendation)."""
    calls: Calls = []
    if wants_autoscalers(cluster, ns):
        calls.append(
            _list(
                cluster,
                "verticalpodautoscalers",
                ns,
                call,
                "a vertical autoscaler resized its pods: in which mode, to what",
            )
        )
    named = {r.autoscaler for r in resized(cluster, ns).values() if r.autoscaler}
    listed = set(cluster.names("verticalpodautoscalers", ns))
    calls += [
        call(
            DESCRIBE,
            {"kind": "verticalpodautoscaler", "name": name, "namespace": ns},
            f"vertical autoscaler {name} rewrote its pods' resources: its mode and recommendation",
        )
        for name in sorted(named & listed)[:2]
    ]
    return calls


def _ingress_classes(cluster: Cluster, ns: str, call: Call) -> Calls:
    """The cluster's IngressClasses, once an ingress of `ns` names a class; described (at most
    three) when an ingress names none and has no address: is one of them the default."""
    if wants_classes(cluster, ns):
        return [
            call(
                GET_RESOURCES,
                {"kind": "ingressclasses", "namespace": ns},
                f"an ingress of {ns} names an ingress class: does that class exist",
            )
        ]
    return [
        call(
            DESCRIBE,
            {"kind": "ingressclass", "name": name, "namespace": ns},
            f"an ingress of {ns} names no class and has no address: is {name} the default",
        )
        for name in undescribed_classes(cluster, ns)[:3]
    ]


def _tls_secrets(cluster: Cluster, ns: str, call: Call) -> Calls:
    """The namespace's secrets, once a described ingress terminates TLS with one."""
    if not wants_secrets(cluster, ns):
        return []
    return [
        call(
            GET_RESOURCES,
            {"kind": "secrets", "namespace": ns},
            f"an ingress of {ns} terminates TLS: does the namespace hold its secret",
        )
    ]


def cluster_reads(cluster: Cluster, call: Call) -> Calls:
    """From round one, beside the namespace's reads: the nodes, each namespace stuck Terminating
    described, then the system namespace's pods,
    then why each of its unhealthy platform pods (DNS, proxy, scheduler …) fails and what owns it,
    so that a fault under every application is seen before the round limit."""
    calls: Calls = (
        [] if cluster.has_list("nodes", "") else [_nodes_call("default", call)]
    )
    calls += namespace_lifecycle.reads(cluster, call)
    if "kube-system" not in (cluster.namespaces or []):
        return calls
    if not _pods_listed(cluster, "kube-system"):
        return [*calls, _pods_call(cluster, "kube-system", call, labels_only=True)]
    failing = [
        p
        for p in cluster.pods("kube-system")
        if CONTROL_PLANE.match(p.name) and not p.is_healthy
    ]
    if any(
        cluster.owner("kube-system", "pod", p.name).startswith("pod/") for p in failing
    ):
        # A daemon set's pod (`<name>-<5>`) is not told from its name alone.
        calls.append(
            call(
                GET_RESOURCES,
                {"kind": "daemonsets", "namespace": "kube-system", "wide": True},
                "the daemon sets of kube-system: what owns its failing pods",
            )
        )
    seen: set[str] = set()
    for pod in failing:
        owner = cluster.owner("kube-system", "pod", pod.name)
        if owner not in seen:
            seen.add(owner)
            calls += _unhealthy_pod(cluster, pod, "kube-system", call)
    return calls


def _pods_listed(cluster: Cluster, ns: str) -> bool:
    return cluster.has_list("pods", ns) or ("pods", ns, True) in cluster.missing


def _namespace_lists(
    inv: Investigation, cluster: Cluster, ns: str, call: Call
) -> Calls:
    """The namespace's lists (every kind in one read where the server takes a kind list, then one
    by one what that read could not answer), its events and the nodes (unless listed already)."""
    calls: Calls = []
    if takes_kind_list(inv) and not _surveyed(inv, ns):
        calls.append(
            call(
                GET_RESOURCES,
                {"kinds": list(SURVEY_KINDS), "namespace": ns, "wide": True},
                f"every kind of namespace {ns} in one read (workloads, services, "
                "endpoints, ingresses, policies, autoscalers, budgets, jobs, claims …)",
            )
        )
    else:
        calls += [
            call(
                GET_RESOURCES,
                {"kind": kind, "namespace": ns, **({"wide": True} if wide else {})},
                f"the {kind} of namespace {ns}",
            )
            for kind, wide in LISTS
            if cluster.wants_list(kind, ns, wide=wide)
        ]
    plain = [
        kind
        for kind in SETTING_KINDS
        if cluster.is_unanswered(kind, ns, wide=True)
        and cluster.wants_list(kind, ns, wide=False)
    ]
    if plain and _surveyed(inv, ns):
        # The survey's wide read could not answer a kind whose settings stop work (a snapshot
        # captured it plain): list those again plain, in one read.
        calls.append(
            call(
                GET_RESOURCES,
                {"kinds": plain, "namespace": ns},
                f"the {', '.join(plain)} of namespace {ns}, which the survey could not "
                "list wide",
            )
        )
    calls.append(
        call(
            EVENTS,
            {"namespace": ns},
            f"the events of namespace {ns} (reasons such as FailedScheduling, BackOff)",
        )
    )
    if not cluster.has_list("nodes", ns):
        calls.append(_nodes_call(ns, call))
    return calls


def takes_kind_list(inv: Investigation) -> bool:
    """The kubernetes server's get_resources takes several kinds in one call (`kinds`)."""
    tool = only_tool(inv, GET_RESOURCES)
    return tool is not None and "kinds" in as_dict(tool.input_schema.get("properties"))


def _surveyed(inv: Investigation, ns: str) -> bool:
    """The multi-kind read of `ns` was asked (answered or not: a failed one falls back to lists)."""
    return any(
        o.tool == GET_RESOURCES
        and o.arguments.get("namespace") == ns
        and isinstance(o.arguments.get("kinds"), list)
        for o in inv.observations
    )


def _nodes_call(ns: str, call: Call) -> PlannedCall | None:
    return call(
        GET_RESOURCES,
        {"kind": "nodes", "namespace": ns, "wide": True},
        "the nodes and their readiness",
    )


def _slow(inv: Investigation, cluster: Cluster, ns: str) -> bool:
    """The incident says slow, or a probe failed on a timeout."""
    return bool(SLOW.search(incident_text(inv))) or any(
        SLOW.search(e.message) for e in cluster.warnings(ns) if e.reason == "Unhealthy"
    )


def _pods_call(
    cluster: Cluster, ns: str, call: Call, *, labels_only: bool
) -> PlannedCall | None:
    # The capture records pods wide with labels; a snapshot without labels answers wide only
    # (asked only while no namespace answered with labels).
    with_labels = labels_only or ("pods", ns, True) not in cluster.missing
    return call(
        GET_RESOURCES,
        {
            "kind": "pods",
            "namespace": ns,
            "wide": True,
            **({"show_labels": True} if with_labels else {}),
        },
        f"the pods of namespace {ns}: status, restarts, node"
        + (", labels" if with_labels else ""),
    )


def _details(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, call: Call
) -> Calls:
    """Describes and logs, the incident's path first."""
    if not cluster.has_list("pods", ns):
        return []
    path = incident_path(inv, facts, cluster, ns)
    calls: Calls = []
    for detail in DETAILS:
        calls += detail(cluster, ns, path, call)
    return calls


def _explaining_objects(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, call: Call
) -> Calls:
    """The objects that can explain what the path shows, read only when it shows it: network
    policies when a caller cannot connect to a service whose pods are all ready (or when the pods
    they select fail name lookups), the secrets when an ingress terminates TLS, autoscalers when a
    workload is saturated, disruption budgets when an eviction is refused, jobs and cron jobs when
    a job's pods fail."""
    if not cluster.has_list("pods", ns):
        return []
    path = incident_path(inv, facts, cluster, ns)
    calls: Calls = []
    unreached = unreached_services(cluster, ns, path)
    if unreached:
        calls.append(
            _list(
                cluster,
                "networkpolicies",
                ns,
                call,
                f"can {unreached[0]}'s callers reach it",
            )
        )
        for service in unreached:
            calls += [
                call(
                    DESCRIBE,
                    {"kind": "networkpolicy", "name": name, "namespace": ns},
                    f"which callers policy {name} admits to {service}'s pods",
                )
                for name in selecting_policies(cluster, ns, service)[:2]
            ]
    calls += blockers.reads(cluster, ns, call)
    calls += _tls_secrets(cluster, ns, call)
    calls += _ingress_classes(cluster, ns, call)
    calls += [
        call(
            GET_YAML,
            {"kind": "ingress", "name": name, "namespace": ns},
            f"requests under a path of ingress {name} reach another rule's backend and fail "
            "there: how its rules match (pathType)",
        )
        for name in wants_routes(
            cluster, facts, ns, failure_text(inv, facts, cluster, ns)
        )[:2]
    ]
    calls += _resizing_autoscalers(cluster, ns, call)
    calls += [
        call(
            DESCRIBE,
            {"kind": "networkpolicy", "name": name, "namespace": ns},
            f"pods policy {name} selects fail to resolve names: does it let DNS out",
        )
        for name in dns_policies(cluster, ns)[:2]
    ]
    calls += [
        call(
            DESCRIBE,
            {"kind": "networkpolicy", "name": name, "namespace": ns},
            f"pods policy {name} selects fail to connect out: which addresses it lets them reach",
        )
        for name in egress_policies(cluster, ns)[:2]
    ]
    if saturated(cluster, ns, path):
        calls.append(
            _list(cluster, "horizontalpodautoscalers", ns, call, "may it scale out")
        )
        calls += [
            call(
                DESCRIBE,
                {"kind": "horizontalpodautoscaler", "name": name, "namespace": ns},
                f"autoscaler {name} is at its maximum while its target is saturated",
            )
            for name in capped_autoscalers(cluster, ns, path)[:2]
        ]
    blocked = blocked_evictions(cluster, ns)
    if blocked:
        calls.append(
            _list(
                cluster,
                "poddisruptionbudgets",
                ns,
                call,
                f"which budget refuses the eviction of {blocked[0].name}",
            )
        )
        calls += [
            call(
                DESCRIBE,
                {"kind": "poddisruptionbudget", "name": name, "namespace": ns},
                f"budget {name} allows no disruption: what it selects and counts",
            )
            for name in exhausted_budgets(cluster, ns)[:2]
        ]
    calls += _webhook_backends(cluster, ns, call)
    calls += _metrics_servers(cluster, ns, call)
    calls += failed_job_logs(cluster, ns, call)
    calls += setting_reads(cluster, ns, call)
    failing_jobs = {
        owner
        for pod in cluster.pods(ns)
        if not pod.is_healthy
        and (owner := cluster.owner(ns, "pod", pod.name)).startswith(
            ("job/", "cronjob/")
        )
    }
    if failing_jobs:
        calls.append(
            _list(cluster, "cronjobs", ns, call, "which cron jobs own the failing jobs")
        )
        calls.append(_list(cluster, "jobs", ns, call, "which jobs failed"))
        calls += [
            call(
                DESCRIBE,
                {"kind": "job", "name": event.name, "namespace": ns},
                f"why job {event.name} failed ({event.reason})",
            )
            for event in cluster.warnings(ns)
            if event.kind == "job" and event.reason == "BackoffLimitExceeded"
        ][:1]
    return calls


def _changed_workloads(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, call: Call
) -> Calls:
    """A change inside the incident's window is a suspect even when its pods look healthy: the logs
    of one running pod of each workload (off the path's first) whose pods all started within the
    window, newest first, two at most; then, when the logs read show the API server refusing a
    ServiceAccount, the RoleBindings that should grant it."""
    if not cluster.has_list("pods", ns):
        return []
    window = window_seconds(inv)
    path = incident_path(inv, facts, cluster, ns)
    read = set(path.workloads[:4])
    newest: dict[str, Pod] = {}
    ages: dict[str, list[float | None]] = {}
    for pod in cluster.pods(ns):
        owner = cluster.owner(ns, "pod", pod.name)
        ages.setdefault(owner, []).append(pod.age_s)
        if pod.is_healthy and pod.status == "Running":
            current = newest.get(owner)
            if current is None or (pod.age_s or 0.0) < (current.age_s or 0.0):
                newest[owner] = pod
    changed = [
        pod
        for owner, pod in newest.items()
        if window is not None
        and owner not in read
        and not owner.startswith(("job/", "cronjob/", "pod/"))
        and all(age is not None and age <= window for age in ages[owner])
    ]
    changed.sort(key=lambda p: p.age_s or 0.0)
    calls: Calls = [
        call(
            POD_LOGS,
            {"pod": pod.name, "namespace": ns, "tail": 200},
            f"{cluster.owner(ns, 'pod', pod.name)} was rolled out within the incident's window: "
            f"what {pod.name} logs",
        )
        for pod in changed[:2]
    ]
    if denials(cluster, ns):
        calls.append(
            call(
                GET_RESOURCES,
                {"kind": "rolebindings", "namespace": ns, "wide": True},
                "the API server refuses a ServiceAccount: which RoleBindings grant what, to whom",
            )
            if cluster.wants_list("rolebindings", ns, wide=True)
            else None
        )
    return calls


def _hogs(
    inv: Investigation, facts: Facts, cluster: Cluster, ns: str, call: Call
) -> Calls:
    """The path is slow: a pod of another namespace (or a job's) started just before on its nodes,
    its QoS and limits described (its node's, when the pod's describe is not there) and its logs
    read (`neighbours.hogs`)."""
    path = incident_path(inv, facts, cluster, ns)
    if not is_slow(inv, cluster, ns, path):
        return []
    calls: Calls = []
    for pod in hogs(cluster, ns, path.workloads[:4], window_seconds(inv)):
        calls += [
            call(
                DESCRIBE,
                {"kind": "pod", "name": pod.name, "namespace": pod.namespace},
                f"{pod.name} started on {pod.node} just before {ns}'s pods there slowed "
                "down: its CPU limits",
            ),
            call(
                POD_LOGS,
                {"pod": pod.name, "namespace": pod.namespace, "tail": 200},
                f"what {pod.name}, started beside the slow pods, logs",
            ),
        ]
        if (
            pod.node
            and cluster.describe("pods", pod.namespace, pod.name) is None
            and cluster.describe("nodes", ns, pod.node) is None
        ):
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "node", "name": pod.node, "namespace": ns},
                    f"node {pod.node}: the CPU requests and limits of {pod.name} beside "
                    "the slow pods",
                )
            )
    return calls


def _webhook_backends(cluster: Cluster, ns: str, call: Call) -> Calls:
    """A webhook that could not be called refuses pods here: its Service's namespace (the
    services, endpoints and deployments behind it) and why its back end's pods fail."""
    calls: Calls = []
    for event, hook in webhook_refusals(cluster, ns)[:1]:
        space = hook.namespace or ns
        why = f"webhook {hook.webhook} refuses {event.name}'s pods: what backs {hook.service}"
        if space != ns:
            calls.append(_pods_call(cluster, space, call, labels_only=True))
            calls += [
                call(
                    GET_RESOURCES,
                    {
                        "kind": kind,
                        "namespace": space,
                        **({"wide": True} if wide else {}),
                    },
                    why,
                )
                for kind, wide in (
                    ("services", True),
                    ("endpoints", False),
                    ("deployments", True),
                )
            ]
        seen: set[str] = set()
        for workload in backend_workloads(cluster, hook, ns):
            for pod in cluster.pods_of(space, workload):
                if not pod.is_healthy and workload not in seen:
                    seen.add(workload)
                    calls += _unhealthy_pod(cluster, pod, space, call)
    return calls


def _metrics_servers(cluster: Cluster, ns: str, call: Call) -> Calls:
    """An autoscaler cannot read its metrics: the autoscalers, the blind one's conditions, and
    why the metrics server's pods fail."""
    blind = list(blind_autoscalers(cluster, ns))
    if not blind:
        return []
    calls: Calls = [
        _list(cluster, "horizontalpodautoscalers", ns, call, f"what {blind[0]} scales"),
        call(
            DESCRIBE,
            {"kind": "horizontalpodautoscaler", "name": blind[0], "namespace": ns},
            f"autoscaler {blind[0]} cannot read its metrics: its conditions",
        ),
    ]
    for pod in failing_metrics_servers(cluster)[:1]:
        calls += _unhealthy_pod(cluster, pod, pod.namespace, call)
    return calls


def failed_job_logs(cluster: Cluster, ns: str, call: Call, most: int = 2) -> Calls:
    """A job that failed as a whole (at most `most`): the logs of its newest pod when the pods'
    list no longer shows it (the job's events name it), and of a running pod of each workload it
    prepares (a schema migration's app logs what the migration left missing)."""
    failed = [
        e.name
        for e in cluster.warnings(ns)
        if e.kind == "job" and e.reason in FAILED_JOB
    ]
    jobs = cluster.table("jobs", ns)
    failed += [
        r["NAME"]
        for r in (jobs.rows if jobs else ())
        if r.get("NAME") and r.get("STATUS") == "Failed"
    ]
    calls: Calls = []
    for job in list(dict.fromkeys(failed))[:most]:
        listed = any(p.name.startswith(f"{job}-") for p in cluster.pods(ns))
        calls += [
            call(
                POD_LOGS,
                {"pod": pod, "namespace": ns, "tail": 200},
                f"what {pod} logged before job {job} failed",
            )
            for pod in ([] if listed else created_pods(cluster, ns, job)[-1:])
        ]
        for workload in prepared_workloads(cluster, ns, job)[:1]:
            running = [
                p for p in cluster.pods_of(ns, workload) if p.status == "Running"
            ]
            calls += [
                call(
                    POD_LOGS,
                    {"pod": pod.name, "namespace": ns, "tail": 200},
                    f"what {pod.name} ({workload}, which job {job} prepares) logs",
                )
                for pod in running[:1]
            ]
    return calls


def _pod_specs(
    inv: Investigation,
    facts: Facts,
    cluster: Cluster,
    ns: str,
    call: Call,
    most: int = 2,
) -> Calls:
    """The pod spec (`-o yaml`) of each workload whose own logs show lookups or connections to a
    host outside the namespace failing: where its spec sends that traffic (its resolvers, the
    addresses it pins host names to) decides whether the host or the spec is at fault. The path's
    workloads first, `most` in all."""
    if not cluster.has_list("pods", ns):
        return []
    path = incident_path(inv, facts, cluster, ns)
    order = {w: i for i, w in enumerate(path.workloads)}
    egress = [
        w
        for w in cluster.workloads(ns)
        if w.startswith(("deployment/", "statefulset/", "daemonset/"))
        and outside_failures(facts, cluster, ns, w)
    ]
    egress.sort(key=lambda w: order.get(w, len(order)))
    calls: Calls = []
    for w in egress[:most]:
        kind, _, name = w.partition("/")
        arguments = {"kind": kind, "name": name, "namespace": ns}
        target = outside_failures(facts, cluster, ns, w)[0]
        unanswered = (resource(kind), ns, name) not in cluster.yamls and any(
            o.tool == GET_YAML and o.arguments == arguments for o in inv.observations
        )
        if unanswered:
            # No YAML to read: describe prints the pod template's network and DNS policy too.
            calls.append(
                call(
                    DESCRIBE,
                    arguments,
                    f"{w} fails to reach {target} and its YAML could not be read: its pod "
                    "template's network and DNS policy",
                )
            )
        else:
            calls.append(
                call(
                    GET_YAML,
                    arguments,
                    f"{w} fails to reach {target}: where its pod spec sends that traffic "
                    "(dnsConfig, hostAliases, hostNetwork)",
                )
            )
    return calls


def _list(
    cluster: Cluster, kind: str, ns: str, call: Call, why: str
) -> PlannedCall | None:
    """A one-kind list, unless the namespace's multi-kind read answered it (or could not)."""
    if not cluster.wants_list(kind, ns, wide=False):
        return None
    return call(
        GET_RESOURCES, {"kind": kind, "namespace": ns}, f"the {kind} of {ns}: {why}"
    )


# --- the details, each a reader over the namespace ---------------------------------------------


def _pods(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """One unhealthy pod per workload (the path's first; not one being deleted when another is
    unhealthy; of a job's, the newest): describe, previous
    logs, logs while unready; then the logs of a running pod of each of the path's first workloads
    not read yet."""
    order = {w: i for i, w in enumerate(path.workloads)}

    def rank(pod: Pod) -> tuple[int, bool, float]:
        owner = cluster.owner(ns, "pod", pod.name)
        newest = owner.startswith(("job/", "cronjob/")) and pod.age_s is not None
        # A pod being deleted is going away: its replacement's status says why the workload fails.
        going = pod.status.startswith("Terminating")
        return (
            order.get(owner, len(order)),
            going,
            (pod.age_s or 0.0) if newest else 0.0,
        )

    calls: Calls = []
    seen_owners: set[str] = set()
    for pod in sorted(cluster.pods(ns), key=rank):
        owner = cluster.owner(ns, "pod", pod.name)
        if pod.is_healthy or owner in seen_owners:
            continue
        seen_owners.add(owner)
        calls += _unhealthy_pod(cluster, pod, ns, call)
    # What the path's healthy pods log: whom they call and fail to reach.
    for workload in path.workloads[:4]:
        running = [p for p in cluster.pods_of(ns, workload) if p.status == "Running"]
        if running and workload not in seen_owners:
            pod = running[0]
            calls.append(
                call(
                    POD_LOGS,
                    {"pod": pod.name, "namespace": ns, "tail": 200},
                    f"what {pod.name} ({workload}, on the incident's path) logs",
                )
            )
            if len(running) > 1 and failing_lines(cluster, ns, pod)[1]:
                # One replica failing, or all of them: a sibling's logs tell.
                calls.append(
                    call(
                        POD_LOGS,
                        {"pod": running[1].name, "namespace": ns, "tail": 200},
                        f"{pod.name} logs failures: does its sibling {running[1].name} too",
                    )
                )
    return calls


def _unhealthy_pod(cluster: Cluster, pod: Pod, ns: str, call: Call) -> Calls:
    calls = [
        call(
            DESCRIBE,
            {"kind": "pod", "name": pod.name, "namespace": ns},
            f"why {pod.name} is {pod.status} ({'/'.join(map(str, pod.ready))} ready, {pod.restarts} restarts)",
        )
    ]
    described = cluster.describe("pods", ns, pod.name)
    containers = pod_containers(described.text) if described is not None else []
    if pod.status.startswith("Init:") and described is not None:
        # Held in its init containers: what the one still running (or restarting) says.
        calls += [
            call(
                POD_LOGS,
                {
                    "pod": pod.name,
                    "namespace": ns,
                    "container": init.name,
                    "previous": init.restarts > 0 and init.state != "Running",
                    "tail": 200,
                },
                f"{pod.name} is {pod.status}: what its init container {init.name} logs",
            )
            for init in init_containers(described.text)
            if init.state != "Terminated" or init.restarts > 0
        ][:1]
    if len(containers) > 1:
        # Several containers: kubectl's logs without -c show only the default one; read each
        # that failed by name (the one that crashed, not a sidecar that exited cleanly).
        calls += [
            call(
                POD_LOGS,
                {
                    "pod": pod.name,
                    "namespace": ns,
                    "container": container.name,
                    "previous": True,
                    "tail": 200,
                },
                f"what container {container.name} of {pod.name} logged before it last "
                f"ended ({container.last or container.waiting})",
            )
            for container in containers
            if container.has_failed
        ][:2]
    if pod.restarts > 0:
        calls.append(
            call(
                POD_LOGS,
                {"pod": pod.name, "namespace": ns, "previous": True, "tail": 200},
                f"what {pod.name} logged before its last restart",
            )
        )
    elif pod.status in CRASHING:
        # Ended without a restart (a job's pod): its logs are the current container's.
        calls.append(
            call(
                POD_LOGS,
                {"pod": pod.name, "namespace": ns, "tail": 200},
                f"what {pod.name} logged before it ended {pod.status}",
            )
        )
    if pod.status == "Running" and not pod.is_ready:
        calls.append(
            call(
                POD_LOGS,
                {"pod": pod.name, "namespace": ns, "tail": 200},
                f"what {pod.name} logs while not ready",
            )
        )
    return calls


def _unready_workloads(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """Deployments and stateful sets with fewer pods ready than they want."""
    calls: Calls = []
    for kind in ("deployments", "statefulsets"):
        table = cluster.table(kind, ns)
        for row in table.rows if table else ():
            ready = re.fullmatch(r"(\d+)/(\d+)", row.get("READY", ""))
            if ready and int(ready.group(1)) < int(ready.group(2)):
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": kind[:-1], "name": row["NAME"], "namespace": ns},
                        f"{kind[:-1]} {row['NAME']} has {row['READY']} ready",
                    )
                )
    return calls


def _short_replicasets(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """Replica sets that created fewer pods than they want (their events say why)."""
    calls: Calls = []
    table = cluster.table("replicasets", ns)
    for row in table.rows if table else ():
        desired, current = row.get("DESIRED", "0"), row.get("CURRENT", "0")
        if desired.isdigit() and current.isdigit() and int(current) < int(desired):
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "replicaset", "name": row["NAME"], "namespace": ns},
                    f"replica set {row['NAME']} created {current} of {desired} pods",
                )
            )
    return calls


def _quotas(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """The quotas a FailedCreate says are exceeded."""
    calls: Calls = []
    for event in cluster.warnings(ns):
        if event.reason == "FailedCreate" and "quota" in event.message.lower():
            quota = QUOTA.search(event.message)
            if quota:
                calls.append(
                    call(
                        DESCRIBE,
                        {
                            "kind": "resourcequota",
                            "name": quota.group(1),
                            "namespace": ns,
                        },
                        f"the quota {event.object} exceeds",
                    )
                )
    return calls


def _nodes(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """Nodes not ready (or unknown), and the nodes a node condition shows on (`condition_nodes`)."""
    calls: Calls = []
    nodes = cluster.table("nodes", ns)
    for row in nodes.rows if nodes else ():
        if "NotReady" in row.get("STATUS", "") or "Unknown" in row.get("STATUS", ""):
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "node", "name": row["NAME"], "namespace": ns},
                    f"why node {row['NAME']} is {row['STATUS']}",
                )
            )
    for name, why in condition_nodes(cluster, ns).items():
        calls.append(
            call(
                DESCRIBE,
                {"kind": "node", "name": name, "namespace": ns},
                f"node {name}: {why} (its conditions, taints and kubelet events)",
            )
        )
    return calls


def _neighbours(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """The pods beside those that time out on one node only: their QoS and limits (`neighbours`)."""
    return [
        call(
            DESCRIBE,
            {"kind": "pod", "name": pod.name, "namespace": ns},
            f"{pod.name} runs on {pod.node}, where another workload's pods time out: its CPU limits",
        )
        for pod in neighbours(cluster, ns)
    ]


def _claims(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """Claims not bound, and claims whose volume a warning says cannot be attached."""
    calls: Calls = []
    pvcs = cluster.table("persistentvolumeclaims", ns)
    for row in pvcs.rows if pvcs else ():
        if row.get("STATUS") not in ("Bound", None, ""):
            calls.append(
                call(
                    DESCRIBE,
                    {
                        "kind": "persistentvolumeclaim",
                        "name": row["NAME"],
                        "namespace": ns,
                    },
                    f"claim {row['NAME']} is {row.get('STATUS')}",
                )
            )
    for claim, event in blamed_claims(cluster, ns):
        calls.append(
            call(
                DESCRIBE,
                {"kind": "persistentvolumeclaim", "name": claim, "namespace": ns},
                f"claim {claim}: {event.reason} on {event.name} (who uses its volume)",
            )
        )
    return calls


def _preemptors(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """A pod of each workload that preempted pods here: its priority class."""
    return [
        call(
            DESCRIBE,
            {"kind": "pod", "name": p.pods[0].name, "namespace": p.namespace},
            f"{p.workload} preempted {', '.join(p.victims)}: its priority class",
        )
        for p in preemptors(cluster, ns)
        if p.pods
    ]


def _services(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    """The path's first services, and a pod behind each: selector, ports, probes."""
    calls: Calls = []
    for service in path.services[:4]:
        calls.append(
            call(
                DESCRIBE,
                {"kind": "service", "name": service, "namespace": ns},
                f"service {service}: selector, ports, endpoints",
            )
        )
        for workload in cluster.service_workloads(ns, service)[:1]:
            pods_of = cluster.pods_of(ns, workload)
            if pods_of:
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": "pod", "name": pods_of[0].name, "namespace": ns},
                        f"the ports and probes of {workload}, behind service {service}",
                    )
                )
    return calls


def _ingresses(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    return [
        call(
            DESCRIBE,
            {"kind": "ingress", "name": ingress, "namespace": ns},
            f"where ingress {ingress} routes",
        )
        for ingress in cluster.names("ingresses", ns)[:2]
    ]


def _control_plane(cluster: Cluster, ns: str, path: Path, call: Call) -> Calls:
    if (
        not needs_control_plane(cluster, ns)
        or "kube-system" not in (cluster.namespaces or [])
        or _pods_listed(cluster, "kube-system")
    ):
        return []
    return [
        call(
            GET_RESOURCES,
            {"kind": "pods", "namespace": "kube-system", "wide": True},
            "pods pending with no scheduling event or nodes not ready: is the control plane up",
        )
    ]


Detail = Callable[[Cluster, str, Path, Call], Calls]
DETAILS: tuple[Detail, ...] = (
    _pods,
    _unready_workloads,
    _short_replicasets,
    _quotas,
    _nodes,
    _neighbours,
    _claims,
    _preemptors,
    _services,
    _ingresses,
    _control_plane,
)
