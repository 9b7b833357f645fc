"""The metrics API: an autoscaler that cannot read its metrics cannot scale what it should.

Rule: a HorizontalPodAutoscaler warning that it cannot get its metrics (`FailedGetResourceMetric`
and its kin, `ScalingActive False`) holds its target at the replicas it has however the load grows;
the fault is the server of the metrics API — a metrics server's pods (`metrics-server`,
`prometheus-adapter`, in whatever namespace was read) not ready or restarting — and, with no such
pod shown failing, the autoscaler itself. The target and its callers are its victims (`explains`).
An autoscaler told that its target's pods give no metrics while some of them do not run (an image
that cannot be pulled, a pod refused) is the target's victim instead: the target's fault blinds it.

An event-driven autoscaler (a KEDA ScaledObject or ScaledJob) reads its metric from an outside
source itself (a queue, a stream, a database): when its scaler warns that it cannot read that
source (`KEDAScalerFailed`: a queue replaced or renamed, a credential gone), the workload it scales
stays where it is, at zero replicas when it scales to zero, while the work piles up. The fault is
that scaling object (`failing_scalers`), not its target scaled to 0, nor the callers waiting.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod, ref
from reasoning.layered.kubernetes.logs import FAILING
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short

# The autoscaler controller's reasons for metrics it could not read.
METRIC_FAILURES = frozenset(
    {
        "FailedGetResourceMetric",
        "FailedGetPodsMetric",
        "FailedGetObjectMetric",
        "FailedGetExternalMetric",
        "FailedGetContainerResourceMetric",
    }
)
# The servers that serve the metrics APIs an autoscaler reads.
_SERVER = re.compile(
    r"^(metrics-server|prometheus-adapter|keda-operator-metrics-apiserver)"
)
_SERVER_LABELS = ("app.kubernetes.io/name", "k8s-app", "app")


def blind_autoscalers(cluster: Cluster, ns: str) -> dict[str, list[Event]]:
    """The namespace's autoscalers warned that they cannot read their metrics, with those warnings."""
    out: dict[str, list[Event]] = {}
    for event in cluster.warnings(ns):
        if event.kind == "horizontalpodautoscaler" and event.reason in METRIC_FAILURES:
            out.setdefault(event.name, []).append(event)
    return out


def is_metrics_server(pod: Pod) -> bool:
    """A pod that serves a metrics API: named, or labelled, as one of the known servers."""
    names = [pod.name, *((pod.labels or {}).get(k, "") for k in _SERVER_LABELS)]
    return any(_SERVER.match(n) for n in names if n)


def failing_metrics_servers(cluster: Cluster) -> list[Pod]:
    """The metrics servers' pods, in every namespace whose pods were listed, not ready or restarting."""
    spaces = cluster.namespaces or sorted({ns for _, ns in cluster.tables})
    return [
        pod
        for space in spaces
        for pod in cluster.pods(space)
        if is_metrics_server(pod) and not pod.is_healthy
    ]


def _target(cluster: Cluster, ns: str, name: str) -> str:
    """The workload an autoscaler scales: its REFERENCE, else the deployment of its own name."""
    table = cluster.table("horizontalpodautoscalers", ns)
    row = table.row(name) if table else None
    kind, _, target = (row or {}).get("REFERENCE", "").partition("/")
    return ref(kind, target) if target else f"deployment/{name}"


# The controller's words for metrics missing because the target's pods give none.
_PODS_GIVE_NONE = re.compile(
    r"did not receive metrics for (?:any )?(?:ready )?(?:targeted )?pods|pods might be unready|"
    r"no metrics returned|missing request for",
    re.IGNORECASE,
)


def _own_pods_missing(
    cluster: Cluster, ns: str, target: str, warnings: list[Event]
) -> bool:
    """The warnings say the target's pods give no metrics, and some of its pods do not run ready."""
    return any(_PODS_GIVE_NONE.search(e.message) for e in warnings) and any(
        not p.is_healthy for p in cluster.pods_of(ns, target)
    )


def metrics_api_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """The metrics server (else the autoscaler) behind autoscalers that cannot read their metrics, unless the target's own pods that do not run give none (the autoscaler is then their victim)."""
    blind = blind_autoscalers(cluster, ns)
    if not blind:
        return []
    servers = failing_metrics_servers(cluster)
    found: dict[str, Finding] = {}
    for name, warnings in blind.items():
        target = _target(cluster, ns, name)
        if servers:
            pod = servers[0]
            component = cluster.owner(pod.namespace, "pod", pod.name)
            f = found.get(component) or _server_finding(cluster, ns, pod, component)
        else:
            component = f"horizontalpodautoscaler/{name}"
            f = found.get(component) or Finding(
                "performance",
                warnings[0].reason,
                component,
                layers.PLATFORM,
                f"autoscaler {name} cannot read its metrics and holds {target} at its replicas: "
                f"{short(warnings[0].message, 160)}",
                ns,
            )
        found[component] = f
        for event in warnings[:2]:
            f.cite(event.obs, event.fact)
        described = cluster.describe("horizontalpodautoscalers", ns, name)
        active = (
            re.search(r"^\s*ScalingActive\s+False\b.*$", described.text, re.MULTILINE)
            if described is not None
            else None
        )
        if described is not None and active is not None:
            f.cite(
                described,
                f"describe horizontalpodautoscaler {name}: {short(' '.join(active.group(0).split()), 200)}",
            )
        if not servers and _own_pods_missing(cluster, ns, target, warnings):
            # No metrics from pods that do not run: the target's own fault blinds it.
            f.victim_of = target
            f.chain.insert(
                0, f"{target}'s pods do not run: autoscaler {name} reads no metrics"
            )
            f.keywords += ["hpa", name, "metrics"]
            continue
        for victim in [target] + [
            e.caller
            for e in path.edges
            if e.service is not None
            and target in cluster.service_workloads(ns, e.service)
        ]:
            if victim not in f.explains:
                f.explains.append(victim)
        f.chain.insert(0, f"{target} stays at its replicas: autoscaler {name} is blind")
        f.keywords += ["hpa", name, "metrics"]
    return list(found.values())


# An event-driven autoscaler's warnings that its scaler cannot read its source.
SCALER_FAILURES = frozenset(
    {
        "KEDAScalerFailed",
        "KEDAScalersFailed",
        "ScaledObjectCheckFailed",
        "ScaledJobCheckFailed",
        "KEDAScaleTargetActivationFailed",
    }
)
_SCALERS = frozenset({"scaledobject", "scaledjob"})


def _scaled_target(cluster: Cluster, ns: str, name: str) -> str:
    """The workload a scaling object scales: its generated autoscaler's REFERENCE, else the deployment of its own name."""
    table = cluster.table("horizontalpodautoscalers", ns)
    row = table.row(f"keda-hpa-{name}") if table else None
    kind, _, target = (row or {}).get("REFERENCE", "").partition("/")
    return ref(kind, target) if target else f"deployment/{name}"


def failing_scalers(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """An event-driven scaling object whose scaler cannot read its source holds its workload (at zero) and is the fault."""
    found: dict[str, Finding] = {}
    for event in cluster.warnings(ns):
        if event.kind not in _SCALERS or event.reason not in SCALER_FAILURES:
            continue
        component = event.object
        f = found.get(component)
        if f is None:
            target = _scaled_target(cluster, ns, event.name)
            f = Finding(
                "performance",
                event.reason,
                component,
                layers.PLATFORM,
                f"{event.kind} {event.name} cannot read its scaler's source, so it cannot "
                f"scale {target} to the work waiting: {short(event.message, 200)}",
                ns,
            )
            f.explains.append(target)
            f.explains += [
                e.caller
                for e in path.edges
                if e.service is not None
                and target in cluster.service_workloads(ns, e.service)
                and e.caller not in f.explains
            ]
            f.chain = [f"{target} is not scaled to its work", f.statement]
            f.keywords = ["keda", event.kind, event.name, event.reason]
            found[component] = f
        if len(f.evidence) < 2:
            f.cite(event.obs, event.fact)
    return list(found.values())


def _server_finding(cluster: Cluster, ns: str, pod: Pod, component: str) -> Finding:
    f = Finding(
        "performance",
        "FailedGetResourceMetric",
        component,
        layers.PLATFORM,
        f"{component} ({pod.namespace}) does not serve the metrics API (its pod {pod.name} is "
        f"{pod.status}, {'/'.join(map(str, pod.ready))} ready): the autoscalers cannot read their "
        "metrics and cannot scale out",
        ns,
    )
    pods = cluster.table("pods", pod.namespace)
    if pods is not None:
        f.cite(pods.obs, f"get pods -n {pod.namespace}: {pod.line}")
    for event in cluster.warnings(pod.namespace):
        if event.name == pod.name and event.reason in ("Unhealthy", "BackOff"):
            f.cite(event.obs, event.fact)
            break
    for obs, text in cluster.log_text(pod.namespace, pod.name):
        tail = [line for line in text.splitlines() if FAILING.search(line)]
        if tail:
            f.cite(obs, f"logs {pod.name}: {short(tail[-1], 200)}")
    f.keywords = ["metrics-server", "FailedGetResourceMetric", "metrics API"]
    f.chain = [f.statement]
    return f
